/**
 * The runtime flag catalog: what the SGLang (or vLLM) installed in an interpreter really accepts,
 * read by building its own argparse parser (python/dump_engine_args.py), or, when that fails, by
 * parsing `python -m sglang.launch_server --help` (`python -m vllm.entrypoints.openai.api_server
 * --help`). It sees choices that add_*_choices hooks and plugins add at import time, which no
 * reading of server_args.py (or arg_utils.py) can.
 *
 *   const script = await loadDumpScript(context.asAbsolutePath('python/dump_engine_args.py'));
 *   const rt = await readRuntimeCatalog(host, '/opt/venv/bin/python', { script, cacheDir });
 *   const { catalog, differences } = mergeCatalogs(staticCatalog, rt.catalog);
 *
 * No vscode and no tree-sitter here (the extension host loads this on a command, not at start-up).
 * Commands run as argv arrays through `Host.exec`; no shell text is ever built.
 */
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../errors';
import { HostError, type Host } from '../hosts/types';
import { choiceText, fieldFromFlag, type ChoiceValue, type FlagCatalog, type FlagEntry } from './types';

/** The line python/dump_engine_args.py prints before its JSON document. */
export const RUNTIME_JSON_MARKER = '@@INFERENCE_DOCTOR_JSON@@';
/** Bumped when the cache file shape or the conversion changes (old files are then ignored). */
export const RUNTIME_CACHE_VERSION = 2;

export type RuntimeEngine = 'sglang' | 'vllm';

/** Per engine: its name for messages and the module whose --help is the fallback. */
export const ENGINE_RUNTIME: Record<RuntimeEngine, { label: string; package: string; helpModule: string }> = {
  sglang: { label: 'SGLang', package: 'sglang', helpModule: 'sglang.launch_server' },
  vllm: { label: 'vLLM', package: 'vllm', helpModule: 'vllm.entrypoints.openai.api_server' },
};

/** One argparse action as the dump script describes it. */
export interface RuntimeAction {
  option_strings: string[];
  dest: string;
  default?: unknown;
  default_repr?: string;
  choices?: ChoiceValue[] | null;
  choices_repr?: string;
  nargs?: string | number | null;
  help?: string | null;
  type?: string | null;
  action?: string;
  const?: unknown;
  const_repr?: string;
  required?: boolean;
  metavar?: string | null;
  group?: string;
}

/** Where the engine's package is in an interpreter, found without importing it (the cache key). */
export interface EngineInstall {
  engine?: RuntimeEngine;
  python?: string;
  pythonVersion?: string;
  packageDir?: string;
  version?: string | null;
  /** The file the flags are declared in: sglang/srt/server_args.py, vllm/engine/arg_utils.py. */
  argsFile?: { path: string; size: number; mtimeMs: number };
  error?: string;
}

export type RuntimeSource = 'dump' | 'help';

export interface RuntimeCatalog {
  catalog: FlagCatalog;
  /** How the catalog was read: the engine's parser (dump) or its --help text. */
  source: RuntimeSource;
  fromCache: boolean;
  hostId: string;
  python: string;
  version?: string;
  install: EngineInstall;
  /** Why the dump failed when the --help fallback was used, and similar notes. */
  warnings: string[];
  builtAt: string;
}

export interface ReadRuntimeOptions {
  /** Text of python/dump_engine_args.py (see loadDumpScript). */
  script: string;
  /** Which engine's flags: SGLang's (default) or vLLM's. */
  engine?: RuntimeEngine;
  /** Extra environment for the interpreter (PYTHONPATH, CUDA_VISIBLE_DEVICES=…). */
  env?: Record<string, string>;
  cwd?: string;
  signal?: AbortSignal;
  /** Per command. Importing a real SGLang or vLLM (torch, CUDA) takes a while. Default 180 s. */
  timeoutMs?: number;
  /** Directory for the JSON cache (created when missing); no caching when absent. */
  cacheDir?: string;
  /** Ignore a cached catalog (it is still rewritten). */
  refresh?: boolean;
  /** auto: dump, then --help on failure (default). */
  mode?: 'auto' | RuntimeSource;
  onProgress?: (message: string) => void;
}

