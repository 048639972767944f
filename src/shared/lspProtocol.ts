/**
 * The one definition of the custom messages between the Inference Doctor language client
 * (src/flags/languageClient.ts) and the language server (src/server/). Both sides import these;
 * other editors can speak them too (plain JSON-RPC method names and JSON params).
 */
import { NotificationType, RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import type { CatalogJson } from '../core/flags';

/** Settings section the server reads through `workspace/configuration`. */
export const CONFIG_SECTION = 'inferenceDoctor.flags';
export interface FlagsSettings {
  /** Absolute path (or workspace-relative) of a server_args.py to build the catalog from. */
  serverArgsPath?: string;
  /** Turn known-bad rule diagnostics off. Default true. */
  ruleDiagnostics?: boolean;
}

/** Where the active catalog came from, in priority order. */
export type CatalogSourceKind = 'workspace' | 'runtime' | 'settings';

export interface SetRuntimeCatalogParams {
  /** `catalogToJson` of a catalog read from a remote/local SGLang install; null clears the runtime catalog. */
  catalog: CatalogJson | null;
  /** Host label shown in hovers ("gpu-box-1"). */
  hostLabel?: string;
  /** SGLang version of that install, when known ("0.5.3"). */
  version?: string;
  /** Compute capability of the selected host's GPU (12.0 for an RTX PRO 6000); omitted = unknown. */
  computeCapability?: number;
  /** Installed package versions on that host (flashinfer, sgl-kernel…), for version-ranged rules. */
  packageVersions?: Record<string, string>;
}
/** Client → server: a catalog from the installed server (and the GPU of its host). */
export const setRuntimeCatalogNotification = new NotificationType<SetRuntimeCatalogParams>('inferenceDoctor/setRuntimeCatalog');

export interface CatalogSourceInfo {
  kind: CatalogSourceKind;
  /** File path (workspace/settings) or host label (runtime). */
  label: string;
  version?: string;
  era: string;
  flags: number;
  /** Problems reading it (parse errors, missing file). */
  errors: string[];
}
export interface CatalogStatus {
  /** The catalog the checks use now, or null when none is available. */
  active: CatalogSourceInfo | null;
  /** Every loaded source, in priority order. */
  sources: CatalogSourceInfo[];
  computeCapability?: number;
  rules: { count: number; errors: string[]; files: string[] };
}
/** Client → server: which catalog is in use. */
export const catalogStatusRequest = new RequestType0<CatalogStatus, void>('inferenceDoctor/catalogStatus');
/** Server → client: the active catalog changed (same payload as catalogStatus). */
export const catalogChangedNotification = new NotificationType<CatalogStatus>('inferenceDoctor/catalogChanged');

export interface FlagsForDocumentParams { uri: string }
export interface LspRange { start: { line: number; character: number }; end: { line: number; character: number } }
export interface DocumentFlag {
  /** As written, without `=value`. */
  name: string;
  /** Canonical flag of the catalog entry, when known. */
  canonical?: string;
  /** Dataclass field / argparse dest (from the catalog, else derived from the name). */
  field: string;
  /** Values as argv will receive them; empty for a bare flag. */
  values: string[];
  known: boolean;
  range: LspRange;
}
export interface DocumentCommand {
  entry: 'launch_server' | 'serve';
  range: LspRange;
  env: Record<string, string>;
  flags: DocumentFlag[];
  /** Ids of known-bad rules matching this command. */
  rules: string[];
}
/** Client → server: the launch commands of a document and their flags (for the remote/flags features). */
export const flagsForDocumentRequest = new RequestType<FlagsForDocumentParams, DocumentCommand[], void>('inferenceDoctor/flagsForDocument');

/** Diagnostic `code`s the server emits (diagnostic.source is `inference-doctor`). */
export const DIAGNOSTIC_SOURCE = 'inference-doctor';
export type DiagnosticCode =
  | 'unknown-flag' | 'renamed-flag' | 'deprecated-flag' | 'invalid-choice' | 'deprecated-choice' | 'duplicate-flag' | 'known-bad';
