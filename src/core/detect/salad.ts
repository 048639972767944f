/**
 * Word salad that LexicalScanner's prose windows miss: salad is rarely laid out like prose (its
 * gaps hold stray symbols, it has no sentences), so these rules ask only that words stand one
 * space apart, and judge blocks of BLOCK words (all of a short answer at finish):
 *
 * - random vocabulary: Latin-script words with (almost) no function words among them;
 * - a handful of words in random order: few distinct words, with no loop to explain them;
 * - one content word making a large share of the words ("first item: dog, second item:., ...");
 * - words glued from pieces (case turns, letter/digit turns) or with clashing scripts inside;
 * - tokens of a code-heavy vocabulary sampled at random ("strangergetLast']=$ var.Centeritespace_theme"):
 *   almost every word new, few function words, few line breaks, some glued from pieces, and the
 *   symbols between words varied; code names its identifiers again and again, breaks its lines, and
 *   repeats a few separators (", ", " | ", "(").
 *
 * Over the whole answer: CJK characters glued to Latin words in Latin-script text ("people这些年来",
 * "descend比如说", "Theorico时而sjing"; one glued word is enough when it holds all the answer's CJK
 * characters: "parallel探索 agents"; likewise a word of another script glued by a clash inside a word
 * when it holds all the answer's letters of that script: "调用печат一条"), and long words made of one
 * piece repeated ("zuimersuggyimers").
 *
 * Over a sliding run of RUN words: words strung together by spaces alone (no punctuation, no line
 * break) with almost no function words and some glued from pieces ("minute farereens Ahead
 * optimistic429 Congressionaloute moldedtxt ..."): salad that starts inside an answer, which a block
 * of prose before it would dilute.
 *
 * Bounded: block counters, a stamped table of BLOCK word hashes, the block's hashes and gap shapes
 * (counted when a rule could fire); per word a few counter updates and one table probe; long words
 * (rare) are scanned once for repeated four-letter pieces.
 */
import * as limits from './limits';
import * as scripts from './script';
import * as bits from './bits';
import type { WordScanner, WordSink } from './words';

/** Module-level copies: imported bindings are getter calls under some loaders. */
const SALAD = limits.SALAD;
const popcount = bits.popcount;

const BLOCK = 64;
const TABLE = 256;
const TMASK = TABLE - 1;
const LATIN_ONLY = scripts.LATIN_BIT;
/** Words in the sliding run (a power of two, at most 32: one bit per word). */
const RUN = SALAD.runWords;
const RUN_MASK = (2 ** RUN - 1) | 0;
const RUN_TOP = (2 ** (RUN - 1)) | 0;

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/**
 * Adds `key` to a stamped table (a slot belongs to the set when it holds the set's stamp, so a new
 * set starts empty without clearing); whether it was new. At most BLOCK keys a set in TABLE slots,
 * so a free slot is always found.
 */
function addNew(keys: Int32Array, stamps: Int32Array, stamp: number, key: number): boolean {
  let slot = (Math.imul(key, 0x9e3779b1) >>> 24) & TMASK;
  while (stamps[slot] === stamp && keys[slot] !== key) slot = (slot + 1) & TMASK;
  if (stamps[slot] === stamp) return false;
  stamps[slot] = stamp;
  keys[slot] = key;
  return true;
}