export class RuntimeCatalogError extends Error {
  constructor(
    message: string,
    readonly details?: string,
  ) {
    super(message);
    this.name = 'RuntimeCatalogError';
  }
}

const MAX_OUTPUT = 32 * 1024 * 1024;
const DEFAULT_GROUPS = new Set(['options', 'optional arguments', 'positional arguments']);
const ZERO_RANGE = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/**
 * Reads the dump script shipped with the extension. Without a path, looks next to the bundle
 * (dist/../python) and in the source tree (src/core/flags/../../../python).
 */
export async function loadDumpScript(path?: string): Promise<string> {
  const candidates = path
    ? [path]
    : [join(__dirname, '..', 'python', 'dump_engine_args.py'), join(__dirname, '..', '..', '..', 'python', 'dump_engine_args.py')];
  for (const p of candidates) {
    try {
      return await fsp.readFile(p, 'utf8');
    } catch {
      /* next */
    }
  }
  throw new RuntimeCatalogError(`The flag dump script was not found (${candidates.join(', ')}).`);
}

/** The JSON document after the marker line (anything printed before it is ignored). */
export function parseMarkedJson(stdout: string): unknown {
  const at = stdout.lastIndexOf(RUNTIME_JSON_MARKER);
  if (at < 0) throw new RuntimeCatalogError('The dump script printed no result.');
  const body = stdout.slice(at + RUNTIME_JSON_MARKER.length).trim();
  try {
    return JSON.parse(body) as unknown;
  } catch (e) {
    throw new RuntimeCatalogError(`The dump script printed invalid JSON: ${errorMessage(e)}`);
  }
}

function tail(text: string, max = 1500): string {
  const t = text.trim();
  return t.length > max ? `…${t.slice(-max)}` : t;
}

/** The last line of a Python traceback ("ModuleNotFoundError: No module named 'torch'"). */
function lastErrorLine(stderr: string): string | undefined {
  const lines = stderr
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.length ? lines[lines.length - 1].slice(0, 300) : undefined;
}

// ------------------------------------------------------------------------------------------------
// actions -> catalog entries

