/**
 * One text stream (the answer's content, or its reasoning) scanned incrementally.
 *
 * Everything here is O(1) per character on the hot path, with bounded state: a ring buffer of
 * the last LIMITS.ringSize code units, a hash table of the last position of every character
 * n-gram (LZ77-style match finder), a bit ring for seq-rep and a few counters. Checks are keyed
 * to absolute character offsets, never to delta boundaries, so feeding a text in one piece or in
 * many small pieces reaches the same state.
 */
import { deflateSync } from 'node:zlib';
import { LIMITS } from './limits';
import { incompatibleScripts, isLetterUnit, scriptOf, SCRIPT_INHERIT, SCRIPT_NONE } from './script';
import type { ReasonCode } from './types';

export type FlagSink = (code: ReasonCode, offset: number, detail: string) => void;

const RING = LIMITS.ringSize;
const RMASK = RING - 1;
const N = LIMITS.ngram;
const TABLE_BITS = 16;
const HB = 0x01000193; // odd multiplier for the rolling hash
const HBN = powImul(HB, N);
const REP_W = LIMITS.seqRepWindow;
const REP_MASK = REP_W - 1;
const REP_NEED = Math.ceil(LIMITS.seqRep * REP_W);
const PMAX = LIMITS.maxPeriod;
const INF = 0x7fffffff;
const COMP_MASK = LIMITS.compressionEvery - 1;

function powImul(b: number, e: number): number {
  let r = 1;
  for (let i = 0; i < e; i++) r = Math.imul(r, b);
  return r;
}

const ASCII_SCRIPT = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_SCRIPT[c] = scriptOf(c);

function isWhitespace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200b) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

function floodLimit(c: number): number {
  if (c === 32) return LIMITS.floodSpace;
  if (isWhitespace(c)) return LIMITS.floodOtherWhitespace;
  return LIMITS.floodPrintable;
}

/** Characters needed (matchRun, i.e. loop length minus one period) before a period-p loop can count. */
function firstLoopAlarm(p: number): number {
  if (p < 2) return INF;
  if (p < LIMITS.shortPeriod) return Math.max(LIMITS.shortLoopPeriods * p, LIMITS.shortLoopChars) - p;
  return (LIMITS.longLoopPeriods - 1) * p;
}

export interface UnitShape {
  /** Carries words: enough letters that a run of it is prose, not data or punctuation. */
  wordy: boolean;
  /** Contains a newline: made of lines, as code, tables and config are. */
  line: boolean;
  /** Contains a list separator (, ; |): enumerations repeat identical items legitimately. */
  list: boolean;
}

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

export class Channel {
  /** Absolute offset of the next character (characters seen so far). */
  pos = 0;
  /** Whether a non-whitespace character has been seen. */
  nonWhitespace = false;

  private readonly ring = new Uint16Array(RING);
  private readonly table = new Int32Array(1 << TABLE_BITS);
  private readonly repBits = new Uint8Array(REP_W);
  private hash = 0;

  private runChar = -1;
  private runLen = 0;
  private runStart = 0;
  private runAlarm = INF;
  private runStage = 0; // 0: none flagged for this run, 1: token0 flagged, 2: flood flagged

  private readonly t0: string;
  private readonly t0Code: number;
  private readonly t0Multi: boolean;
  private t0k = 0; // chars of token0Text matched in the current copy
  private t0Count = 0; // complete consecutive copies
  private t0Start = 0;

  /** Current loop candidate: period, and length of the run of positions matching pos - lag. */
  lag = 0;
  matchRun = 0;
  private loopAlarm = INF;

  private repCount = 0;
  private repAlarm = REP_NEED;

  private prevScript = 0;
  private afterBackslash = false;
  private prevChar = 0;
  private readonly saladRing = new Float64Array(LIMITS.saladEvents);
  private saladCount = 0;

  private readonly flagged = new Set<ReasonCode>();

  constructor(private readonly sink: FlagSink, token0Text: string) {
    this.t0 = token0Text.length ? token0Text : '!';
    this.t0Code = this.t0.charCodeAt(0);
    this.t0Multi = this.t0.length > 1;
  }

  has(code: ReasonCode): boolean {
    return this.flagged.has(code);
  }

  private flag(code: ReasonCode, offset: number, detail: string): void {
    if (this.flagged.has(code)) return;
    this.flagged.add(code);
    this.sink(code, Math.max(0, offset), detail);
  }

