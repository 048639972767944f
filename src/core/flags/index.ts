/**
 * Flag catalog of SGLang's server_args.py, any era: inline add_argument calls (v0.3-v0.4),
 * *_CHOICES lists with add_*_choices hooks (2025), dataclass fields with Arg/NS/A (main).
 *
 *   const catalog = await buildCatalog(source);            // parse + extract
 *   const next = updateCatalog(catalog, { range, text });   // incremental, reuses the tree
 *   familyOf(entry);                                        // 'attention' | 'moe' | 'gemm' | ...
 *   catalogToJson(catalog) / catalogFromJson(json);         // cache and CLI form
 */
import type { Parser, Tree } from 'web-tree-sitter';
import { errorMessage } from '../errors';
import { editLineStarts, lineStarts, offsetAt } from '../lines';
import { extractWithState, reextractLocal, type ExtractState, type OffsetEdit } from './extract';
import { sharedPythonParser, type PythonParserOptions } from './parser';
import type { CatalogEdit, FlagCatalog } from './types';

export * from './types';
export { familyOf, FLAG_FAMILIES } from './family';
export { loadPythonParser, loadPythonLanguage, defaultPythonWasmPath, defaultTreeSitterWasmPath } from './parser';
export type { PythonParserOptions } from './parser';

export interface BuildOptions extends PythonParserOptions {
  /** Give up parsing after this many milliseconds (partial/empty catalog + diagnostic). Default 2000. */
  timeoutMs?: number;
  /** Keep the syntax tree for updateCatalog (default true). Trees live in WASM memory; see disposeCatalog. */
  keepTree?: boolean;
  /** Refuse inputs larger than this many UTF-16 code units (default 64 Mi). */
  maxLength?: number;
}

interface Retained {
  /** The latest tree; handed to the next incremental parse (and edited in place by it). */
  tree: Tree;
  source: string;
  parser: Parser;
  memo: Map<string, unknown>;
  opts: BuildOptions;
  /** State of the last full extraction, for re-extracting only the edited definition. */
  extract?: ExtractState;
  /** The tree `extract` holds nodes of; never edited, freed with the state. */
  baseTree?: Tree;
  /** Line start offsets of `source`, kept up to date across edits. */
  lines?: number[];
}

const retained = new WeakMap<FlagCatalog, Retained>();

/** Trees to free with a state: the latest one, and the unedited tree `extract` points into. */
function treesOf(state: Retained): Tree[] {
  return state.baseTree ? [state.tree, state.baseTree] : [state.tree];
}

function freeTrees(trees: Tree[]): void {
  for (const t of trees) {
    try {
      t.delete();
    } catch {
      /* already gone */
    }
  }
}

const registry = new FinalizationRegistry<Tree[]>(freeTrees);

function emptyCatalog(message: string): FlagCatalog {
  return { entries: [], choiceLists: [], era: 'unknown', diagnostics: [{ message, line: 1, severity: 'error' }] };
}

function parseBounded(parser: Parser, source: string, old: Tree | null, timeoutMs: number): Tree | null {
  const deadline = performance.now() + timeoutMs;
  try {
    return parser.parse(source, old, { progressCallback: () => performance.now() > deadline });
  } catch {
    return null;
  } finally {
    parser.reset();
  }
}

function keep(catalog: FlagCatalog, state: Retained): FlagCatalog {
  retained.set(catalog, state);
  registry.register(catalog, treesOf(state), catalog);
  return catalog;
}

function finish(parser: Parser, tree: Tree, source: string, memo: Map<string, unknown>, opts: BuildOptions): FlagCatalog {
  let catalog: FlagCatalog;
  let extract: ExtractState | undefined;
  try {
    ({ catalog, state: extract } = extractWithState(tree, parser.language!, { memo }));
  } catch (error) {
    catalog = emptyCatalog(`Catalog extraction failed: ${errorMessage(error)}`);
  }
  if (opts.keepTree === false) {
    tree.delete();
    return catalog;
  }
  // The extraction state points into `tree`; later edits go to a copy so those nodes stay valid.
  if (extract) {
    const work = tree.copy();
    return keep(catalog, { tree: work, source, parser, memo, opts, extract, baseTree: tree });
  }
  return keep(catalog, { tree, source, parser, memo, opts });
}

/** Parse `source` (a server_args.py of any era) and extract its flag catalog. Never throws on bad input. */
export async function buildCatalog(source: string, opts: BuildOptions = {}): Promise<FlagCatalog> {
  const parser = await sharedPythonParser(opts);
  return buildCatalogWith(parser, source, opts);
}

/** Synchronous variant once a parser is loaded (loadPythonParser). */
export function buildCatalogWith(parser: Parser, source: string, opts: BuildOptions = {}): FlagCatalog {
  if (source.length > (opts.maxLength ?? 64 * 1024 * 1024)) return emptyCatalog('File too large for the flag catalog');
  const tree = parseBounded(parser, source, null, opts.timeoutMs ?? 2000);
  if (!tree) return emptyCatalog('Parsing timed out or failed; no catalog');
  return finish(parser, tree, source, new Map(), opts);
}

function pointAfter(start: { row: number; column: number }, text: string): { row: number; column: number } {
  const nl = text.lastIndexOf('\n');
  if (nl < 0) return { row: start.row, column: start.column + text.length };
  let rows = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) rows++;
  return { row: start.row + rows, column: text.length - nl - 1 };
}