export class Salad {
  private readonly flagged = new Set<string>();
  // Block counters.
  private n = 0;
  private blockStart = 0;
  private stops = 0;
  private latin = 0;
  private single = 0;
  private codeGaps = 0;
  private lineGaps = 0;
  private marks = 0;
  private odd = 0;
  private clash = 0;
  private firstClash = -1;
  private distinct = 0;
  private top = 0;
  private topHash = 0;
  /** The most frequent content word's letters (a copy: the scanner's buffer moves on). */
  private readonly topBuf = new Uint16Array(32);
  private topLen = 0;
  private readonly keys = new Int32Array(TABLE);
  /** Copies of each word that come back after other words: "yes, yes, yes" is one emphatic run, not a cycle. */
  private readonly returns = new Uint16Array(TABLE);
  private readonly stamps = new Int32Array(TABLE);
  private stamp = 1;
  /**
   * The block's word hashes, for its distinct word pairs (bigrams): words in random order make new
   * pairs, templated lines and loops do not. Counted only when the rule that reads them could fire.
   */
  private readonly blockHashes = new Int32Array(BLOCK);
  /** Gaps holding symbols or punctuation, and their shapes (first, second and last unit, length), counted like the pairs. */
  private symbolGaps = 0;
  private readonly gapShapeKeys = new Int32Array(BLOCK);
  /** Pieces at first use. */
  private blockPieces = 0;
  /** A stamped table for counting distinct keys (pairs, gap shapes) on demand: a new stamp empties it. */
  private readonly countKeys = new Int32Array(TABLE);
  private readonly countStamps = new Int32Array(TABLE);
  private countStamp = 0;
  // Whole answer.
  private glued = 0;
  private gluedRun = 0;
  /** CJK letters in glued words (their longest runs, summed). */
  private gluedCjk = 0;
  // Sliding run: a bit per word, the newest in bit 0.
  private runSpaced = 0;
  private runStops = 0;
  private runOdd = 0;
  private runDone = false;
  // Letters of scripts other than Latin and CJK: how many words hold some, and the one glued by a clash.
  private seenOwn = 0;
  private seenOther = 0;
  private otherWords = 0;
  private otherClashAt = -1;
  private otherClashLetters = 0;
  /** Start offsets of the last 32 words. */
  private readonly starts = new Float64Array(32);
  private firstGlued = -1;
  /** Words glued from pieces in the whole answer (case turns, or capitals run into a word: "IComments"), and the first. */
  private pieceWords = 0;
  private firstPiece = -1;
  private loopedWords = 0;
  private firstLooped = -1;
  private loopedText = '';
  private blocks = 0;

  constructor(private readonly sink: WordSink) {}

  private flag(
    rule: string,
    code: 'word-salad' | 'token-salad' | 'list-cycle' | 'spliced-token',
    at: number,
    detail: string,
    kind: 'degenerate' | 'suspect' = 'degenerate',
  ): void {
    if (this.flagged.has(rule)) return;
    if (kind !== 'suspect') this.flagged.add(rule);
    this.sink(code, Math.max(0, at), detail, kind);
  }

