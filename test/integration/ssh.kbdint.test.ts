/**
 * Keyboard-interactive authentication against a real sshd with PAM (`UsePAM yes`,
 * `KbdInteractiveAuthentication yes`, password authentication off), as a throwaway user: the
 * server's own prompt reaches the callback, wrong and declined answers fail clearly, and the
 * saved-password rules (PasswordSession over an in-memory secret store) hold end to end.
 * Skipped only when PAM cannot work here (not root, no /etc/pam.d/sshd, no useradd).
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PasswordSession, sshPasswordKey, type SecretStore } from '../../src/core/hosts/savedPassword';
import { connectSsh, type PasswordPromptInfo, type SshConnectOptions } from '../../src/core/hosts/ssh';
import { resolveSshTarget, type SshTarget } from '../../src/core/hosts/sshConfig';
import { HostError } from '../../src/core/hosts/types';
import { createThrowawayUser, kbdInteractiveUnavailable, startSshd, type Sshd } from '../support/sshd';

/** vscode.SecretStorage stand-in that records every write. */
class MemoryStore implements SecretStore {
  readonly map = new Map<string, string>();
  readonly writes: string[] = [];
  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.map.get(key));
  }
  store(key: string, value: string): Promise<void> {
    this.writes.push(`store ${key}`);
    this.map.set(key, value);
    return Promise.resolve();
  }
  delete(key: string): Promise<void> {
    this.writes.push(`delete ${key}`);
    this.map.delete(key);
    return Promise.resolve();
  }
}

