/**
 * Word-level stutter in answers too short for LexicalScanner's word windows: a word said twice in
 * a row ("Septy Septy", "We need need answer"), punctuation doubled after a word ("Paris,,,"), and
 * a phrase said twice back to back ("The future of AI is! The future of AI is!").
 *
 * Bounded: counters and a ring of the last RING word hashes; per word at most MAX_PHRASE hash
 * comparisons, and almost always one.
 */
import * as limits from './limits';
import type { WordScanner, WordSink } from './words';

/** A module-level copy: imported bindings are getter calls under some loaders. */
const STUTTER = limits.STUTTER;

const RING = 32;
const RMASK = RING - 1;
const MAX_PHRASE = 8;
/**
 * Words from which neither the doubled-word nor the phrase rule can apply at finish: WordScanner
 * hands Stutter only the answer's first STUTTER_WORDS words (past that, only the punctuation runs
 * it counts can still be reported).
 */
export const STUTTER_WORDS = Math.max(STUTTER.shortWords, STUTTER.shortMaxWords, STUTTER.phraseMaxWords + 1);

export class Stutter {
  private dups = 0;
  private firstDup = -1;
  private dupWord = '';
  private runs = 0;
  /** Runs of ASCII commas and semicolons: a CJK answer is few "words" long however long it is, so one run of its commas alone stays a suspect. */
  private asciiRuns = 0;
  private firstRun = -1;
  private runText = '';
  private readonly ring = new Int32Array(RING);
  private readonly starts = new Float64Array(RING);
  /** Bit n & 31: the gap before word n held code or markup symbols ("|", "<", "{"): data repeats, prose does not. */
  private codeGaps = 0;
  /** Longest phrase (in words) said twice back to back, and where the first copy starts. */
  private phrase = 0;
  private phraseAt = -1;

  constructor(private readonly sink: WordSink) {}

  /** One of the answer's first STUTTER_WORDS words. */
  word(w: WordScanner): void {
    const n = w.words;
    // A doubled function word can be grammar ("that that", "had had"); a doubled content word is not.
    if (n > 0 && w.hash === w.prevHash && w.gapLen > 0 && w.gapSpaces === w.gapLen && !w.stop && !(w.hex && w.len >= 4)) {
      if (this.dups++ === 0) {
        this.firstDup = w.start;
        this.dupWord = String.fromCharCode(...w.buf.subarray(0, Math.min(w.len, w.buf.length)));
      }
    }
    const ring = this.ring;
    ring[n & RMASK] = w.hash;
    this.starts[n & RMASK] = w.start;
    const bit = 1 << (n & 31);
    this.codeGaps = w.gapCode > 0 ? this.codeGaps | bit : this.codeGaps & ~bit;
    // A phrase of k words ending here that repeats the k words before it.
    const have = n + 1;
    for (let k = STUTTER.phraseMinLength; k <= MAX_PHRASE && 2 * k <= have; k++) {
      if (ring[n & RMASK] !== ring[(n - k) & RMASK]) continue;
      let same = true;
      for (let j = 1; j < k; j++) {
        if (ring[(n - j) & RMASK] !== ring[(n - k - j) & RMASK]) {
          same = false;
          break;
        }
      }
      // No code gap inside the two copies (the gap before the first copy may hold one).
      if (same && k > this.phrase && !this.codeInside(n, 2 * k - 1)) {
        this.phrase = k;
        this.phraseAt = this.starts[(n - 2 * k + 1) & RMASK];
      }
    }
  }

  /** Whether any of the last m words (n, n-1, ...) has a code gap before it. */
  private codeInside(n: number, m: number): boolean {
    for (let j = 0; j < m; j++) if (this.codeGaps & (1 << ((n - j) & 31))) return true;
    return false;
  }

  punctuationRun(c: number, len: number, at: number): void {
    if (c < 128) this.asciiRuns++;
    if (this.runs++ === 0) {
      this.firstRun = at;
      this.runText = String.fromCharCode(c).repeat(len);
    }
  }

  finish(w: WordScanner): void {
    const words = w.words;
    if (this.dups > 0) {
      const detail = `the word ${JSON.stringify(this.dupWord)} at offset ${this.firstDup} comes twice in a row in an answer of ${words} words`;
      if (words < STUTTER.shortWords || (this.dups >= STUTTER.dupsInShort && words < STUTTER.shortMaxWords))
        this.sink('word-repetition', this.firstDup, detail, 'degenerate');
    }
    if (this.runs > 0) {
      const detail = `${JSON.stringify(this.runText)} right after a word at offset ${this.firstRun}: punctuation the model kept sampling`;
      this.sink(
        'word-repetition',
        this.firstRun,
        detail,
        (words < STUTTER.shortWords && this.asciiRuns > 0) || this.runs >= STUTTER.punctuationRuns ? 'degenerate' : 'suspect',
      );
    }
    if (this.phrase > 0 && words >= STUTTER.phraseMinWords && words <= STUTTER.phraseMaxWords && 2 * this.phrase >= STUTTER.phraseShare * words) {
      this.sink(
        'word-repetition',
        this.phraseAt,
        `a ${this.phrase}-word phrase at offset ${this.phraseAt} is said twice back to back, ${2 * this.phrase} of the answer's ${words} words`,
        'suspect',
      );
    }
  }
}
