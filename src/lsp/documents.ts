/** The language server's own store of open documents (so server_args.py edits reach the catalog). */
import { fileURLToPath } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { launchSyntaxOf, type LanguageHint } from '../core/launch';
import type { Analysis } from './analysis';
import type { CatalogIndex } from './catalogIndex';

export interface Doc {
  doc: TextDocument;
  /** The launch syntax to read it as; undefined: no launch commands looked for. */
  hint: LanguageHint | undefined;
  isServerArgs: boolean;
  /** A namespace-class file of the split layout (`…/srt/arg_groups/fields/x.py`): lenses from its own catalog, never the workspace catalog. */
  isFieldFile?: boolean;
  /** The last analysis, keyed by document version and catalog generation. */
  cache?: { key: string; analysis: Analysis; index?: CatalogIndex };
}

export function uriToPath(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

export function isServerArgsUri(uri: string): boolean {
  return /(^|[\\/])server_args\.py$/.test(uri.split(/[?#]/)[0]) || isFieldFileUri(uri);
}

/** `…/sglang/srt/arg_groups/fields/*.py` (not __init__.py): where the split layout declares its flags. */
export function isFieldFileUri(uri: string): boolean {
  return /(^|[\\/])srt[\\/]arg_groups[\\/]fields[\\/](?!__init__\.py$)[^\\/]+\.py$/.test(uri.split(/[?#]/)[0]);
}

export function openDoc(uri: string, languageId: string, version: number, text: string): Doc {
  const d: Doc = { doc: TextDocument.create(uri, languageId, version, text), hint: launchSyntaxOf(languageId, uri), isServerArgs: isServerArgsUri(uri) };
  if (isFieldFileUri(uri)) d.isFieldFile = true;
  return d;
}
