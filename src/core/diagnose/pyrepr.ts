/**
 * A reader for Python `repr()` text as servers log it: SGLang's `server_args=ServerArgs(k=v, …)`,
 * vLLM's `non-default args: {…}`, `args: Namespace(…)` and `with config: k=v, …`.
 *
 * Why hand-written: no library fits. JSON.parse rejects single quotes, None/True/False, tuples and
 * calls; the project's tree-sitter evaluator (core/flags/pyvalue) needs WASM loaded asynchronously
 * and a whole syntax tree, and gives nothing for a cut line; Python parsers for JavaScript reject
 * what repr writes that is not Python at all (`<ConfigFormat.AUTO: 'auto'>`, `compressed-tensors`
 * as a bare word in vLLM's config line). Log lines are cut (rotation, a size cap, a terminal), so
 * the reader must return what it read up to the cut and say it was cut, never throw.
 *
 * Values come back JSON-like (FlagValue): strings, numbers (inf/nan included), null, booleans,
 * lists and tuples as arrays, sets as arrays, dicts as objects (`__proto__` kept as a plain key),
 * calls `Name(a, k=v)` as `{ $call: 'Name', $args?: [a], k: v }`, enum reprs `<E.X: 'x'>` as their
 * value, dotted names (`torch.bfloat16`) and other bare words as strings. Time is linear in the
 * text; depth and item counts are bounded.
 */
import { decodeEscapes } from '../flags/pyvalue';
import { setOwn, type FlagValue } from './evidence';

export interface PyReprOptions {
  /** Nesting deeper than this is kept as raw text. Default 64. */
  maxDepth?: number;
  /** Items per list/dict/call beyond this are skipped. Default 10 000. */
  maxItems?: number;
}

export interface PyReprResult {
  value: FlagValue;
  /** The text ended (or was cut) inside the value. */
  truncated: boolean;
  /** Offset just past what was read. */
  end: number;
}

export interface KwargsResult {
  /** Keyword arguments in order of appearance (a repeated key: the last wins). */
  args: Record<string, FlagValue>;
  /** Positional arguments, if any. */
  positional: FlagValue[];
  truncated: boolean;
  end: number;
}

const IDENT_START = /[A-Za-z_]/;
const isDelimiter = (c: string): boolean => c === ',' || c === ')' || c === ']' || c === '}' || c === ':' || c === '=' || c === '>' || /\s/.test(c);
const IDENT_PART = /[\w.]/;

class Reader {
  i = 0;
  truncated = false;
  readonly maxDepth: number;
  readonly maxItems: number;

