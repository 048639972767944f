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
import { endsSentence, isLetterUnit, scriptOf, SCRIPT_CJK, SCRIPT_HANGUL } from './script';
import { isCodeSymbol } from './nearloop';
import type { ReasonCode } from './types';

// Module-level copies: imported bindings compile to property reads in some loaders.
const L_compression = LIMITS.compression;
const L_compressionMinChars = LIMITS.compressionMinChars;
const L_compressionWindow = LIMITS.compressionWindow;
const L_compressionProse = LIMITS.compressionProse;
const L_floodOtherWhitespace = LIMITS.floodOtherWhitespace;
const L_floodPiecesMin = LIMITS.floodPiecesMin;
const L_floodPiecesShare = LIMITS.floodPiecesShare;
const L_floodPrintable = LIMITS.floodPrintable;
const L_floodSpace = LIMITS.floodSpace;
const L_holtzmanChars = LIMITS.holtzmanChars;
const L_holtzmanPeriods = LIMITS.holtzmanPeriods;
const L_lengthLoopChars = LIMITS.lengthLoopChars;
const L_lengthLoopPeriods = LIMITS.lengthLoopPeriods;
const L_lengthLinePeriods = LIMITS.lengthLinePeriods;
const L_lengthLinesMax = LIMITS.lengthLinesMax;
const L_lengthShortPeriods = LIMITS.lengthShortPeriods;
const L_longLineMax = LIMITS.longLineMax;
const L_longLinePeriods = LIMITS.longLinePeriods;
const L_longLoopPeriods = LIMITS.longLoopPeriods;
const L_maxPeriod = LIMITS.maxPeriod;
const L_ngram = LIMITS.ngram;
const L_ringSize = LIMITS.ringSize;
const L_seqRep = LIMITS.seqRep;
const L_seqRepWindow = LIMITS.seqRepWindow;
const L_shortLineChars = LIMITS.shortLineChars;
const L_shortLinePeriods = LIMITS.shortLinePeriods;
const L_shortListChars = LIMITS.shortListChars;
const L_shortListPeriods = LIMITS.shortListPeriods;
const L_shortLoopChars = LIMITS.shortLoopChars;
const L_shortLoopPeriods = LIMITS.shortLoopPeriods;
const L_shortPeriod = LIMITS.shortPeriod;
const L_structuralLongPeriods = LIMITS.structuralLongPeriods;
const L_structuralLoopChars = LIMITS.structuralLoopChars;
const L_structuralShortPeriods = LIMITS.structuralShortPeriods;
const L_token0TextRun = LIMITS.token0TextRun;
const L_endLoopWholeChars = LIMITS.endLoopWholeChars;
const L_endLoopWholeGap = LIMITS.endLoopWholeGap;
const L_endLoopWholeSentences = LIMITS.endLoopWholeSentences;
const L_endLoopWholeShare = LIMITS.endLoopWholeShare;
const L_passageTwiceChars = LIMITS.passageTwiceChars;
const L_passageTwiceLetters = LIMITS.passageTwiceLetters;
const L_passageTwiceCode = LIMITS.passageTwiceCode;
const L_passageTwiceLine = LIMITS.passageTwiceLine;

const isLetter = isLetterUnit;

/** A loop candidate that ended (or the text did) after matching its whole period, a separator short at most: a passage said twice (Channel.passageTwice judges it). */
function passageCandidate(lag: number, matchRun: number): boolean {
  return lag >= L_passageTwiceChars && matchRun >= lag - L_endLoopWholeGap;
}

export type FlagSink = (code: ReasonCode, offset: number, detail: string) => void;

const RING = L_ringSize;
const RMASK = RING - 1;
/** An ellipsis after an end loop (checkEndLoop): its units and whitespace read at most, the periods tried, the units compared. */
const ELLIPSIS_MAX = 64;
const ELLIPSIS_PERIOD = 256;
const ELLIPSIS_SPAN = 4096;
const N = L_ngram;
const TABLE_BITS = 15;
const HB = 0x01000193; // odd multiplier for the rolling hash
const HBN = powImul(HB, N);
const REP_W = L_seqRepWindow;
const REP_NEED = Math.ceil(L_seqRep * REP_W);
const PMAX = L_maxPeriod;
const INF = 0x7fffffff;
const EMPTY = -0x40000000;
/** Short units (period <= UNIT_MAX_PERIOD) at least UNIT_MIN long are kept for the answer-flood rule. */
const UNIT_MAX_PERIOD = 8;
const UNIT_MIN = 16;
/** Run length from which the per-character run check leaves the fast path. */
/** Characters feedSlow takes after the hot loop stops at a rare one. */
const SLOW_BATCH = 32;
const RUN_SLOW = Math.min(UNIT_MIN, L_token0TextRun, L_floodPrintable, L_floodSpace, L_floodOtherWhitespace);

