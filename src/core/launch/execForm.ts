/**
 * The exec (JSON) form of a Dockerfile `RUN`/`CMD`/`ENTRYPOINT`: `["python3", "-m", …]`, possibly
 * spread over `\` continuation lines with comment lines in between (Docker joins continuations and
 * drops comment lines before it reads the JSON). Kept hand-written: no JSON or YAML parser reads
 * through `\`+newline, and every item needs its exact source range.
 */
import { doubleQuoted, singleQuoted } from './quoted';
import { type Word, WordBuilder, lineEnd } from './source';

/** Offset where a bare item on [from, end) stops: ` #` comment, `,`/`]`, trailing blanks. */
function bareEnd(s: string, from: number, end: number): number {
  let j = from;
  while (j < end) {
    const c = s[j];
    if (c === '#' && j > from && (s[j - 1] === ' ' || s[j - 1] === '\t')) break;
    if (c === ',' || c === ']' || c === '}') break;
    j++;
  }
  while (j > from && (s[j - 1] === ' ' || s[j - 1] === '\t' || s[j - 1] === '\\')) j--;
  return j;
}

/** The items of `[a, "b", 'c']` whose `[` is at `open`; `end` is just past the `]` (or `to`). */
export function parseExecForm(s: string, open: number, to: number): { items: Word[]; end: number } {
  const items: Word[] = [];
  let j = open + 1;
  let lineStart = true;
  while (j < to) {
    const c = s[j];
    if (c === '\n') {
      lineStart = true;
      j++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === ',') {
      j++;
      continue;
    }
    if (c === '\\' && (s[j + 1] === '\n' || s[j + 1] === '\r')) {
      j += s[j + 1] === '\r' && s[j + 2] === '\n' ? 3 : 2;
      lineStart = true;
      continue;
    }
    // a comment line inside the continuation (Docker drops it), or a comment after an item
    if (c === '#' && (lineStart || s[j - 1] === ' ' || s[j - 1] === '\t')) {
      j = lineEnd(s, j, to);
      continue;
    }
    lineStart = false;
    if (c === ']') return { items, end: j + 1 };
    if (c === '"' || c === "'") {
      const r = c === '"' ? doubleQuoted(s, j, to) : singleQuoted(s, j, to);
      if (items.length < 10_000) items.push(r.word);
      j = r.end;
      continue;
    }
    const e = bareEnd(s, j, lineEnd(s, j, to));
    if (e > j) {
      const w = new WordBuilder(s, j);
      w.slice(j, e);
      items.push(w.finish(e));
      j = e;
    } else j++;
  }
  return { items, end: to };
}
