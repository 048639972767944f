/**
 * Just enough YAML to read commands out of docker-compose files, Kubernetes manifests and CI
 * configs: `command:` / `args:` / `entrypoint:` (block lists, flow lists, plain, quoted, folded and
 * literal scalars), `environment:` / `env:`, and `run:` / `script:` shell snippets. Not a YAML
 * parser: anchors, tags, multi-documents and complex keys are ignored. Linear time.
 */
import { type Ctx, analyzeWords, envOf } from './analyze';
import { type Word, WordBuilder, lineEnd, srcOfWord } from './source';
import { tokenizeShell } from './shell';
import type { EnvAssignment, LanguageHint } from './types';

interface Line {
  start: number;
  /** End of content (before `\r`?`\n`). */
  end: number;
  /** Offset of the first non-blank character (== end when blank). */
  first: number;
}

function lines(s: string, from: number, to: number): Line[] {
  const out: Line[] = [];
  let i = from;
  while (i <= to) {
    const le = lineEnd(s, i, to);
    let end = le;
    if (end > i && s.charCodeAt(end - 1) === 13) end--;
    let first = i;
    while (first < end && (s[first] === ' ' || s[first] === '\t')) first++;
    out.push({ start: i, end, first });
    if (le >= to) break;
    i = le + 1;
  }
  return out;
}

const blankOrComment = (s: string, l: Line): boolean => l.first >= l.end || s[l.first] === '#';
const indentOf = (l: Line): number => l.first - l.start;

/** Result of reading one value: the words and the index of the last line used. */
interface Value {
  kind: 'list' | 'scalar' | 'none';
  items: Word[];
  lastLine: number;
}

// ---------------------------------------------------------------- scalars

/** Double-quoted YAML (and JSON) string starting at the quote `q`. Folds line breaks. */
export function doubleQuoted(s: string, q: number, to: number): { word: Word; end: number } {
  const w = new WordBuilder(s, q);
  w.quoted = true;
  let j = q + 1;
  let run = j;
  while (j < to) {
    const c = s[j];
    if (c === '"') {
      w.slice(run, j);
      return { word: w.finish(j + 1), end: j + 1 };
    }
    if (c === '\\' && j + 1 < to) {
      w.slice(run, j);
      const n = s[j + 1];
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', '/': '/', '0': '\0', ' ': ' ', b: '\b', f: '\f', e: '\x1b' };
      if (simple[n] !== undefined) {
        w.decoded(simple[n], j, j + 2);
        j += 2;
      } else if (n === 'x' || n === 'u' || n === 'U') {
        const len = n === 'x' ? 2 : n === 'u' ? 4 : 8;
        const hex = s.slice(j + 2, j + 2 + len);
        const cp = /^[0-9a-fA-F]+$/.test(hex) && hex.length === len ? parseInt(hex, 16) : NaN;
        if (Number.isFinite(cp) && cp <= 0x10ffff) w.decoded(String.fromCodePoint(cp), j, j + 2 + len);
        j += 2 + len;
      } else if (n === '\n' || n === '\r') {
        // escaped line break: joins without a space; skip leading blanks of the next line
        j += n === '\r' && s[j + 2] === '\n' ? 3 : 2;
        while (j < to && (s[j] === ' ' || s[j] === '\t')) j++;
      } else {
        w.slice(j, j + 2);
        j += 2;
      }
      run = j;
      continue;
    }
    if (c === '\n') {
      j = fold(s, w, run, j, to);
      run = j;
      continue;
    }
    j++;
  }
  w.slice(run, to);
  return { word: w.finish(to), end: to };
}

