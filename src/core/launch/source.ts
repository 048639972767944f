/**
 * Low-level text plumbing for the launch finder: words whose characters remember where they came
 * from in the original document, and views over decoded strings (YAML scalars, quoted `sh -c`
 * arguments) that map back to original offsets.
 */

/** Decoded characters [d, d+n) came from source offsets [o, o+n). */
export interface Run {
  d: number;
  o: number;
  n: number;
}

/** A word with its decoded value. `start`/`end` span the raw text, `runs` map each decoded char. */
export interface Word {
  value: string;
  start: number;
  end: number;
  runs: Run[];
  /** Shell operator (`;`, `&&`, `|`, `\n`, …) or `redir`; words that are operators have no runs. */
  op?: string;
  /** Redirection that takes the next word as its target (`>`, `2>`, but not `2>&1`). */
  needsTarget?: boolean;
  dynamic?: boolean;
  quoted?: boolean;
  /** For an item of a bash array: the `"${name[@]}"` word it stands in for. */
  expandedFrom?: Word;
}

/**
 * A region of a string to scan. Without `runs`, offsets in `s` are original document offsets;
 * with `runs`, `s` is a decoded string and `runs` map its indices to original offsets.
 */
export interface Src {
  s: string;
  from: number;
  to: number;
  runs?: Run[];
}

/** Maps index `i` of a decoded string to its source offset (i may equal the length: one past the end). */
export function mapIndex(runs: Run[], i: number): number {
  if (runs.length === 0) return 0;
  let lo = 0;
  let hi = runs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (runs[mid].d <= i) lo = mid;
    else hi = mid - 1;
  }
  const r = runs[lo];
  if (i < r.d) return r.o;
  if (i >= r.d + r.n) return r.o + r.n;
  return r.o + (i - r.d);
}

/** Source offset just past decoded char i-1 (the exclusive end of a decoded span ending at i). */
export function mapEnd(runs: Run[], i: number): number {
  if (i <= 0) return mapIndex(runs, 0);
  return mapIndex(runs, i - 1) + 1;
}

const MAX_RUNS = 20_000;

/** Builds a string from UTF-16 code units without touching surrogates (TextDecoder would). */
function fromUnits(buf: Uint16Array, len: number): string {
  let out = '';
  for (let i = 0; i < len; i += 4096) out += String.fromCharCode(...buf.subarray(i, Math.min(len, i + 4096)));
  return out;
}

/**
 * Accumulates a word from slices of a source string. Short pieces are copied into a code-unit buffer
 * (a word made of a million one-character pieces, e.g. `'"'"'"…`, stays cheap); long ones are kept
 * as slices.
 */
export class WordBuilder {
  private parts: string[] = [];
  private buf: Uint16Array | null = null;
  private blen = 0;
  private len = 0;
  readonly runs: Run[] = [];
  dynamic = false;
  quoted = false;
  constructor(
    private readonly s: string,
    readonly start: number,
  ) {}
  private pieces = 0;
  private head = '';
  private unit(c: number): void {
    // the first pieces go to a plain string; only words made of very many pieces need the buffer
    if (this.pieces < 256) {
      this.pieces++;
      this.head += String.fromCharCode(c);
      return;
    }
    if (!this.buf) this.buf = new Uint16Array(1024);
    else if (this.blen === this.buf.length) {
      const nb = new Uint16Array(this.buf.length * 2);
      nb.set(this.buf);
      this.buf = nb;
    }
    this.buf[this.blen++] = c;
  }
  private flushUnits(): void {
    if (this.head) {
      this.parts.push(this.head);
      this.head = '';
    }
    if (this.blen) {
      this.parts.push(fromUnits(this.buf!, this.blen));
      this.blen = 0;
    }
  }
  /** Appends s[from, to) verbatim. */
  slice(from: number, to: number): void {
    if (to <= from) return;
    if (to - from >= 64 || (this.pieces < 256 && !this.blen)) {
      this.flushUnits();
      this.pieces++;
      this.parts.push(this.s.slice(from, to));
    } else for (let k = from; k < to; k++) this.unit(this.s.charCodeAt(k));
    this.addRun(from, to - from);
  }
  /** Appends a decoded string that stands for source text [from, to) (escapes): maps every char to `from`. */
  decoded(str: string, from: number, to: number): void {
    if (str.length === 0) return;
    for (let k = 0; k < str.length; k++) this.unit(str.charCodeAt(k));
    if (str.length === to - from) {
      this.addRun(from, str.length);
    } else {
      for (let k = 0; k < str.length; k++) {
        if (this.runs.length >= MAX_RUNS) this.runs[this.runs.length - 1].n++;
        else this.runs.push({ d: this.len, o: k === str.length - 1 ? to - 1 : from, n: 1 });
        this.len++;
      }
    }
  }
  private addRun(o: number, n: number): void {
    const last = this.runs[this.runs.length - 1];
    if (last && last.d + last.n === this.len && last.o + last.n === o) last.n += n;
    // hostile input (a quote every other character): past MAX_RUNS the mapping turns approximate
    // (later characters extend the last run) instead of growing without bound
    else if (last && this.runs.length >= MAX_RUNS) last.n += n;
    else this.runs.push({ d: this.len, o, n });
    this.len += n;
  }
  finish(end: number): Word {
    this.flushUnits();
    const value = this.parts.length === 1 ? this.parts[0] : this.parts.join('');
    this.parts = [value];
    const w: Word = { value, start: this.start, end, runs: this.runs };
    if (this.dynamic) w.dynamic = true;
    if (this.quoted) w.quoted = true;
    return w;
  }
}

/** Rewrites a word scanned in `src` coordinates into original-document coordinates. */
export function liftWord(w: Word, src: Src): Word {
  const outer = src.runs;
  if (!outer) return w;
  const runs: Run[] = [];
  for (const r of w.runs) {
    let pos = r.o;
    const stop = r.o + r.n;
    // outer runs are sorted by d (= index in src.s); find the one containing pos
    let lo = 0;
    let hi = outer.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (outer[mid].d <= pos) lo = mid;
      else hi = mid - 1;
    }
    for (let k = lo; k < outer.length && pos < stop; k++) {
      const o = outer[k];
      const a = Math.max(pos, o.d);
      const b = Math.min(stop, o.d + o.n);
      if (b <= a) continue;
      const d = r.d + (a - r.o);
      const orig = o.o + (a - o.d);
      const last = runs[runs.length - 1];
      if (last && last.d + last.n === d && last.o + last.n === orig) last.n += b - a;
      else runs.push({ d, o: orig, n: b - a });
      pos = b;
    }
  }
  const out: Word = { ...w, runs, start: mapIndex(outer, w.start), end: w.end > w.start ? mapEnd(outer, w.end) : mapIndex(outer, w.start) };
  return out;
}

/** A Src over a word's decoded value, for re-scanning it (e.g. the script of `sh -c '…'`). */
export function srcOfWord(w: Word): Src {
  return { s: w.value, from: 0, to: w.value.length, runs: w.runs };
}

/** Index of the end of the line containing `i` (the `\n` or `to`). */
export function lineEnd(s: string, i: number, to: number): number {
  const n = s.indexOf('\n', i);
  return n < 0 || n > to ? to : n;
}
