/**
 * Turns word lists (from a shell command line or an explicit argv list) into launch commands:
 * finds the `python -m sglang.launch_server` / `sglang serve` entry (or vLLM's `vllm serve`, its
 * api_server module, a vllm/vllm-openai image's entrypoint), the env prefix, and splits the
 * arguments into flags and values.
 */
import type { LineIndex } from '../lines';
import { type Word, mapIndex, srcOfWord } from './source';
import { MAX_WORDS_PER_COMMAND, tokenizeShell } from './shell';
import type { EnvAssignment, EnvSource, FindOptions, LanguageHint, LaunchArg, LaunchCommand, LaunchEngine, LaunchToken } from './types';

export interface Ctx {
  text: string;
  lines: LineIndex;
  opts: FindOptions;
  out: LaunchCommand[];
  max: number;
}

export interface Site {
  host: LanguageHint;
  form: 'shell' | 'argv';
  /** Env assignments in force for this site (exports, ENV, Environment=, …). */
  env?: EnvAssignment[];
  /**
   * The vllm/vllm-openai image reference of a container whose entrypoint is the image's own: words
   * without an entry of their own are then that entrypoint's arguments.
   */
  image?: Word;
}

/**
 * Commands that name a launch without running it: they match, signal, print or look up processes
 * and text (`pkill -f 'sglang serve'`, `pgrep -f sglang.launch_server`, `ps aux | grep …`,
 * `kill $(pgrep …)`). Neither they nor the strings they are given are launches.
 */
const NOT_LAUNCHING = new Set([
  'echo',
  'printf',
  'pkill',
  'pgrep',
  'killall',
  'kill',
  'pidof',
  'ps',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ack',
  'which',
  'type',
  'whereis',
  'man',
]);
/** Words that run the next word as the command (`sudo pkill …`, `exec kill …`). */
const WRAPPERS = new Set(['sudo', 'exec', 'command', 'builtin', 'nohup', 'time', 'doas']);

const PYTHON = /^python(?:\d+(?:\.\d+)*)?[mw]?(?:\.exe)?$/;
const ASSIGN = /^[A-Za-z_][A-Za-z0-9_]*=/;
const MODULE = 'sglang.launch_server';
const VLLM_MODULE = 'vllm.entrypoints.openai.api_server';

/** True when a string may hold a launch command of either engine (cheap test before tokenizing). */
export function mentionsLaunch(v: string): boolean {
  return v.includes(MODULE) || v.includes('sglang serve') || v.includes(VLLM_MODULE) || v.includes('vllm serve');
}

/**
 * `vllm/vllm-openai:v0.11.0`, `docker.io/vllm/vllm-openai`, `…/vllm-openai-rocm:tag`: an image whose
 * entrypoint serves vLLM (the tag may be a template).
 */
export function isVllmImage(ref: string): boolean {
  const path = ref.split('@')[0].replace(/:[^/]*$/, '');
  return /(?:^|\/)vllm-openai(?:-[a-z0-9]+)?$/.test(path.trim());
}

function basename(v: string): string {
  const k = Math.max(v.lastIndexOf('/'), v.lastIndexOf('\\'));
  return k >= 0 ? v.slice(k + 1) : v;
}

export function tokenOf(ctx: Ctx, w: Word): LaunchToken {
  const t: LaunchToken = { text: ctx.text.slice(w.start, w.end), value: w.value, range: ctx.lines.range(w.start, w.end) };
  if (w.dynamic) t.dynamic = true;
  return t;
}

/** Offset of decoded char k of w in the original text. */
function at(w: Word, k: number): number {
  return w.runs.length ? mapIndex(w.runs, k) : w.start;
}

export function envOf(ctx: Ctx, w: Word, source: EnvSource): EnvAssignment {
  const eq = w.value.indexOf('=');
  const eqAt = at(w, eq);
  const valStart = eq + 1 < w.value.length ? at(w, eq + 1) : eqAt + 1;
  const e: EnvAssignment = {
    name: w.value.slice(0, eq),
    value: w.value.slice(eq + 1),
    range: ctx.lines.range(w.start, w.end),
    nameRange: ctx.lines.range(at(w, 0), eqAt),
    valueRange: ctx.lines.range(Math.min(valStart, w.end), w.end),
    source,
  };
  if (w.dynamic) e.dynamic = true;
  return e;
}

interface Entry {
  kind: LaunchCommand['entry'];
  engine: LaunchEngine;
  exe: number;
  last: number;
}

