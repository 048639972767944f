/**
 * Host-key policy and authentication against a real sshd: unknown keys are refused unless the
 * caller accepts them, a changed key is refused before any authentication request, revoked keys
 * are refused, remembered and hashed entries work; password auth with a throwaway user.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashHostName, sha256Fingerprint } from '../../src/core/hosts/knownHosts';
import { connectSsh, type UnknownHostKeyInfo } from '../../src/core/hosts/ssh';
import { resolveSshTarget, type SshTarget } from '../../src/core/hosts/sshConfig';
import { HostError } from '../../src/core/hosts/types';
import { createThrowawayUser, startSshd, type Sshd } from '../support/sshd';

function targetFor(d: Sshd, home: string, user = d.user): SshTarget {
  return resolveSshTarget({ host: '127.0.0.1', user, port: d.port }, { configFile: '/dev/null', home });
}

/** The part of the sshd log written after `from`: what this connection did. */
function logSince(d: Sshd, from: number): string {
  return d.log().slice(from);
}

describe('SSH host keys and authentication (real sshd)', function () {
  this.timeout(90_000);
  let d: Sshd;
  let home: string;
  before(async () => {
    d = await startSshd();
    home = mkdtempSync(join(tmpdir(), 'id-hk-'));
  });
  after(async () => {
    await d?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const opts = (extra: object = {}): object => ({ identityFiles: [d.clientKey], agentSocket: null, ...extra });

  it('refuses an unknown host key when nobody accepts it, showing the fingerprint', async () => {
    const kh = join(home, 'empty_known_hosts');
    writeFileSync(kh, '');
    const mark = d.log().length;
    await assert.rejects(connectSsh(targetFor(d, home), {}, opts({ knownHostsFiles: [kh] })), (e: unknown) => {
      assert.ok(e instanceof HostError);
      assert.equal(e.kind, 'host-key-unknown');
      assert.ok(e.message.includes(sha256Fingerprint(d.hostKeyBlob)), e.message);
      assert.match(e.message, /accept-new-host-key|ssh-keyscan/);
      return true;
    });
    assert.doesNotMatch(logSince(d, mark), /publickey|Accepted|Failed/);
  });

  it('the callback sees host, port, type and SHA256 fingerprint; "reject" refuses; "once" connects without writing', async () => {
    const kh = join(home, 'kh_once');
    writeFileSync(kh, '');
    const seen: UnknownHostKeyInfo[] = [];
    await assert.rejects(
      connectSsh(
        targetFor(d, home),
        {
          onUnknownHostKey: (i) => {
            seen.push(i);
            return 'reject';
          },
        },
        opts({ knownHostsFiles: [kh] }),
      ),
      /can't be established/,
    );
    assert.deepEqual(seen, [{ host: '127.0.0.1', port: d.port, keyType: 'ssh-ed25519', sha256Fingerprint: sha256Fingerprint(d.hostKeyBlob) }]);
    const h = await connectSsh(
      targetFor(d, home),
      { onUnknownHostKey: () => 'once' },
      opts({ knownHostsFiles: [kh], trustStoreFile: join(home, 'store_once') }),
    );
    await h.close();
    assert.equal(readFileSync(kh, 'utf8'), '');
  });

  it('"remember" writes a hashed entry to the trust store; the next connection needs no prompt', async () => {
    const kh = join(home, 'kh_remember');
    const store = join(home, 'trust', 'known_hosts');
    writeFileSync(kh, '');
    let asked = 0;
    const h1 = await connectSsh(
      targetFor(d, home),
      {
        onUnknownHostKey: () => {
          asked++;
          return 'remember';
        },
      },
      opts({ knownHostsFiles: [kh], trustStoreFile: store }),
    );
    assert.equal((await h1.exec(['printf', 'ok'])).stdout, 'ok');
    await h1.close();
    const line = readFileSync(store, 'utf8');
    assert.match(line, /^\|1\|[^ ]+ ssh-ed25519 /);
    assert.ok(!line.includes('127.0.0.1'));
    const h2 = await connectSsh(
      targetFor(d, home),
      {
        onUnknownHostKey: () => {
          asked++;
          return 'reject';
        },
      },
      opts({ knownHostsFiles: [kh], trustStoreFile: store }),
    );
    await h2.close();
    assert.equal(asked, 1);
  });

  it('accepts a hashed known_hosts entry', async () => {
    const kh = join(home, 'kh_hashed');
    const [type, b64] = d.hostKeyPub.split(/\s+/);
    writeFileSync(kh, `${hashHostName(`[127.0.0.1]:${d.port}`)} ${type} ${b64}\n`);
    const h = await connectSsh(targetFor(d, home), {}, opts({ knownHostsFiles: [kh] }));
    await h.close();
  });

  it('refuses a @revoked key', async () => {
    const kh = join(home, 'kh_revoked');
    const [type, b64] = d.hostKeyPub.split(/\s+/);
    writeFileSync(kh, `${d.knownHostsLine()}\n@revoked * ${type} ${b64}\n`);
    await assert.rejects(
      connectSsh(targetFor(d, home), { onUnknownHostKey: () => 'once' }, opts({ knownHostsFiles: [kh] })),
      (e: unknown) => e instanceof HostError && e.kind === 'host-key-revoked' && /revoked/.test(e.message),
    );
  });

  it('refuses with a wrong identity and says what to do', async () => {
    const kh = d.writeKnownHosts(join(home, 'kh_auth'));
    await assert.rejects(
      connectSsh(targetFor(d, home), {}, { knownHostsFiles: [kh], identityFiles: [join(home, 'nope')], agentSocket: null }),
      (e: unknown) => e instanceof HostError && e.kind === 'auth' && /authorized_keys|--identity/.test(e.message),
    );
  });

  it('a swapped host key is refused BEFORE authentication, with both fingerprints and the fix', async () => {
    const kh = d.writeKnownHosts(join(home, 'kh_swap'));
    const oldFp = sha256Fingerprint(d.hostKeyBlob);
    const h = await connectSsh(targetFor(d, home), {}, opts({ knownHostsFiles: [kh] }));
    await h.close();
    await d.restartWithNewHostKey();
    const newFp = sha256Fingerprint(d.hostKeyBlob);
    assert.notEqual(oldFp, newFp);
    const mark = d.log().length;
    let asked = false;
    await assert.rejects(
      connectSsh(
        targetFor(d, home),
        {
          onUnknownHostKey: () => {
            asked = true;
            return 'remember';
          },
        },
        opts({ knownHostsFiles: [kh] }),
      ),
      (e: unknown) => {
        assert.ok(e instanceof HostError);
        assert.equal(e.kind, 'host-key-changed');
        assert.ok(e.message.includes(oldFp), e.message);
        assert.ok(e.message.includes(newFp), e.message);
        assert.match(e.message, /ssh-keygen -R '\[127\.0\.0\.1\]:\d+'/);
        return true;
      },
    );
    assert.equal(asked, false, 'a changed key must never be offered for acceptance');
    await new Promise((r) => setTimeout(r, 300)); // let sshd flush its log line for the connection
    const log = logSince(d, mark);
    assert.match(log, /Connection from 127\.0\.0\.1/, 'the connection reached sshd');
    assert.doesNotMatch(log, /publickey|password|keyboard-interactive|Accepted|Failed|userauth|Postponed/i, log);
  });

  it('password authentication with a throwaway user (skipped only without useradd)', async function () {
    const user = createThrowawayUser();
    if (!user) {
      this.skip();
      return;
    }
    const pd = await startSshd({ passwordAuth: true });
    try {
      const kh = pd.writeKnownHosts(join(home, 'kh_pw'));
      const prompts: string[] = [];
      const h = await connectSsh(
        targetFor(pd, home, user.name),
        {
          askPassword: (p) => {
            prompts.push(p.prompt);
            return Promise.resolve(user.password);
          },
        },
        { knownHostsFiles: [kh], identityFiles: [], agentSocket: null },
      );
      assert.equal((await h.exec(['id', '-un'])).stdout.trim(), user.name);
      await h.close();
      assert.ok(prompts.length >= 1);
      await assert.rejects(
        connectSsh(
          targetFor(pd, home, user.name),
          {
            askPassword: () => Promise.resolve('wrong password'),
          },
          { knownHostsFiles: [kh], identityFiles: [], agentSocket: null },
        ),
        (e: unknown) => e instanceof HostError && e.kind === 'auth',
      );
    } finally {
      await pd.close();
      user.remove();
    }
  });
});