/** Single-quoted YAML string starting at `q` (`''` is a quote). */
function singleQuoted(s: string, q: number, to: number): { word: Word; end: number } {
  const w = new WordBuilder(s, q);
  w.quoted = true;
  let j = q + 1;
  let run = j;
  while (j < to) {
    const c = s[j];
    if (c === "'") {
      w.slice(run, j);
      if (s[j + 1] === "'") {
        w.decoded("'", j, j + 2);
        j += 2;
        run = j;
        continue;
      }
      return { word: w.finish(j + 1), end: j + 1 };
    }
    if (c === '\n') {
      j = fold(s, w, run, j, to);
      run = j;
      continue;
    }
    j++;
  }
  w.slice(run, to);
  return { word: w.finish(to), end: to };
}

/** Line folding inside quoted scalars: trailing blanks dropped, break → space (empty lines → newline). */
function fold(s: string, w: WordBuilder, run: number, nl: number, to: number): number {
  let e = nl;
  while (e > run && (s[e - 1] === ' ' || s[e - 1] === '\t' || s[e - 1] === '\r')) e--;
  w.slice(run, e);
  let j = nl + 1;
  let empties = 0;
  for (;;) {
    while (j < to && (s[j] === ' ' || s[j] === '\t' || s[j] === '\r')) j++;
    if (j < to && s[j] === '\n') {
      empties++;
      j++;
    } else break;
  }
  w.decoded(empties ? '\n'.repeat(empties) : ' ', nl, nl + 1);
  return j;
}

/** Offset where a plain scalar on [from, end) stops: ` #` comment, trailing blanks. */
function plainEnd(s: string, from: number, end: number, flow: boolean): number {
  let j = from;
  while (j < end) {
    const c = s[j];
    if (c === '#' && j > from && (s[j - 1] === ' ' || s[j - 1] === '\t')) break;
    if (flow && (c === ',' || c === ']' || c === '}')) break;
    j++;
  }
  while (j > from && (s[j - 1] === ' ' || s[j - 1] === '\t')) j--;
  return j;
}

/**
 * Reads a scalar starting at `off` on line `li` whose continuation lines must be indented more than
 * `parent` columns.
 */
function scalarAt(s: string, ls: Line[], li: number, off: number, parent: number, to: number): { word: Word | null; lastLine: number } {
  const c = s[off];
  if (c === '"' || c === "'") {
    // a quoted scalar may not run past a line indented at or below its parent
    let limitLine = li + 1;
    while (limitLine < ls.length && (ls[limitLine].first >= ls[limitLine].end || indentOf(ls[limitLine]) > parent)) limitLine++;
    const limit = limitLine < ls.length ? ls[limitLine].start : to;
    const r = c === '"' ? doubleQuoted(s, off, limit) : singleQuoted(s, off, limit);
    let last = li;
    while (last + 1 < ls.length && ls[last + 1].start < r.end) last++;
    return { word: r.word, lastLine: last };
  }
  if (c === '|' || c === '>') return blockScalar(s, ls, li, parent, c === '|');
  const l = ls[li];
  const e = plainEnd(s, off, l.end, false);
  if (e <= off) return { word: null, lastLine: li };
  const w = new WordBuilder(s, off);
  w.slice(off, e);
  let end = e;
  let last = li;
  let stop = e < l.end; // a comment ends a plain scalar
  for (let k = li + 1; !stop && k < ls.length; k++) {
    const n = ls[k];
    if (n.first >= n.end) continue;
    if (indentOf(n) <= parent || s[n.first] === '#') break;
    const ne = plainEnd(s, n.first, n.end, false);
    w.decoded(' ', ls[k - 1].end, ls[k - 1].end + 1);
    w.slice(n.first, ne);
    end = ne;
    last = k;
    stop = ne < n.end;
  }
  return { word: w.finish(end), lastLine: last };
}

