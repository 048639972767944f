/**
 * Loops whose copies differ only by markup: a model that repeats a paragraph can wrap different
 * words of each copy in HTML tags (`<strong>`), speech markers (`[Pause_3]`) or `**bold**` emphasis,
 * so no two copies match character for character and Channel's loop finder never locks on. At
 * finish, when the tail in Channel's ring carries such markup, the tail is read again with the
 * markup left out, by a fresh Channel and its usual loop rules. Leaving markup out only removes
 * text, so a healthy table, list or page gets no copy it did not have; the end-of-answer rule
 * (which weighs the loop against the answer's length) is asked only when the ring holds the whole
 * answer. Runs once per answer, only when markup is there: the hot loop is untouched.
 */
import { Channel } from './channel';
import type { FlagSink } from './channel';

/**
 * HTML tags (`<strong>`, `</p>`), `[Name_3]` markers and `**bold**` emphasis (its words kept). An
 * opening tag counts only when its closing tag is in the text too, and `**` only around words on
 * one line: `#include <vector>`, `List<String>`, `**kwargs` and `__init__` are no markup.
 */
const MARKUP = /<(\/?)([A-Za-z][A-Za-z0-9-]*)(?:\s[^<>\n]{0,80})?>|\[[A-Za-z]+_\d+\]|\*\*(?=[^\s*])([^*\n]{1,80}?)\*\*/g;
const CLOSING_TAG = /<\/([A-Za-z][A-Za-z0-9-]*)>/g;

/** Where markup can start: "<" of a tag, "[" of a marker, "*" of emphasis. */
export const MARKUP_STARTS: readonly number[] = [0x3c, 0x5b, 0x2a];

/** `text` with its markup left out and, for each kept character, its index in `text`; null when it has none. */
export function stripMarkup(text: string): { text: string; origin: number[] } | null {
  const closed = new Set<string>();
  for (const m of text.matchAll(CLOSING_TAG)) closed.add(m[1]);
  const parts: string[] = [];
  const origin: number[] = [];
  const keep = (from: number, to: number): void => {
    parts.push(text.slice(from, to));
    for (let k = from; k < to; k++) origin.push(k);
  };
  let last = 0;
  for (const m of text.matchAll(MARKUP)) {
    if (m[2] !== undefined && m[1] === '' && !closed.has(m[2])) continue;
    keep(last, m.index);
    if (m[3] !== undefined) keep(m.index + 2, m.index + 2 + m[3].length);
    last = m.index + m[0].length;
  }
  if (last === 0) return null;
  keep(last, text.length);
  return { text: parts.join(''), origin };
}

/**
 * The first loop the tail shows once its markup is left out: its code, its offset in the answer
 * and its detail, or null. `tailStart` is the tail's offset in the answer; `whole` says the tail is
 * the whole answer.
 */
export function markupLoop(tail: string, tailStart: number, whole: boolean): { code: 'short-loop' | 'long-loop'; offset: number; detail: string } | null {
  const stripped = stripMarkup(tail);
  if (!stripped || stripped.text.length === 0) return null;
  let found: { code: 'short-loop' | 'long-loop'; offset: number; detail: string } | null = null;
  const sink: FlagSink = (code, offset, detail) => {
    if (found || (code !== 'short-loop' && code !== 'long-loop')) return;
    const at = tailStart + (stripped.origin[Math.min(offset, stripped.origin.length - 1)] ?? 0);
    found = { code, offset: at, detail: `once its markup (tags, [Name_N] markers, **emphasis**) is left out, ${detail}` };
  };
  const ch = new Channel(sink, '\u0000');
  const units = new Uint16Array(stripped.text.length);
  for (let i = 0; i < units.length; i++) units[i] = stripped.text.charCodeAt(i);
  ch.feed(units, units.length);
  if (!found && whole) ch.checkEndLoop();
  return found;
}
