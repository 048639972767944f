/**
 * Lines that come back as a cycle once their numbering is left out ("1. Paris / 2. Lyon /
 * 3. Paris / 4. Lyon / …", bullets alike): a looping model walks the same few items again and
 * again, which LexicalScanner's item duplicates miss when the list has no numbers and the
 * character loops miss when the numbers grow. A line is keyed by its words; a line with digits
 * after its first word (a table row, a log line: "Epoch 3 loss 0.41"), in a word, or code symbols
 * after its first word (SQL, a config: "SET (RESTRICT = …)") breaks the cycle, so templated lines
 * and code stay ok. The same line over and over (period 1) is left to the loop and repetition
 * signals.
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

  constructor(private readonly sink: WordSink) {}

  word(w: WordScanner): void {
    if (w.lineWords === 1) {
      this.key = 0x2545f491;
      this.numbered = w.digits === 0;
    } else if (w.digits > 0 || w.gapDigits > 0 || w.gapCode > 0) this.numbered = false;
    this.key = Math.imul(this.key ^ w.hash, 0x01000193);
  }

  line(w: WordScanner): void {
    if (this.done || w.lineVisible === 0) return;
    if (w.lineWords === 0 || !this.numbered || w.gapDigits > 0 || w.gapCode > 0 || w.lineLetters < LINECYCLE.minLetters) {
      this.lines = 0;
      this.runs.fill(0);
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