function blockScalar(s: string, ls: Line[], li: number, parent: number, literal: boolean): { word: Word | null; lastLine: number } {
  let k = li + 1;
  let blockIndent = -1;
  let last = li;
  let w: WordBuilder | null = null;
  let pendingBreaks: number[] = [];
  let prevEnd = -1;
  for (; k < ls.length; k++) {
    const n = ls[k];
    if (n.first >= n.end) {
      pendingBreaks.push(n.start);
      continue;
    }
    const ind = indentOf(n);
    if (ind <= parent) break;
    if (blockIndent < 0) blockIndent = ind;
    if (ind < blockIndent) break;
    const contentStart = n.start + blockIndent;
    if (!w) w = new WordBuilder(s, contentStart);
    else {
      // line break(s) between content lines
      if (literal) {
        w.decoded('\n', prevEnd, prevEnd + 1);
        for (const b of pendingBreaks) w.decoded('\n', b, b + 1);
      } else if (pendingBreaks.length) for (const b of pendingBreaks) w.decoded('\n', b, b + 1);
      else w.decoded(' ', prevEnd, prevEnd + 1);
    }
    pendingBreaks = [];
    w.slice(contentStart, n.end);
    prevEnd = n.end;
    last = k;
  }
  return { word: w ? w.finish(prevEnd) : null, lastLine: last };
}

// ---------------------------------------------------------------- sequences

export interface FlowOptions {
  /** Dockerfile exec form: `\` + newline between items is blank. */
  backslashContinuation?: boolean;
}

/** A flow sequence `[a, "b", 'c']` (also Dockerfile JSON exec form) starting at the `[` at `open`. */
export function parseFlowSequence(s: string, open: number, to: number, opts: FlowOptions = {}): { items: Word[]; end: number } {
  const items: Word[] = [];
  let j = open + 1;
  while (j < to) {
    const c = s[j];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === ',') {
      j++;
      continue;
    }
    if (c === '\\' && opts.backslashContinuation && (s[j + 1] === '\n' || s[j + 1] === '\r')) {
      j += 2;
      continue;
    }
    if (c === '#' && (s[j - 1] === ' ' || s[j - 1] === '\t' || s[j - 1] === '\n')) {
      j = lineEnd(s, j, to);
      continue;
    }
    if (c === ']') return { items, end: j + 1 };
    if (c === '"' || c === "'") {
      const r = c === '"' ? doubleQuoted(s, j, to) : singleQuoted(s, j, to);
      if (items.length < 10_000) items.push(r.word);
      j = r.end;
      continue;
    }
    if (c === '[' || c === '{') {
      // nested collection: opaque, dynamic item
      let depth = 0;
      const st = j;
      for (; j < to; j++) {
        if (s[j] === '[' || s[j] === '{') depth++;
        else if (s[j] === ']' || s[j] === '}') {
          depth--;
          if (depth === 0) {
            j++;
            break;
          }
        }
      }
      const w = new WordBuilder(s, st);
      w.slice(st, j);
      w.dynamic = true;
      items.push(w.finish(j));
      continue;
    }
    const le = lineEnd(s, j, to);
    const e = plainEnd(s, j, le, true);
    if (e > j) {
      const w = new WordBuilder(s, j);
      w.slice(j, e);
      items.push(w.finish(e));
      j = e;
    } else j = Math.max(j + 1, e);
  }
  return { items, end: to };
}

