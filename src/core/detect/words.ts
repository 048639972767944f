/**
 * A second, light word scanner for the signals that judge words one by one (stutter.ts,
 * salad.ts, template.ts, detok.ts). LexicalScanner keeps its own words for its window rules; this
 * one exposes each finished word and the gap before it to the signals, which work once per word
 * (or line) and keep only counters and fixed rings.
 *
 * A word is a run of letters (any script) and digits holding at least one letter; digit-only runs
 * belong to the gap. Per character the scanner does one class lookup and, inside a word, a hash
 * step; scripts are looked up for non-ASCII letters only.
 *
 * It scans each piece before LexicalScanner and records the ASCII letter runs that start its words
 * (LetterRuns): LexicalScanner's words start at the same letters and hash them the same way, so it
 * takes those runs whole instead of hashing every letter a second time.
 */
import * as wordHashes from './wordHash';
import * as scripts from './script';
import * as stopwords from './stopwords';
import * as stutters from './stutter';
import { Salad } from './salad';
import { TemplateTurns } from './template';
import { DetokSpacing } from './detok';
import { DroppedWords } from './dropped';
import { ListedRun } from './listrun';
import { LineCycle } from './linecycle';
import { SentenceRepeats } from './sentences';
import { GarbledWords } from './garbled';
import { CodeSpans } from './codeSpans';
import type { ReasonCode, ReasonKind } from './types';

export type WordSink = (code: ReasonCode, offset: number, detail: string, kind: ReasonKind) => void;

// Module-level copies: imported bindings compile to getter calls under some loaders (tsx, the
// bench and the tests), which costs more than the scan itself on the per-character path.
const FNV_BASIS = wordHashes.FNV_BASIS;
const lowerUnit = wordHashes.lowerUnit;
const STOPWORDS = stopwords.STOPWORDS;
if (wordHashes.FNV_PRIME !== 0x01000193) throw new Error('WordScanner spells FNV_PRIME out of step');
const scriptOf = scripts.scriptOf;
const isMark = scripts.isMarkUnit;
const incompatibleScripts = scripts.incompatibleScripts;
const SCRIPT_NONE = scripts.SCRIPT_NONE;
const SCRIPT_LATIN = scripts.SCRIPT_LATIN;
const SCRIPT_CJK = scripts.SCRIPT_CJK;
const SCRIPT_HANGUL = scripts.SCRIPT_HANGUL;
const SCRIPT_INHERIT = scripts.SCRIPT_INHERIT;
const LATIN_BIT = scripts.LATIN_BIT;
const STUTTER_WORDS = stutters.STUTTER_WORDS;
if (FNV_BASIS !== -0x7ee3623b) throw new Error('WordScanner spells FNV_BASIS out of step');

/** Character classes. */
export const K_CODE = 0; // symbols that mark code, markup or data
export const K_LETTER = 1;
export const K_DIGIT = 2;
export const K_SPACE = 3;
export const K_NEWLINE = 4;
export const K_PUNCT = 5; // prose punctuation, and every non-ASCII non-letter

const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c === 32 || c === 9) CLASS[c] = K_SPACE;
  else if (c === 10 || c === 13 || c === 11 || c === 12) CLASS[c] = K_NEWLINE;
  else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) CLASS[c] = K_LETTER;
  else if (c >= 48 && c <= 57) CLASS[c] = K_DIGIT;
  else if (',.;:!?\'"()-'.includes(String.fromCharCode(c))) CLASS[c] = K_PUNCT;
  else CLASS[c] = K_CODE;
}

/** Closers and rule characters: lines of nothing else close code blocks or draw rules and tables. */
const STRUCTURAL = new Uint8Array(128);
for (const ch of '{}[]()<>,;-=_*#~|`+/\\.') STRUCTURAL[ch.charCodeAt(0)] = 1;

/** Letters of a word kept for the signals that look inside it (lower-cased). */
export const WORD_BUF = 64;

/** Fields of one run in LetterRuns.runs. */
export const RUN_FIELDS = 4;

