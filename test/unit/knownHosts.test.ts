import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendKnownHost,
  checkHostKey,
  entryMatchesHost,
  hashHostName,
  hostKeyName,
  keyTypeOfBlob,
  loadKnownHosts,
  matchPatternList,
  parseKnownHosts,
  sha256Fingerprint,
} from '../../src/core/hosts/knownHosts';

let dir: string;
function genKey(name: string, type = 'ed25519'): { type: string; b64: string; blob: Buffer; pubFile: string } {
  const f = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-N', '', '-C', '', '-f', f], { stdio: 'ignore' });
  const [t, b64] = readFileSync(`${f}.pub`, 'utf8').trim().split(/\s+/);
  return { type: t, b64, blob: Buffer.from(b64, 'base64'), pubFile: `${f}.pub` };
}

describe('knownHosts', function () {
  this.timeout(20000);
  let k1: ReturnType<typeof genKey>, k2: ReturnType<typeof genKey>, krsa: ReturnType<typeof genKey>;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'id-kh-'));
    k1 = genKey('k1');
    k2 = genKey('k2');
    krsa = genKey('krsa', 'rsa');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('fingerprints exactly like ssh-keygen -l (SHA256:base64 without padding)', () => {
    for (const k of [k1, k2, krsa]) {
      const ours = sha256Fingerprint(k.blob);
      const theirs = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', k.pubFile], { encoding: 'utf8' }).split(/\s+/)[1];
      assert.equal(ours, theirs);
      assert.ok(!ours.endsWith('='));
    }
  });

  it('reads the key type from the blob', () => {
    assert.equal(keyTypeOfBlob(k1.blob), 'ssh-ed25519');
    assert.equal(keyTypeOfBlob(krsa.blob), 'ssh-rsa');
    assert.equal(keyTypeOfBlob(Buffer.from([0, 0])), undefined);
  });

  it('names hosts as OpenSSH does: bare on port 22, [host]:port otherwise, lower-cased', () => {
    assert.equal(hostKeyName('GPU1.Example', 22), 'gpu1.example');
    assert.equal(hostKeyName('10.0.0.5', 2222), '[10.0.0.5]:2222');
  });

  it('matches plain, comma lists, wildcards, negation and [host]:port', () => {
    const { entries } = parseKnownHosts(
      [
        `gpu1,10.0.0.5 ${k1.type} ${k1.b64}`,
        `*.lab.example,!bad.lab.example ${k1.type} ${k1.b64}`,
        `[box]:2222 ${k1.type} ${k1.b64}`,
        `node? ${k1.type} ${k1.b64}`,
      ].join('\n'),
    );
    const m = (h: string, p = 22): number[] => entries.map((e, i) => (entryMatchesHost(e, h, p) ? i : -1)).filter((i) => i >= 0);
    assert.deepEqual(m('gpu1'), [0]);
    assert.deepEqual(m('10.0.0.5'), [0]);
    assert.deepEqual(m('10.0.0.5', 2222), []);
    assert.deepEqual(m('a.lab.example'), [1]);
    assert.deepEqual(m('bad.lab.example'), []);
    assert.deepEqual(m('box', 2222), [2]);
    assert.deepEqual(m('box'), []);
    assert.deepEqual(m('node7'), [3]);
    assert.deepEqual(m('node77'), []);
    assert.deepEqual(m('GPU1'), [0]);
  });

  it('pattern lists: a negated match vetoes regardless of order', () => {
    assert.equal(matchPatternList('x.a', ['!x.a', '*.a']), false);
    assert.equal(matchPatternList('y.a', ['!x.a', '*.a']), true);
    assert.equal(matchPatternList('y.a', ['!x.a']), false);
    assert.equal(matchPatternList('a.b', ['a?b']), true);
    assert.equal(matchPatternList('a+b', ['a+b']), true);
  });

  it('matches hashed |1|salt|hash entries, including ones written by ssh-keygen -H', () => {
    const file = join(dir, 'kh_hashed');
    writeFileSync(file, `gpu9.example ${k1.type} ${k1.b64}\n[gpu9.example]:2200 ${k2.type} ${k2.b64}\n`);
    execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' });
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^\|1\|/);
    assert.doesNotMatch(text, /gpu9/);
    const { entries, notes } = parseKnownHosts(text);
    assert.deepEqual(notes, []);
    assert.equal(checkHostKey(entries, 'gpu9.example', 22, k1.blob).status, 'known');
    assert.equal(checkHostKey(entries, 'gpu9.example', 2200, k2.blob).status, 'known');
    assert.equal(checkHostKey(entries, 'gpu9.example', 2200, k1.blob).status, 'changed');
    assert.equal(checkHostKey(entries, 'gpu8.example', 22, k1.blob).status, 'unknown');
  });

  it('our hashed names are found by ssh-keygen -F', () => {
    const file = join(dir, 'kh_ours');
    writeFileSync(file, `${hashHostName('[127.0.0.1]:2022')} ${k1.type} ${k1.b64}\n`);
    const out = execFileSync('ssh-keygen', ['-F', '[127.0.0.1]:2022', '-f', file], { encoding: 'utf8' });
    assert.match(out, /found: line 1/);
  });

  it('decides known / changed / unknown / revoked', () => {
    const { entries } = parseKnownHosts([`gpu1 ${k1.type} ${k1.b64}`, `gpu2 ${krsa.type} ${krsa.b64}`, `@revoked * ${k2.type} ${k2.b64}`].join('\n'));
    assert.equal(checkHostKey(entries, 'gpu1', 22, k1.blob).status, 'known');
    const changed = checkHostKey(entries, 'gpu1', 22, Buffer.from(genKey('k3').blob));
    assert.equal(changed.status, 'changed');
    assert.equal(changed.status === 'changed' && sha256Fingerprint(changed.expected[0].key), sha256Fingerprint(k1.blob));
    // gpu2 only has an RSA key: an ed25519 key is unknown (not "changed"), and we say which types are known.
    const other = checkHostKey(entries, 'gpu2', 22, k1.blob);
    assert.deepEqual(other, { status: 'unknown', otherTypes: ['ssh-rsa'] });
    assert.equal(checkHostKey(entries, 'gpu1', 22, k2.blob).status, 'revoked');
    assert.equal(checkHostKey(entries, 'anything', 22, k2.blob).status, 'revoked');
  });

  it('ignores @cert-authority with a note, and reports malformed lines', () => {
    const { entries, notes } = parseKnownHosts(
      [`@cert-authority *.example ${k1.type} ${k1.b64}`, 'garbage', `host ssh-ed25519 ${krsa.b64}`, `@bogus host ${k1.type} ${k1.b64}`, '# comment', ''].join(
        '\n',
      ),
      'f',
    );
    assert.equal(entries.length, 0);
    assert.equal(notes.length, 4);
    assert.match(notes[0], /cert-authority.*ignored/);
    assert.match(notes[1], /malformed/);
    assert.match(notes[2], /does not decode/);
    assert.match(notes[3], /unknown marker/);
  });

  it('appends hashed and plain entries that load back (and missing files are empty)', async () => {
    const store = join(dir, 'sub', 'trust');
    await appendKnownHost(store, '127.0.0.1', 2022, k1.blob, true);
    await appendKnownHost(store, 'gpu1', 22, k2.blob, false);
    const text = readFileSync(store, 'utf8');
    assert.match(text.split('\n')[0], /^\|1\|/);
    assert.match(text.split('\n')[1], /^gpu1 ssh-ed25519 /);
    const loaded = await loadKnownHosts([store, join(dir, 'missing')]);
    assert.equal(loaded.entries.length, 2);
    assert.equal(checkHostKey(loaded.entries, '127.0.0.1', 2022, k1.blob).status, 'known');
    assert.equal(checkHostKey(loaded.entries, 'gpu1', 22, k2.blob).status, 'known');
  });
});