/** Reads the value of a key (or list item) whose text starts at `off` on line `li`. */
function valueAt(s: string, ls: Line[], li: number, off: number, parent: number, to: number): Value {
  const l = ls[li];
  while (off < l.end && (s[off] === ' ' || s[off] === '\t')) off++;
  // Node properties (`command: &cmd`, `!!seq`) come before the value; the value is what we read.
  while (off < l.end && (s[off] === '&' || s[off] === '!')) {
    while (off < l.end && s[off] !== ' ' && s[off] !== '\t') off++;
    while (off < l.end && (s[off] === ' ' || s[off] === '\t')) off++;
  }
  if (off >= l.end || s[off] === '#') {
    // value on the following lines: a block sequence, or a multi-line plain scalar
    let k = li + 1;
    while (k < ls.length && blankOrComment(s, ls[k])) k++;
    if (k >= ls.length) return { kind: 'none', items: [], lastLine: li };
    const n = ls[k];
    const ind = indentOf(n);
    if (s[n.first] === '-' && (n.first + 1 >= n.end || s[n.first + 1] === ' ') && ind >= parent) return blockSequence(s, ls, k, to);
    if (ind > parent) {
      const r = scalarAt(s, ls, k, n.first, parent, to);
      return { kind: r.word ? 'scalar' : 'none', items: r.word ? [r.word] : [], lastLine: r.lastLine };
    }
    return { kind: 'none', items: [], lastLine: li };
  }
  if (s[off] === '[') {
    const r = parseFlowSequence(s, off, to);
    let last = li;
    while (last + 1 < ls.length && ls[last + 1].start < r.end) last++;
    return { kind: 'list', items: r.items, lastLine: last };
  }
  const r = scalarAt(s, ls, li, off, parent, to);
  return { kind: r.word ? 'scalar' : 'none', items: r.word ? [r.word] : [], lastLine: r.lastLine };
}

function blockSequence(s: string, ls: Line[], li: number, to: number): Value {
  const dash = indentOf(ls[li]);
  const items: Word[] = [];
  let k = li;
  let last = li;
  while (k < ls.length) {
    const l = ls[k];
    if (blankOrComment(s, l)) {
      k++;
      continue;
    }
    const ind = indentOf(l);
    if (ind < dash) break;
    if (ind > dash) {
      // belongs to an item we did not read as a scalar (nested mapping): skip
      k++;
      continue;
    }
    if (s[l.first] !== '-' || (l.first + 1 < l.end && s[l.first + 1] !== ' ' && s[l.first + 1] !== '\t')) break;
    let off = l.first + 1;
    while (off < l.end && (s[off] === ' ' || s[off] === '\t')) off++;
    if (off < l.end && s[off] !== '#') {
      const r = scalarAt(s, ls, k, off, dash, to);
      if (r.word && items.length < 10_000) items.push(r.word);
      last = r.lastLine;
      k = r.lastLine + 1;
    } else {
      last = k;
      k++;
    }
  }
  return { kind: 'list', items, lastLine: last };
}

// ---------------------------------------------------------------- documents

