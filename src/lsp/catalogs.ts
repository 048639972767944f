/**
 * The catalog sources of the language server, in priority order: the workspace's server_args.py
 * (kept incrementally up to date while it is open), a runtime catalog pushed by the client, and a
 * path from settings. Plus the workspace search for server_args.py, bounded.
 */
import { existsSync, promises as fsp } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  buildCatalog,
  buildPackageCatalog,
  catalogFromJson,
  disposeCatalog,
  resolveLocalPackage,
  updateCatalog,
  type CatalogEdit,
  type FlagCatalog,
  type PythonParserOptions,
} from '../core/flags';
import { errorMessage } from '../core/errors';
import type { BundledCatalog, ReleaseMatch } from '../core/flags/bundled/query';
import { loadBundledCatalog, VLLM_BUNDLED_FILE } from '../core/flags/bundled/load';
import { VllmCatalogIndex } from './vllmIndex';
import { vllmMatch, vllmReleaseLabel } from '../core/flags/vllm/bundled';
import type { CatalogSourceInfo, SetHostGpuParams, SetRuntimeCatalogParams } from '../shared/lspProtocol';
import { CatalogIndex, type CatalogMeta } from './catalogIndex';

export interface LoadedCatalog {
  index: CatalogIndex;
  errors: string[];
  /** Absolute path of the file, for workspace/settings catalogs. */
  path?: string;
  /**
   * Set when the catalog was read from a split package (flags in srt/arg_groups/fields/): the
   * directory entries' `file` paths are relative to. Such a catalog keeps no tree: edits rebuild it.
   */
  packageRoot?: string;
}

/** A server_args.py that may take its flags from arg_groups (cheap test before reading the package). */
const SPLIT_HINT = /^\s*from\s+(?:sglang\.srt)?\.?\.?arg_groups\.fields\b/m;

/** Where web-tree-sitter's WASM files are: dist/wasm next to the bundle, else node_modules. */
export function parserOptions(baseDir: string): PythonParserOptions {
  const dir = join(baseDir, 'wasm');
  const py = join(dir, 'tree-sitter-python.wasm');
  const ts = join(dir, 'tree-sitter.wasm');
  return existsSync(py) && existsSync(ts) ? { wasmPath: py, treeSitterWasmPath: ts } : {};
}

/** SGLang's version next to a server_args.py (sglang/version.py), when present. */
async function versionNear(path: string): Promise<string | undefined> {
  try {
    const text = await fsp.readFile(join(dirname(dirname(path)), 'version.py'), 'utf8');
    return /__version__\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
  } catch {
    return undefined;
  }
}

const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', '__pycache__', '.mypy_cache', '.pytest_cache', '.tox', 'dist', 'build']);

/**
 * Finds server_args.py under the folders: `…/sglang/srt/server_args.py` first, else any
 * `server_args.py`. Bounded by entry count, depth and time.
 */