  /** Scan one piece of text. The hot loop keeps its state in locals and syncs before slow paths. */
  feed(s: string): void {
    const len = s.length;
    if (len === 0) return;
    const ring = this.ring;
    const table = this.table;
    const rep = this.repBits;
    let pos = this.pos;
    let h = this.hash;
    let runChar = this.runChar;
    let runLen = this.runLen;
    let runAlarm = this.runAlarm;
    let lag = this.lag;
    let matchRun = this.matchRun;
    let loopAlarm = this.loopAlarm;
    let repCount = this.repCount;
    let prevScript = this.prevScript;
    let afterBackslash = this.afterBackslash;
    const t0Multi = this.t0Multi;

    for (let i = 0; i < len; i++) {
      const c = s.charCodeAt(i);
      ring[pos & RMASK] = c;

      // 1. Same-character runs (floods, single-character token 0).
      if (c === runChar) {
        if (++runLen >= runAlarm) {
          runAlarm = this.onRun(runChar, runLen);
        }
      } else {
        runChar = c;
        runLen = 1;
        this.runStart = pos;
        this.runStage = 0;
        runAlarm = c === this.t0Code && !t0Multi ? LIMITS.token0TextRun : floodLimit(c);
      }
      if (t0Multi) this.stepToken0(c, pos);

      // 2. Rolling n-gram hash: match finder for loops, and seq-rep.
      const out = pos >= N ? ring[(pos - N) & RMASK]! : 0;
      h = (Math.imul(h, HB) + c - Math.imul(out, HBN)) | 0;
      if (pos >= N - 1) {
        const idx = Math.imul(h, 0x9e3779b1) >>> (32 - TABLE_BITS);
        const j = table[idx]! - 1;
        table[idx] = pos + 1;
        const seen = j >= 0 && pos - j <= REP_W ? 1 : 0;
        const slot = pos & REP_MASK;
        repCount += seen - rep[slot]!;
        rep[slot] = seen;
        if (repCount >= this.repAlarm && pos >= REP_W) {
          this.repAlarm = INF;
          this.flag('seq-rep', pos - REP_W + 1,
            `${Math.round((100 * repCount) / REP_W)}% of the last ${REP_W} characters repeat earlier ${N}-grams`);
        }
        if (lag !== 0) {
          if (ring[(pos - lag) & RMASK] === c) {
            if (++matchRun >= loopAlarm) loopAlarm = this.onLoop(lag, matchRun, pos);
          } else {
            lag = 0;
            matchRun = 0;
          }
        }
        if (lag === 0 && j >= 0) {
          const p = pos - j;
          if (p <= PMAX) {
            const m = this.extendBack(p, pos);
            if (m >= 4) {
              lag = p;
              matchRun = m;
              loopAlarm = firstLoopAlarm(p);
              if (matchRun >= loopAlarm) loopAlarm = this.onLoop(lag, matchRun, pos);
            }
          }
        }
      } else if (lag !== 0) {
        lag = 0;
        matchRun = 0;
      }

      // 3. Token salad: script clashes inside words, U+FFFD, byte-level BPE artefacts.
      if (c < 128) {
        let sc = ASCII_SCRIPT[c]!;
        // Letters right after a backslash are an escape (roff "\fI", C "\n"), not part of a word.
        if (sc !== 0) {
          if (afterBackslash) sc = 0;
        } else {
          afterBackslash = c === 92;
        }
        if (c > 32 && c !== 0x7f && !this.nonWhitespace) this.nonWhitespace = true;
        if (sc !== prevScript) {
          if (sc !== 0 && prevScript > 1 && incompatibleScripts(prevScript, sc)) this.onSalad(pos, 'script');
          prevScript = sc;
        }
      } else {
        afterBackslash = false;
        if (!this.nonWhitespace && !isWhitespace(c)) this.nonWhitespace = true;
        const sc = scriptOf(c);
        if (sc !== SCRIPT_INHERIT && sc !== prevScript) {
          if (sc !== SCRIPT_NONE && prevScript !== SCRIPT_NONE && incompatibleScripts(prevScript, sc)) this.onSalad(pos, 'script');
          prevScript = sc;
        }
        if (c === 0xfffd) this.onSalad(pos, 'replacement');
        else if (c === 0x120 || c === 0x10a || c === 0x109) this.onSalad(pos, 'bpe');
        else if (c === 0x122 && this.prevChar === 0xe2) this.onSalad(pos, 'bpe');
      }
      this.prevChar = c;

      pos++;
      if ((pos & COMP_MASK) === 0) {
        this.pos = pos;
        this.checkCompression();
      }
    }

    this.pos = pos;
    this.hash = h;
    this.runChar = runChar;
    this.runLen = runLen;
    this.runAlarm = runAlarm;
    this.lag = lag;
    this.matchRun = matchRun;
    this.loopAlarm = loopAlarm;
    this.repCount = repCount;
    this.prevScript = prevScript;
    this.afterBackslash = afterBackslash;
  }