const KEY = /^([ \t]*)((?:-[ \t]+)*)(["']?)(command|args|entrypoint|environment|env|run|script|before_script|after_script)\3[ \t]*:(?=[ \t]|$)/;
const SHELL_KEYS = new Set(['run', 'script', 'before_script', 'after_script']);

interface KeyHit {
  key: string;
  col: number;
  line: number;
  value: Value;
}

export function findInYaml(ctx: Ctx, hint: LanguageHint, from: number, to: number): void {
  const s = ctx.text;
  const ls = lines(s, from, to);
  // mapping id per key column, tracked with a stack while walking lines
  const stack: { col: number; id: number }[] = [];
  const groups = new Map<number, KeyHit[]>();
  for (let li = 0; li < ls.length; li++) {
    const l = ls[li];
    if (blankOrComment(s, l)) continue;
    const ind = indentOf(l);
    let col = ind;
    let dashed = false;
    let p = l.first;
    while (p < l.end && s[p] === '-' && (s[p + 1] === ' ' || s[p + 1] === '\t')) {
      p++;
      while (p < l.end && (s[p] === ' ' || s[p] === '\t')) p++;
      dashed = true;
    }
    col = p - l.start;
    while (stack.length && (stack[stack.length - 1].col > ind || (dashed && stack[stack.length - 1].col >= col))) stack.pop();
    if (!stack.length || stack[stack.length - 1].col !== col) stack.push({ col, id: li });
    const m = KEY.exec(s.slice(l.start, Math.min(l.end, l.start + 300)));
    if (!m) continue;
    const keyCol = m[1].length + m[2].length;
    if (keyCol !== col) continue;
    const value = valueAt(s, ls, li, l.start + m[0].length, keyCol, to);
    const id = stack[stack.length - 1].id;
    const list = groups.get(id) ?? [];
    list.push({ key: m[4], col: keyCol, line: li, value });
    groups.set(id, list);
    // do not scan inside the value we just read (block scalar lines could look like keys)
    if (value.lastLine > li && (value.kind === 'scalar' || value.kind === 'list') && m[4] !== 'env' && m[4] !== 'environment') li = value.lastLine;
  }
  for (const hits of groups.values()) {
    const env: EnvAssignment[] = [];
    for (const h of hits) if (h.key === 'environment' || h.key === 'env') env.push(...envFrom(ctx, ls, h));
    const argvKeys = ['entrypoint', 'command', 'args'];
    const words: Word[] = [];
    let form: 'shell' | 'argv' = 'shell';
    for (const key of argvKeys) {
      for (const h of hits) {
        if (h.key !== key) continue;
        if (h.value.kind === 'list') {
          form = 'argv';
          words.push(...h.value.items);
        } else if (h.value.kind === 'scalar') {
          for (const w of tokenizeShell(srcOfWord(h.value.items[0]))) words.push(w);
        }
      }
    }
    if (words.length) analyzeWords(ctx, words, { host: hint, form, env });
    for (const h of hits) {
      if (!SHELL_KEYS.has(h.key)) continue;
      for (const item of h.value.items) analyzeWords(ctx, tokenizeShell(srcOfWord(item)), { host: hint, form: 'shell', env });
    }
  }
}

/** `environment:` / `env:` as `- K=V` items, `K: V` mappings, or Kubernetes `- name: K / value: V`. */
function envFrom(ctx: Ctx, ls: Line[], h: KeyHit): EnvAssignment[] {
  const s = ctx.text;
  const out: EnvAssignment[] = [];
  if (h.value.kind === 'list' && h.value.items.length && !/^name\s*:/.test(h.value.items[0].value)) {
    for (const w of h.value.items) if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.value)) out.push(envOf(ctx, w, 'yaml'));
    return out;
  }
  let pending: Word | null = null;
  let entryCol = -1;
  for (let k = h.line + 1; k < ls.length; k++) {
    const l = ls[k];
    if (blankOrComment(s, l)) continue;
    if (indentOf(l) <= h.col) break;
    let p = l.first;
    if (s[p] === '-' && (s[p + 1] === ' ' || s[p + 1] === '\t')) {
      p++;
      while (p < l.end && (s[p] === ' ' || s[p] === '\t')) p++;
    }
    const head = s.slice(p, Math.min(l.end, p + 200));
    const kv = /^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+|$)/.exec(head);
    if (!kv) continue;
    const vOff = p + kv[0].length;
    const read = (): Word | null => (vOff < l.end ? scalarAt(s, ls, k, vOff, p - l.start, l.end).word : null);
    if (kv[1] === 'name') {
      pending = read();
      entryCol = p - l.start;
    } else if (kv[1] === 'value' && pending && p - l.start === entryCol) {
      const v = read();
      const nameR = ctx.lines.range(pending.start, pending.end);
      out.push({
        name: pending.value,
        value: v?.value ?? '',
        range: nameR,
        nameRange: nameR,
        valueRange: v ? ctx.lines.range(v.start, v.end) : nameR,
        source: 'yaml',
        ...(v?.dynamic ? { dynamic: true } : {}),
      });
      pending = null;
    } else if (entryCol < 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(kv[1])) {
      const v = read();
      const nameR = ctx.lines.range(p, p + kv[1].length);
      out.push({
        name: kv[1],
        value: v?.value ?? '',
        range: ctx.lines.range(p, v ? v.end : p + kv[1].length),
        nameRange: nameR,
        valueRange: v ? ctx.lines.range(v.start, v.end) : nameR,
        source: 'yaml',
      });
    }
  }
  return out;
}