function isChoiceValue(v: unknown): v is ChoiceValue {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** Converts argparse actions (from the dump or from parsed --help) to catalog entries. */
export function actionsToCatalog(actions: RuntimeAction[]): FlagCatalog {
  const entries: FlagEntry[] = [];
  const seen = new Set<string>();
  for (const a of actions) {
    const options = (a.option_strings ?? []).filter((o) => typeof o === 'string');
    if (!options.length || a.action === 'help' || a.action === 'version') continue;
    const boolOptional = a.action === 'BooleanOptionalAction';
    const negations = boolOptional ? options.filter((o) => o.startsWith('--no-')) : [];
    const positive = options.filter((o) => !negations.includes(o));
    const flag = positive.find((o) => o.startsWith('--')) ?? positive[0] ?? options[0];
    if (seen.has(flag)) continue;
    seen.add(flag);
    const entry: FlagEntry = {
      flag,
      aliases: positive.filter((o) => o !== flag),
      negations,
      field: typeof a.dest === 'string' && a.dest ? a.dest : fieldFromFlag(flag),
      source: 'add_argument',
      line: 0,
      range: ZERO_RANGE,
    };
    if (a.default_repr !== undefined) entry.defaultExpr = a.default_repr;
    else if (a.default !== undefined) entry.default = a.default;
    if (Array.isArray(a.choices)) entry.choices = a.choices.filter(isChoiceValue);
    else if (a.choices_repr) {
      entry.choicesExpr = a.choices_repr;
      entry.dynamicChoices = true;
    }
    if (typeof a.help === 'string' && a.help !== '==SUPPRESS==') entry.help = a.help;
    if (a.type) entry.type = a.type;
    if (a.action && a.action !== 'store') entry.action = a.action;
    if (a.nargs !== null && a.nargs !== undefined) entry.nargs = a.nargs;
    if (a.const_repr !== undefined) entry.const = a.const_repr;
    else if (a.const !== null && a.const !== undefined) entry.const = a.const;
    if (a.required) entry.required = true;
    if (a.group && !DEFAULT_GROUPS.has(a.group)) entry.group = a.group;
    entries.push(entry);
  }
  return { entries, choiceLists: [], era: 'unknown', diagnostics: [] };
}

// ------------------------------------------------------------------------------------------------
// argparse --help text -> actions (the fallback)

/** Splits on `sep` outside {…} and […]. */
function splitTop(text: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0 && text.startsWith(sep, i)) {
      out.push(text.slice(start, i));
      start = i + sep.length;
      i += sep.length - 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter(Boolean);
}

function helpLiteral(text: string): unknown {
  const t = text.trim();
  if (t === 'None') return null;
  if (t === 'True') return true;
  if (t === 'False') return false;
  if (/^-?\d+$/.test(t)) return Number(t);
  if (/^-?(\d+\.\d*|\.\d+|\d+)(e[-+]?\d+)?$/i.test(t)) return Number(t);
  const q = /^(['"])(.*)\1$/.exec(t);
  return q ? q[2] : t;
}

function choicesOf(braced: string): ChoiceValue[] {
  const items = splitTop(braced.slice(1, -1), ',');
  if (items.length && items.every((s) => /^-?\d+(\.\d+)?$/.test(s))) return items.map(Number);
  return items;
}

/** One action from its invocation ("--tp-size TP_SIZE, --tensor-parallel-size TP_SIZE") and help. */
function actionFromInvocation(invocation: string, help: string, group: string | undefined): RuntimeAction | undefined {
  const parts = splitTop(invocation, ', ');
  const options: string[] = [];
  let args = '';
  for (const p of parts) {
    const m = /^(-{1,2}[^\s,]+)(?:\s+(.*))?$/.exec(p);
    if (!m) return undefined;
    options.push(m[1]);
    if (m[2] && !args) args = m[2].trim();
  }
  if (!options.length) return undefined;
  const negs = options.filter((o) => o.startsWith('--no-') && options.includes(`--${o.slice(5)}`));
  const a: RuntimeAction = { option_strings: options, dest: '', help: help || null, required: false };
  if (group && !DEFAULT_GROUPS.has(group)) a.group = group;
  let metavar: string | undefined;
  if (negs.length) a.action = 'BooleanOptionalAction';
  else if (!args) {
    a.action = 'store_true';
    a.nargs = 0;
  } else {
    const words = splitTop(args, ' ');
    const first = words[0];
    if (words.length === 1 && /^\[.*\]$/.test(first) && !first.includes('...')) {
      a.nargs = '?';
      metavar = first.slice(1, -1);
    } else if (words.length === 1 && /^\[.*\.\.\.\]$/.test(first)) {
      a.nargs = '*';
      metavar = first.slice(1).split(' ')[0];
    } else if (words.length === 2 && /^\[.*\.\.\.\]$/.test(words[1])) {
      a.nargs = '+';
      metavar = first;
    } else if (words.length > 1) {
      a.nargs = words.length;
      metavar = first;
    } else metavar = first;
    if (metavar && /^\{.*\}$/.test(metavar)) a.choices = choicesOf(metavar);
    else if (metavar) a.metavar = metavar;
  }
  const long = options.find((o) => o.startsWith('--')) ?? options[0];
  a.dest = a.metavar && /^[A-Z][A-Z0-9_]*$/.test(a.metavar) ? a.metavar.toLowerCase() : fieldFromFlag(long);
  const def = /\(default:\s*([^)]*)\)/.exec(help);
  if (def) a.default = helpLiteral(def[1]);
  return a;
}

/**
 * Parses argparse's help output (the "options" sections, any Python 3 version). Defaults are only
 * known where the help text prints them; dest comes from the metavar when argparse derived it.
 */
export function parseArgparseHelp(text: string): RuntimeAction[] {
  const out: RuntimeAction[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let group: string | undefined;
  let inUsage = false;
  let current: { invocation: string; help: string[]; indent: number; group: string | undefined } | undefined;
  const flush = (): void => {
    if (!current) return;
    const a = actionFromInvocation(current.invocation, current.help.join(' ').replace(/\s+/g, ' ').trim(), current.group);
    if (a) out.push(a);
    current = undefined;
  };
  for (const line of lines) {
    if (/^usage:/i.test(line)) {
      flush();
      inUsage = true;
      continue;
    }
    if (inUsage) {
      if (line.trim() === '') inUsage = false;
      continue;
    }
    if (/^\S.*:\s*$/.test(line)) {
      flush();
      group = line.trim().slice(0, -1);
      continue;
    }
    const action = /^( {1,6})(-\S.*)$/.exec(line);
    if (action && (!current || action[1].length <= current.indent)) {
      flush();
      const [invocation, ...help] = action[2].split(/\s{2,}/);
      current = { invocation: invocation.trim(), help: help.length ? [help.join(' ')] : [], indent: action[1].length, group };
      continue;
    }
    if (current && /^\s+\S/.test(line)) current.help.push(line.trim());
    else if (line.trim() === '') flush();
  }
  flush();
  return out.filter((a) => !a.option_strings.includes('--help') && !a.option_strings.includes('-h'));
}

// ------------------------------------------------------------------------------------------------
// static vs runtime

export type FlagDifferenceKind = 'runtime-only' | 'static-only' | 'choices-grew' | 'choices-removed' | 'default-differs';

export interface FlagDifference {
  kind: FlagDifferenceKind;
  flag: string;
  field: string;
  /** Choice values only the runtime parser has (hooks, plugins). */
  added?: ChoiceValue[];
  /** Choice values only server_args.py lists. */
  removed?: ChoiceValue[];
  staticDefault?: unknown;
  runtimeDefault?: unknown;
  message: string;
}

export interface MergedCatalog {
  /** Runtime entries, with the static definition's place (line, range), group and deprecation notes. */
  catalog: FlagCatalog;
  differences: FlagDifference[];
  /** Differences by the merged entry's flag. */
  byFlag: Map<string, FlagDifference[]>;
}

export interface MergeOptions {
  /**
   * Keep flags only server_args.py declares (marked static-only). Use for catalogs read from
   * --help, which hides `help=SUPPRESS` flags that the parser still accepts. Default false.
   */
  keepStaticOnly?: boolean;
  /** What the static catalog is, in messages: default `server_args.py` (vLLM's: its bundled facts). */
  staticLabel?: string;
}

function sameDefault(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  return JSON.stringify(a) === JSON.stringify(b);
}

function showValue(v: unknown): string {
  return v === null ? 'None' : typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * Combines the catalog read from server_args.py with the one the installed parser reports. The
 * runtime parser is the truth for what is accepted (flags, choices, defaults); the static one
 * gives each flag its place in the source and its deprecation notes. Differences are listed:
 * flags only at run time (plugins, hooks), choices that grew at run time, defaults that differ.
 */
export function mergeCatalogs(staticCatalog: FlagCatalog, runtime: FlagCatalog, opts: MergeOptions = {}): MergedCatalog {
  const staticLabel = opts.staticLabel ?? 'server_args.py';
  const byOption = new Map<string, FlagEntry>();
  const byField = new Map<string, FlagEntry>();
  for (const e of staticCatalog.entries) {
    for (const o of [e.flag, ...e.aliases, ...e.negations]) if (!byOption.has(o)) byOption.set(o, e);
    if (!byField.has(e.field)) byField.set(e.field, e);
  }
  const differences: FlagDifference[] = [];
  const byFlag = new Map<string, FlagDifference[]>();
  const note = (d: FlagDifference): void => {
    differences.push(d);
    const list = byFlag.get(d.flag);
    if (list) list.push(d);
    else byFlag.set(d.flag, [d]);
  };
  const matched = new Set<FlagEntry>();
  const entries: FlagEntry[] = [];
  for (const r of runtime.entries) {
    const s = [r.flag, ...r.aliases].map((o) => byOption.get(o)).find(Boolean) ?? byField.get(r.field);
    if (!s) {
      entries.push({ ...r });
      note({
        kind: 'runtime-only',
        flag: r.flag,
        field: r.field,
        message: `${r.flag} exists only at run time (added by a plugin or hook, not declared in ${staticLabel})`,
      });
      continue;
    }
    matched.add(s);
    const merged: FlagEntry = {
      ...s,
      flag: r.flag,
      aliases: r.aliases,
      negations: r.negations.length ? r.negations : s.negations,
      // --help cannot always tell the dest; the static field is right when the runtime one was guessed.
      field: r.field === fieldFromFlag(r.flag) && s.field !== r.field ? s.field : r.field,
    };
    for (const k of ['help', 'type', 'action', 'nargs', 'const', 'required'] as const) {
      if (r[k] !== undefined) (merged as unknown as Record<string, unknown>)[k] = r[k];
    }
    if (r.default !== undefined) {
      merged.default = r.default;
      delete merged.defaultExpr;
    } else if (r.defaultExpr !== undefined) merged.defaultExpr = r.defaultExpr;
    if (r.choices) {
      merged.choices = r.choices;
      if (s.choices) {
        const st = new Set(s.choices.map(choiceText));
        const rt = new Set(r.choices.map(choiceText));
        const added = r.choices.filter((c) => !st.has(choiceText(c)));
        const removed = s.choices.filter((c) => !rt.has(choiceText(c)));
        if (added.length) {
          merged.dynamicChoices = true;
          note({
            kind: 'choices-grew',
            flag: r.flag,
            field: merged.field,
            added,
            message: `${r.flag}: ${added.length} choice${added.length > 1 ? 's' : ''} grew at run time (${added.map(choiceText).join(', ')})`,
          });
        }
        if (removed.length)
          note({
            kind: 'choices-removed',
            flag: r.flag,
            field: merged.field,
            removed,
            message: `${r.flag}: ${removed.map(choiceText).join(', ')} listed in ${staticLabel} but not accepted by the installed parser`,
          });
      }
    }
    if (s.default !== undefined && r.default !== undefined && !sameDefault(s.default, r.default)) {
      note({
        kind: 'default-differs',
        flag: r.flag,
        field: merged.field,
        staticDefault: s.default,
        runtimeDefault: r.default,
        message: `${r.flag}: default is ${showValue(r.default)} at run time, ${showValue(s.default)} in ${staticLabel}`,
      });
    }
    entries.push(merged);
  }
  for (const s of staticCatalog.entries) {
    if (matched.has(s)) continue;
    note({ kind: 'static-only', flag: s.flag, field: s.field, message: `${s.flag} is in ${staticLabel} but the installed parser does not list it` });
    if (opts.keepStaticOnly) entries.push({ ...s });
  }
  return {
    catalog: { entries, choiceLists: staticCatalog.choiceLists.map((l) => ({ ...l })), era: staticCatalog.era, diagnostics: [] },
    differences,
    byFlag,
  };
}

// ------------------------------------------------------------------------------------------------
// cache

interface CacheFile {
  cacheVersion: number;
  key: { hostId: string; python: string; version: string | null };
  /** The flags file's size/mtime and the dump script's hash: a changed checkout or script is a miss. */
  fingerprint: string;
  result: Omit<RuntimeCatalog, 'fromCache'>;
}

/** File name of the cache entry for (host id, interpreter path, engine version[, engine when not SGLang]). */
export function runtimeCacheFile(
  cacheDir: string,
  hostId: string,
  python: string,
  version: string | null | undefined,
  engine: RuntimeEngine = 'sglang',
): string {
  const h = createHash('sha256')
    .update(JSON.stringify([hostId, python, version ?? null, ...(engine === 'sglang' ? [] : [engine])]))
    .digest('hex')
    .slice(0, 24);
  return join(cacheDir, `runtime-catalog-${h}.json`);
}

function fingerprintOf(install: EngineInstall, script: string): string {
  const af = install.argsFile;
  const scriptHash = createHash('sha256').update(script).digest('hex').slice(0, 16);
  return JSON.stringify([af?.path ?? null, af?.size ?? null, af?.mtimeMs ?? null, install.packageDir ?? null, scriptHash, RUNTIME_CACHE_VERSION]);
}

async function readCache(file: string, fingerprint: string): Promise<Omit<RuntimeCatalog, 'fromCache'> | undefined> {
  try {
    const j = JSON.parse(await fsp.readFile(file, 'utf8')) as Partial<CacheFile>;
    if (j.cacheVersion !== RUNTIME_CACHE_VERSION || j.fingerprint !== fingerprint || !j.result || !Array.isArray(j.result.catalog?.entries)) return undefined;
    return j.result;
  } catch {
    return undefined;
  }
}

async function writeCache(file: string, body: CacheFile): Promise<void> {
  await fsp.mkdir(join(file, '..'), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  await fsp.writeFile(tmp, JSON.stringify(body));
  await fsp.rename(tmp, file);
}

// ------------------------------------------------------------------------------------------------
// reading

async function runScript(host: Host, python: string, mode: 'version' | 'dump', opts: ReadRuntimeOptions): Promise<unknown> {
  const engine = opts.engine ?? 'sglang';
  const r = await host.exec([python, '-c', opts.script, mode, engine], {
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    timeoutMs: opts.timeoutMs ?? 180_000,
    maxOutputBytes: MAX_OUTPUT,
  });
  if (r.truncated) throw new RuntimeCatalogError(`The ${mode} script printed more than ${MAX_OUTPUT} bytes.`);
  if (r.code !== 0) {
    throw new RuntimeCatalogError(
      `${python} could not ${mode === 'dump' ? `build ${ENGINE_RUNTIME[engine].label}'s parser` : `locate ${ENGINE_RUNTIME[engine].package}`}: ${lastErrorLine(r.stderr) ?? `exit code ${r.code}`}`,
      tail(r.stderr),
    );
  }
  return parseMarkedJson(r.stdout);
}

async function readHelp(host: Host, python: string, opts: ReadRuntimeOptions): Promise<RuntimeAction[]> {
  const module = ENGINE_RUNTIME[opts.engine ?? 'sglang'].helpModule;
  const r = await host.exec([python, '-m', module, '--help'], {
    // Wide "terminal" so argparse wraps help text as little as possible.
    env: { ...(opts.env ?? {}), COLUMNS: '2000' },
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    timeoutMs: opts.timeoutMs ?? 180_000,
    maxOutputBytes: MAX_OUTPUT,
  });
  if (r.code !== 0) throw new RuntimeCatalogError(`python -m ${module} --help failed: ${lastErrorLine(r.stderr) ?? `exit code ${r.code}`}`, tail(r.stderr));
  const actions = parseArgparseHelp(r.stdout);
  if (!actions.length) throw new RuntimeCatalogError(`python -m ${module} --help printed no options.`, tail(r.stdout));
  return actions;
}

function isActionList(v: unknown): v is RuntimeAction[] {
  return Array.isArray(v) && v.every((a) => !!a && typeof a === 'object' && Array.isArray((a as RuntimeAction).option_strings));
}

/**
 * The engines `python` on `host` has, located as readRuntimeCatalog locates them (never imported).
 * Host trouble (a missing interpreter, a timeout) throws; an engine that is not there is left out.
 */
export async function installedEngines(
  host: Host,
  python: string,
  opts: Pick<ReadRuntimeOptions, 'script' | 'env' | 'cwd' | 'signal' | 'timeoutMs'>,
): Promise<RuntimeEngine[]> {
  const engines = Object.keys(ENGINE_RUNTIME) as RuntimeEngine[];
  const found = await Promise.all(
    engines.map(async (engine) => {
      const install = (await runScript(host, python, 'version', { timeoutMs: 30_000, ...opts, engine })) as EngineInstall | null;
      return !!install && typeof install === 'object' && !install.error && !!install.packageDir;
    }),
  );
  return engines.filter((_e, i) => found[i]);
}

/** An engine's name for people: SGLang, vLLM. */
export function engineLabel(engine: RuntimeEngine): string {
  return ENGINE_RUNTIME[engine].label;
}

/**
 * Reads the flags the SGLang (or, with `engine: 'vllm'`, the vLLM) installed in `python` on `host`
 * accepts. Uses the cache under `opts.cacheDir` when host, interpreter, engine version and its
 * flags file are unchanged.
 */
export async function readRuntimeCatalog(host: Host, python: string, opts: ReadRuntimeOptions): Promise<RuntimeCatalog> {
  const engine = opts.engine ?? 'sglang';
  const { label, package: pkg, helpModule } = ENGINE_RUNTIME[engine];
  const progress = opts.onProgress ?? (() => undefined);
  progress(`Locating ${pkg} with ${python}…`);
  const install = (await runScript(host, python, 'version', opts)) as EngineInstall;
  if (!install || typeof install !== 'object') throw new RuntimeCatalogError('The version script returned no description.');
  if (install.error) throw new RuntimeCatalogError(`${python}: ${install.error}`);
  const version = install.version ?? undefined;
  const fingerprint = fingerprintOf(install, opts.script);
  const file = opts.cacheDir ? runtimeCacheFile(opts.cacheDir, host.id, python, version, engine) : undefined;
  const mode = opts.mode ?? 'auto';
  if (file && !opts.refresh) {
    const hit = await readCache(file, fingerprint);
    if (hit && (mode === 'auto' || hit.source === mode)) return { ...hit, fromCache: true };
  }
  const warnings: string[] = [];
  let actions: RuntimeAction[] | undefined;
  let source: RuntimeSource = 'dump';
  if (mode !== 'help') {
    progress(`Building ${label}'s parser${version ? ` (${version})` : ''}…`);
    try {
      const doc = (await runScript(host, python, 'dump', opts)) as { actions?: unknown; error?: string };
      if (doc?.error) throw new RuntimeCatalogError(doc.error);
      if (!isActionList(doc?.actions)) throw new RuntimeCatalogError('The dump script returned no parser actions.');
      actions = doc.actions;
    } catch (e) {
      if (mode === 'dump' || opts.signal?.aborted || (e instanceof HostError && e.kind === 'aborted')) throw e;
      warnings.push(`Parser dump failed, used --help instead: ${errorMessage(e)}`);
    }
  }
  if (!actions) {
    progress(`Reading python -m ${helpModule} --help…`);
    actions = await readHelp(host, python, opts);
    source = 'help';
  }
  const result: Omit<RuntimeCatalog, 'fromCache'> = {
    catalog: actionsToCatalog(actions),
    source,
    hostId: host.id,
    python,
    install,
    warnings,
    builtAt: new Date().toISOString(),
    ...(version ? { version } : {}),
  };
  if (file) {
    try {
      await writeCache(file, { cacheVersion: RUNTIME_CACHE_VERSION, key: { hostId: host.id, python, version: version ?? null }, fingerprint, result });
    } catch (e) {
      result.warnings.push(`Could not write the catalog cache: ${errorMessage(e)}`);
    }
  }
  return { ...result, fromCache: false };
}