  /** Length of the run of positions ending at pos that equal the character `p` earlier. */
  private extendBack(p: number, pos: number): number {
    const ring = this.ring;
    let limit = pos - p + 1; // absolute positions available before pos - p
    if (limit > RING - 1 - p) limit = RING - 1 - p;
    let k = 0;
    while (k < limit && ring[(pos - k) & RMASK] === ring[(pos - k - p) & RMASK]) k++;
    return k;
  }

  private onRun(c: number, runLen: number): number {
    const start = this.runStart;
    if (c === this.t0Code && !this.t0Multi && this.runStage === 0) {
      this.runStage = 1;
      this.flag('token0-run', start, `${runLen}+ copies of token 0's text ${JSON.stringify(this.t0)}`);
      return INF; // the flood rule would only repeat what token0-run says
    }
    if (this.runStage < 2) {
      this.runStage = 2;
      this.flag('char-flood', start, `character ${describeChar(c)} repeated ${runLen}+ times`);
    }
    return INF;
  }

  private stepToken0(c: number, pos: number): void {
    const t0 = this.t0;
    if (c === t0.charCodeAt(this.t0k)) {
      if (this.t0k === 0 && this.t0Count === 0) this.t0Start = pos;
      this.t0k++;
      if (this.t0k === t0.length) {
        this.t0k = 0;
        this.t0Count++;
        if (this.t0Count === LIMITS.token0TextRun) {
          this.flag('token0-run', this.t0Start, `${this.t0Count}+ consecutive copies of token 0's text ${JSON.stringify(t0)}`);
        }
      }
    } else {
      this.t0Count = 0;
      this.t0k = 0;
      if (c === t0.charCodeAt(0)) {
        this.t0Start = pos;
        this.t0k = 1;
        if (t0.length === 1) {
          this.t0k = 0;
          this.t0Count = 1;
        }
      }
    }
  }

  /** Shape of the period-p unit that ends at pos: does it carry words, is it one line? */
  unitShape(p: number, pos: number): UnitShape {
    let letters = 0;
    let nonSpace = 0;
    let hexOnly = true;
    let digits = 0;
    let newlines = 0;
    let list = false;
    for (let k = 0; k < p; k++) {
      const c = this.ring[(pos - k) & RMASK]!;
      if (c === 10) newlines++;
      else if (c === 44 || c === 59 || c === 124) list = true;
      if (isWhitespace(c)) continue;
      nonSpace++;
      if (!isHexDigit(c)) hexOnly = false;
      else if (c <= 57) digits++;
      if (isLetterUnit(c)) letters++;
    }
    // Hex data ("00ff", "0x1f") is not words; "abc" and "def" are.
    const hexData = hexOnly && digits > 0;
    const wordy = (letters >= 2 && 2 * letters >= nonSpace && !(hexData && p <= 16)) ||
      (p >= LIMITS.shortPeriod && letters >= 8);
    const line = newlines > 0;
    return { wordy, line, list };
  }

  /** Loop length (one period included) a period-p unit of this shape needs to count. */
  static loopNeed(p: number, shape: UnitShape): number {
    if (p < 2) return INF;
    if (!shape.wordy) {
      if (p >= LIMITS.shortPeriod) return Math.max(LIMITS.structuralLoopChars, LIMITS.structuralLongPeriods * p);
      // Holtzman et al.: anything repeated more than 50 times back to back is a loop.
      const holtzman = Math.max(LIMITS.holtzmanPeriods * p, LIMITS.holtzmanChars);
      return Math.min(holtzman, Math.max(LIMITS.structuralLoopChars, LIMITS.structuralShortPeriods * p));
    }
    if (p < LIMITS.shortPeriod) {
      if (shape.list) return Math.max(LIMITS.shortListPeriods * p, LIMITS.shortListChars);
      return shape.line
        ? Math.max(LIMITS.shortLinePeriods * p, LIMITS.shortLineChars)
        : Math.max(LIMITS.shortLoopPeriods * p, LIMITS.shortLoopChars);
    }
    if (shape.line && p < LIMITS.longLineMax) return LIMITS.longLinePeriods * p;
    return LIMITS.longLoopPeriods * p;
  }