  word(w: WordScanner): void {
    this.starts[w.words & 31] = w.start;
    if (this.n === 0) this.blockStart = w.start;
    this.n++;
    if (w.stop) this.stops++;
    if (w.scriptMask === LATIN_ONLY) this.latin++;
    if (w.gapLen === 1 && w.gapSpaces === 1) this.single++;
    if (w.gapCode > 0) this.codeGaps++;
    if (w.gapNewlines > 0) this.lineGaps++;
    if (w.gapMarks > 0) this.marks++;
    // Pieces: a case or letter/digit turn, clashing scripts. Counted at a word's first use in the
    // block: code names its identifiers ("IsLittleEndian") again and again, salad seldom repeats.
    // A list item after a comma is a name ("iPhone, iPad, MacBook"), not a piece.
    const turns = !w.escaped && w.gapFirst !== 44 && (w.caseTurns > 0 || (w.digitTurns >= SALAD.digitTurns && !w.hex));
    let pieces = turns ? 1 : 0;
    // Capitals run into a capitalised word ("IComments", "GOGround"): two pieces glued.
    const piece = turns || (!w.escaped && w.digits === 0 && w.upper >= 2 && w.upper <= w.letters - 2);
    if (piece && this.pieceWords++ === 0) this.firstPiece = w.start;
    if (w.gapCode > 0 || w.gapMarks > 0) this.gapShape(w);
    if (w.clash && !w.escaped) {
      if (this.clash++ === 0) this.firstClash = w.start;
      pieces++;
    }
    // A quoted word is data ("'XXXXXXコンニチハ'" in a padding example), not the answer's own text.
    if (w.glued > 0 && !w.escaped && !isQuote(w.gapLast)) {
      if (this.glued++ === 0) this.firstGlued = w.start;
      if (w.cjkRun > this.gluedRun) this.gluedRun = w.cjkRun;
      this.gluedCjk += w.cjkRun;
    }
    this.slide(w);
    if (w.otherLetters !== this.seenOther) {
      if (this.otherWords++ === 0 && w.clash && !w.escaped && w.latinLetters + w.cjkLetters > this.seenOwn) {
        this.otherClashAt = w.start;
        this.otherClashLetters = w.otherLetters - this.seenOther;
      }
      this.seenOther = w.otherLetters;
    }
    this.seenOwn = w.latinLetters + w.cjkLetters;
    if (w.len >= SALAD.loopedWordMin && !w.hex && this.looped(w)) {
      if (this.loopedWords++ === 0) {
        this.firstLooped = w.start;
        this.loopedText = String.fromCharCode(...w.buf.subarray(0, Math.min(w.len, w.buf.length)));
      }
    }
    // Distinct words and the most frequent content word of the block.
    // The tables in locals: V8 reloads a field after every typed-array store otherwise.
    const stamp = this.stamp;
    const stamps = this.stamps;
    const keys = this.keys;
    const h = w.hash;
    let slot = (Math.imul(h, 0x9e3779b1) >>> 24) & TMASK;
    while (stamps[slot] === stamp && keys[slot] !== h) slot = (slot + 1) & TMASK;
    let returns: number;
    if (stamps[slot] !== stamp) {
      stamps[slot] = stamp;
      keys[slot] = h;
      returns = this.returns[slot] = 1;
      this.distinct++;
      this.odd += pieces;
      if (piece) this.blockPieces++;
    } else returns = h === w.prevHash ? this.returns[slot] : ++this.returns[slot];
    if (!w.stop && w.digits === 0 && returns > this.top) {
      this.top = returns;
      if (this.topHash !== h) {
        this.topHash = h;
        this.topLen = Math.min(w.len, this.topBuf.length);
        for (let k = 0; k < this.topLen; k++) this.topBuf[k] = w.buf[k];
      }
    }
    this.blockHashes[this.n - 1] = h;
    if (this.n === BLOCK) {
      this.judge(w, false);
      this.reset();
    }
  }

  /**
   * The sliding run of RUN words: the gap before each word held spaces (and digits) only, the word
   * is a function word, the word is glued from pieces. Three shifts a word; the bits are counted
   * only once every gap of the run is spaces.
   */
  private slide(w: WordScanner): void {
    // Spaces and digits make the whole gap: no mark, code symbol or line break in it.
    const spaced = w.gapSpaces > 0 && w.gapSpaces + w.gapDigits === w.gapLen;
    const odd = (w.caseTurns > 0 || (w.digitTurns > 0 && w.letters >= SALAD.runOddLetters)) && !w.escaped && !w.hex;
    this.runSpaced = ((this.runSpaced << 1) | (spaced ? 1 : 0)) & RUN_MASK;
    this.runStops = ((this.runStops << 1) | (w.stop ? 1 : 0)) & RUN_MASK;
    this.runOdd = ((this.runOdd << 1) | (odd ? 1 : 0)) & RUN_MASK;
    // Every gap inside the run (the first word's gap lies before it) is spaces only.
    if ((this.runSpaced | RUN_TOP) !== RUN_MASK || this.runDone || w.words + 1 < RUN) return;
    const stops = popcount(this.runStops);
    const glued = popcount(this.runOdd);
    if (stops > SALAD.runStops || glued < SALAD.runOdd) return;
    this.runDone = true;
    const at = this.runStart(w);
    this.flag(
      'run',
      'word-salad',
      at,
      `${RUN} words from offset ${at} strung together by spaces alone, with ${plural(stops, 'function word')} among them and ${glued} glued from pieces: words sampled at random`,
    );
  }

