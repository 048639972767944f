/**
 * Finish-time rules over the head of the answer (its first HEAD.chars code units, all of a short
 * answer): shapes the streaming scanners' thresholds are too coarse for, judged relative to the
 * answer's length.
 *
 * - one letter repeated ("…還是欸欸欸欸欸…"): a run of letters of any script, long for its own sake or
 *   for the answer it sits in (the streaming flood rule waits for 160 copies);
 * - sentence marks in random order (",..,.,,,,..,,.,.,,"): a run of commas, periods and their kin
 *   that switches mark again and again, unlike an ellipsis, a dot leader or a rule;
 * - lines that hold one sentence mark alone ("When the\n.\n\nThe first\n\n."), a large share of the
 *   answer's lines;
 * - closing brackets that close nothing (" }` on }`RESS, and thus,uminate, }` }`raint"): code and
 *   prose close what they open, salad of code tokens does not. List markers ("1)", "b)") and
 *   smileys (":)") do not count.
 *
 * Bounded: the head is copied once, HEAD.chars units at most, and read by a few regular
 * expressions once, at finish.
 */
import * as limits from './limits';
import type { ReasonCode, ReasonKind } from './types';

/** A module-level copy: imported bindings are getter calls under some loaders. */
const HEAD = limits.HEAD;

export type HeadSink = (code: ReasonCode, offset: number, detail: string, kind?: ReasonKind) => void;

/** A letter (any script) repeated: the letter, then at least letterRunMin - 1 more copies. */
const LETTER_RUN = new RegExp(`(\\p{L})\\1{${HEAD.letterRunMin - 1},}`, 'gu');
/** Sentence marks in a row. */
const MARK_RUN = new RegExp(`[,.;:!?]{${HEAD.markRunMin},}`, 'g');
/** A line of one sentence mark alone. */
const LONE_MARK_LINE = /^[ \t]*[,.;:!?][ \t]*$/gm;

export class HeadText {
  private head = '';
  /** Code units of the whole answer. */
  private total = 0;

  constructor(private readonly sink: HeadSink) {}

  push(s: string): void {
    if (this.head.length < HEAD.chars) this.head += s.length <= HEAD.chars - this.head.length ? s : s.slice(0, HEAD.chars - this.head.length);
    this.total += s.length;
  }

  finish(): void {
    const t = this.head;
    if (!t) return;
    const whole = this.total === t.length;
    const visible = whole ? countVisible(t) : 0;
    this.letterRun(t, visible);
    this.markRun(t);
    this.closers(t);
    if (whole) this.loneMarks(t);
  }

  private letterRun(t: string, visible: number): void {
    LETTER_RUN.lastIndex = 0;
    for (let m = LETTER_RUN.exec(t); m; m = LETTER_RUN.exec(t)) {
      const copies = m[0].length / m[1].length;
      if (copies >= HEAD.letterRun || (visible > 0 && copies >= HEAD.letterRunShare * visible)) {
        const share = visible > 0 ? `, ${Math.round((100 * copies) / visible)}% of the answer's visible characters` : '';
        this.sink('char-flood', m.index, `the letter ${JSON.stringify(m[1])} repeated ${copies} times at offset ${m.index}${share}`);
        return;
      }
    }
  }

  private markRun(t: string): void {
    MARK_RUN.lastIndex = 0;
    for (let m = MARK_RUN.exec(t); m; m = MARK_RUN.exec(t)) {
      const s = m[0];
      let turns = 0;
      for (let i = 1; i < s.length; i++) if (s.charCodeAt(i) !== s.charCodeAt(i - 1)) turns++;
      if (turns >= HEAD.markRunTurns) {
        this.sink(
          'token-salad',
          m.index,
          `${s.length} commas, periods and other sentence marks in a row at offset ${m.index}, switching mark ${turns} times: punctuation tokens sampled at random`,
        );
        return;
      }
    }
  }

  private closers(t: string): void {
    // One stack of openers; a closer pops back to its opener when there is one, else closes nothing.
    const stack: number[] = [];
    let brackets = 0;
    let unmatched = 0;
    let first = -1;
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c === 40 || c === 91 || c === 123) {
        stack.push(c);
        brackets++;
        continue;
      }
      const opener = OPENER[c];
      if (opener === undefined || (c === 41 && markerParen(t, i))) continue;
      brackets++;
      const at = stack.lastIndexOf(opener);
      if (at >= 0) stack.length = at;
      else if (unmatched++ === 0) first = i;
    }
    if (unmatched >= HEAD.closers && unmatched >= HEAD.closersShare * brackets) {
      this.sink(
        'token-salad',
        first,
        `${unmatched} of the answer's ${brackets} brackets close nothing, the first at offset ${first}: code tokens sampled out of order`,
      );
    }
  }

  private loneMarks(t: string): void {
    let lines = 0;
    for (const line of t.split('\n')) if (line.trim()) lines++;
    LONE_MARK_LINE.lastIndex = 0;
    let lone = 0;
    let first = -1;
    for (let m = LONE_MARK_LINE.exec(t); m; m = LONE_MARK_LINE.exec(t)) {
      if (lone++ === 0) first = m.index;
    }
    if (lone >= HEAD.loneMarkLines && lone >= HEAD.loneMarkShare * lines) {
      this.sink('answer-flood', first, `${lone} of the answer's ${lines} lines hold one sentence mark alone, the first at offset ${first}`);
    }
  }
}

/** Matching opener of each closer. */
const OPENER: Readonly<Record<number, number>> = { 41: 40, 93: 91, 125: 123 };

function isAsciiLetterOrDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);
}

/** ")" of a list marker ("1)", "b)", "iv)" after a space or a line start) or of a smiley (":)", ";-)"). */
function markerParen(t: string, i: number): boolean {
  const p = i > 0 ? t.charCodeAt(i - 1) : 0;
  if (p === 58 || p === 59 || p === 45) return true;
  if (p >= 48 && p <= 57) return true;
  let j = i - 1;
  while (j >= 0 && j > i - 5 && isAsciiLetterOrDigit(t.charCodeAt(j))) j--;
  return j < i - 1 && (j < 0 || t.charCodeAt(j) === 32 || t.charCodeAt(j) === 10) && i - 1 - j <= 3;
}

function countVisible(t: string): number {
  let n = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c > 32 && c !== 0xa0 && (c < 0xdc00 || c >= 0xe000)) n++;
  }
  return n;
}
