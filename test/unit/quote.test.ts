import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quoteArg, quoteArgv } from '../../src/core/hosts/quote';
import { HostError } from '../../src/core/hosts/types';
import { hostileStrings } from '../support/hostile';

const SHELLS = ['/bin/sh', '/bin/bash', '/bin/dash'].filter((s) => existsSync(s));

/** Run `printf '%s\0' <quoted args>` through a real shell and split the result. */
function roundTrip(shell: string, args: string[]): string[] {
  const script = `printf '%s\\0' ${args.map(quoteArg).join(' ')}`;
  // The script goes in on stdin: a single -c argument is capped at 128 KB by the kernel.
  const out = execFileSync(shell, ['-s'], { input: script, maxBuffer: 64 << 20, encoding: 'utf8' });
  const parts = out.split('\0');
  parts.pop();
  return parts;
}

describe('quoteArgv (POSIX sh quoting)', () => {
  let dir: string;
  let canary: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'id-quote-'));
    canary = join(dir, 'CANARY');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('wraps every argument in single quotes', () => {
    assert.equal(quoteArg('abc'), `'abc'`);
    assert.equal(quoteArg(''), `''`);
    assert.equal(quoteArg('-rf'), `'-rf'`);
    assert.equal(quoteArgv(['rg', '-e', 'x y']), `'rg' '-e' 'x y'`);
  });

  it("turns an embedded single quote into '\\''", () => {
    assert.equal(quoteArg("it's"), `'it'\\''s'`);
    assert.equal(quoteArg("'"), `''\\'''`);
    assert.equal(quoteArg("''"), `''\\'''\\'''`);
  });

  it('leaves $, backticks, backslashes, newlines literally inside the quotes', () => {
    for (const s of ['$(id)', '`id`', 'a\\b', 'a\nb', '${x}', '!!', '*']) assert.equal(quoteArg(s), `'${s}'`);
  });

  it('refuses NUL with a clear error', () => {
    assert.throws(
      () => quoteArg('a\0b'),
      (e: unknown) => e instanceof HostError && e.kind === 'invalid-argument' && /NUL/.test(e.message),
    );
    assert.throws(() => quoteArgv(['echo', 'ok', '\0']), /NUL byte/);
  });

  it('refuses an empty argv and non-strings', () => {
    assert.throws(() => quoteArgv([]), /Empty command/);
    assert.throws(() => quoteArg(42 as unknown as string), /must be strings/);
  });

  for (const shell of SHELLS) {
    it(`round-trips 600 seeded hostile strings exactly through ${shell}, executing nothing`, () => {
      const strings = hostileStrings(0xc0ffee, 600, canary);
      // Several batches so a single command line stays well below ARG_MAX.
      for (let i = 0; i < strings.length; i += 60) {
        const batch = strings.slice(i, i + 60);
        assert.deepEqual(roundTrip(shell, batch), batch);
      }
      assert.equal(existsSync(canary), false, 'an injected command ran');
    });
  }

  it('round-trips every single byte 1..255 (as UTF-8 text) through /bin/sh', () => {
    const all = Array.from({ length: 255 }, (_, i) => String.fromCharCode(i + 1));
    assert.deepEqual(roundTrip('/bin/sh', all), all);
    assert.deepEqual(roundTrip('/bin/sh', [all.join('')]), [all.join('')]);
  });

  it('keeps argument boundaries: whitespace-only and empty arguments survive', () => {
    const args = ['', ' ', '\t', '\n', 'a b', ''];
    assert.deepEqual(roundTrip('/bin/sh', args), args);
  });
});
