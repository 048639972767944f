/**
 * Authentication paths of SshHost against a real sshd: ssh-agent (option and $SSH_AUTH_SOCK),
 * passphrase-protected identity files (right, wrong and refused passphrase), and agent forwarding
 * staying off even when the server would allow it. Fails (does not skip) when sshd is missing.
 */
import { strict as assert } from 'node:assert';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectSsh, loadSsh2, type SshConnectOptions } from '../../src/core/hosts/ssh';
import { resolveSshTarget, type SshTarget } from '../../src/core/hosts/sshConfig';
import { HostError } from '../../src/core/hosts/types';
import { startSshd, type Sshd } from '../support/sshd';
import { waitFor } from '../support/wait';

function targetFor(d: Sshd, home: string): SshTarget {
  // configFile /dev/null and an empty home: the only default identities (~/.ssh/id_*) do not exist.
  return resolveSshTarget({ host: '127.0.0.1', user: d.user, port: d.port }, { configFile: '/dev/null', home });
}

function logSince(d: Sshd, from: number): string {
  return d.log().slice(from);
}

/** "SHA256:…" of a public key file, as sshd logs it. */
function fingerprint(pubFile: string): string {
  const out = execFileSync('/usr/bin/ssh-keygen', ['-l', '-E', 'sha256', '-f', pubFile], { encoding: 'utf8' });
  const m = /(SHA256:\S+)/.exec(out);
  assert.ok(m, out);
  return m[1];
}

interface Agent {
  sock: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A throwaway ssh-agent in the foreground (-D) on its own socket. */
async function startAgent(dir: string): Promise<Agent> {
  const sock = join(dir, 'agent.sock');
  const child = spawn('/usr/bin/ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const stop = async (): Promise<void> => {
    if (exited) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => {
        try {
          child.kill('SIGKILL');
        } catch {
          /* gone */
        }
      }, 2000).unref();
    });
  };
  try {
    await waitFor('ssh-agent socket', () => exited || existsSync(sock), 5000);
    if (exited) throw new Error('ssh-agent exited at start');
  } catch (e) {
    await stop();
    throw e;
  }
  return { sock, child, stop };
}