/**
 * The ASCII-letter runs that start a word in one piece of text, as WordScanner found them, for
 * LexicalScanner to take whole instead of hashing the same letters again: both scanners read a
 * word as letters between non-letters and hash it the same way (FNV-1a over lower-cased units).
 * A run holds its offset in the piece, its end, its hash and `bits`: the lower-case run at its end
 * (bits >> 2), a lower -> upper turn after two lower-case letters (bit 0), only a-f letters (bit 1).
 * A piece of CHUNK units holds at most CHUNK / 2 runs (each is followed by a non-letter).
 */
export class LetterRuns {
  readonly runs: Int32Array;
  count = 0;

  constructor(chunk: number) {
    this.runs = new Int32Array(RUN_FIELDS * ((chunk >> 1) + 1));
  }
}

/** Whether u[from, to) holds an "x": a word of a-f and x letters is hex to WordScanner, of a-f only to LexicalScanner. */
function hasX(u: Uint16Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if ((u[i] | 32) === 120) return true;
  return false;
}

function isSpaceUnit(c: number): boolean {
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** The full-width comma and semicolon and the ideographic comma (，；、): CJK text's list punctuation. */
function isWideComma(c: number): boolean {
  return c === 0xff0c || c === 0xff1b || c === 0x3001;
}

export class WordScanner {
  /** Code units seen. */
  pos = 0;
  /** Finished words. */
  words = 0;
  /** Letters by script over the whole text: Latin, CJK (Han, kana, Hangul), others. */
  latinLetters = 0;
  cjkLetters = 0;
  otherLetters = 0;

  // The word just finished (valid inside the signals' word()).
  start = 0;
  len = 0;
  hash = 0;
  letters = 0;
  digits = 0;
  /** Bit per script among its letters. */
  scriptMask = 0;
  /** Letters of scripts that never share a word ("своoplast"). */
  clash = false;
  /** Latin <-> CJK turns inside it ("people这些"), and its longest CJK run. */
  glued = 0;
  cjkRun = 0;
  /** Lower -> upper turns after two lower-case letters ("watDiamond"), letter <-> digit turns ("i3la90"). */
  caseTurns = 0;
  upper = 0;
  digitTurns = 0;
  /** Only digits, a-f and x ("0x00c8", "deadbeef"). */
  hex = true;
  /** It follows a backslash: a roff or C escape glued to a word ("\\fIНАЗИВ"), not a word of its own scripts. */
  escaped = false;
  /** All its letters are lower case (scripts without case count as lower). */
  lowerOnly = true;
  /** All its letters are ASCII. */
  ascii = true;
  stop = false;
  readonly buf = new Uint16Array(WORD_BUF);

  /** The word stands inside a Markdown code span or fenced block. */
  get inCode(): boolean {
    return this.code.inFence || this.code.inInline;
  }

  // The gap before it (everything since the previous word, digit-only runs included).
  gapLen = 0;
  gapSpaces = 0;
  gapNewlines = 0;
  gapCode = 0;
  gapDigits = 0;
  /** Sentence punctuation in the gap: . , ; : ! ? and their CJK forms. */
  gapMarks = 0;
  gapFirst = 0;
  gapSecond = 0;
  gapLast = 0;
  /** The previous word's hash (0 before the first word). */
  prevHash = 0;

  // Line.
  lineStart = 0;
  lineWords = 0;
  lineVisible = 0;
  lineLetters = 0;
  lineDigits = 0;
  /** The line holds a symbol other than closers ("}", "]", ")", ",", ";") and rule characters ("-", "=", "|", "*", ...). */
  lineStray = false;

  // In-progress state.
  private inWord = false;
  private wSc = 0;
  private wLowerRun = 0;
  private wKind = 0; // 1 letter, 2 digit: the last unit's kind
  private curCjk = 0;
  private tokStart = 0;
  private tokLen = 0;
  /** Non-ASCII letters of the token, and those of them that are Latin ("é"). */
  private tokWide = 0;
  private wideLatin = 0;
  private tokDigits = 0;
  private tokHash = FNV_BASIS;
  // Gap being built.
  private prevUnitLetter = false;
  private afterBackslash = false;
  /** The Markdown code span or fenced block the text is in. */
  private readonly code = new CodeSpans();
  // Punctuation runs (",,,").
  private runChar = 0;
  private runLen = 0;
  private runStart = 0;
  private runAfterLetter = false;

  readonly stutter: stutters.Stutter;
  readonly salad: Salad;
  readonly template: TemplateTurns;
  readonly detok: DetokSpacing;
  readonly dropped: DroppedWords;
  readonly listedRun: ListedRun;
  readonly lineCycle: LineCycle;
  readonly sentences: SentenceRepeats;
  readonly garbled: GarbledWords;

  /** fewShotPrompt: the answer's prompt is written in "Q:" and "A:" lines (template.ts's writtenInQaLines). */
  constructor(sink: WordSink, fewShotPrompt = false) {
    this.stutter = new stutters.Stutter(sink);
    this.salad = new Salad(sink);
    this.template = new TemplateTurns(sink, fewShotPrompt);
    this.detok = new DetokSpacing(sink);
    this.dropped = new DroppedWords(sink);
    this.listedRun = new ListedRun(sink);
    this.lineCycle = new LineCycle(sink);
    this.sentences = new SentenceRepeats(sink);
    this.garbled = new GarbledWords(sink);
  }

  /** Scan the first n code units of u; runs, when given, receives the letter runs that start a word in it. */
  feed(u: Uint16Array, n: number, runs: LetterRuns | null = null): void {
    if (runs !== null) runs.count = 0;
    let pos = this.pos;
    // The hot path (an ASCII letter inside or starting a word, a space between words) keeps the
    // word's state in locals, written back before anything else runs.
    let inWord = this.inWord ? 1 : 0;
    let hash = this.tokHash;
    let len = this.tokLen;
    let lowerRun = this.wLowerRun;
    let hex = this.hex ? 1 : 0;
    let latin = inWord !== 0 && this.wSc === SCRIPT_LATIN && this.wKind === 1 ? 1 : 0;
    const buf = this.buf;
    // A local: V8 reads a module constant from the context, with a check, at every use.
    const classOf = CLASS;
    for (let i = 0; i < n; i++, pos++) {
      const c = u[i];
      if (c < 128) {
        const k = classOf[c];
        if (k === 1 && latin !== 0) {
          // K_LETTER continuing a Latin word.
          if (c < 97) {
            if (lowerRun >= 2) this.caseTurns++;
            lowerRun = 0;
            this.upper++;
          } else lowerRun++;
          const lc = c | 32;
          if (lc > 102 && lc !== 120) hex = 0;
          hash = Math.imul(hash ^ lc, 0x01000193);
          if (len < 64) buf[len] = lc; // WORD_BUF
          len++;
          // The rest of the word's letters in a loop of their own: it holds only the word's
          // state, which V8 then keeps in registers.
          let k = (i + 1) | 0;
          let caseTurns = 0;
          let upper = 0;
          while (k < n) {
            const d = u[k];
            const ld = d | 32;
            if (ld - 97 >= 26 || ld < 97) break;
            if (d < 97) {
              if (lowerRun >= 2) caseTurns++;
              lowerRun = 0;
              upper++;
            } else lowerRun = (lowerRun + 1) | 0;
            if (ld > 102 && ld !== 120) hex = 0;
            hash = Math.imul(hash ^ ld, 0x01000193);
            if (len < 64) buf[len] = ld; // WORD_BUF
            len = (len + 1) | 0;
            k = (k + 1) | 0;
          }
          if (caseTurns !== 0) this.caseTurns += caseTurns;
          if (upper !== 0) this.upper += upper;
          pos += k - i - 1;
          i = k - 1;
          continue;
        }
        if (k === 1 && inWord === 0 && this.runLen === 0) {
          // K_LETTER starting a word: startToken and the letter's step, in line.
          this.inWord = true;
          this.tokStart = pos;
          this.tokWide = 0;
          this.wideLatin = 0;
          this.tokDigits = 0;
          this.wSc = SCRIPT_LATIN;
          this.wKind = 1;
          this.curCjk = 0;
          this.scriptMask = LATIN_BIT;
          this.clash = false;
          this.glued = 0;
          this.cjkRun = 0;
          this.caseTurns = 0;
          this.digitTurns = 0;
          this.lowerOnly = true;
          this.escaped = this.afterBackslash;
          const lc = c | 32;
          if (c < 97) {
            lowerRun = 0;
            this.upper = 1;
          } else {
            lowerRun = 1;
            this.upper = 0;
          }
          hex = lc > 102 && lc !== 120 ? 0 : 1;
          hash = Math.imul(-0x7ee3623b ^ lc, 0x01000193); // FNV_BASIS
          buf[0] = lc;
          len = 1;
          inWord = 1;
          latin = 1;
          // The rest of its letters, as above.
          let k = (i + 1) | 0;
          let caseTurns = 0;
          let upper = 0;
          while (k < n) {
            const d = u[k];
            const ld = d | 32;
            if (ld - 97 >= 26 || ld < 97) break;
            if (d < 97) {
              if (lowerRun >= 2) caseTurns++;
              lowerRun = 0;
              upper++;
            } else lowerRun = (lowerRun + 1) | 0;
            if (ld > 102 && ld !== 120) hex = 0;
            hash = Math.imul(hash ^ ld, 0x01000193);
            if (len < 64) buf[len] = ld; // WORD_BUF
            len = (len + 1) | 0;
            k = (k + 1) | 0;
          }
          if (caseTurns !== 0) this.caseTurns += caseTurns;
          if (upper !== 0) this.upper += upper;
          if (runs !== null) {
            const r = RUN_FIELDS * runs.count++;
            runs.runs[r] = i;
            runs.runs[r + 1] = k;
            runs.runs[r + 2] = hash;
            runs.runs[r + 3] = (lowerRun << 2) | (hex !== 0 && !hasX(u, i, k) ? 2 : 0) | (caseTurns !== 0 ? 1 : 0);
          }
          pos += k - i - 1;
          i = k - 1;
          continue;
        }
        if (k === 3 && inWord !== 0) {
          // K_SPACE ending a word: endToken, then what gapUnit does for a space (no run is open
          // inside a word: startToken ended it).
          this.tokHash = hash;
          this.tokLen = len;
          this.wLowerRun = lowerRun;
          this.hex = hex !== 0;
          this.endToken();
          this.afterBackslash = false;
          const gl = this.gapLen++;
          if (gl === 0) this.gapFirst = c;
          else if (gl === 1) this.gapSecond = c;
          this.gapLast = c;
          this.gapSpaces++;
          this.prevUnitLetter = false;
          inWord = 0;
          latin = 0;
          continue;
        }
        if (k === 3 && inWord === 0 && this.runLen === 0 && this.gapLen > 0) {
          // K_SPACE between words, not the gap's first unit, and the spaces after it (indentation).
          if (this.gapLen++ === 1) this.gapSecond = c;
          this.gapLast = c;
          this.gapSpaces++;
          this.prevUnitLetter = false;
          this.afterBackslash = false;
          while (i + 1 < n && u[i + 1] === 32) {
            i++;
            pos++;
            if (this.gapLen++ === 1) this.gapSecond = 32;
            this.gapLast = 32;
            this.gapSpaces++;
          }
          continue;
        }
        if (k !== 1 && k !== 2) {
          // Any other ASCII unit of a gap: what unit() does for it, without the dispatch.
          if (inWord !== 0) {
            this.tokHash = hash;
            this.tokLen = len;
            this.wLowerRun = lowerRun;
            this.hex = hex !== 0;
            this.endToken();
            inWord = 0;
            latin = 0;
          }
          this.gapUnit(c, k, pos);
          continue;
        }
      }
      this.tokHash = hash;
      this.tokLen = len;
      this.wLowerRun = lowerRun;
      this.hex = hex !== 0;
      this.unit(c, pos);
      inWord = this.inWord ? 1 : 0;
      hash = this.tokHash;
      len = this.tokLen;
      lowerRun = this.wLowerRun;
      hex = this.hex ? 1 : 0;
      latin = inWord !== 0 && this.wSc === SCRIPT_LATIN && this.wKind === 1 ? 1 : 0;
    }
    this.tokHash = hash;
    this.tokLen = len;
    this.wLowerRun = lowerRun;
    this.hex = hex !== 0;
    this.pos = pos;
  }

  /** Every unit the hot path does not take. */
  private unit(c: number, pos: number): void {
    let k: number;
    let sc = 0;
    if (c < 128) {
      k = CLASS[c];
      if (k === K_LETTER) {
        if (!this.inWord) this.startToken(pos);
        if (this.wSc !== SCRIPT_LATIN) this.scriptTurn(SCRIPT_LATIN);
        if (this.wKind === 2) this.digitTurns++;
        this.wKind = 1;
        if (c < 97) {
          if (this.wLowerRun >= 2) this.caseTurns++;
          this.wLowerRun = 0;
          this.upper++;
        } else this.wLowerRun++;
        const lc = c | 32;
        if (lc > 102 && lc !== 120) this.hex = false;
        this.tokHash = Math.imul(this.tokHash ^ lc, 0x01000193);
        if (this.tokLen < WORD_BUF) this.buf[this.tokLen] = lc;
        this.tokLen++;
        this.curCjk = 0;
        return;
      }
    } else {
      sc = scriptOf(c);
      k = sc !== SCRIPT_NONE ? K_LETTER : isSpaceUnit(c) ? K_SPACE : K_PUNCT;
    }
    if (k === K_LETTER) {
      this.wideLetter(c, sc, pos);
      return;
    }
    if (k === K_DIGIT) {
      if (!this.inWord) this.startToken(pos);
      if (this.wKind === 1) this.digitTurns++;
      this.wKind = 2;
      this.tokHash = Math.imul(this.tokHash ^ c, 0x01000193);
      if (this.tokLen < WORD_BUF) this.buf[this.tokLen] = c;
      this.tokLen++;
      this.tokDigits++;
      this.curCjk = 0;
      return;
    }
    if (this.inWord) this.endToken();
    this.gapUnit(c, k, pos);
  }

  private wideLetter(c: number, sc: number, pos: number): void {
    if (!this.inWord) this.startToken(pos);
    if (sc !== SCRIPT_INHERIT) {
      const s = sc === SCRIPT_HANGUL ? SCRIPT_CJK : sc;
      if (s !== this.wSc) this.scriptTurn(s);
      if (s === SCRIPT_LATIN) this.wideLatin++;
      else if (s === SCRIPT_CJK) this.cjkLetters++;
      else this.otherLetters++;
      if (s === SCRIPT_CJK) {
        if (++this.curCjk > this.cjkRun) this.cjkRun = this.curCjk;
      } else this.curCjk = 0;
    }
    if (this.wKind === 2) this.digitTurns++;
    this.wKind = 1;
    const lc = lowerUnit(c);
    if (lc !== c) {
      if (this.wLowerRun >= 2) this.caseTurns++;
      this.wLowerRun = 0;
      this.upper++;
    } else this.wLowerRun++;
    this.hex = false;
    this.tokHash = Math.imul(this.tokHash ^ lc, 0x01000193);
    if (this.tokLen < WORD_BUF) this.buf[this.tokLen] = lc;
    this.tokLen++;
    this.tokWide++;
  }

  private scriptTurn(s: number): void {
    const was = this.wSc;
    if (was !== 0) {
      if (incompatibleScripts(was, s)) this.clash = true;
      else if ((was === SCRIPT_LATIN && s === SCRIPT_CJK) || (was === SCRIPT_CJK && s === SCRIPT_LATIN)) this.glued++;
    }
    this.scriptMask |= 1 << (s & 31);
    this.wSc = s;
  }

  private startToken(pos: number): void {
    this.inWord = true;
    this.tokStart = pos;
    this.tokLen = 0;
    this.tokWide = 0;
    this.wideLatin = 0;
    this.tokDigits = 0;
    this.tokHash = FNV_BASIS;
    this.wSc = 0;
    this.wKind = 0;
    this.wLowerRun = 0;
    this.curCjk = 0;
    this.scriptMask = 0;
    this.clash = false;
    this.glued = 0;
    this.cjkRun = 0;
    this.caseTurns = 0;
    this.upper = 0;
    this.digitTurns = 0;
    this.hex = true;
    this.lowerOnly = true;
    this.escaped = this.afterBackslash;
    if (this.runLen > 0) this.endRun(false);
  }

  private endToken(): void {
    this.inWord = false;
    const tokLetters = this.tokLen - this.tokDigits;
    if (tokLetters === 0) {
      // Digits only: part of the gap.
      this.gapLen += this.tokLen;
      this.gapDigits += this.tokLen;
      this.lineVisible += this.tokLen;
      this.lineDigits += this.tokLen;
      if (this.gapFirst === 0) this.gapFirst = 48;
      else if (this.gapSecond === 0) this.gapSecond = 48;
      this.gapLast = 48;
      this.prevUnitLetter = false;
      return;
    }
    this.start = this.tokStart;
    this.len = this.tokLen;
    this.ascii = this.tokWide === 0;
    this.hash = this.tokHash | 0;
    this.letters = tokLetters;
    this.latinLetters += tokLetters - this.tokWide + this.wideLatin;
    this.lowerOnly = this.upper === 0;
    this.digits = this.tokDigits;
    this.stop = this.tokDigits === 0 && STOPWORDS.has(this.hash);
    this.lineWords++;
    this.lineVisible += this.tokLen;
    this.lineLetters += tokLetters;
    this.detok.word(this);
    this.dropped.word(this);
    if (this.words < STUTTER_WORDS) this.stutter.word(this);
    this.salad.word(this);
    this.template.word(this);
    this.listedRun.word(this);
    this.lineCycle.word(this);
    this.sentences.word(this);
    this.garbled.word(this);
    this.words++;
    this.prevHash = this.hash;
    this.gapLen = 0;
    this.gapSpaces = 0;
    this.gapNewlines = 0;
    this.gapCode = 0;
    this.gapDigits = 0;
    this.gapMarks = 0;
    this.gapFirst = 0;
    this.gapSecond = 0;
    this.gapLast = 0;
    this.prevUnitLetter = true;
    this.afterBackslash = false;
  }

  private gapUnit(c: number, k: number, pos: number): void {
    this.afterBackslash = c === 92;
    // Nothing but backticks so far on the line: they may open a fence.
    if (c === 96) this.code.tick(this.lineVisible === this.code.leading);
    const len = this.gapLen++;
    if (len === 0) this.gapFirst = c;
    else if (len === 1) this.gapSecond = c;
    this.gapLast = c;
    if (k === K_SPACE) this.gapSpaces++;
    else if (k === K_NEWLINE) {
      this.gapNewlines++;
      if (c === 10) this.endLine(pos);
    } else {
      this.lineVisible++;
      if (k === K_CODE) this.gapCode++;
      else if (isMark(c)) this.gapMarks++;
      if (c >= 128 || STRUCTURAL[c] === 0) this.lineStray = true;
    }
    // Punctuation runs: "," or ";" repeated right after a word.
    if (c === this.runChar && this.runLen > 0) this.runLen++;
    else {
      if (this.runLen > 0) this.endRun(k === K_SPACE);
      if (c === 44 || c === 59 || isWideComma(c)) {
        this.runChar = c;
        this.runLen = 1;
        this.runStart = pos;
        this.runAfterLetter = this.prevUnitLetter;
      }
    }
    this.prevUnitLetter = false;
  }

  /** A run of one punctuation mark ended; spaced: what follows it is a space or the end. */
  private endRun(spaced: boolean): void {
    // CJK text has no spaces: a run of its commas counts before anything.
    if (this.runLen >= 3 && this.runAfterLetter && (spaced || isWideComma(this.runChar))) this.stutter.punctuationRun(this.runChar, this.runLen, this.runStart);
    this.runLen = 0;
    this.runChar = 0;
  }

  private endLine(pos: number): void {
    this.code.endLine();
    this.template.line(this);
    this.salad.line(this);
    this.lineCycle.line(this);
    this.lineStart = pos + 1;
    this.lineWords = 0;
    this.lineVisible = 0;
    this.lineLetters = 0;
    this.lineDigits = 0;
    this.lineStray = false;
  }

  finish(): void {
    if (this.inWord) this.endToken();
    if (this.runLen > 0) this.endRun(true);
    if (this.lineWords > 0 || this.lineVisible > 0) {
      this.template.line(this);
      this.salad.line(this);
      this.lineCycle.line(this);
    }
    this.detok.finish(this);
    this.dropped.finish(this);
    this.stutter.finish(this);
    this.salad.finish(this);
    this.template.finish();
    this.listedRun.finish();
    this.sentences.finish(this);
    this.garbled.finish(this);
  }
}