  /** Where the run that ends at word w starts. */
  private runStart(w: WordScanner): number {
    return this.starts[(w.words - RUN + 1) & 31];
  }

  /** Four-letter pieces of the word that repeat an earlier one: "imersimerszuimers" is one piece looping. */
  private looped(w: WordScanner): boolean {
    const b = w.buf;
    const len = Math.min(w.len, b.length);
    let repeats = 0;
    let letters = 0;
    let seen = 0;
    for (let i = 0; i < len; i++) {
      const bit = 1 << (b[i] & 31);
      if (!(seen & bit)) {
        seen |= bit;
        letters++;
      }
    }
    if (letters < SALAD.loopedWordLetters) return false;
    for (let i = 4; i + 4 <= len; i++) {
      for (let j = 0; j < i; j++) {
        if (b[i] === b[j] && b[i + 1] === b[j + 1] && b[i + 2] === b[j + 2] && b[i + 3] === b[j + 3]) {
          repeats++;
          break;
        }
      }
    }
    return repeats >= SALAD.loopedWordRepeats;
  }

  private reset(): void {
    this.n = 0;
    this.stops = 0;
    this.latin = 0;
    this.single = 0;
    this.codeGaps = 0;
    this.lineGaps = 0;
    this.marks = 0;
    this.odd = 0;
    this.clash = 0;
    this.distinct = 0;
    this.symbolGaps = 0;
    this.blockPieces = 0;
    this.top = 0;
    this.topHash = 0;
    this.stamp++;
    this.blocks++;
  }

  /** Lines, and lines of stray symbols only ('":', "[!\":"): a model that samples punctuation line after line. */
  private lines = 0;
  private strayLines = 0;
  private firstStray = -1;

  line(w: WordScanner): void {
    if (w.lineVisible === 0) return;
    this.lines++;
    if (w.lineLetters === 0 && w.lineDigits === 0 && w.lineStray) {
      if (this.strayLines++ === 0) this.firstStray = w.lineStart;
    }
  }

  private judge(w: WordScanner, atFinish: boolean): void {
    const n = this.n;
    const at = this.blockStart;
    const laidOut = this.codeGaps <= SALAD.maxCodeGaps * n && this.lineGaps <= SALAD.maxLineGaps * n;
    const spaced = laidOut && this.single >= SALAD.spaced * n;
    if (n >= SALAD.minWords && spaced && this.latin >= SALAD.latinShare * n && this.stops <= SALAD.noStopShare * n) {
      this.flag(
        'vocabulary',
        'word-salad',
        at,
        `${n} words one space apart with only ${this.stops} function words among them ${this.where(atFinish)}: random vocabulary`,
      );
    }
    if (
      n >= SALAD.bareMinWords &&
      this.marks === 0 &&
      this.lineGaps === 0 &&
      this.codeGaps <= SALAD.bareCodeGaps * n &&
      this.single >= SALAD.bareSpaced * n &&
      this.stops <= SALAD.bareStops * n
    ) {
      this.flag(
        'bare',
        'word-salad',
        at,
        `${n} words one space apart with no punctuation, no line break and only ${this.stops} function words among them ${this.where(atFinish)}: words strung together at random`,
      );
    }
    if (n >= SALAD.fewMinWords && spaced && this.distinct <= SALAD.fewDistinct * n) {
      const pairs = this.distinctPairs();
      if (pairs >= SALAD.fewPairs * (n - 1)) {
        this.flag(
          'few',
          'word-salad',
          at,
          `only ${this.distinct} different words among ${n} ${this.where(atFinish)}, in ${pairs} different pairs: a handful of words in random order`,
        );
      }
    }
    if (n >= SALAD.topMinWords && laidOut && this.single >= SALAD.topSpaced * n && this.top >= SALAD.topCount && this.top >= SALAD.topShare * n) {
      this.flag(
        'top',
        'list-cycle',
        at,
        `the word ${JSON.stringify(String.fromCharCode(...this.topBuf.subarray(0, this.topLen)))} makes ${this.top} of ${n} words ${this.where(atFinish)}: the model cycles through one item`,
      );
    }
    if (n >= SALAD.minWords && laidOut && this.single >= SALAD.oddSpaced * n && this.odd >= SALAD.oddShare * n) {
      this.flag(
        'odd',
        'word-salad',
        at,
        `${this.odd} of ${n} words are glued from pieces (case or letter/digit turns, clashing scripts inside) ${this.where(atFinish)}`,
      );
    }
    if (this.clash >= SALAD.clashWords) {
      this.flag(
        'clash',
        'token-salad',
        this.firstClash,
        `${this.clash} words mix writing systems that never share a word ${this.where(atFinish)}, the first at offset ${this.firstClash}`,
      );
    }
    this.judgeShredded(atFinish);
    this.judgeGlued(w, atFinish);
  }