export async function findServerArgs(folders: string[], limits = { entries: 20_000, depth: 10, ms: 3000 }): Promise<string | undefined> {
  const deadline = Date.now() + limits.ms;
  let budget = limits.entries;
  let fallback: string | undefined;
  const queue: { dir: string; depth: number }[] = folders.map((dir) => ({ dir, depth: 0 }));
  while (queue.length && budget > 0 && Date.now() < deadline) {
    const { dir, depth } = queue.shift()!;
    let ents: import('node:fs').Dirent[];
    try {
      ents = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    budget -= ents.length;
    for (const e of ents) {
      const p = join(dir, e.name);
      if (e.isFile() && e.name === 'server_args.py') {
        if (/[\\/]sglang[\\/]srt[\\/]server_args\.py$/.test(p)) return p;
        fallback ??= p;
      } else if (e.isDirectory() && depth < limits.depth && !SKIP_DIRS.has(e.name)) {
        queue.push({ dir: p, depth: depth + 1 });
      }
    }
  }
  return fallback;
}

export function infoOf(c: LoadedCatalog): CatalogSourceInfo {
  return {
    kind: c.index.meta.kind,
    label: c.index.meta.label,
    era: c.index.catalog.era,
    flags: c.index.catalog.entries.length,
    errors: c.errors,
    ...(c.index.meta.version ? { version: c.index.meta.version } : {}),
    ...(c.index.meta.engine ? { engine: c.index.meta.engine } : {}),
  };
}

function errorsOf(catalog: FlagCatalog): string[] {
  return catalog.diagnostics
    .filter((d) => d.severity === 'error')
    .slice(0, 5)
    .map((d) => `line ${d.line}: ${d.message}`);
}

/** The bundled catalog of one release, with the match that chose it. */
export interface BundledChoice {
  loaded: LoadedCatalog;
  match: ReleaseMatch;
}

export class CatalogStore {
  workspace?: LoadedCatalog;
  /** SGLang's releases as facts (data/sglang-catalog.json), the last resort after the three above. */
  bundled?: BundledCatalog;
  bundledError?: string;
  private readonly bundledIndexes = new Map<number, LoadedCatalog>();
  /** vLLM's releases as facts (data/vllm-catalog.json): the catalog of every vLLM command. */
  vllmBundled?: BundledCatalog;
  vllmBundledError?: string;
  private readonly vllmIndexes = new Map<number, LoadedCatalog>();
  runtime?: LoadedCatalog;
  /** An installed vLLM's own catalog (setRuntimeCatalog with engine vllm): every vLLM command's, over the bundled one. */
  vllmRuntime?: LoadedCatalog;
  settings?: LoadedCatalog;
  computeCapability?: number;
  packageVersions?: Record<string, string>;
  /** This machine's GPU (setHostGpu); used when the runtime catalog's host gave none. */
  hostGpu?: { label: string; computeCapability: number };
  /** Bumped on every change; part of the analysis cache key. */
  generation = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly parserOpts: PythonParserOptions,
    private readonly baseDir?: string,
  ) {}

  /** Reads the bundled catalog once; a missing or damaged file is an error in the status, not a crash. */
  async loadBundled(): Promise<void> {
    if (this.bundled || this.bundledError) return;
    try {
      this.bundled = await loadBundledCatalog(this.baseDir);
    } catch (e) {
      this.bundledError = errorMessage(e);
    }
    this.generation++;
  }

  /** Reads the bundled vLLM catalog once (an error in the status when it is missing or damaged). */
  async loadVllmBundled(): Promise<void> {
    if (this.vllmBundled || this.vllmBundledError) return;
    try {
      this.vllmBundled = await loadBundledCatalog(this.baseDir, VLLM_BUNDLED_FILE);
    } catch (e) {
      this.vllmBundledError = errorMessage(e);
    }
    this.generation++;
  }

  /**
   * The bundled vLLM catalog of a release, built once per release. With no version, or one newer
   * than the newest bundled release, the newest snapshot of main answers (vLLM releases often; the
   * tagged releases bundled stop before it).
   */
  vllmBundledFor(version?: string): BundledChoice | undefined {
    const b = this.vllmBundled;
    if (!b) return undefined;
    const match = vllmMatch(b, version);
    let loaded = this.vllmIndexes.get(match.index);
    if (!loaded) {
      const meta: CatalogMeta = {
        kind: 'bundled',
        label: `bundled catalog of vLLM ${vllmReleaseLabel(match)}`,
        version: match.release.version,
        engine: 'vllm',
      };
      loaded = { index: new VllmCatalogIndex(b.catalogFor(match.index), meta), errors: [] };
      this.vllmIndexes.set(match.index, loaded);
    }
    return { loaded, match };
  }

  /** The index of a bundled vLLM release already matched. */
  vllmIndexOf(match: ReleaseMatch): CatalogIndex | undefined {
    return this.vllmBundledFor(match.release.version === 'main' ? undefined : match.release.version)?.loaded.index;
  }

  /** The bundled catalog of a release (a version, else the newest), built once per release. */
  bundledFor(version?: string): BundledChoice | undefined {
    const b = this.bundled;
    if (!b) return undefined;
    const match = (version ? b.match(version) : undefined) ?? b.newest();
    let loaded = this.bundledIndexes.get(match.index);
    if (!loaded) {
      const v = match.release.version;
      const meta: CatalogMeta = { kind: 'bundled', label: `bundled catalog of SGLang ${v}`, version: v };
      loaded = { index: new CatalogIndex(b.catalogFor(match.index), meta), errors: [] };
      this.bundledIndexes.set(match.index, loaded);
    }
    return { loaded, match };
  }

  active(): CatalogIndex | undefined {
    return this.activeLoaded()?.index;
  }

  /** The catalog in use, by priority; `staticOnly` skips the runtime catalog (the file-based one). */
  activeLoaded(staticOnly = false): LoadedCatalog | undefined {
    return this.workspace ?? (staticOnly ? undefined : this.runtime) ?? this.settings;
  }

  /** Every loaded catalog, in priority order. */
  loaded(): LoadedCatalog[] {
    return [this.workspace, this.runtime, this.settings].filter((c): c is LoadedCatalog => !!c);
  }

  /** Runs catalog work one at a time (tree handover in updateCatalog is not re-entrant). */
  serial<T>(job: () => Promise<T> | T): Promise<T> {
    const next = this.queue.then(job, job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * The catalog of a server_args.py: of its whole package when the flags live in
   * srt/arg_groups/fields/ (`overlay`: editor texts by absolute path), else of the file alone.
   */
  async fromFile(kind: 'workspace' | 'settings', path: string, text?: string, overlay?: ReadonlyMap<string, string>): Promise<LoadedCatalog> {
    let source = text;
    const errors: string[] = [];
    if (source === undefined) {
      try {
        source = await fsp.readFile(path, 'utf8');
      } catch (e) {
        errors.push(`cannot read ${path}: ${errorMessage(e)}`);
        source = '';
      }
    }
    const meta: CatalogMeta = { kind, label: path, uri: pathToFileURL(path).toString() };
    const version = await versionNear(path);
    if (version) meta.version = version;
    if (SPLIT_HINT.test(source)) {
      const pkg = await resolveLocalPackage(path).catch(() => undefined);
      if (pkg && pkg.serverArgs.includes('/')) {
        const texts = new Map<string, string>([[pkg.serverArgs, source]]);
        for (const [abs, t] of overlay ?? []) {
          const rel = relative(pkg.root, abs).split(sep).join('/');
          if (!rel.startsWith('..')) texts.set(rel, t);
        }
        const split = await buildPackageCatalog(pkg.serverArgs, pkg.readFile, { ...this.parserOpts, overlay: texts });
        if (split.package.layout === 'split') {
          errors.push(...errorsOf(split));
          meta.baseUri = pathToFileURL(pkg.root).toString();
          return { index: new CatalogIndex(split, meta), errors, path, packageRoot: pkg.root };
        }
      }
    }
    const catalog = await buildCatalog(source, { ...this.parserOpts, keepTree: kind === 'workspace' });
    errors.push(...errorsOf(catalog));
    return { index: new CatalogIndex(catalog, meta), errors, path };
  }

  setWorkspace(c: LoadedCatalog | undefined): void {
    if (this.workspace && this.workspace !== c) disposeCatalog(this.workspace.index.catalog);
    this.workspace = c;
    this.generation++;
  }

  setSettings(c: LoadedCatalog | undefined): void {
    this.settings = c;
    this.generation++;
  }

  /** Applies editor changes to the workspace catalog (incremental reparse). */
  applyEdits(edits: CatalogEdit[]): boolean {
    const w = this.workspace;
    if (!w) return false;
    const next = updateCatalog(w.index.catalog, edits);
    this.workspace = { index: new CatalogIndex(next, w.index.meta), errors: errorsOf(next), path: w.path };
    this.generation++;
    return true;
  }

  setHostGpu(p: SetHostGpuParams): void {
    const cc = p.computeCapability;
    this.hostGpu =
      typeof cc === 'number' && Number.isFinite(cc) && cc > 0 && cc < 100 ? { label: String(p.hostLabel).slice(0, 200), computeCapability: cc } : undefined;
    this.generation++;
  }

  /** The compute capability known-issue checks use: the chosen host's, else this machine's. */
  ruleComputeCapability(): number | undefined {
    return this.computeCapability ?? this.hostGpu?.computeCapability;
  }

  /** A runtime catalog of SGLang or vLLM (each engine keeps its own); the host's GPU and packages either way. */
  setRuntime(p: SetRuntimeCatalogParams): string[] {
    const errors: string[] = [];
    this.computeCapability = typeof p.computeCapability === 'number' && Number.isFinite(p.computeCapability) ? p.computeCapability : undefined;
    this.packageVersions = p.packageVersions && typeof p.packageVersions === 'object' ? p.packageVersions : undefined;
    const vllm = p.engine === 'vllm';
    let loaded: LoadedCatalog | undefined;
    if (p.catalog !== null && p.catalog !== undefined) {
      const catalog = catalogFromJson(p.catalog);
      if (!catalog) errors.push('runtime catalog: unsupported JSON (version or shape)');
      else {
        const meta: CatalogMeta = { kind: 'runtime', label: p.hostLabel ?? 'runtime', ...(vllm ? { engine: 'vllm' as const } : {}) };
        if (p.version) meta.version = p.version;
        loaded = { index: vllm ? new VllmCatalogIndex(catalog, meta) : new CatalogIndex(catalog, meta), errors };
      }
    }
    // Unreadable JSON keeps the catalog there was (the error is logged); null clears it.
    if (loaded || p.catalog === null || p.catalog === undefined) {
      if (vllm) this.vllmRuntime = loaded;
      else this.runtime = loaded;
    }
    this.generation++;
    return errors;
  }
}
