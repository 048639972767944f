/**
 * The one definition of the custom messages between the Inference Doctor language client
 * (src/flags/languageClient.ts) and the language server (src/lsp/). Both sides import these;
 * other editors can speak them too (plain JSON-RPC method names and JSON params).
 */
import type { CatalogJson, ChoiceList, FlagEntry } from '../core/flags';
import type { FlagChange } from '../core/launch/edit';

/** Settings section the server reads through `workspace/configuration`. */
export const CONFIG_SECTION = 'inferenceDoctor.flags';
export interface FlagsSettings {
  /** Absolute path (or workspace-relative) of a server_args.py to build the catalog from. */
  serverArgsPath?: string;
  /** Turn known-bad rule diagnostics off. Default true. */
  ruleDiagnostics?: boolean;
  /** The SGLang release launch files are judged against when nothing else says ("0.5.6"); empty: detect, else the newest bundled. */
  sglangVersion?: string;
}

/** Where the active catalog came from, in priority order. */
export type CatalogSourceKind = 'workspace' | 'runtime' | 'settings' | 'bundled';
/** The engines whose launch commands the server reads. */
export type LaunchEngine = 'sglang' | 'vllm';

export interface SetRuntimeCatalogParams {
  /**
   * `catalogToJson` of a catalog read from an installed engine; null clears that engine's runtime
   * catalog. SGLang's stands in for server_args.py; vLLM's for the bundled vLLM catalog on every
   * vLLM command. Each engine keeps its own: loading one leaves the other in place.
   */
  catalog: CatalogJson | null;
  /** Whose parser the catalog came from; absent: SGLang. */
  engine?: LaunchEngine;
  /** Host label shown in hovers ("gpu-box-1"). */
  hostLabel?: string;
  /** Version of that install, when known ("0.5.3"). */
  version?: string;
  /** Compute capability of the selected host's GPU (12.0 for an RTX PRO 6000); omitted = unknown. */
  computeCapability?: number;
  /** Installed package versions on that host (flashinfer, sgl-kernel…), for version-ranged rules. */
  packageVersions?: Record<string, string>;
}

/**
 * The GPU of the machine local launch files run on, found by the same query discovery runs
 * (nvidia-smi). A host chosen through a runtime catalog takes precedence.
 */
export interface SetHostGpuParams {
  /** "This machine" */
  hostLabel: string;
  /** 12.0; omitted: no NVIDIA GPU there (or nvidia-smi could not say). */
  computeCapability?: number;
  /** "NVIDIA RTX PRO 6000 Blackwell Server Edition" */
  gpuName?: string;
}

/** The server chosen in the Backend Flags view and the `version` of its /server_info (absent: unknown). */
export interface SetServerReleaseParams {
  label: string;
  version?: string;
}

export interface CatalogSourceInfo {
  kind: CatalogSourceKind;
  /** Set for a vLLM catalog (absent: SGLang). */
  engine?: 'vllm';
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
  /** The installed vLLM's catalog, when one was loaded: vLLM commands use it instead of the bundled one. */
  vllmRuntime?: CatalogSourceInfo;
  computeCapability?: number;
  rules: { count: number; errors: string[]; files: string[] };
}

export interface FlagsForDocumentParams {
  uri: string;
}
export interface LspRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}
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
  entry: 'launch_server' | 'serve' | 'api_server' | 'image';
  /** Which server the command starts. */
  engine: LaunchEngine;
  range: LspRange;
  env: Record<string, string>;
  flags: DocumentFlag[];
  /** Ids of known-bad rules matching this command. */
  rules: string[];
}
export interface CatalogEntriesParams {
  /** The generation the caller already has; the answer is `{ unchanged: true }` when it is current. */
  knownGeneration?: number;
  /**
   * Ask for the catalog read from a file (workspace, else settings) even when a runtime catalog is
   * loaded: the static side of a static-vs-runtime comparison.
   */
  staticOnly?: boolean;
  /**
   * Ask for the bundled vLLM catalog of a release instead (the newest snapshot when the version is
   * absent or newer than every bundled one): what an installed vLLM's parser is compared with.
   */
  bundledVllm?: { version?: string };
  /**
   * Whose flags (absent: SGLang, as before). vLLM's answer is the installed vLLM's runtime catalog
   * when one was loaded, else the bundled vLLM catalog of the release `uri` runs (its image tag or
   * `vllm==` pin, or one next to it), else of the newest bundled snapshot.
   */
  engine?: LaunchEngine;
  /** An open launch document whose vLLM release picks the bundled vLLM catalog (engine vllm only). */
  uri?: string;
}
export interface CatalogEntriesResult {
  /** Changes whenever any catalog (or rule set) changes. */
  generation: number;
  unchanged?: boolean;
  /** The active catalog's source, or null when there is none. */
  source: CatalogSourceInfo | null;
  entries: FlagEntry[];
  choiceLists: ChoiceList[];
  /**
   * The server_args.py (URI) where the entries' lines point: the active catalog's file, or for a
   * runtime catalog the workspace/settings file holding its flags; absent when none is known.
   */
  definitionUri?: string;
  /** For a runtime catalog: field → 1-based line in definitionUri (runtime entries carry no lines). */
  definitionLines?: Record<string, number>;
  /**
   * A split package (flags in srt/arg_groups/fields/): the file:// URI of the directory that
   * entries' `file` paths are relative to; an entry with `file` is defined there, not in definitionUri.
   */
  definitionBaseUri?: string;
  /** For a runtime catalog over a split package: field → `file` (relative to definitionBaseUri). */
  definitionFiles?: Record<string, string>;
}

