import { seededRandom as mulberry32 } from '../../src/core/random';
/** Seeded generator of hostile strings for quoting tests: shell syntax, option look-alikes, huge values. */

/** Fragments that mean something to sh, rg or grep. `CANARY` is replaced by a path to touch. */
export const FRAGMENTS = [
  '$(touch CANARY)',
  '`touch CANARY`',
  '; touch CANARY',
  '| touch CANARY',
  '&& touch CANARY',
  '& touch CANARY &',
  '\ntouch CANARY\n',
  "'; touch CANARY; '",
  '"; touch CANARY; "',
  "'\\''",
  '\\',
  '\\\\',
  '$HOME',
  '${HOME}',
  '$((1+1))',
  '*',
  '?',
  '[a-z]',
  '{a,b}',
  '~',
  '~root',
  '!',
  '#',
  '<',
  '>',
  '>>CANARY',
  '2>&1',
  '(',
  ')',
  '{',
  '}',
  '\t',
  '\r',
  ' ',
  '-',
  '--',
  '-e',
  '--pre=sh',
  '--pre=touch CANARY',
  '-rf',
  '--help',
  '--files',
  '-x',
  '--exec=touch CANARY',
  "'",
  '"',
  '$',
  '`',
  '%s',
  '%n',
  '\u00e9',
  '日本',
  '🙂',
  '\u202e',
  '\x7f',
  '\x1b[31m',
  'a',
  'b',
  'xyz',
  '=',
  'A=1',
];

export function hostileString(rnd: () => number, canary: string, maxParts = 8): string {
  const n = 1 + Math.floor(rnd() * maxParts);
  let s = '';
  for (let i = 0; i < n; i++) s += FRAGMENTS[Math.floor(rnd() * FRAGMENTS.length)].replaceAll('CANARY', canary);
  return s;
}

/** `count` hostile strings, plus fixed edge cases (leading dash, empty, 100 KB). */
export function hostileStrings(seed: number, count: number, canary: string): string[] {
  const rnd = mulberry32(seed);
  let huge = '';
  while (huge.length < 100 * 1024) huge += hostileString(rnd, canary).replaceAll('\n', ' ');
  const out = [
    '',
    ' ',
    "'",
    "''",
    '-',
    '--pre=sh',
    `--pre=touch ${canary}`,
    '-e',
    `$(touch ${canary})`,
    `\`touch ${canary}\``,
    `x\ntouch ${canary}`,
    huge,
    `'${`$(touch ${canary})'`.repeat(2000)}`,
  ];
  while (out.length < count) out.push(hostileString(rnd, canary));
  return out;
}
