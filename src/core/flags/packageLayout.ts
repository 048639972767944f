/**
 * Flag catalog of an SGLang package whose flags live in several files (the `arg_groups` split):
 * server_args.py imports namespace classes from `sglang/srt/arg_groups/fields/*.py`, choice lists
 * from `arg_groups/choices.py` and the `A`/`Arg`/`NS` helpers from `arg_groups/arg_utils.py`, and
 * builds ServerArgs from them either by inheritance (`class ServerArgs(Model, ExecKernel, ...)`,
 * fields in reverse-MRO order) or by assembly (`collect_input_fields(_INPUT_NAMESPACES)`, fields in
 * `POSITIONAL_FIELD_ORDER` first, then in declaration order). The result is ONE FlagCatalog, each
 * entry carrying the file it comes from (FlagEntry.file: a POSIX path relative to the directory
 * that holds the `sglang` package; line and range are in that file).
 *
 *   const pkg = await resolveLocalPackage('/site-packages/sglang');          // or .../srt, or server_args.py
 *   const catalog = await buildPackageCatalog(pkg.serverArgs, pkg.readFile);  // any readFile: local, SFTP, ...
 *
 * Why this is hand-written: no library resolves Python imports statically from source text alone
 * (jedi/pyright need a Python or a Node language server plus a full environment, and would have to
 * run inside the user's install); here only a handful of `from X import Y` forms inside one
 * package matter, read with the same tree-sitter parser and Extractor as the one-file catalog, and
 * the reader is a callback so that remote hosts work with no Python at all.
 *
 * A server_args.py that is not of this layout (inline add_argument, *_CHOICES + hooks, one-file
 * Annotated dataclass) gives exactly the one-file catalog, with `file` set on its entries.
 */
import { promises as fsp } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Node, Parser, Tree } from 'web-tree-sitter';
import { errorMessage } from '../errors';
import { dottedName, UNRESOLVED, type Evaluated } from './pyvalue';
import { Extractor, finishEntries, type ClassInfo, type ConstInfo } from './extract';
import { sharedPythonParser, type PythonParserOptions } from './parser';
import type { CatalogDiagnostic, FlagCatalog, FlagEntry } from './types';

/** Reads a file of the package by its path relative to the import root (POSIX separators); undefined when absent. */
export type PackageReadFile = (relPath: string) => Promise<string | undefined>;

export interface PackageCatalogOptions extends PythonParserOptions {
  /** Give up parsing one file after this many milliseconds. Default 2000. */
  timeoutMs?: number;
  /** Most files read (server_args.py included). Default 64. */
  maxFiles?: number;
  /** Refuse files larger than this many UTF-16 code units (default 16 Mi). */
  maxLength?: number;
  /**
   * Text to use instead of what readFile returns, by relative path (an editor's unsaved buffer).
   * Checked before readFile.
   */
  overlay?: ReadonlyMap<string, string>;
}

export interface PackageCatalogInfo {
  /** The relative path of server_args.py the catalog starts from. */
  serverArgs: string;
  /** Every file read, in the order read. */
  files: string[];
  /** How ServerArgs gets its fields: from other files (`split`), or its own file only (`single`). */
  layout: 'split' | 'single';
}

/** Modules whose constants (choice lists, POSITIONAL_FIELD_ORDER) are followed, relative imports resolved first: the arg_groups tree. Classes are followed anywhere in the package. */
const FOLLOWED = /^[A-Za-z_]\w*\.srt\.arg_groups(\.|$)/;
/** Base classes that hold no flags. */
const NO_FLAG_BASES = new Set(['object', 'msgspec.Struct', 'Struct', 'Generic', 'typing.Generic', 'Protocol', 'typing.Protocol', 'ABC', 'abc.ABC']);

interface ImportedName {
  /** Absolute dotted module, relative imports resolved. */
  module: string;
  /** The name in that module. */
  name: string;
}