/** Commands the code lenses on server_args.py invoke; the extension registers them. */
export const LENS_COMMANDS = {
  copyFlag: 'inferenceDoctor.copyFlag',
  findFieldUsages: 'inferenceDoctor.findFieldUsages',
  revealFlag: 'inferenceDoctor.revealFlag',
} as const;
/** The command a known-issue quick fix offers besides the edit: change the running server and re-probe it. */
export const FIX_COMMANDS = {
  applyAndVerify: 'inferenceDoctor.applyAndVerify',
} as const;
/** Its single argument. */
export interface ApplyAndVerifyArgs {
  /** The launch file the fix is for. */
  uri: string;
  changes: FlagChange[];
  /** The rule's fix, one line ("Use the cuDNN FP4 GEMM"). */
  summary: string;
}

/**
 * The `data` of a diagnostic that has quick fixes. A known issue's fixes carry their flag changes
 * too: "Apply to Server" and the backend sweep read them (the sweep suggests those flags first).
 */
export interface DiagnosticFixData {
  fixes: DiagnosticFix[];
}
export interface DiagnosticFix {
  title: string;
  edits: { range: LspRange; newText: string }[];
  preferred?: boolean;
  changes?: FlagChange[];
  summary?: string;
}

/** The single argument of every lens command. */
export interface FlagLensArgs {
  flag: string;
  field: string;
  /** The server_args.py the lens sits in. */
  uri: string;
  /** For a *_CHOICES lens: the flags using that list. */
  flags?: string[];
}

/**
 * The custom notifications and requests, by method name. Types only: the extension host must
 * not load the protocol library at activation, so both sides send plain method strings through
 * the typed helpers below.
 */
export interface CustomNotifications {
  /** Client → server: a catalog from the installed server (and the GPU of its host). */
  'inferenceDoctor/setRuntimeCatalog': SetRuntimeCatalogParams;
  /** Client → server: the GPU of this machine, for known-issue checks when no runtime host was chosen. */
  'inferenceDoctor/setHostGpu': SetHostGpuParams;
  /** Client → server: the SGLang version the selected server reports in /server_info. */
  'inferenceDoctor/setServerRelease': SetServerReleaseParams;
  /** Server → client: the active catalog changed (same payload as catalogStatus). */
  'inferenceDoctor/catalogChanged': CatalogStatus;
}
export interface CustomRequests {
  /** Client → server: which catalog is in use. */
  'inferenceDoctor/catalogStatus': { params: undefined; result: CatalogStatus };
  /** Client → server: the launch commands of a document and their flags (for the remote/flags features). */
  'inferenceDoctor/flagsForDocument': { params: FlagsForDocumentParams; result: DocumentCommand[] };
  /** Client → server: the active catalog's entries (Backend Flags view). */
  'inferenceDoctor/catalogEntries': { params: CatalogEntriesParams; result: CatalogEntriesResult };
}

/* eslint-disable @typescript-eslint/no-explicit-any -- mirrors the libraries' string-method overloads */
/** What both vscode-languageclient's client and vscode-languageserver's connection offer. */
interface JsonRpcPeer {
  sendNotification(method: string, params?: any): unknown;
  onNotification(method: string, handler: (...params: any[]) => void): unknown;
  sendRequest<R>(method: string, params?: any): Promise<R>;
  onRequest(method: string, handler: (...params: any[]) => unknown): unknown;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

export function sendCustomNotification<M extends keyof CustomNotifications>(
  peer: Pick<JsonRpcPeer, 'sendNotification'>,
  method: M,
  params: CustomNotifications[M],
): Promise<void> {
  return Promise.resolve(peer.sendNotification(method, params)).then(() => undefined);
}
export function onCustomNotification<M extends keyof CustomNotifications>(
  peer: Pick<JsonRpcPeer, 'onNotification'>,
  method: M,
  handler: (params: CustomNotifications[M]) => void,
): unknown {
  return peer.onNotification(method, handler);
}
export function sendCustomRequest<M extends keyof CustomRequests>(
  peer: Pick<JsonRpcPeer, 'sendRequest'>,
  method: M,
  params: CustomRequests[M]['params'],
): Promise<CustomRequests[M]['result']> {
  return params === undefined ? peer.sendRequest(method) : peer.sendRequest(method, params);
}
export function onCustomRequest<M extends keyof CustomRequests>(
  peer: Pick<JsonRpcPeer, 'onRequest'>,
  method: M,
  handler: (params: CustomRequests[M]['params']) => CustomRequests[M]['result'] | Promise<CustomRequests[M]['result']>,
): unknown {
  return peer.onRequest(method, handler);
}

/** Diagnostic `code`s the server emits (diagnostic.source is `inference-doctor`). */
export const DIAGNOSTIC_SOURCE = 'inference-doctor';
export type DiagnosticCode =
  | 'unknown-flag'
  | 'renamed-flag'
  | 'deprecated-flag'
  | 'invalid-choice'
  | 'deprecated-choice'
  | 'duplicate-flag'
  | 'known-bad'
  | 'diagnosis'
  | 'release-mismatch'
  /** A vLLM environment variable a flag replaced: deprecated, or no longer read. */
  | 'deprecated-env';
