/**
 * One content word said over and over with list punctuation between the copies ("Odin, Odin,
 * Odin, Odin, Odin, Odin", "Odin/Odin/Odin"): the stutter LexicalScanner's same-word run does not
 * see, since it asks for spaces alone between the copies. A list names different things; a model
 * whose attention broke names one thing again and again.
 *
 * Bounded: a run counter and the word it is about; work once per word.
 */
import * as limits from './limits';
import type { WordScanner, WordSink } from './words';

/** A module-level copy: imported bindings are getter calls under some loaders. */
const LISTRUN = limits.LISTRUN;

/** Separators of list items: , ; / | and the dashes. */
function isSeparator(c: number): boolean {
  return c === 44 || c === 59 || c === 47 || c === 124 || c === 45 || c === 0x2013 || c === 0x2014 || c === 0xb7;
}

/** What closes an argument list, an array or a statement. */
function isCloser(c: number): boolean {
  return c === 41 || c === 93 || c === 125 || c === 59;
}

export class ListedRun {
  private run = 0;
  private runStart = -1;
  private sample = '';
  private done = false;

  constructor(private readonly sink: WordSink) {}

  word(w: WordScanner): void {
    if (this.done) return;
    const sep = w.gapFirst === 32 ? w.gapSecond : w.gapFirst;
    const listed =
      w.words > 0 && w.hash === w.prevHash && w.gapNewlines === 0 && w.gapDigits === 0 && w.gapLen <= 3 && w.gapLen - w.gapSpaces === 1 && isSeparator(sep);
    if (listed) {
      if (this.run > 0 && ++this.run === LISTRUN.copies) this.sample = String.fromCharCode(...w.buf.subarray(0, Math.min(w.len, w.buf.length)));
      return;
    }
    // The run ended: an argument list or an array closes right after it ("f(float, float, …);").
    if (this.run >= LISTRUN.copies && !isCloser(sep)) this.report();
    // A content word can start a run: letters only, not a function word, not hex data.
    const content = !w.stop && w.digits === 0 && w.letters >= LISTRUN.minLetters && !(w.hex && w.len >= 4);
    this.run = content ? 1 : 0;
    this.runStart = w.start;
  }

  /** An answer that ends inside the run never got out of it. */
  finish(): void {
    if (!this.done && this.run >= LISTRUN.copies) this.report();
  }

  private report(): void {
    this.done = true;
    this.sink(
      'word-repetition',
      this.runStart,
      `the word ${JSON.stringify(this.sample)} comes ${this.run} times in a row with list punctuation between the copies, from offset ${this.runStart}`,
      'degenerate',
    );
  }
}