interface ModuleScan {
  rel: string;
  /** Dotted module name (`sglang.srt.arg_groups.fields.exec_`). */
  module: string;
  tree: Tree;
  ex: Extractor;
  /** Local name → where it is imported from (only `from M import x [as y]`). */
  imports: Map<string, ImportedName>;
  /** Names this module defines itself (before any injection). */
  own: Set<string>;
  injected: boolean;
}

function posix(p: string): string {
  return p.replace(/\\/g, '/').replace(/^\.\//, '');
}

/** `a/b/c.py` → `a.b.c`; `a/b/__init__.py` → `a.b`. */
function moduleOfRel(rel: string): string {
  const noExt = rel.replace(/\.py$/, '');
  const parts = noExt.split('/').filter(Boolean);
  if (parts[parts.length - 1] === '__init__') parts.pop();
  return parts.join('.');
}

/** The package `rel` belongs to (itself for an __init__.py). */
function packageOfRel(rel: string): string {
  const m = moduleOfRel(rel);
  return /\/__init__\.py$/.test(rel) || rel === '__init__.py' ? m : m.split('.').slice(0, -1).join('.');
}

/** `from` imports of a module: local name → source module and name. */
function readImports(root: Node, rel: string): Map<string, ImportedName> {
  const out = new Map<string, ImportedName>();
  const pkg = packageOfRel(rel).split('.').filter(Boolean);
  const visit = (block: Node, depth: number): void => {
    if (depth > 4) return;
    for (const stmt of block.namedChildren) {
      if (!stmt) continue;
      if (stmt.type === 'if_statement' || stmt.type === 'try_statement') {
        for (const c of stmt.namedChildren) {
          if (c?.type === 'block') visit(c, depth + 1);
          else if (c && /clause$/.test(c.type)) {
            const b = c.namedChildren.find((x) => x?.type === 'block');
            if (b) visit(b, depth + 1);
          }
        }
        continue;
      }
      if (stmt.type !== 'import_from_statement') continue;
      const modNode = stmt.childForFieldName('module_name');
      if (!modNode) continue;
      let module: string;
      if (modNode.type === 'relative_import') {
        const text = modNode.text;
        const dots = /^\.*/.exec(text)![0].length;
        const rest = text.slice(dots);
        const base = pkg.slice(0, Math.max(0, pkg.length - (dots - 1)));
        module = [...base, ...(rest ? rest.split('.') : [])].join('.');
      } else module = modNode.text.replace(/\s+/g, '');
      for (const n of stmt.namedChildren) {
        if (!n || n === modNode) continue;
        if (n.type === 'aliased_import') {
          const name = n.childForFieldName('name')?.text;
          const alias = n.childForFieldName('alias')?.text;
          if (name && alias) out.set(alias, { module, name });
        } else if (n.type === 'dotted_name') out.set(n.text, { module, name: n.text });
      }
    }
  };
  visit(root, 0);
  return out;
}

/** The class list given to `collect_input_fields(...)` at module level, when there is one. */
function assemblyList(scan: ModuleScan): { classes: string[]; fn: string } | undefined {
  for (const stmt of scan.tree.rootNode.namedChildren) {
    if (stmt?.type !== 'expression_statement') continue;
    const a = stmt.firstNamedChild;
    const call = a?.type === 'assignment' ? a.childForFieldName('right') : a;
    if (call?.type !== 'call') continue;
    const fn = dottedName(call.childForFieldName('function') ?? call);
    if (!fn || !/(^|\.)collect_input_fields$/.test(fn)) continue;
    const arg = call.childForFieldName('arguments')?.namedChildren.find((x) => x && x.type !== 'comment' && x.type !== 'keyword_argument');
    if (!arg) continue;
    let list: Node | undefined = arg;
    if (arg.type === 'identifier') list = scan.ex.consts.get(arg.text)?.valueNode;
    if (!list || (list.type !== 'list' && list.type !== 'tuple')) continue;
    const classes = list.namedChildren.filter((x): x is Node => !!x && x.type !== 'comment').map((x) => dottedName(x) ?? '');
    return { classes: classes.filter(Boolean), fn: fn.split('.').pop()! };
  }
  return undefined;
}

/** C3 linearization; undefined when the hierarchy has no consistent order. */
function c3<T>(head: T, basesOf: (t: T) => T[], depth = 0): T[] | undefined {
  if (depth > 32) return undefined;
  const bases = basesOf(head);
  const seqs: T[][] = [];
  for (const b of bases) {
    const l = c3(b, basesOf, depth + 1);
    if (!l) return undefined;
    seqs.push(l);
  }
  seqs.push([...bases]);
  const out: T[] = [head];
  for (let guard = 0; guard < 10_000; guard++) {
    const live = seqs.filter((s) => s.length);
    if (!live.length) return out;
    const cand = live.map((s) => s[0]).find((c) => !live.some((s) => s.indexOf(c) > 0));
    if (cand === undefined) return undefined;
    out.push(cand);
    for (const s of live) if (s[0] === cand) s.shift();
  }
  return undefined;
}

interface ResolvedClass {
  scan: ModuleScan;
  cls: ClassInfo;
}

class PackageReader {
  readonly scans = new Map<string, ModuleScan | null>();
  readonly order: string[] = [];
  readonly diagnostics: CatalogDiagnostic[] = [];
  private readonly pkgName: string;

  constructor(
    private readonly parser: Parser,
    private readonly readFile: PackageReadFile,
    private readonly opts: PackageCatalogOptions,
    serverArgsRel: string,
  ) {
    this.pkgName = moduleOfRel(serverArgsRel).split('.')[0] ?? 'sglang';
  }

  diag(message: string, line: number, file: string | undefined, severity: 'error' | 'warning' = 'warning'): void {
    if (this.diagnostics.length < 50) this.diagnostics.push({ message, line, severity, ...(file ? { file } : {}) });
  }

  private async text(rel: string): Promise<string | undefined> {
    const o = this.opts.overlay?.get(rel);
    if (o !== undefined) return o;
    try {
      return await this.readFile(rel);
    } catch {
      return undefined;
    }
  }

  /** Parses and scans one file (cached by relative path). */
  async load(rel: string): Promise<ModuleScan | undefined> {
    if (this.scans.has(rel)) return this.scans.get(rel) ?? undefined;
    if (this.scans.size >= (this.opts.maxFiles ?? 64)) {
      this.diag(`Package catalog: more than ${this.opts.maxFiles ?? 64} files; ${rel} was not read`, 1, rel);
      this.scans.set(rel, null);
      return undefined;
    }
    this.scans.set(rel, null);
    const source = await this.text(rel);
    if (source === undefined) return undefined;
    if (source.length > (this.opts.maxLength ?? 16 * 1024 * 1024)) {
      this.diag('File too large for the flag catalog', 1, rel, 'error');
      return undefined;
    }
    const deadline = performance.now() + (this.opts.timeoutMs ?? 2000);
    let tree: Tree | null = null;
    try {
      tree = this.parser.parse(source, null, { progressCallback: () => performance.now() > deadline });
    } catch {
      tree = null;
    } finally {
      this.parser.reset();
    }
    if (!tree) {
      this.diag('Parsing timed out or failed; file skipped', 1, rel, 'error');
      return undefined;
    }
    const ex = new Extractor(tree.rootNode, this.parser.language!);
    ex.syntaxDiagnostics();
    ex.scanModule();
    for (const d of ex.diagnostics) this.diag(d.message, d.line, rel, d.severity);
    const own = new Set<string>([...ex.consts.keys(), ...ex.classes.keys()]);
    const scan: ModuleScan = { rel, module: moduleOfRel(rel), tree, ex, imports: readImports(tree.rootNode, rel), own, injected: false };
    this.scans.set(rel, scan);
    this.order.push(rel);
    return scan;
  }

  /** The file of a dotted module inside the package (`a.b.c` → `a/b/c.py` or `a/b/c/__init__.py`). */
  async loadModule(module: string): Promise<ModuleScan | undefined> {
    if (module.split('.')[0] !== this.pkgName) return undefined;
    const path = module.split('.').join('/');
    return (await this.load(`${path}.py`)) ?? (await this.load(`${path}/__init__.py`));
  }

  /**
   * Gives a module the constants (choice lists, POSITIONAL_FIELD_ORDER) and hooks it imports from
   * the followed part of the package, so its expressions evaluate as Python would see them.
   */
  async inject(scan: ModuleScan, depth = 0): Promise<void> {
    if (scan.injected || depth > 8) return;
    scan.injected = true;
    for (const [local, imp] of scan.imports) {
      if (scan.own.has(local) || !/^[A-Z][A-Z0-9_]*$/.test(imp.name)) continue;
      const relative = imp.module.split('.')[0] === this.pkgName && FOLLOWED.test(imp.module);
      if (!relative) continue;
      const target = await this.loadModule(imp.module);
      if (!target) continue;
      await this.inject(target, depth + 1);
      const c: ConstInfo | undefined = target.ex.consts.get(imp.name);
      if (!c) continue;
      scan.ex.consts.set(local, c);
      const hooks = target.ex.hooks.get(imp.name);
      if (hooks) scan.ex.hooks.set(local, hooks);
    }
    scan.ex.linkAliases();
  }

  /** Finds the class a name denotes in a module, following `from M import Name` inside the package. */
  async resolveClass(scan: ModuleScan, name: string, depth = 0): Promise<ResolvedClass | undefined> {
    if (depth > 8) return undefined;
    const short = name.split('.').pop()!;
    const own = scan.ex.classes.get(short);
    if (own && (scan.own.has(short) || !scan.imports.has(short))) return { scan, cls: own };
    const imp = scan.imports.get(short);
    if (!imp) return undefined;
    const target = await this.loadModule(imp.module);
    if (!target) return undefined;
    return this.resolveClass(target, imp.name, depth + 1);
  }
}

function fileOf(reader: PackageReader, c: ConstInfo): string | undefined {
  for (const rel of reader.order) {
    const s = reader.scans.get(rel);
    if (s && s.own.has(c.name) && s.ex.consts.get(c.name) === c) return rel;
  }
  return undefined;
}

/**
 * Builds the catalog of a package from its server_args.py (`serverArgsRel`, relative to the import
 * root, e.g. "sglang/srt/server_args.py"). Never throws on bad input: unreadable files and broken
 * syntax become diagnostics.
 */
export async function buildPackageCatalog(
  serverArgsRel: string,
  readFile: PackageReadFile,
  opts: PackageCatalogOptions = {},
): Promise<FlagCatalog & { package: PackageCatalogInfo }> {
  const rel = posix(serverArgsRel);
  const parser = await sharedPythonParser(opts);
  const reader = new PackageReader(parser, readFile, opts, rel);
  const empty = (message: string): FlagCatalog & { package: PackageCatalogInfo } => ({
    entries: [],
    choiceLists: [],
    era: 'unknown',
    diagnostics: [{ message, line: 1, severity: 'error', file: rel }],
    package: { serverArgs: rel, files: [], layout: 'single' },
  });
  let main: ModuleScan | undefined;
  try {
    main = await reader.load(rel);
  } catch (e) {
    return empty(`Catalog extraction failed: ${errorMessage(e)}`);
  }
  if (!main) return reader.diagnostics.length ? { ...empty(reader.diagnostics[0].message), diagnostics: reader.diagnostics } : empty(`Cannot read ${rel}`);
  try {
    return await assemble(reader, main, rel);
  } catch (e) {
    return empty(`Catalog extraction failed: ${errorMessage(e)}`);
  } finally {
    for (const s of reader.scans.values()) {
      try {
        s?.tree.delete();
      } catch {
        /* already gone */
      }
    }
  }
}

async function assemble(reader: PackageReader, main: ModuleScan, rel: string): Promise<FlagCatalog & { package: PackageCatalogInfo }> {
  await reader.inject(main);
  const ex = main.ex;
  // Which classes give ServerArgs its fields, in Python's field order.
  const parts: { scan: ModuleScan; cls: ClassInfo }[] = [];
  let orderNames: string[] | undefined;
  const serverArgs = ex.classes.get('ServerArgs');
  const assembled = assemblyList(main);
  if (assembled) {
    for (const name of assembled.classes) {
      const r = await reader.resolveClass(main, name);
      if (r) parts.push(r);
      else reader.diag(`Namespace class ${name} could not be found in the package`, 1, rel);
    }
    // POSITIONAL_FIELD_ORDER, as imported by the module that defines collect_input_fields.
    const fnImport = main.imports.get(assembled.fn);
    const fnScan = fnImport ? await reader.loadModule(fnImport.module) : main;
    if (fnScan) {
      await reader.inject(fnScan);
      const order = fnScan.ex.consts.get('POSITIONAL_FIELD_ORDER')?.value;
      if (Array.isArray(order)) orderNames = order.filter((x): x is string => typeof x === 'string');
    }
  } else if (serverArgs && serverArgs.bases.some((b) => !NO_FLAG_BASES.has(b))) {
    // Inherited: fields come in reverse MRO order (the last base's first), the class's own last.
    type K = ResolvedClass;
    const known = new Map<string, K>();
    const key = (k: K): string => `${k.scan.rel}:${k.cls.name}`;
    const basesOf = async (k: K): Promise<K[]> => {
      const out: K[] = [];
      for (const b of k.cls.bases) {
        if (NO_FLAG_BASES.has(b)) continue;
        const r = await reader.resolveClass(k.scan, b);
        if (!r) {
          reader.diag(`Base class ${b} of ${k.cls.name} could not be found in the package`, k.cls.node.startPosition.row + 1, k.scan.rel);
          continue;
        }
        const id = key(r);
        if (!known.has(id)) known.set(id, r);
        out.push(known.get(id)!);
      }
      return out;
    };
    const head: K = { scan: main, cls: serverArgs };
    known.set(key(head), head);
    // resolve the whole hierarchy first (async), then linearize it synchronously
    const edges = new Map<K, K[]>();
    const pending: K[] = [head];
    for (let guard = 0; pending.length && guard < 500; guard++) {
      const k = pending.pop()!;
      if (edges.has(k)) continue;
      const bs = await basesOf(k);
      edges.set(k, bs);
      pending.push(...bs);
    }
    const mro = c3(head, (k) => edges.get(k) ?? []) ?? [...edges.keys()];
    for (const k of mro.slice().reverse()) parts.push(k);
  }
  if (!parts.length) return single(reader, main, rel);

  // Field entries, one per CLI field, each read in its own file's context.
  const byField = new Map<string, { entry: FlagEntry | undefined; scan: ModuleScan; fieldRight: Node | undefined }>();
  const fieldOrder: string[] = [];
  for (const { scan, cls } of parts) {
    await reader.inject(scan);
    for (const f of cls.fields) {
      const e = scan.ex.fieldEntry(f);
      if (e) e.file = scan.rel;
      if (!byField.has(f.name)) fieldOrder.push(f.name);
      byField.set(f.name, { entry: e, scan, fieldRight: f.right });
    }
  }
  let names = fieldOrder;
  if (orderNames) {
    const listed = orderNames.filter((n) => byField.has(n));
    const set = new Set(orderNames);
    names = [...listed, ...fieldOrder.filter((n) => !set.has(n))];
  }
  const fieldEntries = names.map((n) => byField.get(n)!.entry).filter((e): e is FlagEntry => !!e);

  // `ServerArgs.x` / `_declared_default("x")` in server_args.py: the default of field x, wherever it is.
  const fieldDefault = (attr: string): Evaluated => {
    const hit = byField.get(attr);
    if (!hit?.fieldRight) return UNRESOLVED;
    const d = hit.scan.ex.fieldDefault(hit.fieldRight);
    return 'value' in d ? (d.value as Evaluated) : UNRESOLVED;
  };
  ex.attributeFallback = (owner, attr) => (owner === 'ServerArgs' ? fieldDefault(attr) : UNRESOLVED);
  let placed = false;
  const manual = ex.collect(undefined, (name, only) => {
    if (name !== 'ServerArgs') return undefined;
    placed = true;
    return only ? fieldEntries.filter((e) => only.has(e.field)) : fieldEntries;
  });
  for (const e of manual) {
    if (e.file) continue;
    e.file = rel;
    const m = e.defaultExpr ? /^_?\w*declared_default\(\s*["'](\w+)["']\s*\)$/.exec(e.defaultExpr) : null;
    if (m) {
      const v = fieldDefault(m[1]);
      if (v !== UNRESOLVED) {
        e.default = v;
        delete e.defaultExpr;
      }
    }
  }
  const entries = placed ? manual : [...fieldEntries, ...manual];
  // Choice lists of every file read (each name once, server_args.py's own view first).
  for (const r of reader.order) {
    const s = reader.scans.get(r);
    if (!s || s === main) continue;
    for (const [name, c] of s.ex.consts) {
      if (!s.own.has(name) || ex.consts.has(name)) continue;
      ex.consts.set(name, c);
      const h = s.ex.hooks.get(name);
      if (h && !ex.hooks.has(name)) ex.hooks.set(name, h);
    }
  }
  const catalog = finishEntries(ex, entries, [...reader.diagnostics]);
  for (const l of catalog.choiceLists) {
    const c = ex.consts.get(l.name);
    const f = c ? fileOf(reader, c) : undefined;
    if (f) l.file = f;
  }
  return { ...catalog, package: { serverArgs: rel, files: [...reader.order], layout: 'split' } };
}

/** A server_args.py that holds its flags itself: the one-file catalog, with `file` on its entries. */
function single(reader: PackageReader, main: ModuleScan, rel: string): FlagCatalog & { package: PackageCatalogInfo } {
  const ex = main.ex;
  const entries = ex.collect(undefined);
  for (const e of entries) e.file = rel;
  const own = reader.diagnostics.filter((d) => d.file === rel);
  const catalog = finishEntries(ex, entries, own);
  for (const l of catalog.choiceLists) l.file = rel;
  return { ...catalog, package: { serverArgs: rel, files: [rel], layout: 'single' } };
}

// -----------------------------------------------------------------------------------------------
// Local files
// -----------------------------------------------------------------------------------------------

export interface LocalPackage {
  /** Absolute directory that holds the `sglang` package (or the file's directory for a lone file). */
  root: string;
  /** server_args.py relative to root, POSIX separators. */
  serverArgs: string;
  readFile: PackageReadFile;
}

async function isFile(p: string): Promise<boolean> {
  return fsp.stat(p).then(
    (s) => s.isFile(),
    () => false,
  );
}

/**
 * What a CLI/editor path means: a server_args.py file, an `sglang` package directory, its `srt`
 * directory, or a directory holding `sglang/`. Undefined when none of these is found.
 */
export async function resolveLocalPackage(path: string): Promise<LocalPackage | undefined> {
  const abs = resolve(path);
  let file: string | undefined;
  if (await isFile(abs)) file = abs;
  else {
    for (const cand of [join(abs, 'server_args.py'), join(abs, 'srt', 'server_args.py'), join(abs, 'sglang', 'srt', 'server_args.py')]) {
      if (await isFile(cand)) {
        file = cand;
        break;
      }
    }
  }
  if (!file) return undefined;
  const srt = dirname(file);
  const inPackage = basename(file) === 'server_args.py' && basename(srt) === 'srt' && basename(dirname(srt)) !== '';
  const root = inPackage ? dirname(dirname(srt)) : srt;
  const serverArgs = inPackage ? `${basename(dirname(srt))}/srt/${basename(file)}` : basename(file);
  const readFile: PackageReadFile = async (r) => {
    const p = join(root, ...r.split('/'));
    if (!p.startsWith(root)) return undefined;
    return fsp.readFile(p, 'utf8').catch(() => undefined);
  };
  return { root, serverArgs, readFile };
}

/** True when a path is a namespace-class file of the split layout (`…/sglang/srt/arg_groups/fields/x.py`). */
export function isFieldFilePath(path: string): boolean {
  return /(^|[\\/])srt[\\/]arg_groups[\\/]fields[\\/][^\\/]+\.py$/.test(path.split(/[?#]/)[0]) && !/[\\/]__init__\.py$/.test(path);
}
