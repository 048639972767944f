/**
 * Lines that come back as a cycle once their numbering is left out ("1. Paris / 2. Lyon /
 * 3. Paris / 4. Lyon / …", bullets alike): a looping model walks the same few items again and
 * again, which LexicalScanner's item duplicates miss when the list has no numbers and the
 * character loops miss when the numbers grow. A line is keyed by its words; a line with digits
 * after its first word (a table row, a log line: "Epoch 3 loss 0.41"), in a word, or code symbols
 * after its first word (SQL, a config: "SET (RESTRICT = …)") breaks the cycle, so templated lines
 * and code stay ok. The same line over and over (period 1) is left to the loop and repetition
 * signals, except for numbered items: the same item again and again while its number counts up
 * ("Step 7: Add a contact form." / "Step 8: Add a contact form." / …) has no loop in its characters.
 *
 * Bounded: a ring of line keys and one run counter per period; work once per word and per line.
 */
import * as limits from './limits';
import type { WordScanner, WordSink } from './words';

/** A module-level copy: imported bindings are getter calls under some loaders. */
const LINECYCLE = limits.LINECYCLE;
const RING = 64;
const RMASK = RING - 1;

export class LineCycle {
  private readonly keys = new Int32Array(RING);
  private readonly starts = new Float64Array(RING);
  /** Per period p: how many lines in a row equal the line p before them. */
  private readonly runs = new Int32Array(LINECYCLE.maxPeriod + 1);
  private lines = 0;
  private key = 0;
  private numbered = true;
  private done = false;
  /** The line's item has a number before it ("3. …") or after a label ("Step 3: …"), and its words after that. */
  private itemNumbered = false;
  private labelled = false;
  private itemWords = 0;
  /** Numbered items in a row with the same words, and the offset of the first. */
  private sameRun = 0;
  private sameKey = 0;
  private sameAt = 0;

  constructor(private readonly sink: WordSink) {}

  word(w: WordScanner): void {
    if (w.lineWords === 1) {
      this.key = 0x2545f491;
      this.numbered = w.digits === 0;
      this.itemNumbered = w.gapDigits > 0 && w.gapCode === 0 && w.digits === 0;
      this.labelled = !this.itemNumbered && w.digits === 0 && w.upper === 1;
      this.itemWords = 0;
    } else if (w.lineWords === 2 && this.labelled && w.gapDigits > 0 && w.gapCode === 0 && w.digits === 0) {
      this.itemNumbered = true;
      this.numbered = false;
    } else if (w.digits > 0 || w.gapDigits > 0 || w.gapCode > 0) {
      this.numbered = false;
      this.itemNumbered = false;
    }
    this.itemWords++;
    this.key = Math.imul(this.key ^ w.hash, 0x01000193);
  }

  line(w: WordScanner): void {
    if (this.done || w.lineVisible === 0) return;
    this.sameItem(w);
    if (this.done) return;
    if (w.lineWords === 0 || !this.numbered || w.gapDigits > 0 || w.gapCode > 0 || w.lineLetters < LINECYCLE.minLetters) {
      // Most lines of code and prose end a cycle that never started: the counts are zero already.
      if (this.lines !== 0) {
        this.lines = 0;
        this.runs.fill(0);
      }
      return;
    }
    const n = this.lines++;
    this.keys[n & RMASK] = this.key;
    this.starts[n & RMASK] = w.lineStart;
    for (let p = 1; p <= LINECYCLE.maxPeriod; p++) {
      this.runs[p] = n >= p && this.keys[(n - p) & RMASK] === this.key ? this.runs[p] + 1 : 0;
      // Cycles of p lines: the lines of the first period, then (cycles - 1) periods equal to it.
      if (p > 1 && this.runs[p] >= (LINECYCLE.cycles - 1) * p && this.runs[1] < p) {
        this.report(p, n - this.runs[p] - p + 1);
        return;
      }
    }
  }

  /** The same numbered item again with the next number: a run of LINECYCLE.sameItems is a loop. */
  private sameItem(w: WordScanner): void {
    const words = this.labelled ? this.itemWords - 1 : this.itemWords;
    if (w.lineWords === 0 || !this.itemNumbered || w.gapDigits > 0 || w.gapCode > 0 || words < LINECYCLE.sameItemWords) {
      this.sameRun = 0;
      return;
    }
    if (this.sameRun > 0 && this.key === this.sameKey) this.sameRun++;
    else {
      this.sameRun = 1;
      this.sameKey = this.key;
      this.sameAt = w.lineStart;
    }
    if (this.sameRun < LINECYCLE.sameItems) return;
    this.done = true;
    this.sink(
      'list-cycle',
      this.sameAt,
      `from offset ${this.sameAt} the same numbered item comes ${this.sameRun} times in a row with only its number changing: the model is stuck on one item`,
      'degenerate',
    );
  }

  private report(period: number, first: number): void {
    this.done = true;
    const at = this.starts[first & RMASK];
    this.sink(
      'list-cycle',
      at,
      `from offset ${at} the same ${period} lines come back ${LINECYCLE.cycles} times in a row once their numbering is left out: the model cycles through the same items`,
      'degenerate',
    );
  }
}