function userExists(name: string): boolean {
  try {
    execFileSync('/usr/bin/getent', ['passwd', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** sshd writes the auth result just after the client sees it; wait for the line. */
async function logLine(d: Sshd, from: number, re: RegExp, ms = 5000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const log = d.log().slice(from);
    if (re.test(log) || Date.now() > deadline) return log;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('SSH keyboard-interactive via PAM (real sshd, throwaway user)', function () {
  this.timeout(90_000);
  let d: Sshd | undefined;
  let user: ReturnType<typeof createThrowawayUser>;
  let home: string | undefined;
  let kh: string;
  const HOST_ID = 'manual:kbdint-test';
  const KEY = sshPasswordKey(HOST_ID);

  before(async function () {
    const why = kbdInteractiveUnavailable();
    if (why) {
      console.warn(`    skipping keyboard-interactive tests: ${why}`);
      this.skip();
    }
    user = createThrowawayUser();
    assert.ok(user, 'createThrowawayUser failed although useradd exists and we are root');
    d = await startSshd({ kbdInteractive: true });
    home = mkdtempSync(join(tmpdir(), 'id-kbdint-'));
    kh = d.writeKnownHosts(join(home, 'known_hosts'));
  });
  after(async () => {
    await d?.close();
    if (home) rmSync(home, { recursive: true, force: true });
    if (user) {
      user.remove();
      assert.equal(userExists(user.name), false, `throwaway user ${user.name} was not removed`);
    }
  });

  const target = (): SshTarget => resolveSshTarget({ host: '127.0.0.1', user: user!.name, port: d!.port }, { configFile: '/dev/null', home: home! });
  // No agent, no identity files: keyboard-interactive is the only way in.
  const opts: SshConnectOptions = { identityFiles: [], agentSocket: null, connectAttempts: 1, readyTimeoutMs: 20_000 };
  const connectWith = (session: PasswordSession) => connectSsh(target(), { askPassword: session.askPassword }, { ...opts, knownHostsFiles: [kh] });

  it('answers the server\'s "Password:" prompt through the callback and logs in with keyboard-interactive/pam', async () => {
    const store = new MemoryStore();
    const asked: PasswordPromptInfo[] = [];
    const session = new PasswordSession(store, HOST_ID, (info) => {
      asked.push(info);
      return Promise.resolve(user!.password);
    });
    const mark = d!.log().length;
    const h = await connectWith(session);
    try {
      const r = await h.exec(['id', '-un'], { timeoutMs: 15_000 });
      assert.deepEqual({ code: r.code, out: r.stdout.trim() }, { code: 0, out: user!.name });
    } finally {
      await h.close();
    }
    assert.equal(asked.length, 1, JSON.stringify(asked));
    assert.match(asked[0].prompt, /^Password: ?$/, "the prompt text is the server's (PAM), not one made up by the client");
    assert.deepEqual({ ...asked[0], prompt: '' }, { user: user!.name, host: '127.0.0.1', prompt: '', echo: false, method: 'keyboard-interactive', attempt: 1 });
    const log = await logLine(d!, mark, /Accepted keyboard-interactive\/pam/);
    assert.match(log, new RegExp(`Accepted keyboard-interactive/pam for ${user!.name} from 127\\.0\\.0\\.1`), log);
    assert.doesNotMatch(log, /Accepted (password|publickey)/, log);

    // "Don't Save": the typed password is offered, refused, and nothing is written.
    let confirmed = 0;
    assert.equal(
      await session.connected(() => {
        confirmed++;
        return Promise.resolve(false);
      }),
      'declined',
    );
    assert.equal(confirmed, 1);
    assert.deepEqual(store.writes, []);
  });

  it("a wrong password: asked 3 times (the server's prompt each time), clear auth error, nothing saved", async () => {
    const store = new MemoryStore();
    const asked: PasswordPromptInfo[] = [];
    const session = new PasswordSession(store, HOST_ID, (info) => {
      asked.push(info);
      return Promise.resolve('definitely-not-it');
    });
    const mark = d!.log().length;
    let err: unknown;
    await assert.rejects(connectWith(session), (e: unknown) => {
      err = e;
      assert.ok(e instanceof HostError, String(e));
      assert.equal(e.kind, 'auth', e.message);
      assert.match(e.message, new RegExp(`^Authentication as "${user!.name}" on 127\\.0\\.0\\.1:\\d+ failed`));
      assert.match(e.message, /tried: keyboard-interactive ×3\)/);
      assert.match(e.message, /did not accept the password/);
      return true;
    });
    // Only keyboard-interactive prompts: the server does not offer "password", so it is never asked for.
    assert.deepEqual(
      asked.map((a) => [a.method, a.attempt]),
      [
        ['keyboard-interactive', 1],
        ['keyboard-interactive', 2],
        ['keyboard-interactive', 3],
      ],
    );
    assert.ok(
      asked.every((a) => /^Password: ?$/.test(a.prompt)),
      JSON.stringify(asked),
    );
    assert.equal(await session.failed(err), false, 'no saved password was offered, so there is nothing to forget');
    assert.deepEqual(store.writes, []);
    const log = await logLine(d!, mark, /Failed keyboard-interactive\/pam/);
    assert.match(log, new RegExp(`Failed keyboard-interactive/pam for ${user!.name}`), log);
    assert.doesNotMatch(log, /Accepted/, log);
  });

  it('a declined prompt (undefined) stops at once: asked once, auth error, nothing saved', async () => {
    const store = new MemoryStore();
    const asked: PasswordPromptInfo[] = [];
    const session = new PasswordSession(store, HOST_ID, (info) => {
      asked.push(info);
      return Promise.resolve(undefined);
    });
    const mark = d!.log().length;
    await assert.rejects(connectWith(session), (e: unknown) => e instanceof HostError && e.kind === 'auth');
    assert.equal(asked.length, 1);
    assert.deepEqual(store.writes, []);
    assert.doesNotMatch(await logLine(d!, mark, /Failed|Disconnected/), /Accepted/);
  });

  it('"Save Password" stores it; the next connection uses it without asking and offers nothing', async () => {
    const store = new MemoryStore();
    const first = new PasswordSession(store, HOST_ID, () => Promise.resolve(user!.password));
    await (await connectWith(first)).close();
    assert.equal(await first.connected(() => Promise.resolve(true)), 'saved');
    assert.deepEqual(store.writes, [`store ${KEY}`]);
    assert.equal(store.map.get(KEY), user!.password);

    let asked = 0;
    const second = new PasswordSession(store, HOST_ID, () => {
      asked++;
      return Promise.resolve(undefined);
    });
    const mark = d!.log().length;
    const h = await connectWith(second);
    try {
      assert.equal((await h.exec(['id', '-un'], { timeoutMs: 15_000 })).stdout.trim(), user!.name);
    } finally {
      await h.close();
    }
    assert.equal(asked, 0, 'the saved password answered the prompt');
    let confirmed = 0;
    assert.equal(
      await second.connected(() => {
        confirmed++;
        return Promise.resolve(true);
      }),
      'nothing-typed',
    );
    assert.equal(confirmed, 0, 'no save offer when nothing was typed');
    assert.deepEqual(store.writes, [`store ${KEY}`]);
    assert.match(await logLine(d!, mark, /Accepted/), /Accepted keyboard-interactive\/pam/);
  });

  it('a stale saved password is refused once, then the user is asked; saving replaces it only when confirmed', async () => {
    const store = new MemoryStore();
    store.map.set(KEY, 'stale-password');
    const asked: number[] = [];
    const session = new PasswordSession(store, HOST_ID, (info) => {
      asked.push(info.attempt);
      return Promise.resolve(user!.password);
    });
    await (await connectWith(session)).close();
    assert.deepEqual(asked, [2], 'attempt 1 was answered from the store, attempt 2 by the user');
    assert.equal(store.map.get(KEY), 'stale-password', 'nothing is written before the user confirms');
    assert.equal(await session.connected(() => Promise.resolve(true)), 'saved');
    assert.equal(store.map.get(KEY), user!.password);
  });

  it('a stale saved password and a declined prompt: auth error, and the saved password is forgotten', async () => {
    const store = new MemoryStore();
    store.map.set(KEY, 'stale-password');
    const session = new PasswordSession(store, HOST_ID, () => Promise.resolve(undefined));
    let err: unknown;
    await assert.rejects(connectWith(session), (e: unknown) => {
      err = e;
      return e instanceof HostError && e.kind === 'auth';
    });
    assert.equal(await session.failed(err), true);
    assert.deepEqual(store.writes, [`delete ${KEY}`]);
    assert.equal(store.map.has(KEY), false);
  });
});