  /** Distinct pairs of words one after the other in the block. */
  private distinctPairs(): number {
    const stamp = ++this.countStamp;
    const hashes = this.blockHashes;
    let pairs = 0;
    for (let k = 1; k < this.n; k++) {
      if (addNew(this.countKeys, this.countStamps, stamp, Math.imul(hashes[k - 1] ^ 0x5bd1e995, 0x01000193) ^ hashes[k])) pairs++;
    }
    return pairs;
  }

  /** Keeps the shape of a gap with symbols. */
  private gapShape(w: WordScanner): void {
    this.gapShapeKeys[this.symbolGaps++] =
      (w.gapFirst | (w.gapSecond << 16)) ^ Math.imul(w.gapLast + 1, 0x9e3779b1) ^ Math.imul(w.gapLen - w.gapSpaces, 0x85ebca6b);
  }

  /** Distinct shapes among the block's gaps with symbols. */
  private distinctGapShapes(): number {
    const stamp = ++this.countStamp;
    let shapes = 0;
    for (let k = 0; k < this.symbolGaps; k++) if (addNew(this.countKeys, this.countStamps, stamp, this.gapShapeKeys[k])) shapes++;
    return shapes;
  }

  /** Tokens sampled at random from a vocabulary full of code pieces (see the module comment). */
  private judgeShredded(atFinish: boolean): void {
    const n = this.n;
    // A whole answer shorter than a block's minimum must look more shredded: more pieces, fewer line
    // breaks, more varied symbols (an import list's ", " and a closing "} from" are few shapes among few gaps).
    const short = n < SALAD.shredMinWords;
    if (short && !(atFinish && this.blocks === 0 && n >= SALAD.shredShortMinWords)) return;
    if (
      this.distinct < SALAD.shredDistinct * n ||
      this.stops > SALAD.shredStops * n ||
      this.lineGaps > (short ? SALAD.shredShortLineGaps : SALAD.shredLineGaps) * n ||
      this.blockPieces < (short ? SALAD.shredShortPieces : SALAD.shredPieces) * n
    ) {
      return;
    }
    const gapShapes = this.distinctGapShapes();
    if (gapShapes < (short ? SALAD.shredShortGapShapes : SALAD.shredGapShapes) * this.symbolGaps) return;
    this.flag(
      'shredded',
      'token-salad',
      this.blockStart,
      `${this.distinct} of ${n} words differ ${this.where(atFinish)}, with ${plural(this.stops, 'function word')}, ${plural(this.lineGaps, 'line break')}, ${this.blockPieces} glued from pieces and ${gapShapes} different symbol runs between them: tokens sampled at random`,
    );
  }