function findEntry(ws: Word[]): Entry | null {
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i];
    if (w.op) continue;
    const b = basename(w.value);
    if (PYTHON.test(b) || w.value === 'sys.executable') {
      let j = i + 1;
      let skipped = 0;
      while (j < ws.length && !ws[j].op && ws[j].value.startsWith('-') && !ws[j].value.startsWith('-m') && skipped < 4) {
        j++;
        skipped++;
      }
      const m = ws[j];
      if (!m || m.op) continue;
      const mod = m.value === '-m' && ws[j + 1] && !ws[j + 1].op ? ws[j + 1].value : m.value.startsWith('-m') ? m.value.slice(2) : undefined;
      const last = m.value === '-m' ? j + 1 : j;
      if (mod === MODULE) return { kind: 'launch_server', engine: 'sglang', exe: i, last };
      if (mod === VLLM_MODULE) return { kind: 'api_server', engine: 'vllm', exe: i, last };
    } else if ((b === 'sglang' || b === 'vllm') && ws[i + 1] && !ws[i + 1].op && ws[i + 1].value === 'serve') {
      return { kind: 'serve', engine: b, exe: i, last: i + 1 };
    }
  }
  return null;
}

/** True when the simple command only names a launch (see NOT_LAUNCHING). */
export function notLaunching(cmd: Word[]): boolean {
  let i = 0;
  while (i < cmd.length && !cmd[i].op && ASSIGN.test(cmd[i].value)) i++;
  for (let hops = 0; i < cmd.length && hops < 4; hops++) {
    const b = basename(cmd[i].value);
    if (NOT_LAUNCHING.has(b)) return true;
    if (!WRAPPERS.has(b)) return false;
    i++;
    // options of the wrapper (`sudo -u svc`, `command -v`): a `-x` word and, for sudo, its argument
    while (i < cmd.length && cmd[i].value.startsWith('-')) i += b === 'sudo' && /^-[ugCDhpRrT]$/.test(cmd[i].value) ? 2 : 1;
  }
  return false;
}

function isFlag(v: string): boolean {
  if (v.length < 2 || v[0] !== '-') return false;
  if (v === '--') return false;
  const c = v[1];
  if (c === '-') return v.length > 2;
  return /[A-Za-z]/.test(c);
}

/** Splits a simple command's words into commands at shell operators. */
function simpleCommands(ws: Word[]): Word[][] {
  const out: Word[][] = [];
  let cur: Word[] = [];
  for (const w of ws) {
    if (w.op && w.op !== 'redir') {
      if (cur.length) out.push(cur);
      cur = [];
    } else if (cur.length < MAX_WORDS_PER_COMMAND) cur.push(w);
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * Analyses words of one site. `depth` bounds recursion into `sh -c '…'` style nested scripts.
 * Returns the number of commands found.
 */
export function analyzeWords(ctx: Ctx, ws: Word[], site: Site, depth = 0): number {
  let found = 0;
  const exported: EnvAssignment[] = [];
  if (site.form === 'shell') ws = expandArrays(ws);
  for (const cmd of simpleCommands(ws)) {
    if (ctx.out.length >= ctx.max) break;
    const first = cmd[0]?.value;
    if (site.form === 'shell' && (first === 'export' || first === 'declare')) {
      for (const w of cmd.slice(1)) if (!w.op && ASSIGN.test(w.value)) exported.push(envOf(ctx, w, 'export'));
      continue;
    }
    if (notLaunching(cmd)) continue;
    const entry = findEntry(cmd);
    if (!entry) {
      if (site.image && found === 0 && cmd.length && !cmd.some((w) => !w.op && mentionsLaunch(w.value))) {
        // the image's own entrypoint runs these words
        ctx.out.push(build(ctx, [site.image, ...cmd], { kind: 'image', engine: 'vllm', exe: 0, last: 0 }, site, exported));
        found++;
        continue;
      }
      if (depth < 3) found += nested(ctx, cmd, site, depth);
      continue;
    }
    ctx.out.push(build(ctx, cmd, entry, site, exported));
    found++;
  }
  return found;
}

const ARRAY_ASSIGN = /^([A-Za-z_][A-Za-z0-9_]*)(\+?)=$/;
const ARRAY_USE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\[[@*]\]\}$/;
const MAX_ARRAY_WORDS = 10_000;

/**
 * Bash arrays of arguments: `args=(` … `)` and `args+=(` … `)` (also after `local`/`declare -a`)
 * are taken out of the word stream, and a later `"${args[@]}"` (or `${args[*]}`) word is replaced
 * by the array's words, which keep their own ranges on the array's lines (so hover and edits work
 * there). An array assigned again starts over.
 */
function expandArrays(ws: Word[]): Word[] {
  let arrays: Map<string, Word[]> | undefined;
  const out: Word[] = [];
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i];
    const open = ws[i + 1];
    const m = !w.op && !w.quoted ? ARRAY_ASSIGN.exec(w.value) : null;
    if (m && open?.op === '(' && open.start === w.end) {
      // the words up to the matching `)`; line breaks inside the parentheses are blanks
      const items: Word[] = [];
      let j = i + 2;
      for (; j < ws.length && ws[j].op !== ')'; j++) if (!ws[j].op && items.length < MAX_ARRAY_WORDS) items.push(ws[j]);
      arrays ??= new Map();
      const name = m[1];
      arrays.set(name, m[2] ? [...(arrays.get(name) ?? []), ...items] : items);
      i = j; // past `)`
      continue;
    }
    const use = arrays && !w.op ? ARRAY_USE.exec(w.value) : null;
    const items = use ? arrays!.get(use[1]) : undefined;
    if (items) {
      for (const it of items) out.push({ ...it, expandedFrom: w });
      continue;
    }
    out.push(w);
  }
  return out;
}

