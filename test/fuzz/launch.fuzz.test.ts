/** Robustness: mutated fixtures and hostile inputs never throw and finish in bounded time. */
import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { findLaunchCommands } from '../../src/core/launch/index';
import type { LanguageHint } from '../../src/core/launch/index';
import { seededRandom as rng } from '../../src/core/random';

const dir = join(__dirname, '..', 'fixtures', 'launch');
const HINTS: LanguageHint[] = ['shellscript', 'systemd', 'yaml', 'dockerfile', 'python', 'markdown', 'plaintext'];

const PIECES = [
  '"',
  "'",
  '\\',
  '\\\n',
  '\n',
  '[',
  ']',
  '(',
  ')',
  '$(',
  '${',
  '`',
  '#',
  '- ',
  ': ',
  '|',
  '>',
  '"""',
  "'''",
  '--tp=',
  ' -m ',
  'sglang.launch_server',
  'sglang serve',
  '```',
  '~~~',
  '\r\n',
  '\u0000',
  '\uFFFD',
  '\uD800',
  ',',
  '=',
  '&&',
  ';',
  '@',
  'ExecStart=',
  'CMD [',
  '    ',
];

function mutate(text: string, r: () => number): string {
  let s = text;
  const n = 1 + Math.floor(r() * 6);
  for (let k = 0; k < n; k++) {
    const at = Math.floor(r() * (s.length + 1));
    switch (Math.floor(r() * 6)) {
      case 0: // truncate
        s = s.slice(0, at);
        break;
      case 1: // random bytes
        s = s.slice(0, at) + String.fromCharCode(...Array.from({ length: 1 + Math.floor(r() * 8) }, () => Math.floor(r() * 0x3000))) + s.slice(at);
        break;
      case 2: // structural piece (often an unbalanced quote or bracket)
        s = s.slice(0, at) + PIECES[Math.floor(r() * PIECES.length)] + s.slice(at);
        break;
      case 3: // delete a span
        s = s.slice(0, at) + s.slice(at + Math.floor(r() * 40));
        break;
      case 4: // duplicate a span
        s = s.slice(0, at) + s.slice(at, at + Math.floor(r() * 200)) + s.slice(at);
        break;
      default: // replace one character
        s = s.slice(0, at) + PIECES[Math.floor(r() * PIECES.length)][0] + s.slice(at + 1);
    }
  }
  return s;
}

describe('launch finder: fuzz', function () {
  this.timeout(300_000);
  const fixtures = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'));

  it('1,200 seeded mutations of the fixtures never throw and each stays fast', () => {
    const r = rng(20261129);
    let worst = 0;
    let found = 0;
    for (let i = 0; i < 1200; i++) {
      const base = fixtures[i % fixtures.length];
      const text = mutate(base, r);
      const hint = HINTS[Math.floor(r() * HINTS.length)];
      const t0 = performance.now();
      const cmds = findLaunchCommands(text, hint);
      worst = Math.max(worst, performance.now() - t0);
      found += cmds.length;
      for (const c of cmds) for (const a of c.args) assert.ok(a.range.start.line <= a.range.end.line, `seed case ${i}`);
    }
    assert.ok(worst < 500, `slowest case took ${worst.toFixed(0)} ms`);
    assert.ok(found > 0, 'mutations should not destroy every command');
  });

  const MB10 = 10 * 1024 * 1024;
  const hostile: [string, () => string][] = [
    ['a 10 MB argument', () => `python -m sglang.launch_server --model-path ${'a'.repeat(MB10)} --tp 2\n`],
    ['a 10 MB unbalanced double quote', () => `python -m sglang.launch_server --x "${'b'.repeat(MB10)}\n`],
    ['10 MB of alternating quotes', () => `sglang serve ${`'"`.repeat(MB10 / 2)}`],
    ['10 MB of $( openers', () => `sglang serve ${'$('.repeat(MB10 / 2)}`],
    ['10 MB of [ openers', () => `["python3", "-m", "sglang.launch_server", ${'['.repeat(MB10)}`],
    ['10 MB of backslashes', () => `python -m sglang.launch_server ${'\\'.repeat(MB10)}`],
    ['10 MB of flags', () => `python -m sglang.launch_server ${'--a '.repeat(MB10 / 4)}`],
    ['10 MB of triple quotes', () => `x = "sglang serve" ${'"""'.repeat(MB10 / 3)}`],
    ['10 MB of YAML list dashes', () => `command:\n${'- "sglang.launch_server\n'.repeat(MB10 / 24)}`],
    ['10 MB of fence markers', () => `sglang serve\n${'```bash\n'.repeat(MB10 / 8)}`],
  ];
  for (const [name, make] of hostile) {
    it(`${name}: every language hint finishes in bounded time`, () => {
      const text = make();
      for (const hint of HINTS) {
        const t0 = performance.now();
        assert.doesNotThrow(() => findLaunchCommands(text, hint));
        const ms = performance.now() - t0;
        assert.ok(ms < 20_000, `${hint} took ${ms.toFixed(0)} ms`);
      }
    });
  }

  it('non-string input returns []', () => {
    assert.deepEqual(findLaunchCommands(undefined as unknown as string, 'yaml'), []);
  });
});