/** The values Channel.feed spells out; a change to LIMITS that they miss fails at load. */
const HOT_LOOP_CONSTANTS: ReadonlyArray<[string, number, number]> = [
  ['RMASK', RMASK, 8191],
  ['N', N, 8],
  ['HB', HB, 0x01000193],
  ['HBN', HBN, 0x5d615f21],
  ['TABLE_BITS', TABLE_BITS, 15],
  ['REP_W', REP_W, 1024],
  ['UNIT_MIN', UNIT_MIN, 16],
  ['RUN_SLOW', RUN_SLOW, 16],
  ['UNIT_MAX_PERIOD', UNIT_MAX_PERIOD, 8],
  ['PMAX', PMAX, 4000],
  ['RING (seq-rep bits in mem)', RING, 8192],
  ['RING + REP_W (table in mem)', RING + REP_W, 9216],
];
for (const [name, value, spelled] of HOT_LOOP_CONSTANTS) {
  if (value !== spelled) throw new Error(`Channel.feed spells ${name} as ${spelled}, but it is ${value}`);
}

function powImul(b: number, e: number): number {
  let r = 1;
  for (let i = 0; i < e; i++) r = Math.imul(r, b);
  return r;
}

function isWhitespace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200b) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Characters needed (matchRun, i.e. loop length minus one period) before a period-p loop can count. */
function firstLoopAlarm(p: number): number {
  if (p < 2) return INF;
  if (p < L_shortPeriod) return Math.max(L_shortLoopPeriods * p, L_shortLoopChars) - p;
  return (L_longLoopPeriods - 1) * p;
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

  /**
   * The ring, the seq-rep bits and the n-gram table in one array: the hot loop then checks one
   * array's map and bounds base per character instead of three.
   */
  private readonly mem = new Int32Array(RING + REP_W + (1 << TABLE_BITS)).fill(EMPTY, RING + REP_W);
  private readonly ring = this.mem.subarray(0, RING);
  /** Last position + 1 of each n-gram hash; EMPTY (far in the past) when none, which keeps `seen` branch-free. */
  private readonly table = this.mem.subarray(RING + REP_W);
  private readonly repBits = this.mem.subarray(RING, RING + REP_W);
  private hash = 0;

  private runChar = -1;
  private runLen = 0;

  private readonly t0: string;
  private readonly t0Code: number;
  private readonly t0Multi: boolean;
  /** Token 0's text when it is one character, else -1. */
  private readonly t0Single: number;
  private t0k = 0; // chars of token0Text matched in the current copy
  private t0Count = 0; // complete consecutive copies
  private t0Start = 0;

  /** Current loop candidate: period, and length of the run of positions matching pos - lag. */
  lag = 0;
  matchRun = 0;
  /** The passage passageTwice found said twice, as text (null when none), and where its first copy starts. */
  passageTwiceText: string | null = null;
  passageTwiceStart = -1;
  /** The text tail() built last, and the position it was built at. */
  private lastTail = { pos: -1, text: '' };
  private loopAlarm = INF;

  private repCount = 0;
  private repAlarm = REP_NEED;

  private readonly flagged = new Set<ReasonCode>();
  /** The longest unit run kept so far (unitLength 0: none). */
  private unitPeriod = 0;
  private unitLength = 0;
  private unitStart = 0;
  private digitUnitPeriod = 0;
  private digitUnitLength = 0;
  private digitUnitStart = 0;
  /** The digit unit holds letters too ("<h4/>", "4k - "). */
  private digitUnitLetters = false;
  /** Runs of one printable character of UNIT_MIN or more that ended, their characters and where the first began. */
  private floodPieces = 0;
  private floodPieceChars = 0;
  private floodPiecesStart = 0;

  constructor(
    private readonly sink: FlagSink,
    token0Text: string,
  ) {
    this.t0 = token0Text.length ? token0Text : '!';
    this.t0Code = this.t0.charCodeAt(0);
    this.t0Multi = this.t0.length > 1;
    this.t0Single = this.t0Multi ? -1 : this.t0Code;
  }

  has(code: ReasonCode): boolean {
    return this.flagged.has(code);
  }

  private flag(code: ReasonCode, offset: number, detail: string): void {
    if (this.flagged.has(code)) return;
    this.flagged.add(code);
    this.sink(code, Math.max(0, offset), detail);
  }

  /**
   * Scan the first len code units of s (a piece of the text, decoded once for every scanner).
   *
   * The hot loop below has no calls, so V8 keeps its state in registers: it works out what a
   * character does into temporaries and commits them only when nothing rare happens (a run of
   * RUN_SLOW, a candidate period starting, a short unit ending, a loop or seq-rep alarm). Otherwise
   * it stops before committing and feedSlow, the reference per-character step, takes that character
   * (and a few after it in a run), from the state as it was: the hot loop keeps only the steady
   * states, no candidate and a candidate that goes on, and the end of a candidate that notes no
   * unit (the common end in prose: a stop there cost a feedSlow call per repeated phrase), and is
   * shorter for it. Writing the ring slot early is harmless: feedSlow writes the same value there. Constants are spelled out (see HOT_LOOP_CONSTANTS): V8 reads a module constant from
   * the context, with a type check, at every use.
   */
  feed(s: Uint16Array, len: number): void {
    if (len === 0) return;
    if (this.t0Multi) for (let i = 0, p = this.pos; i < len; i++, p++) this.stepToken0(s[i], p);
    if (!this.nonWhitespace) this.scanNonWhitespace(s, len);
    let i = 0;
    // The first n-gram is incomplete before position 7: feedSlow skips the table there.
    if (this.pos < 8) {
      i = Math.min(len, 8 - this.pos);
      this.feedSlow(s, 0, i);
    }
    // Past 2^30 characters feedSlow takes everything: the hot loop counts positions in int32.
    while (i < len && this.pos < 0x40000000) {
      i = this.fastSpan(s, i, len);
      if (i >= len) break;
      // A rare step: feedSlow takes it from the committed state, with a few characters after it.
      // A run takes a batch (every character of it stops the hot loop); a candidate's start or end takes one step.
      const to = Math.min(len, i + (this.runLen >= 15 ? SLOW_BATCH : 1));
      this.feedSlow(s, i, to);
      i = to;
    }
    if (i < len) this.feedSlow(s, i, len);
  }

  /**
   * The hot loop, from s[from]: no calls, so that V8 keeps its state in registers. Returns where
   * it stopped: len, or the first character it left to feedSlow (nothing of it committed).
   */
  private fastSpan(s: Uint16Array, from: number, len: number): number {
    const m = this.mem; // ring at 0, seq-rep bits at RING (8192), table at RING + REP_W (9216)
    // `| 0`: V8 then keeps these as int32 in registers, not as tagged values it checks at every use.
    let pos = this.pos | 0;
    let h = this.hash | 0;
    let runChar = this.runChar | 0;
    let runLen = this.runLen | 0;
    let lag = this.lag | 0;
    let matchRun = this.matchRun | 0;
    const loopAlarm = this.loopAlarm | 0;
    let repCount = this.repCount | 0;
    const repAlarm = this.repAlarm | 0;
    // Locals: the hot loop reads them from registers, not from the module context.
    const passageMin = L_passageTwiceChars | 0;
    const passageGap = L_endLoopWholeGap | 0;
    const end = len | 0;
    let i = from | 0;
    for (; i < end; i = (i + 1) | 0, pos = (pos + 1) | 0) {
      const c = s[i];
      m[pos & 8191] = c; // RMASK
      let rl = 1;
      if (c === runChar) {
        rl = (runLen + 1) | 0;
        if (rl >= 16) break; // RUN_SLOW: a long run (flood, token 0)
      } else if (runLen >= 16) break; // a long run ends: maybe a unit
      const hh = (Math.imul(h, 0x01000193) + c - Math.imul(m[(pos - 8) & 8191], 0x5d615f21)) | 0; // HB, HBN, N
      const idx = Math.imul(hh, 0x9e3779b1) >>> 17; // 32 - TABLE_BITS
      const j = (m[9216 + idx] - 1) | 0;
      const seen = (((pos - j - 1) >>> 0) - 1024) >>> 31; // REP_W
      const slot = pos & 1023;
      const rc = (repCount + seen - m[8192 + slot]) | 0;
      if (rc >= repAlarm) break;
      if (lag !== 0) {
        if (m[(pos - lag) & 8191] === c) {
          // The candidate goes on; its alarm is feedSlow's.
          const mr = (matchRun + 1) | 0;
          if (mr >= loopAlarm) break;
          matchRun = mr;
        } else {
          // The candidate ends: a short unit to note is feedSlow's (UNIT_MAX_PERIOD 8, UNIT_MIN 16);
          // any other simply ends here, most of them in prose, so the loop goes on without it.
          if (lag <= 8 && matchRun + lag >= 16) break;
          // A passage said twice is feedSlow's too (passageCandidate, spelled out for the hot loop).
          if (lag >= passageMin && matchRun >= lag - passageGap) break;
          lag = 0;
          matchRun = 0;
        }
      }
      if (lag === 0) {
        // PMAX (4000): a new candidate is feedSlow's; j is far in the past when the slot is empty.
        const p = (pos - j) | 0;
        if (p <= 4000 && m[(pos - p) & 8191] === c) break;
      }
      m[9216 + idx] = pos + 1;
      m[8192 + slot] = seen;
      repCount = rc;
      h = hh;
      runLen = rl;
      runChar = c;
    }
    this.pos = pos;
    this.hash = h;
    this.runChar = runChar;
    this.runLen = runLen;
    this.lag = lag;
    this.matchRun = matchRun;
    this.repCount = repCount;
    return i;
  }

  private scanNonWhitespace(s: Uint16Array, len: number): void {
    for (let i = 0; i < len; i++) {
      const c = s[i];
      if (c > 32 && c !== 0x7f && !isWhitespace(c)) {
        this.nonWhitespace = true;
        return;
      }
    }
  }

  /** The reference step for characters from..to of s: every rule, from the state in the fields. */
  private feedSlow(s: Uint16Array, from: number, to: number): void {
    const len = to;
    const ring = this.ring;
    const table = this.table;
    const rep = this.repBits;
    let pos = this.pos;
    let h = this.hash;
    let runChar = this.runChar;
    let runLen = this.runLen;
    let lag = this.lag;
    let matchRun = this.matchRun;
    let loopAlarm = this.loopAlarm;
    let repCount = this.repCount;
    let repAlarm = this.repAlarm;

    for (let i = from; i < len; i++, pos++) {
      const c = s[i];
      ring[pos & 8191] = c; // RMASK

      // 1. Same-character runs (floods, single-character token 0): branch-free until a run is
      // RUN_SLOW (16) long; one shorter than UNIT_MIN (16) is no unit either.
      if (runLen >= 16 && c !== runChar) this.endRun(runChar, runLen, pos);
      runLen = runLen * (((c ^ runChar) - 1) >>> 31) + 1;
      runChar = c;
      if (runLen >= 16) this.longRun(c, runLen, pos);

      // 2. Rolling hash of the N-gram (8) ending here, multiplier HB, HB^N to drop the oldest
      // unit; the ring reads 0 before the text starts. Match finder for loops, and seq-rep.
      h = (Math.imul(h, 0x01000193) + c - Math.imul(ring[(pos - 8) & 8191], 0x5d615f21)) | 0;
      if (pos < 7) continue;
      const idx = Math.imul(h, 0x9e3779b1) >>> 17; // 32 - TABLE_BITS
      const j = table[idx] - 1;
      table[idx] = pos + 1;
      // Branch-free: whether the last copy of this n-gram lies within the window (1 <= pos - j <= REP_W, 1024).
      const seen = (((pos - j - 1) >>> 0) - 1024) >>> 31;
      const slot = pos & 1023;
      repCount += seen - rep[slot];
      rep[slot] = seen;
      if (repCount >= repAlarm) repAlarm = this.onSeqRep(repCount, pos);
      if (lag !== 0) {
        if (ring[(pos - lag) & 8191] === c) {
          if (++matchRun >= loopAlarm) loopAlarm = this.onLoop(lag, matchRun, pos);
          continue;
        }
        // UNIT_MAX_PERIOD (8), UNIT_MIN (16)
        if (lag <= 8 && matchRun + lag >= 16 && matchRun + lag > this.unitLength) this.noteUnit(lag, matchRun + lag, pos - matchRun - lag, pos - 1);
        if (passageCandidate(lag, matchRun)) this.passageTwice(lag, matchRun, pos - 1, false);
        lag = 0;
        matchRun = 0;
      }
      if (pos - j <= 4000) {
        // PMAX; j is far in the past when the slot is empty
        const p = pos - j;
        const m = this.extendBack(p, pos);
        if (m >= 4) {
          lag = p;
          matchRun = m;
          loopAlarm = firstLoopAlarm(p);
          if (matchRun >= loopAlarm) loopAlarm = this.onLoop(lag, matchRun, pos);
        }
      }
    }

    this.pos = pos;
    this.hash = h;
    this.runChar = runChar;
    this.runLen = runLen;
    this.lag = lag;
    this.matchRun = matchRun;
    this.loopAlarm = loopAlarm;
    this.repCount = repCount;
    this.repAlarm = repAlarm;
  }

  /** seq-rep reached REP_NEED: flags it once the window is full; returns the next alarm. */
  private onSeqRep(repCount: number, pos: number): number {
    if (pos < REP_W) return REP_NEED;
    this.flag('seq-rep', pos - REP_W + 1, `${Math.round((100 * repCount) / REP_W)}% of the last ${REP_W} characters repeat earlier ${N}-grams`);
    return INF;
  }

  /** A run of UNIT_MIN or more copies of c ended before pos: a unit for answer-flood, a piece of a flood when printable. */
  private endRun(c: number, runLen: number, pos: number): void {
    if (runLen > this.unitLength) this.noteUnit(1, runLen, pos - runLen, pos - 1);
    if (c <= 32 || isWhitespace(c)) return;
    if (this.floodPieces === 0) this.floodPiecesStart = pos - runLen;
    this.floodPieces++;
    this.floodPieceChars += runLen;
  }

  /**
   * At finish: a flood cut into pieces (`"1111…",` / `"2222…",` one per line), each run too short
   * for char-flood, that together make most of the text.
   */
  checkFloodPieces(): void {
    if (this.flagged.has('char-flood') || this.flagged.has('token0-run')) return;
    let pieces = this.floodPieces;
    let chars = this.floodPieceChars;
    let start = this.floodPiecesStart;
    if (this.runLen >= UNIT_MIN && this.runChar > 32 && !isWhitespace(this.runChar)) {
      if (pieces === 0) start = this.pos - this.runLen;
      pieces++;
      chars += this.runLen;
    }
    if (pieces < L_floodPiecesMin || chars < L_floodPiecesShare * this.pos) return;
    this.flag('char-flood', start, `${pieces} runs of one character, ${UNIT_MIN} or more each, make ${Math.round((100 * chars) / this.pos)}% of the text`);
  }

  /**
   * Keeps the longest unit run for the answer-flood rule. Only units of words ("a ", "Of",
   * "-th"): digits, backslashes and list separators repeat in data ("0, ", "\\x00", "int, ").
   */
  private noteUnit(period: number, length: number, start: number, last: number): void {
    if (length <= this.unitLength) return;
    let letters = 0;
    let digits = 0;
    for (let k = 0; k < period; k++) {
      const c = this.ring[(last - k) & RMASK];
      if (c >= 48 && c <= 57) digits++;
      else if (c === 44 || c === 59 || c === 124 || c === 92) return;
      else if (isLetter(c)) letters++;
    }
    if (digits > 0) {
      // A unit of digits ("1234" again and again), or of digits and letters ("<h4/>" again and
      // again), is kept apart: it counts only as most of an answer.
      if ((digits === period || letters > 0) && period > 1 && length > this.digitUnitLength) {
        this.digitUnitPeriod = period;
        this.digitUnitLength = length;
        this.digitUnitStart = start;
        this.digitUnitLetters = letters > 0;
      }
      return;
    }
    if (letters === 0) return;
    this.unitPeriod = period;
    this.unitLength = length;
    this.unitStart = start;
  }

  /** The longest run of a unit of 2 to 8 digits, or of digits and letters ("1234", "<h4/>" again and again); call after longestUnit(). */
  longestDigitUnit(): { period: number; length: number; start: number; letters: boolean } | null {
    return this.digitUnitLength > 0
      ? { period: this.digitUnitPeriod, length: this.digitUnitLength, start: this.digitUnitStart, letters: this.digitUnitLetters }
      : null;
  }

  /** The longest run of one character or of a unit of at most 8 characters, the current one included. */
  longestUnit(): { period: number; length: number; start: number } | null {
    if (this.runLen >= UNIT_MIN) this.noteUnit(1, this.runLen, this.pos - this.runLen, this.pos - 1);
    if (this.lag !== 0 && this.lag <= UNIT_MAX_PERIOD && this.matchRun + this.lag >= UNIT_MIN) {
      this.noteUnit(this.lag, this.matchRun + this.lag, this.pos - this.matchRun - this.lag, this.pos - 1);
    }
    return this.unitLength > 0 ? { period: this.unitPeriod, length: this.unitLength, start: this.unitStart } : null;
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

  /** A run of RUN_SLOW or more copies of c, at its runLen-th copy: flags it once, at the length its character needs. */
  private longRun(c: number, runLen: number, pos: number): void {
    const need = c === this.t0Single ? L_token0TextRun : c > 32 ? L_floodPrintable : c === 32 ? L_floodSpace : L_floodOtherWhitespace;
    if (runLen === need) this.onRun(c, runLen, pos - runLen + 1);
  }

  private onRun(c: number, runLen: number, start: number): void {
    if (c === this.t0Code && !this.t0Multi) {
      this.flag('token0-run', start, `${runLen}+ copies of token 0's text ${JSON.stringify(this.t0)}`);
    } else {
      this.flag('char-flood', start, `character ${describeChar(c)} repeated ${runLen}+ times`);
    }
  }

  private stepToken0(c: number, pos: number): void {
    const t0 = this.t0;
    if (c === t0.charCodeAt(this.t0k)) {
      if (this.t0k === 0 && this.t0Count === 0) this.t0Start = pos;
      this.t0k++;
      if (this.t0k === t0.length) {
        this.t0k = 0;
        this.t0Count++;
        if (this.t0Count === L_token0TextRun) {
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
      const c = this.ring[(pos - k) & RMASK];
      if (c === 10) newlines++;
      else if (c === 44 || c === 59 || c === 124) list = true;
      if (isWhitespace(c)) continue;
      nonSpace++;
      if (!isHexDigit(c)) hexOnly = false;
      else if (c <= 57) digits++;
      if (isLetter(c)) letters++;
    }
    // Hex data ("00ff", "0x1f") is not words; "abc" and "def" are.
    const hexData = hexOnly && digits > 0;
    const wordy = (letters >= 2 && 2 * letters >= nonSpace && !(hexData && p <= 16)) || (p >= L_shortPeriod && letters >= 8);
    const line = newlines > 0;
    return { wordy, line, list };
  }

  /** Loop length (one period included) a period-p unit of this shape needs to count. */
  static loopNeed(p: number, shape: UnitShape): number {
    if (p < 2) return INF;
    if (!shape.wordy) {
      if (p >= L_shortPeriod) return Math.max(L_structuralLoopChars, L_structuralLongPeriods * p);
      // Holtzman et al.: anything repeated more than 50 times back to back is a loop.
      const holtzman = Math.max(L_holtzmanPeriods * p, L_holtzmanChars);
      return Math.min(holtzman, Math.max(L_structuralLoopChars, L_structuralShortPeriods * p));
    }
    if (p < L_shortPeriod) {
      if (shape.list) return Math.max(L_shortListPeriods * p, L_shortListChars);
      return shape.line ? Math.max(L_shortLinePeriods * p, L_shortLineChars) : Math.max(L_shortLoopPeriods * p, L_shortLoopChars);
    }
    if (shape.line && p < L_longLineMax) return L_longLinePeriods * p;
    return L_longLoopPeriods * p;
  }

  private onLoop(p: number, matchRun: number, pos: number): number {
    const code: ReasonCode = p < L_shortPeriod ? 'short-loop' : 'long-loop';
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

  /** The last `n` characters (n <= ring size) as a string. */
  /** Whether the last `n` characters (n <= ring size) hold one of `codes`: a cheap look before tail(). */
  tailHas(n: number, codes: readonly number[]): boolean {
    const count = Math.min(n, this.pos, RING);
    for (let x = this.pos - count; x < this.pos; x++) if (codes.includes(this.ring[x & RMASK])) return true;
    return false;
  }

  /** The last n units (at most the ring's) as text. */
  tail(n: number): string {
    const count = Math.min(n, this.pos, RING);
    // The finish-time rules read the same tail one after another (counting, near copies, markup).
    const cached = this.lastTail;
    if (cached.pos === this.pos && cached.text.length === count) return cached.text;
    const out: string[] = [];
    const CHUNK = 4096;
    for (let start = this.pos - count; start < this.pos; start += CHUNK) {
      const end = Math.min(this.pos, start + CHUNK);
      const codes = new Array<number>(end - start);
      for (let x = start; x < end; x++) codes[x - start] = this.ring[x & RMASK]!;
      out.push(String.fromCharCode(...codes));
    }
    this.lastTail = { pos: this.pos, text: out.join('') };
    return this.lastTail.text;
  }

  /** The loop's first period (from `start`, when still in the ring), cut to 40 characters. */
  private preview(p: number, start: number, pos: number): string {
    const n = Math.min(p, 40);
    const s = this.ringText(pos - start < RING ? start : pos - p + 1, n);
    return n < p ? `${s}…` : s;
  }

  /** The n units from position `from` on, as text (all within the ring). */
  private ringText(from: number, n: number): string {
    let s = '';
    for (let x = from; x < from + n; x++) s += String.fromCharCode(this.ring[x & RMASK]);
    return s;
  }

  /**
   * Whisper's rule on the tail window. The ratio was made for transcribed speech; on data (hex
   * dumps, tables, logs) it says little, so it only applies when the window reads as prose: at
   * least compressionProse of its non-space characters are letters (hex digits a-f not counted).
   */
  checkCompression(): void {
    if (this.flagged.has('compression') || this.pos < L_compressionMinChars) return;
    const text = this.tail(L_compressionWindow);
    let nonSpace = 0;
    let letters = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (isWhitespace(c)) continue;
      nonSpace++;
      if (isLetter(c) && !isHexDigit(c)) letters++;
    }
    if (nonSpace === 0 || letters < L_compressionProse * nonSpace) return;
    const bytes = Buffer.from(text, 'utf8');
    const ratio = bytes.length / deflateSync(bytes).length;
    if (ratio > L_compression) {
      this.flag(
        'compression',
        this.pos - text.length,
        `the last ${text.length} characters compress ${ratio.toFixed(1)}:1 with zlib (prose stays below ${L_compression})`,
      );
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
    if (p >= L_shortPeriod) {
      // Two periods of prose or of a long block; three when the period is a few lines (refrains).
      const lines = p < L_lengthLinesMax && this.unitShape(p, this.pos - 1).line;
      need = Math.max((lines ? L_lengthLinePeriods : L_lengthLoopPeriods) * p, L_lengthLoopChars);
    } else if (this.unitShape(p, this.pos - 1).wordy) need = Math.max(L_lengthShortPeriods * p, L_shortLoopChars);
    else need = Math.max(L_structuralShortPeriods * p, 2 * L_lengthLoopChars);
    return total >= need ? { period: p, start: this.pos - total } : null;
  }

  /**
   * At finish, when finish_reason is not "length" (that rule is laxer): an answer that ends inside a unit
   * of words repeated back to back (a cut last period included) is a short or long loop, with laxer
   * needs than while streaming, because the model never got out of it.
   */
  checkEndLoop(): void {
    if (this.flagged.has('short-loop') || this.flagged.has('long-loop')) return;
    if (this.lag >= 2 && this.judgeEndLoop(this.lag, this.matchRun + this.lag, this.pos, '')) return;
    // A paste cut short with an ellipsis after the loop ("是的,是的,是的,…"): the loop before it.
    const cut = this.trailingEllipsis();
    if (cut === 0) return;
    const loop = this.loopEndingAt(this.pos - cut);
    if (loop !== null) this.judgeEndLoop(loop.period, loop.total, this.pos - cut, ', then an ellipsis');
  }

  /** Whether the loop of period p and length total that ends at end (the answer's end, or an ellipsis after it) is flagged; flags it. */
  private judgeEndLoop(p: number, total: number, end: number, after: string): boolean {
    const periods = Math.floor(total / p);
    // A sentence-long period said twice and a half, the answer almost nothing else, counts too (a
    // whole answer said twice is passageTwice's).
    const most = p >= L_shortPeriod && total >= LIMITS.endLoopMostPeriods * p && total >= LIMITS.endLoopMostShare * end;
    // A CJK character is a word's worth of a Latin text's letters (about one token each, as four
    // Latin letters are): "洗脚," five times is as long a loop as "wash feet," five times.
    const weighted = total + (LIMITS.endLoopCjkWeight - 1) * this.cjkUnits(Math.min(total, RING), end);
    if ((periods < LIMITS.endLoopPeriods && !most) || weighted < LIMITS.endLoopChars || !this.unitShape(p, end - 1).wordy) return false;
    if (total < LIMITS.endLoopShare * end && periods < LIMITS.endLoopManyPeriods) return false;
    this.flag(
      p < L_shortPeriod ? 'short-loop' : 'long-loop',
      end - total,
      `the answer ends in a ${p}-character period repeated ${periods} times back to back${after}`,
    );
    return true;
  }

  /** Units of an ellipsis ("…", "...") and the whitespace after it that end the answer, or 0. */
  private trailingEllipsis(): number {
    let k = this.pos - 1;
    const first = Math.max(0, this.pos - ELLIPSIS_MAX);
    while (k >= first && isWhitespace(this.ring[k & RMASK])) k--;
    const marksEnd = k;
    while (k >= first && this.ring[k & RMASK] === 0x2026) k--;
    if (k === marksEnd) while (k >= first && this.ring[k & RMASK] === 46) k--;
    const marks = marksEnd - k;
    const ellipsis = marks > 0 && (this.ring[marksEnd & RMASK] === 0x2026 || marks >= 3);
    // Something must come before it: an answer that is an ellipsis alone has no loop.
    return ellipsis && k >= 0 ? this.pos - 1 - k : 0;
  }

  /**
   * The loop that ends at end (exclusive), found at finish by trying each period up to
   * ELLIPSIS_PERIOD over the ring: the one that covers most, the shortest of equals. Null when no
   * period repeats twice. Bounded: ELLIPSIS_PERIOD periods, each compared over at most ELLIPSIS_SPAN units.
   */
  private loopEndingAt(end: number): { period: number; total: number } | null {
    const span = Math.min(end, ELLIPSIS_SPAN, RING - ELLIPSIS_PERIOD);
    let best: { period: number; total: number } | null = null;
    for (let p = 2; p <= ELLIPSIS_PERIOD && 2 * p <= span; p++) {
      let run = 0;
      while (run < span - p && this.ring[(end - 1 - run) & RMASK] === this.ring[(end - 1 - run - p) & RMASK]) run++;
      const total = run + p;
      if (total >= 2 * p && (best === null || total > best.total)) best = { period: p, total };
    }
    return best;
  }

  /** Han, kana and Hangul characters among the n units before end (n at most the ring's). */
  private cjkUnits(n: number, end: number): number {
    let count = 0;
    for (let k = 0; k < n; k++) {
      const c = this.ring[(end - 1 - k) & RMASK];
      if (c >= 0x3040) {
        const s = scriptOf(c);
        if (s === SCRIPT_CJK || s === SCRIPT_HANGUL) count++;
      }
    }
    return count;
  }

  /**
   * Sentence ends in the p units of the ring that end at pos (the answer's last unit): ".", "!" or
   * "?" before whitespace, a capital or the answer's end, or a CJK full stop, exclamation or
   * question mark. Prose has them; code, tables and data seldom do.
   */
  private sentenceEnds(p: number, pos: number): number {
    let ends = 0;
    for (let k = 0; k < p; k++) {
      const c = this.ring[(pos - k) & RMASK];
      if (!endsSentence(c)) continue;
      // A full-width mark ends its sentence as it is; ". ! ?" before whitespace, the answer's end, or
      // a capital that lost its space ("colors.The").
      const next = c > 127 || k === 0 ? 32 : this.ring[(pos - k + 1) & RMASK];
      if (isWhitespace(next) || (next >= 65 && next <= 90)) ends++;
    }
    return ends;
  }

  /**
   * A candidate of period p that matched matchRun units up to last ended (or the answer did): when
   * that is a passage of prose and its copy (a separator short at most), the passage was said twice
   * back to back. Exact copies of a paragraph do not happen in prose; a model that lost its place,
   * or a client that joined a stream twice, writes them. The whole answer said twice (atEnd, at
   * finish) needs only words and a sentence end: its lines may be short and its prose plain.
   */
  private passageTwice(p: number, matchRun: number, last: number, atEnd: boolean): void {
    if (this.flagged.has('long-loop') || this.flagged.has('short-loop')) return;
    const start = last - matchRun - p + 1;
    const whole = atEnd && p >= L_endLoopWholeChars && this.pos - start >= L_endLoopWholeShare * this.pos;
    if (whole ? !this.unitShape(p, last).wordy : !this.prosePassage(p, last)) return;
    if (this.sentenceEnds(p, last) < L_endLoopWholeSentences) return;
    this.passageTwiceText = this.ringText(last - p + 1, p);
    this.passageTwiceStart = start;
    this.flag(
      'long-loop',
      start,
      whole
        ? `the answer says its first ${p} characters twice: it is one passage and a copy of it`
        : `the ${p}-character passage ${JSON.stringify(this.preview(p, start, last))} at offset ${start} is said twice back to back`,
    );
  }

  /** The p units ending at last read as prose: mostly letters, almost no code symbols, long lines. */
  private prosePassage(p: number, last: number): boolean {
    let letters = 0;
    let visible = 0;
    let code = 0;
    let newlines = 0;
    for (let k = 0; k < p; k++) {
      const c = this.ring[(last - k) & RMASK];
      if (c === 10) newlines++;
      if (isWhitespace(c)) continue;
      visible++;
      if (isLetter(c)) letters++;
      else if (isCodeSymbol(c)) code++;
    }
    return letters >= L_passageTwiceLetters * visible && code <= L_passageTwiceCode * p && newlines * L_passageTwiceLine <= p;
  }

  /** At finish: a passage said twice that runs to the answer's end, the whole answer's included (passageTwice). */
  checkPassageTwice(): void {
    if (passageCandidate(this.lag, this.matchRun)) this.passageTwice(this.lag, this.matchRun, this.pos - 1, true);
  }

  /** The text's last unit is a letter or a digit: it stops inside a word, as a cut text does. */
  endsInWord(): boolean {
    if (this.pos === 0) return false;
    const c = this.ring[(this.pos - 1) & RMASK];
    return isLetter(c) || (c >= 48 && c <= 57);
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
