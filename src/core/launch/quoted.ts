/**
 * Decoders for YAML/JSON quoted scalars that remember where each decoded character came from (a
 * WordBuilder's runs), so a flag inside `"…\t…"` or a folded `'…'` has its exact source range. The
 * YAML reader (yaml.ts) calls them on the exact spans the `yaml` library's CST gives; the Dockerfile
 * exec-form reader (execForm.ts) on JSON strings.
 */
import { type Word, WordBuilder } from './source';

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  '\t': '\t',
  r: '\r',
  '"': '"',
  '\\': '\\',
  '/': '/',
  '0': '\0',
  ' ': ' ',
  a: '\x07',
  b: '\b',
  v: '\v',
  f: '\f',
  e: '\x1b',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
};

/** Double-quoted YAML (and JSON) string starting at the quote `q`, read up to `to` at most. Folds line breaks. */
export function doubleQuoted(s: string, q: number, to: number): { word: Word; end: number } {
  const w = new WordBuilder(s, q);
  w.quoted = true;
  let j = q + 1;
  let run = j;
  while (j < to) {
    const c = s[j];
    if (c === '"') {
      w.slice(run, j);
      return { word: w.finish(j + 1), end: j + 1 };
    }
    if (c === '\\' && j + 1 < to) {
      w.slice(run, j);
      const n = s[j + 1];
      if (SIMPLE_ESCAPES[n] !== undefined) {
        w.decoded(SIMPLE_ESCAPES[n], j, j + 2);
        j += 2;
      } else if (n === 'x' || n === 'u' || n === 'U') {
        const len = n === 'x' ? 2 : n === 'u' ? 4 : 8;
        const hex = s.slice(j + 2, j + 2 + len);
        const cp = /^[0-9a-fA-F]+$/.test(hex) && hex.length === len ? parseInt(hex, 16) : NaN;
        if (Number.isFinite(cp) && cp <= 0x10ffff) w.decoded(String.fromCodePoint(cp), j, j + 2 + len);
        j += 2 + len;
      } else if (n === '\n' || n === '\r') {
        // escaped line break: joins without a space; skip leading blanks of the next line
        j += n === '\r' && s[j + 2] === '\n' ? 3 : 2;
        while (j < to && (s[j] === ' ' || s[j] === '\t')) j++;
      } else {
        w.slice(j, j + 2);
        j += 2;
      }
      run = j;
      continue;
    }
    if (c === '\n') {
      j = fold(s, w, run, j, to);
      run = j;
      continue;
    }
    j++;
  }
  w.slice(run, to);
  return { word: w.finish(to), end: to };
}

/** Single-quoted YAML string starting at `q` (`''` is a quote), read up to `to` at most. */
export function singleQuoted(s: string, q: number, to: number): { word: Word; end: number } {
  const w = new WordBuilder(s, q);
  w.quoted = true;
  let j = q + 1;
  let run = j;
  while (j < to) {
    const c = s[j];
    if (c === "'") {
      w.slice(run, j);
      if (s[j + 1] === "'") {
        w.decoded("'", j, j + 2);
        j += 2;
        run = j;
        continue;
      }
      return { word: w.finish(j + 1), end: j + 1 };
    }
    if (c === '\n') {
      j = fold(s, w, run, j, to);
      run = j;
      continue;
    }
    j++;
  }
  w.slice(run, to);
  return { word: w.finish(to), end: to };
}

/** Line folding inside quoted scalars: trailing blanks dropped, break → space (empty lines → newline). */
function fold(s: string, w: WordBuilder, run: number, nl: number, to: number): number {
  let e = nl;
  while (e > run && (s[e - 1] === ' ' || s[e - 1] === '\t' || s[e - 1] === '\r')) e--;
  w.slice(run, e);
  let j = nl + 1;
  let empties = 0;
  for (;;) {
    while (j < to && (s[j] === ' ' || s[j] === '\t' || s[j] === '\r')) j++;
    if (j < to && s[j] === '\n') {
      empties++;
      j++;
    } else break;
  }
  w.decoded(empties ? '\n'.repeat(empties) : ' ', nl, nl + 1);
  return j;
}
