/**
 * Line tables: where each line of a text starts, and conversions between offsets and
 * line/character positions (UTF-16 units, as LSP and tree-sitter's JS binding count them).
 */

export interface LinePosition {
  line: number;
  character: number;
}

/** Offset of the first character of every line; line 0 starts at 0, a line starts after each \n. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * The offset of a position. Out-of-range input is clamped, never thrown: a line past the end
 * counts as the last line, a character past the line's end stops at the next line's start.
 */
export function offsetAt(starts: readonly number[], length: number, p: LinePosition): number {
  const line = Math.max(0, Math.min(p.line, starts.length - 1));
  const end = line + 1 < starts.length ? starts[line + 1] : length;
  return Math.min(starts[line] + Math.max(0, p.character), end);
}

/** The position of an offset (binary search over the line starts). */
export function positionAt(starts: readonly number[], offset: number): LinePosition {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: offset - starts[lo] };
}

/** Line starts after replacing [start, oldEnd) by `text`: O(lines), no rescan of the text. */
export function editLineStarts(starts: readonly number[], start: number, oldEnd: number, text: string): number[] {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid] <= start) lo = mid + 1;
    else hi = mid;
  }
  let after = lo;
  while (after < starts.length && starts[after] <= oldEnd) after++;
  const delta = text.length - (oldEnd - start);
  const out = starts.slice(0, lo);
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(start + i + 1);
  for (let i = after; i < starts.length; i++) out.push(starts[i] + delta);
  return out;
}

/** A text's line table, built once: offset ↔ position both ways. */
export class LineIndex {
  private readonly starts: number[];
  private readonly length: number;
  constructor(text: string) {
    this.length = text.length;
    this.starts = lineStarts(text);
  }
  pos(offset: number): LinePosition {
    return positionAt(this.starts, offset);
  }
  range(start: number, end: number): { start: LinePosition; end: LinePosition } {
    return { start: this.pos(start), end: this.pos(end) };
  }
  offset(p: LinePosition): number {
    return offsetAt(this.starts, this.length, p);
  }
}