/**
 * Apply LSP-style edits to the source behind `prev` and re-extract, reusing the previous tree
 * (tree.edit + incremental reparse) and the per-definition memo. `prev` hands its tree over and
 * cannot be updated again. Falls back to a full parse when `prev` retained nothing and
 * `fallbackSource` (the previous text) is given.
 */
export function updateCatalog(prev: FlagCatalog, edit: CatalogEdit | CatalogEdit[]): FlagCatalog {
  const state = retained.get(prev);
  if (!state) throw new Error('updateCatalog: this catalog kept no syntax tree (built with keepTree: false, or already updated)');
  retained.delete(prev);
  registry.unregister(prev);
  const { parser, memo, opts } = state;
  const { tree } = state;
  let { source } = state;
  const edits = Array.isArray(edit) ? edit : [edit];
  let single: OffsetEdit | undefined;
  let starts = state.lines ?? lineStarts(source);
  for (const e of edits) {
    const startIndex = offsetAt(starts, source.length, e.range.start);
    const oldEndIndex = Math.max(startIndex, offsetAt(starts, source.length, e.range.end));
    const startPosition = { row: e.range.start.line, column: startIndex - starts[Math.min(e.range.start.line, starts.length - 1)] };
    const endLine = Math.min(e.range.end.line, starts.length - 1);
    const oldEndPosition = { row: endLine, column: oldEndIndex - starts[endLine] };
    source = source.slice(0, startIndex) + e.text + source.slice(oldEndIndex);
    starts = editLineStarts(starts, startIndex, oldEndIndex, e.text);
    const newEndPosition = pointAfter(startPosition, e.text);
    tree.edit({
      startIndex,
      oldEndIndex,
      newEndIndex: startIndex + e.text.length,
      startPosition,
      oldEndPosition,
      newEndPosition,
    });
    if (edits.length === 1) {
      single = {
        start: startIndex,
        oldEnd: oldEndIndex,
        newEnd: startIndex + e.text.length,
        startPoint: startPosition,
        oldEndPoint: oldEndPosition,
        newEndPoint: newEndPosition,
      };
    }
  }
  // Fast path: re-extract only the edited definition (parsed on its own) and reuse every other
  // entry. The file's tree keeps the edit pending; the next full parse takes it into account.
  if (single && state.extract && state.baseTree) {
    let local: FlagCatalog | undefined;
    try {
      local = reextractLocal(state.extract, prev, source, single, (text) => parseBounded(parser, text, null, opts.timeoutMs ?? 2000));
    } catch {
      local = undefined;
    }
    if (local) return keep(local, { ...state, source, lines: starts });
  }
  const next = parseBounded(parser, source, tree, opts.timeoutMs ?? 2000);
  freeTrees(treesOf(state));
  if (!next) return emptyCatalog('Parsing timed out or failed; no catalog');
  if (memo.size > 20_000) memo.clear();
  const catalog = finish(parser, next, source, memo, opts);
  const kept = retained.get(catalog);
  if (kept) kept.lines = starts;
  return catalog;
}

/** The source text a catalog was built from, when it kept its tree. */
export function catalogSource(catalog: FlagCatalog): string | undefined {
  return retained.get(catalog)?.source;
}

/** Free the WASM syntax tree a catalog keeps for updateCatalog. */
export function disposeCatalog(catalog: FlagCatalog): void {
  const state = retained.get(catalog);
  if (!state) return;
  retained.delete(catalog);
  registry.unregister(catalog);
  freeTrees(treesOf(state));
}

export const CATALOG_JSON_VERSION = 1;

export interface CatalogJson extends FlagCatalog {
  version: number;
  counts: { flags: number; withChoices: number; dynamicChoices: number; deprecated: number };
}

/** Plain JSON form (CLI --json and on-disk cache). */
export function catalogToJson(catalog: FlagCatalog): CatalogJson {
  const entries = catalog.entries.map((e) => ({ ...e }));
  return {
    version: CATALOG_JSON_VERSION,
    era: catalog.era,
    counts: {
      flags: entries.length,
      withChoices: entries.filter((e) => e.choices || e.choicesExpr).length,
      dynamicChoices: entries.filter((e) => e.dynamicChoices).length,
      deprecated: entries.filter((e) => e.deprecated).length,
    },
    entries,
    choiceLists: catalog.choiceLists.map((l) => ({ ...l })),
    diagnostics: catalog.diagnostics.map((d) => ({ ...d })),
  };
}

/** Re-open a cached catalog (no tree: updateCatalog needs a fresh buildCatalog). */
export function catalogFromJson(json: unknown): FlagCatalog | undefined {
  if (!json || typeof json !== 'object') return undefined;
  const j = json as Partial<CatalogJson>;
  if (j.version !== CATALOG_JSON_VERSION || !Array.isArray(j.entries) || !Array.isArray(j.choiceLists)) return undefined;
  return { entries: j.entries, choiceLists: j.choiceLists, era: j.era ?? 'unknown', diagnostics: j.diagnostics ?? [] };
}

export { readRuntimeCatalog, mergeCatalogs, loadDumpScript, parseArgparseHelp, actionsToCatalog, runtimeCacheFile, RuntimeCatalogError } from './runtime';
export type {
  RuntimeCatalog,
  ReadRuntimeOptions,
  MergedCatalog,
  FlagDifference,
  FlagDifferenceKind,
  RuntimeAction,
  EngineInstall,
  RuntimeEngine,
} from './runtime';
export { buildPackageCatalog, resolveLocalPackage, isFieldFilePath } from './packageLayout';
export type { PackageReadFile, PackageCatalogOptions, PackageCatalogInfo, LocalPackage } from './packageLayout';