  constructor(
    readonly s: string,
    start: number,
    opts: PyReprOptions,
  ) {
    this.i = start;
    this.maxDepth = opts.maxDepth ?? 64;
    this.maxItems = opts.maxItems ?? 10_000;
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++;
      else break;
    }
  }

  eof(): boolean {
    return this.i >= this.s.length;
  }

  /** A quoted string starting at the quote (prefix letters already skipped). */
  str(bytes: boolean): string {
    const s = this.s;
    const q = s[this.i];
    const triple = s.startsWith(q.repeat(3), this.i);
    const close = triple ? q.repeat(3) : q;
    this.i += close.length;
    const from = this.i;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === '\\') {
        this.i += 2;
        continue;
      }
      if (c === q && (!triple || s.startsWith(close, this.i))) {
        const raw = s.slice(from, this.i);
        this.i += close.length;
        return bytes ? raw : decodeEscapes(raw);
      }
      this.i++;
    }
    this.truncated = true;
    this.i = s.length;
    const raw = s.slice(from).replace(/\\$/, '');
    return bytes ? raw : decodeEscapes(raw);
  }

  /** Skips a balanced group (brackets and quotes honoured) and returns its text: for too-deep values and `<…>` reprs. */
  rawGroup(): string {
    const s = this.s;
    const from = this.i;
    const stack: string[] = [];
    const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === "'" || c === '"') {
        this.str(true);
        continue;
      }
      if (pairs[c]) stack.push(pairs[c]);
      else if (stack.length && c === stack[stack.length - 1]) {
        stack.pop();
        if (stack.length === 0) {
          this.i++;
          return s.slice(from, this.i);
        }
      } else if (stack.length === 0) break;
      this.i++;
    }
    if (stack.length) this.truncated = true;
    return s.slice(from, this.i);
  }

  /** A bare word and whatever follows it up to the next delimiter at depth 0 (`compressed-tensors`, `1.5GiB`). */
  bareTail(from: number): string {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === ',' || c === ')' || c === ']' || c === '}' || c === ':' || c === '=' || c === '>') break;
      if (c === '(' || c === '[' || c === '{') {
        this.rawGroup();
        continue;
      }
      if (c === "'" || c === '"') {
        this.str(true);
        continue;
      }
      this.i++;
    }
    return s.slice(from, this.i).trim();
  }

  value(depth: number): FlagValue {
    this.ws();
    const s = this.s;
    if (this.eof()) {
      this.truncated = true;
      return null;
    }
    if (depth > this.maxDepth) return this.rawGroup() || this.bareTail(this.i);
    const c = s[this.i];
    if (c === "'" || c === '"') return this.str(false);
    if (c === '[') return this.seq(']', depth);
    if (c === '(') return this.seq(')', depth);
    if (c === '{') return this.dictOrSet(depth);
    if (c === '<') return this.angle(depth);
    if (c === '-' || c === '+' || c === '.' || (c >= '0' && c <= '9')) return this.number();
    if (IDENT_START.test(c)) {
      const from = this.i;
      // String prefixes: b'..', r'..', u'..', rb'..'.
      const pre = /^(?:[bBrRuUfF]|[bB][rR]|[rR][bB])(?=['"])/.exec(s.slice(this.i, this.i + 3));
      if (pre) {
        this.i += pre[0].length;
        const raw = /[rR]/.test(pre[0]);
        const text = this.str(raw || /[bB]/.test(pre[0]));
        return text;
      }
      while (this.i < s.length && IDENT_PART.test(s[this.i])) this.i++;
      const word = s.slice(from, this.i);
      if (s[this.i] === '(') return this.call(word, depth);
      const next = s[this.i];
      if (this.i < s.length && !isDelimiter(next)) {
        return this.bareTail(from);
      }
      switch (word) {
        case 'None':
        case 'null': // JSON inside a repr (vLLM's compilation_config={…})
          return null;
        case 'True':
        case 'true':
          return true;
        case 'False':
        case 'false':
          return false;
        case 'inf':
          return Infinity;
        case 'nan':
          return NaN;
        case 'Ellipsis':
          return '...';
        default:
          return word;
      }
    }
    // Anything else: read up to the next delimiter as text.
    const from = this.i;
    this.i++;
    return this.bareTail(from);
  }

  number(): FlagValue {
    const s = this.s;
    const m = /^[-+]?(?:inf|nan|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][-+]?\d+)?j?)/.exec(s.slice(this.i, this.i + 400));
    if (!m || m[0] === '-' || m[0] === '+') {
      const from = this.i;
      this.i++;
      return this.bareTail(from);
    }
    const from = this.i;
    this.i += m[0].length;
    const next = s[this.i];
    if (this.i < s.length && !isDelimiter(next)) {
      return this.bareTail(from); // `1.5GiB`, `8x`: not a number
    }
    const t = m[0].replace(/_/g, '');
    if (t.endsWith('j')) return t;
    if (/inf$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
    if (/nan$/.test(t)) return NaN;
    const n = Number(t);
    return Number.isNaN(n) ? t : n;
  }

  /** `[…]` or `(…)`: an array. The opening bracket is at `this.i`. */
  seq(close: string, depth: number): FlagValue[] {
    this.i++;
    const out: FlagValue[] = [];
    for (;;) {
      this.ws();
      if (this.eof()) {
        this.truncated = true;
        return out;
      }
      if (this.s[this.i] === close) {
        this.i++;
        return out;
      }
      const before = this.i;
      const v = this.value(depth + 1);
      if (out.length < this.maxItems) out.push(v);
      if (!this.afterItem(close, before)) return out;
    }
  }

  /** After an item: a comma (go on), the closing bracket (left for the caller), a cut. False: stop. */
  afterItem(close: string, before: number): boolean {
    this.ws();
    if (this.eof()) {
      this.truncated = true;
      return false;
    }
    const c = this.s[this.i];
    if (c === ',') {
      this.i++;
      return true;
    }
    if (c === close) return true;
    // Something unexpected (`a=1 2 3`): skip it up to the next delimiter, always moving on.
    const at = this.i;
    this.bareTail(this.i);
    if (this.i === at || this.i === before) this.i = Math.max(this.i, at + 1);
    this.ws();
    if (this.s[this.i] === ',') this.i++;
    return true;
  }

  dictOrSet(depth: number): FlagValue {
    this.i++;
    const obj: Record<string, FlagValue> = {};
    const set: FlagValue[] = [];
    let kind: 'dict' | 'set' | undefined;
    let n = 0;
    for (;;) {
      this.ws();
      if (this.eof()) {
        this.truncated = true;
        break;
      }
      if (this.s[this.i] === '}') {
        this.i++;
        break;
      }
      const before = this.i;
      const k = this.value(depth + 1);
      this.ws();
      if (this.s[this.i] === ':' && kind !== 'set') {
        kind = 'dict';
        this.i++;
        const v = this.value(depth + 1);
        if (n++ < this.maxItems) setOwn(obj, keyText(k), v);
      } else {
        kind ??= 'set';
        if (kind === 'set' && n++ < this.maxItems) set.push(k);
      }
      if (!this.afterItem('}', before)) break;
    }
    return kind === 'set' ? set : obj;
  }

  /** `<Enum.MEMBER: 'value'>` → value; any other `<…>` (functions, objects) → its text. */
  angle(depth: number): FlagValue {
    const s = this.s;
    const enumHead = /^<[A-Za-z_][\w.]*:\s*/.exec(s.slice(this.i, this.i + 300));
    if (enumHead) {
      const save = this.i;
      this.i += enumHead[0].length;
      const v = this.value(depth + 1);
      this.ws();
      if (s[this.i] === '>') {
        this.i++;
        return v;
      }
      if (this.eof()) {
        this.truncated = true;
        return v;
      }
      this.i = save;
    }
    return this.rawGroup();
  }

  /** `Name(args)`: positional and keyword arguments. The name is read; `this.i` is at `(`. */
  call(name: string, depth: number): FlagValue {
    const r = this.kwargs(')', depth);
    const out: Record<string, FlagValue> = {};
    setOwn(out, '$call', name);
    if (r.positional.length) setOwn(out, '$args', r.positional);
    for (const k of Object.keys(r.args)) setOwn(out, k, r.args[k]);
    return out;
  }

  /**
   * `k=v, k2=v2, positional` up to `close` (or the end of text when close is ''). For a call the
   * opening parenthesis is at `this.i`.
   */
  kwargs(close: string, depth: number): { args: Record<string, FlagValue>; positional: FlagValue[] } {
    if (close) this.i++;
    const args: Record<string, FlagValue> = {};
    const positional: FlagValue[] = [];
    let n = 0;
    const s = this.s;
    for (;;) {
      this.ws();
      if (this.eof()) {
        if (close) this.truncated = true;
        break;
      }
      if (close && s[this.i] === close) {
        this.i++;
        break;
      }
      const before = this.i;
      const key = /^([A-Za-z_]\w*)\s*=(?!=)/.exec(s.slice(this.i, this.i + 256));
      if (key) {
        this.i += key[0].length;
        const v = this.value(depth + 1);
        if (n++ < this.maxItems) setOwn(args, key[1], v);
      } else {
        const v = this.value(depth + 1);
        if (n++ < this.maxItems) positional.push(v);
      }
      if (!close) {
        this.ws();
        if (this.eof()) break; // `k=v, …` to the end of the text: the end is not a cut
      }
      if (!this.afterItem(close || '\u0000', before)) break;
    }
    return { args, positional };
  }
}

