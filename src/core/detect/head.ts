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
 * Bounded: the head is copied once, HEAD.chars units at most, and read once, at finish, in one
 * pass of a few comparisons a unit.
 */
import * as limits from './limits';
import * as decoding from './decode';
import { judgePieces } from './pieces';
import { judgeTokenMarks } from './tokenMarks';
import { judgeControlChars } from './controlChars';
import { judgeClosingOffer } from './closing';
import { isLetterUnit } from './script';
import type { ReasonCode, ReasonKind } from './types';

/** A module-level copy: imported bindings are getter calls under some loaders. */
const HEAD = limits.HEAD;

/**
 * The head's code units, decoded once at finish for its passes here and in pieces.ts (several
 * times cheaper than charCodeAt on the concatenated head). Shared: a finish runs to its end before
 * another starts.
 */
const headUnits = new Uint16Array(HEAD.chars);
const headBytes = decoding.unitBytes(headUnits);

export type HeadSink = (code: ReasonCode, offset: number, detail: string, kind?: ReasonKind) => void;

/** Sentence marks: , . ; : ! ? */
function isMark(c: number): boolean {
  return c === 44 || c === 46 || c === 59 || c === 58 || c === 33 || c === 63;
}

function isAsciiLetterOrDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);
}

/** ")" of a list marker ("1)", "b)", "iv)" after a space or a line start) or of a smiley (":)", ";-)"). */
function markerParen(u: Uint16Array, i: number): boolean {
  const p = i > 0 ? u[i - 1] : 0;
  if (p === 58 || p === 59 || p === 45) return true;
  if (p >= 48 && p <= 57) return true;
  let j = i - 1;
  while (j >= 0 && j > i - 5 && isAsciiLetterOrDigit(u[j])) j--;
  return j < i - 1 && (j < 0 || u[j] === 32 || u[j] === 10) && i - 1 - j <= 3;
}

export class HeadText {
  private head = '';
  /** Code units of the whole answer. */
  private total = 0;

  constructor(private readonly sink: HeadSink) {}

  push(s: string): void {
    if (this.head.length < HEAD.chars) this.head += s.length <= HEAD.chars - this.head.length ? s : s.slice(0, HEAD.chars - this.head.length);
    this.total += s.length;
  }

  /** One pass over the head: runs of one letter, runs of marks, brackets, lines. */
  finish(): void {
    const t = this.head;
    const n = t.length;
    if (n === 0) return;
    const whole = this.total === n;
    const u = headUnits;
    decoding.decodeUnits(t, 0, n, u, headBytes);
    // Letter runs: the unit (one code unit, or a surrogate pair) and its copies so far.
    let runUnit = -1;
    let runLen = 0;
    let runStart = 0;
    let bestRun = 0;
    let bestRunAt = -1;
    // Mark runs.
    let markLen = 0;
    let markTurns = 0;
    let markStart = 0;
    let markFound = -1;
    let markFoundLen = 0;
    let markFoundTurns = 0;
    // Brackets: one stack of openers, a closer pops back to its opener when there is one.
    const stack: number[] = [];
    let brackets = 0;
    let unmatched = 0;
    let firstUnmatched = -1;
    // Lines: non-blank ones, and those holding one sentence mark alone.
    let lines = 0;
    let lone = 0;
    let firstLone = -1;
    let lineVisible = 0;
    let lineMark = 0;
    let lineStart = 0;
    let visible = 0;
    for (let i = 0; i <= n; i++) {
      const c = i < n ? u[i] : 10;
      // Lines.
      if (c === 10) {
        if (lineVisible > 0) {
          lines++;
          if (lineVisible === 1 && lineMark === 1) {
            if (lone++ === 0) firstLone = lineStart;
          }
        }
        lineVisible = 0;
        lineMark = 0;
        lineStart = i + 1;
      } else if (c > 32 && c !== 0xa0) {
        lineVisible++;
        if (isMark(c)) lineMark++;
        if (c < 0xdc00 || c >= 0xe000) visible++;
      }
      // Mark runs.
      if (isMark(c)) {
        if (markLen === 0) {
          markStart = i;
          markTurns = 0;
        } else if (c !== u[i - 1]) markTurns++;
        markLen++;
      } else {
        if (markFound < 0 && markLen >= HEAD.markRunMin && markTurns >= HEAD.markRunTurns) {
          markFound = markStart;
          markFoundLen = markLen;
          markFoundTurns = markTurns;
        }
        markLen = 0;
      }
      // Letter runs (low surrogates continue their pair).
      if (c >= 0xdc00 && c < 0xe000 && runLen > 0) continue;
      let unit = c;
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) unit = ((c - 0xd800) << 10) + (u[i + 1] - 0xdc00) + 0x10000;
      if (unit === runUnit) runLen++;
      else {
        if (runLen > bestRun && isLetterUnit(u[runStart])) {
          bestRun = runLen;
          bestRunAt = runStart;
        }
        runUnit = unit;
        runLen = 1;
        runStart = i;
      }
      // Brackets.
      if (c === 40 || c === 91 || c === 123) {
        stack.push(c);
        brackets++;
      } else if (c === 41 || c === 93 || c === 125) {
        if (c === 41 && markerParen(u, i)) continue;
        brackets++;
        const at = stack.lastIndexOf(c === 41 ? 40 : c - 2);
        if (at >= 0) stack.length = at;
        else if (unmatched++ === 0) firstUnmatched = i;
      }
    }
    if (bestRun >= HEAD.letterRunMin) {
      const letter = String.fromCodePoint(t.codePointAt(bestRunAt) ?? 0);
      const share = whole && visible > 0 ? bestRun / visible : 0;
      if (bestRun >= HEAD.letterRun || share >= HEAD.letterRunShare) {
        const tail = share > 0 ? `, ${Math.round(100 * share)}% of the answer's visible characters` : '';
        this.sink('char-flood', bestRunAt, `the letter ${JSON.stringify(letter)} repeated ${bestRun} times at offset ${bestRunAt}${tail}`);
      }
    }
    if (markFound >= 0) {
      this.sink(
        'token-salad',
        markFound,
        `${markFoundLen} commas, periods and other sentence marks in a row at offset ${markFound}, switching mark ${markFoundTurns} times: punctuation tokens sampled at random`,
      );
    }
    if (unmatched >= HEAD.closers && unmatched >= HEAD.closersShare * brackets) {
      this.sink(
        'token-salad',
        firstUnmatched,
        `${unmatched} of the answer's ${brackets} brackets close nothing, the first at offset ${firstUnmatched}: code tokens sampled out of order`,
      );
    }
    if (whole && lone >= HEAD.loneMarkLines && lone >= HEAD.loneMarkShare * lines) {
      this.sink('answer-flood', firstLone, `${lone} of the answer's ${lines} lines hold one sentence mark alone, the first at offset ${firstLone}`);
    }
    judgePieces(t, u, whole, this.sink);
    judgeTokenMarks(u, n, this.sink);
    judgeControlChars(u, n, this.sink);
    judgeClosingOffer(t, this.sink);
  }
}
