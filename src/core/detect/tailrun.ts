/**
 * The run an answer ends in, for the finish-time "length" rule: the same unit of one to four code
 * units ("?", "。", "!, ", an emoji) back to back up to the last character. A model stuck on one
 * token until max_tokens ends so; the streaming rules wait for more copies (160 of a printable
 * character) because text mid-answer legitimately holds long runs. At the very end of an answer
 * that the server cut, a few dozen copies are enough, except for the characters that draw rules,
 * banners, leaders and padding ("-----", "/////", ".....", spaces) and digits: those are left to
 * the streaming rules.
 */
import * as limits from './limits';

const MAX_PERIOD = 4;
const LIMITS = limits.LIMITS;

/** Characters that draw rules, leaders and indentation, and digits: runs of them are layout or data. */
function drawsLayout(c: number): boolean {
  return (
    c === 32 ||
    c === 9 ||
    c === 45 || // -
    c === 61 || // =
    c === 42 || // *
    c === 35 || // #
    c === 126 || // ~
    c === 95 || // _
    c === 46 || // .
    c === 43 || // +
    c === 124 || // |
    c === 58 || // :
    c === 47 || // /
    c === 92 || // backslash
    c === 37 || // %
    c === 94 || // ^
    c === 60 || // <
    c === 62 || // >
    (c >= 48 && c <= 57) ||
    c === 0xb7 || // ·
    c === 0x2022 || // •
    (c >= 0x2010 && c <= 0x2015) || // hyphens and dashes: "————" lines in CJK text
    c === 0x2026 || // … (leaders)
    c === 0x2027 ||
    c === 0x3000 || // ideographic space
    c === 0x30fb || // ・ (leaders)
    c === 0x30fc || // ー
    c === 0xff0d || // －
    c === 0xff0e || // ．
    c === 0xff1d || // ＝
    c === 0xff3f || // ＿
    c === 0xff5e || // ～
    c === 0x2605 || // ★
    c === 0x2606 || // ☆
    (c >= 0x2500 && c <= 0x259f) // box drawing and block elements (━━, ██); not "□□□□", the glyph of a missing character
  );
}

export interface TailRun {
  /** Code units of the unit, its copies (whole ones), and where the run starts in the tail. */
  period: number;
  copies: number;
  start: number;
  unit: string;
}

/** The longest back-to-back run at the end of `tail`, over periods 1 to 4 (the shortest on ties). */
export function tailRun(tail: string): TailRun | null {
  const n = tail.length;
  let best: TailRun | null = null;
  for (let p = 1; p <= MAX_PERIOD && p < n; p++) {
    let len = p;
    while (len < n && tail.charCodeAt(n - 1 - len) === tail.charCodeAt(n - 1 - len + p)) len++;
    const copies = Math.floor(len / p);
    if (copies >= 2 && (best === null || len > best.copies * best.period)) {
      best = { period: p, copies, start: n - copies * p, unit: tail.slice(n - p) };
    }
  }
  return best;
}

/** Whether the run is a flood to flag when finish_reason is "length": a unit that draws no layout, copied often enough. */
export function isLengthFlood(run: TailRun): boolean {
  if (run.copies < LIMITS.lengthTailCopies) return false;
  for (let i = 0; i < run.unit.length; i++) if (!drawsLayout(run.unit.charCodeAt(i))) return true;
  return false;
}