  /** Where the block lies, for a reason's detail: built only when a rule flags (judge runs every BLOCK words). */
  private where(atFinish: boolean): string {
    return atFinish && this.blocks === 0 ? `in the answer's ${this.n} words` : `in ${this.n} words from offset ${this.blockStart}`;
  }

  private judgeGlued(w: WordScanner, atFinish = false): void {
    if (this.glued === 0 || w.latinLetters < SALAD.gluedMinLatin || w.latinLetters < SALAD.gluedLatinRatio * w.cjkLetters) return;
    if (this.glued >= SALAD.gluedWords) {
      this.flag(
        'glued',
        'token-salad',
        this.firstGlued,
        `${this.glued} words glue CJK characters to Latin letters in Latin-script text, the first at offset ${this.firstGlued}`,
      );
    } else if (this.gluedRun >= SALAD.gluedRun) {
      this.flag(
        'glued',
        'spliced-token',
        this.firstGlued,
        `${this.gluedRun} CJK characters glued to a Latin word at offset ${this.firstGlued} in Latin-script text`,
      );
    } else if (atFinish && this.gluedCjk === w.cjkLetters) {
      // The only CJK of the answer sits inside a Latin word: a token of another vocabulary spliced
      // in, not a CJK term quoted (that stands apart) nor CJK text with Latin terms (that has more).
      this.flag(
        'glued',
        'spliced-token',
        this.firstGlued,
        `the answer's only CJK ${w.cjkLetters === 1 ? 'character is' : `characters (${w.cjkLetters}) are`} glued to a Latin word at offset ${this.firstGlued} in Latin-script text`,
      );
    }
  }

  /** One word holds all the answer's letters of a rare script, glued by a clash to letters of the answer's own script. */
  private judgeOtherSplice(w: WordScanner): void {
    if (this.otherWords !== 1 || this.otherClashAt < 0 || this.otherClashLetters !== w.otherLetters || w.otherLetters < SALAD.spliceMinLetters) return;
    const own = w.latinLetters + w.cjkLetters;
    if (own < SALAD.gluedMinLatin || own < SALAD.gluedLatinRatio * w.otherLetters) return;
    this.flag(
      'other-splice',
      'spliced-token',
      this.otherClashAt,
      `the answer's only letters of another writing system (${w.otherLetters}) are glued inside the word at offset ${this.otherClashAt}`,
    );
  }

  finish(w: WordScanner): void {
    this.judgeOtherSplice(w);
    if (this.lines >= SALAD.strayMinLines && this.strayLines >= SALAD.strayShare * this.lines) {
      this.sink(
        'answer-flood',
        this.firstStray,
        `${this.strayLines} of the answer's ${this.lines} lines hold only punctuation and symbols, from offset ${this.firstStray}`,
        'degenerate',
      );
    }
    if (this.n >= SALAD.shortMinWords && (this.blocks === 0 || this.n >= SALAD.tailMinWords)) this.judge(w, true);
    else this.judgeGlued(w, true);
    // A few words with one glued from pieces: BPE salad, or a brand name ("YouTube"); too little to tell.
    if (w.words >= 2 && w.words <= SALAD.shortSuspectWords && this.pieceWords > 0) {
      this.flag(
        'short',
        'spliced-token',
        this.firstPiece,
        `the answer is ${w.words} words and the one at offset ${this.firstPiece} is glued from pieces`,
        'suspect',
      );
    }
    if (this.loopedWords > 0) {
      const detail = `the word ${JSON.stringify(this.loopedText)} at offset ${this.firstLooped} is one piece glued to itself over and over`;
      const strong = this.loopedWords >= SALAD.loopedWords || w.words < SALAD.shortMinWords;
      this.flag('looped', 'token-salad', this.firstLooped, detail, strong ? 'degenerate' : 'suspect');
    }
  }
}

/** A quote or backtick that opens a string or a code span. */
function isQuote(c: number): boolean {
  return c === 39 || c === 34 || c === 96 || c === 0x2018 || c === 0x201c;
}