  private onLoop(p: number, matchRun: number, pos: number): number {
    const code: ReasonCode = p < LIMITS.shortPeriod ? 'short-loop' : 'long-loop';
    if (this.flagged.has(code)) return INF;
    const need = Channel.loopNeed(p, this.unitShape(p, pos));
    const total = matchRun + p;
    if (total >= need) {
      const start = pos - total + 1;
      const reps = Math.floor(total / p);
      this.flag(code, start, `a ${p}-character period ${JSON.stringify(this.preview(p, start, pos))} repeats ${reps} times back to back`);
      return INF;
    }
    return need - p;
  }

  private onSalad(pos: number, _what: string): void {
    if (this.flagged.has('token-salad')) return;
    const ring = this.saladRing;
    const k = ring.length;
    ring[this.saladCount % k] = pos;
    this.saladCount++;
    if (this.saladCount >= k) {
      const oldest = ring[this.saladCount % k]!;
      if (pos - oldest <= LIMITS.saladSpan) {
        this.flag('token-salad', oldest, `${k} script clashes, U+FFFD or byte-level BPE artefacts within ${pos - oldest + 1} characters`);
      }
    }
  }

  /** The last `n` characters (n <= ring size) as a string. */
  tail(n: number): string {
    const count = Math.min(n, this.pos, RING);
    const out: string[] = [];
    const CHUNK = 4096;
    for (let start = this.pos - count; start < this.pos; start += CHUNK) {
      const end = Math.min(this.pos, start + CHUNK);
      const codes = new Array<number>(end - start);
      for (let x = start; x < end; x++) codes[x - start] = this.ring[x & RMASK]!;
      out.push(String.fromCharCode(...codes));
    }
    return out.join('');
  }

  /** The loop's first period (from `start`, when still in the ring), cut to 40 characters. */
  private preview(p: number, start: number, pos: number): string {
    const n = Math.min(p, 40);
    const from = pos - start < RING ? start : pos - p + 1;
    let s = '';
    for (let x = from; x < from + n; x++) s += String.fromCharCode(this.ring[x & RMASK]!);
    return n < p ? `${s}…` : s;
  }

  /** zlib compression ratio of the tail window (bytes in / bytes out). */
  compressionRatio(): number {
    const text = this.tail(LIMITS.compressionWindow);
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length === 0) return 0;
    return bytes.length / deflateSync(bytes).length;
  }

  checkCompression(): void {
    if (this.flagged.has('compression') || this.pos < LIMITS.compressionMinChars) return;
    const ratio = this.compressionRatio();
    if (ratio > LIMITS.compression) {
      const window = Math.min(this.pos, LIMITS.compressionWindow);
      this.flag('compression', this.pos - window,
        `the last ${window} characters compress ${ratio.toFixed(1)}:1 with zlib (text stays below ${LIMITS.compression})`);
    }
  }

  /**
   * Current tail loop for the finish-time "length" rule, with laxer needs than the streaming
   * rules (the model already failed to stop): period and loop start, or null.
   */
  tailLoop(): { period: number; start: number } | null {
    const p = this.lag;
    if (p < 2) return null;
    const total = this.matchRun + p;
    let need: number;
    if (p >= LIMITS.shortPeriod) need = Math.max(LIMITS.lengthLoopPeriods * p, LIMITS.lengthLoopChars);
    else if (this.unitShape(p, this.pos - 1).wordy) need = Math.max(LIMITS.lengthShortPeriods * p, LIMITS.shortLoopChars);
    else need = Math.max(LIMITS.structuralShortPeriods * p, 2 * LIMITS.lengthLoopChars);
    return total >= need ? { period: p, start: this.pos - total } : null;
  }

  /** Approximate seq-rep (share of n-grams repeated inside the window) of the current tail. */
  seqRep(): number {
    const w = Math.min(REP_W, this.pos);
    return w === 0 ? 0 : this.repCount / w;
  }
}

function describeChar(c: number): string {
  if (c === 10) return '"\\n"';
  if (c === 13) return '"\\r"';
  if (c === 9) return '"\\t"';
  if (c === 32) return 'space';
  return `${JSON.stringify(String.fromCharCode(c))} (U+${c.toString(16).toUpperCase().padStart(4, '0')})`;
}