function sshAdd(agent: Agent, args: string[]): string {
  return execFileSync('/usr/bin/ssh-add', args, {
    env: { ...process.env, SSH_AUTH_SOCK: agent.sock, SSH_ASKPASS: '/bin/false', DISPLAY: '' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 10_000,
  });
}

describe('SSH authentication paths (real sshd)', function () {
  this.timeout(60_000);
  let d: Sshd;
  let home: string;
  let kh: string;
  let agent: Agent | undefined;

  before(async () => {
    d = await startSshd();
    home = mkdtempSync(join(tmpdir(), 'id-auth-'));
    kh = d.writeKnownHosts(join(home, 'known_hosts'));
  });
  after(async () => {
    await agent?.stop();
    await d?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const base = (extra: SshConnectOptions = {}): SshConnectOptions => ({ knownHostsFiles: [kh], connectAttempts: 1, readyTimeoutMs: 15_000, ...extra });

  describe('ssh-agent', () => {
    before(async () => {
      agent = await startAgent(home);
    });

    it('an empty agent (and no identity files) is not enough: auth fails', async () => {
      const mark = d.log().length;
      await assert.rejects(connectSsh(targetFor(d, home), {}, base({ identityFiles: [], agentSocket: agent!.sock })), (e: unknown) => {
        assert.ok(e instanceof HostError, String(e));
        assert.equal(e.kind, 'auth', e.message);
        assert.match(e.message, /tried: agent/);
        return true;
      });
      assert.doesNotMatch(logSince(d, mark), /Accepted publickey/);
    });

    it('authenticates with the key held by the agent (agentSocket option), no identity files', async () => {
      sshAdd(agent!, [d.clientKey]);
      assert.match(sshAdd(agent!, ['-l']), new RegExp(fingerprint(`${d.clientKey}.pub`).replace(/[+/]/g, '\\$&')));
      const mark = d.log().length;
      const h = await connectSsh(targetFor(d, home), {}, base({ identityFiles: [], agentSocket: agent!.sock }));
      try {
        const r = await h.exec(['printf', 'agent-ok'], { timeoutMs: 15_000 });
        assert.deepEqual({ code: r.code, stdout: r.stdout }, { code: 0, stdout: 'agent-ok' });
      } finally {
        await h.close();
      }
      const log = logSince(d, mark);
      assert.match(log, /Accepted publickey for \S+ from 127\.0\.0\.1/);
      assert.ok(log.includes(fingerprint(`${d.clientKey}.pub`)), log);
    });

    it('uses $SSH_AUTH_SOCK when no agentSocket option is given; agentSocket null disables it', async () => {
      const saved = process.env.SSH_AUTH_SOCK;
      process.env.SSH_AUTH_SOCK = agent!.sock;
      try {
        const mark = d.log().length;
        const h = await connectSsh(targetFor(d, home), {}, base({ identityFiles: [] }));
        try {
          assert.equal((await h.exec(['printf', 'env-ok'], { timeoutMs: 15_000 })).stdout, 'env-ok');
        } finally {
          await h.close();
        }
        assert.match(logSince(d, mark), /Accepted publickey/);
        const mark2 = d.log().length;
        await assert.rejects(
          connectSsh(targetFor(d, home), {}, base({ identityFiles: [], agentSocket: null })),
          (e: unknown) => e instanceof HostError && e.kind === 'auth',
        );
        assert.doesNotMatch(logSince(d, mark2), /Accepted publickey/);
      } finally {
        if (saved === undefined) delete process.env.SSH_AUTH_SOCK;
        else process.env.SSH_AUTH_SOCK = saved;
      }
    });
  });

  describe('passphrase-protected identity file', () => {
    const passphrase = 'correct horse battery staple';
    let keyFile: string;
    let keyFp: string;
    before(() => {
      keyFile = join(home, 'id_ed25519_locked');
      execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'locked-test-key', '-f', keyFile], {
        stdio: 'ignore',
        timeout: 10_000,
      });
      appendFileSync(join(d.dir, 'authorized_keys'), readFileSync(`${keyFile}.pub`));
      keyFp = fingerprint(`${keyFile}.pub`);
    });

    it('asks once for the passphrase, naming the key file, and connects with it', async () => {
      const asked: { keyFile: string; attempt: number }[] = [];
      const mark = d.log().length;
      const h = await connectSsh(
        targetFor(d, home),
        {
          askPassphrase: (info) => {
            asked.push(info);
            return Promise.resolve(passphrase);
          },
        },
        base({ identityFiles: [keyFile], agentSocket: null }),
      );
      try {
        assert.equal((await h.exec(['printf', 'locked-ok'], { timeoutMs: 15_000 })).stdout, 'locked-ok');
      } finally {
        await h.close();
      }
      assert.deepEqual(asked, [{ keyFile, attempt: 1 }]);
      const log = logSince(d, mark);
      assert.match(log, /Accepted publickey/);
      assert.ok(log.includes(keyFp), `expected the locked key ${keyFp} in:\n${log}`);
    });

    it('a wrong passphrase: asked up to 3 times, key skipped, clear auth error, nothing accepted', async () => {
      const asked: number[] = [];
      const notes: string[] = [];
      const mark = d.log().length;
      await assert.rejects(
        connectSsh(
          targetFor(d, home),
          {
            askPassphrase: (info) => {
              asked.push(info.attempt);
              return Promise.resolve('not the passphrase');
            },
            log: (m) => notes.push(m),
          },
          base({ identityFiles: [keyFile], agentSocket: null }),
        ),
        (e: unknown) => {
          assert.ok(e instanceof HostError, String(e));
          assert.equal(e.kind, 'auth', e.message);
          assert.match(e.message, /^Authentication as .+ on 127\.0\.0\.1:\d+ failed/);
          assert.match(e.message, /ssh-add|--identity|IdentityFile/);
          return true;
        },
      );
      assert.deepEqual(asked, [1, 2, 3]);
      assert.ok(
        notes.some((n) => n.startsWith(`Skipping identity ${keyFile}:`)),
        notes.join('\n'),
      );
      const log = logSince(d, mark);
      assert.doesNotMatch(log, /Accepted publickey/);
      assert.ok(!log.includes(keyFp), `the locked key must not even be offered:\n${log}`);
    });

    it('a refused passphrase (callback returns undefined): asked once, clear auth error, nothing accepted', async () => {
      const asked: string[] = [];
      const mark = d.log().length;
      await assert.rejects(
        connectSsh(
          targetFor(d, home),
          {
            askPassphrase: (info) => {
              asked.push(info.keyFile);
              return Promise.resolve(undefined);
            },
          },
          base({ identityFiles: [keyFile], agentSocket: null }),
        ),
        (e: unknown) => {
          assert.ok(e instanceof HostError, String(e));
          assert.equal(e.kind, 'auth', e.message);
          assert.match(e.message, /^Authentication as .+ failed/);
          return true;
        },
      );
      assert.deepEqual(asked, [keyFile]);
      assert.doesNotMatch(logSince(d, mark), /Accepted publickey/);
    });
  });

  describe('agent forwarding', () => {
    // A second sshd that WOULD allow agent forwarding, so only the client decides.
    let fwd: Sshd;
    let fwdKh: string;
    let fwdAgent: Agent;
    let fwdHome: string;
    before(async () => {
      fwd = await startSshd({ extraConfig: 'Match all\n  AllowAgentForwarding yes' });
      fwdHome = mkdtempSync(join(tmpdir(), 'id-auth-fwd-'));
      fwdKh = fwd.writeKnownHosts(join(fwdHome, 'known_hosts'));
      fwdAgent = await startAgent(fwdHome);
      sshAdd(fwdAgent, [fwd.clientKey]);
    });
    after(async () => {
      await fwdAgent?.stop();
      await fwd?.close();
      if (fwdHome) rmSync(fwdHome, { recursive: true, force: true });
    });

    it('control: a raw ssh2 client that requests forwarding gets SSH_AUTH_SOCK on this server', async () => {
      const ssh2 = await loadSsh2();
      const c = new ssh2.Client();
      try {
        const out = await new Promise<string>((resolve, reject) => {
          const t = setTimeout(() => reject(new Error('raw ssh2 control timed out')), 20_000);
          c.on('error', (e) => {
            clearTimeout(t);
            reject(e);
          });
          c.on('ready', () => {
            c.exec('echo ${SSH_AUTH_SOCK:-none}', (err, ch) => {
              if (err) {
                clearTimeout(t);
                reject(err);
                return;
              }
              let s = '';
              ch.on('data', (b: Buffer) => {
                s += b.toString();
              });
              ch.on('close', () => {
                clearTimeout(t);
                resolve(s);
              });
            });
          });
          c.connect({
            host: '127.0.0.1',
            port: fwd.port,
            username: fwd.user,
            agent: fwdAgent.sock,
            agentForward: true,
            readyTimeout: 15_000,
            hostVerifier: () => true,
          });
        });
        assert.notEqual(out.trim(), 'none');
        assert.match(out.trim(), /^\//);
      } finally {
        c.end();
      }
    });

    it('connectSsh never forwards the agent: SSH_AUTH_SOCK is unset remotely', async () => {
      const t: SshTarget = resolveSshTarget({ host: '127.0.0.1', user: fwd.user, port: fwd.port }, { configFile: '/dev/null', home: fwdHome });
      const mark = fwd.log().length;
      const h = await connectSsh(t, {}, base({ knownHostsFiles: [fwdKh], identityFiles: [], agentSocket: fwdAgent.sock }));
      try {
        const r = await h.exec(['sh', '-c', 'echo ${SSH_AUTH_SOCK:-none}'], { timeoutMs: 15_000 });
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, 'none\n');
      } finally {
        await h.close();
      }
      assert.match(logSince(fwd, mark), /Accepted publickey/);
    });
  });
});