function keyText(k: FlagValue): string {
  if (typeof k === 'string') return k;
  if (typeof k === 'number' || typeof k === 'boolean' || k === null) return k === null ? 'None' : typeof k === 'boolean' ? (k ? 'True' : 'False') : String(k);
  return JSON.stringify(k);
}

/** Reads one repr value starting at `start`. Never throws. */
export function parsePyRepr(text: string, start = 0, opts: PyReprOptions = {}): PyReprResult {
  if (typeof text !== 'string') return { value: null, truncated: true, end: 0 };
  const r = new Reader(text, start, opts);
  try {
    const value = r.value(0);
    return { value, truncated: r.truncated, end: r.i };
  } catch {
    return { value: null, truncated: true, end: r.i };
  }
}

/**
 * Reads `k=v, …` (vLLM's `with config:` tail) from `start` to the end of the text, or, when the
 * text at `start` is `(`, the arguments of a call up to its `)`.
 */
export function parsePyKwargs(text: string, start = 0, opts: PyReprOptions = {}): KwargsResult {
  if (typeof text !== 'string') return { args: {}, positional: [], truncated: true, end: 0 };
  const r = new Reader(text, start, opts);
  try {
    r.ws();
    const inCall = text[r.i] === '(';
    const { args, positional } = r.kwargs(inCall ? ')' : '', 0);
    return { args, positional, truncated: r.truncated, end: r.i };
  } catch {
    return { args: {}, positional: [], truncated: true, end: r.i };
  }
}

/**
 * The fields of a `server_args=ServerArgs(…)` line (SGLang logs it at start-up, after `auto`
 * values are resolved). `found` is false when the line holds no such call.
 */
export function parseServerArgsLine(line: string, opts: PyReprOptions = {}): { found: boolean; args: Record<string, FlagValue>; truncated: boolean } {
  if (typeof line !== 'string') return { found: false, args: {}, truncated: false };
  const at = line.indexOf('ServerArgs(');
  if (at < 0) return { found: false, args: {}, truncated: false };
  const r = parsePyKwargs(line, at + 'ServerArgs'.length, opts);
  return { found: true, args: r.args, truncated: r.truncated };
}