/** Re-scans a word holding a command line; words of a dynamic (f-string, `$…`) parent stay dynamic. */
export function tokenizeNested(w: Word): Word[] {
  const inner = tokenizeShell(srcOfWord(w));
  if (w.dynamic) for (const iw of inner) if (/[{$]/.test(iw.value)) iw.dynamic = true;
  return inner;
}

/** Looks inside string words that hold a whole command (`bash -c "…"`, a YAML/Python string). */
function nested(ctx: Ctx, cmd: Word[], site: Site, depth: number): number {
  let found = 0;
  let tries = 0;
  for (let i = 0; i < cmd.length && tries < 100; i++) {
    const w = cmd[i];
    if (w.op || w.value.length < 10 || w.runs.length === 0) continue;
    const afterC = i > 0 && cmd[i - 1].value === '-c';
    if (!afterC && !mentionsLaunch(w.value)) continue;
    if (!/\s/.test(w.value)) continue;
    tries++;
    // assignments in front of the wrapper (`A=1 bash -c "…"`) reach the inner command
    const env = [...(site.env ?? [])];
    for (let k = 0; k < i && !cmd[k].op && ASSIGN.test(cmd[k].value); k++) env.push(envOf(ctx, cmd[k], 'prefix'));
    const { image: _image, ...outer } = site;
    found += analyzeWords(ctx, tokenizeNested(w), { ...outer, form: 'shell', env }, depth + 1);
  }
  return found;
}

function build(ctx: Ctx, cmd: Word[], entry: Entry, site: Site, exported: EnvAssignment[]): LaunchCommand {
  const env: EnvAssignment[] = [...(site.env ?? []), ...exported];
  let rangeStart = cmd[entry.exe].start;
  for (let i = 0; i < entry.exe; i++) {
    const w = cmd[i];
    if (!w.op && ASSIGN.test(w.value)) {
      env.push(envOf(ctx, w, 'prefix'));
      if (w.start < rangeStart) rangeStart = w.start;
    }
  }
  const args: LaunchArg[] = [];
  const arity = ctx.opts.flagArity;
  let owner = -1; // index in args of the flag taking values
  let budget: number = Infinity;
  let end = cmd[entry.last].end;
  const maxArgs = ctx.opts.maxArgs ?? 5000;
  for (let i = entry.last + 1; i < cmd.length && args.length < maxArgs; i++) {
    const w = cmd[i];
    if (w.op === 'redir') {
      if (w.needsTarget) i++;
      continue;
    }
    const tok = tokenOf(ctx, w);
    // the command spans every word it reads: array items and list items written before the entry too
    end = Math.max(end, w.end, w.expandedFrom?.end ?? 0);
    rangeStart = Math.min(rangeStart, w.start);
    if (isFlag(w.value) && !/^-\d/.test(w.value)) {
      // vLLM reads `-O3` / `-O=3` as `-O 3`: the name is `-O`, the rest its inline value
      const shortO = entry.engine === 'vllm' && /^-O./.test(w.value);
      const eq = shortO ? 2 : w.value.startsWith('--') ? w.value.indexOf('=') : -1;
      const valueAt = shortO && w.value[2] !== '=' ? 2 : eq + 1;
      const name = shortO ? '-O' : eq > 0 ? w.value.slice(0, eq) : w.value;
      const arg: LaunchArg = { ...tok, kind: 'flag', name, values: [] };
      if (eq > 0) {
        const eqAt = at(w, eq);
        arg.nameRange = ctx.lines.range(at(w, 0), eqAt);
        arg.inline = true;
        const vStart = valueAt < w.value.length ? at(w, valueAt) : w.end;
        const v: LaunchToken = { text: ctx.text.slice(vStart, w.end), value: w.value.slice(valueAt), range: ctx.lines.range(vStart, w.end) };
        if (w.dynamic) v.dynamic = true;
        arg.values!.push(v);
        owner = -1;
      } else {
        arg.nameRange = tok.range;
        const a = arity?.(name, entry.engine);
        budget = a === 0 ? 0 : a === 1 ? 1 : Infinity;
        owner = budget > 0 ? args.length : -1;
      }
      args.push(arg);
      continue;
    }
    if (owner >= 0 && budget > 0) {
      args.push({ ...tok, kind: 'value', flagIndex: owner });
      args[owner].values!.push(tok);
      budget--;
      if (budget === 0) owner = -1;
    } else {
      args.push({ ...tok, kind: 'positional' });
    }
  }
  const exe = cmd[entry.exe];
  const lastEntry = cmd[entry.last];
  return {
    entry: entry.kind,
    engine: entry.engine,
    range: ctx.lines.range(rangeStart, end),
    entryRange: ctx.lines.range(exe.start, lastEntry.end),
    executable: tokenOf(ctx, exe),
    env,
    args,
    host: site.host,
    form: site.form,
  };
}
