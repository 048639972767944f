/**
 * A throwaway OpenSSH server on 127.0.0.1 for integration tests and benchmarks: generated
 * config, fresh host keys and a client key pair in a temp dir, log captured with -E. Runs as the
 * current user. If sshd is not installed this throws (tests must fail, not skip).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/codeServer';
import { resolveSshTarget, type SshTarget } from '../../src/core/hosts/sshConfig';

export const SSHD = '/usr/sbin/sshd';

export function requireSshd(): void {
  if (!existsSync(SSHD) || !existsSync('/usr/bin/ssh-keygen')) {
    throw new Error(
      `OpenSSH server not found (${SSHD}). These tests need a real sshd: install it with \`apt-get install openssh-server\` (Debian/Ubuntu) and run again.`,
    );
  }
}

function keygen(file: string, type: string, extra: string[] = []): void {
  rmSync(file, { force: true });
  rmSync(`${file}.pub`, { force: true });
  execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', type, '-N', '', '-C', 'inference-doctor-test', ...extra, '-f', file], { stdio: 'ignore' });
}

export interface SshdOptions {
  hostKeyType?: 'ed25519' | 'rsa' | 'ecdsa';
  /** Allow password authentication (for a throwaway user). */
  passwordAuth?: boolean;
  /**
   * Keyboard-interactive through PAM (`UsePAM yes`, `KbdInteractiveAuthentication yes`): the
   * server's own prompts ("Password: "). PAM needs sshd to run as root; check
   * `kbdInteractiveUnavailable()` first.
   */
  kbdInteractive?: boolean;
  /** More variables for every session (sshd reads only its first SetEnv line, so they share it). */
  sessionEnv?: Record<string, string>;
  /**
   * A "GPU box": sessions find the stub nvidia-smi of test/fixtures/fake-install (an RTX PRO 6000,
   * compute capability 12.0) first on PATH (before sessionEnv's PATH, else the system's).
   */
  gpuStub?: boolean;
  extraConfig?: string;
}

export class Sshd {
  readonly dir: string;
  port = 0;
  child?: ChildProcess;
  readonly clientKey: string;
  readonly logFile: string;
  hostKeyFile: string;
  private generation = 0;

  constructor(private readonly opts: SshdOptions = {}) {
    requireSshd();
    this.dir = mkdtempSync(join(tmpdir(), 'id-sshd-'));
    this.clientKey = join(this.dir, 'client_key');
    this.logFile = join(this.dir, 'sshd.log');
    this.hostKeyFile = join(this.dir, 'host_key_0');
    mkdirSync(this.home);
    keygen(this.clientKey, 'ed25519');
    writeFileSync(join(this.dir, 'authorized_keys'), readFileSync(`${this.clientKey}.pub`));
    keygen(this.hostKeyFile, this.opts.hostKeyType ?? 'ed25519');
    if (this.opts.gpuStub) {
      mkdirSync(join(this.dir, 'bin'));
      copyFileSync(join(__dirname, '..', 'fixtures', 'fake-install', 'bin', 'nvidia-smi'), join(this.dir, 'bin', 'nvidia-smi'));
      chmodSync(join(this.dir, 'bin', 'nvidia-smi'), 0o755);
    }
  }

  /** $HOME of sessions on this server (an empty temp dir). */
  get home(): string {
    return join(this.dir, 'home');
  }
  get user(): string {
    return userInfo().username;
  }
  get hostKeyPub(): string {
    return readFileSync(`${this.hostKeyFile}.pub`, 'utf8').trim();
  }
  /** Raw host key blob (as offered in the handshake). */
  get hostKeyBlob(): Buffer {
    return Buffer.from(this.hostKeyPub.split(/\s+/)[1], 'base64');
  }
  /** An ssh config entry naming this server `alias`, with the client key (for `configFile` settings and `--ssh-config`). */
  sshConfigEntry(alias: string): string {
    return [
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${this.port}`,
      `  User ${this.user}`,
      `  IdentityFile ${this.clientKey}`,
      '  IdentitiesOnly yes',
      '',
    ].join('\n');
  }
  /** A plain known_hosts line for this server. */
  knownHostsLine(): string {
    const [type, b64] = this.hostKeyPub.split(/\s+/);
    return `[127.0.0.1]:${this.port} ${type} ${b64}`;
  }
  writeKnownHosts(file = join(this.dir, 'known_hosts')): string {
    writeFileSync(file, `${this.knownHostsLine()}\n`);
    return file;
  }
  /** The whole sshd log so far. */
  log(): string {
    try {
      return readFileSync(this.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  private sessionEnv(): Record<string, string> {
    const env = { ...this.opts.sessionEnv };
    if (this.opts.gpuStub) env.PATH = `${join(this.dir, 'bin')}:${env.PATH ?? '/usr/local/bin:/usr/bin:/bin'}`;
    return env;
  }

  private writeConfig(): string {
    const cfg = join(this.dir, 'sshd_config');
    writeFileSync(
      cfg,
      [
        `Port ${this.port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${this.hostKeyFile}`,
        `PidFile ${join(this.dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${join(this.dir, 'authorized_keys')}`,
        'StrictModes no',
        `UsePAM ${this.opts.kbdInteractive ? 'yes' : 'no'}`,
        'PermitRootLogin yes',
        'PubkeyAuthentication yes',
        `PasswordAuthentication ${this.opts.passwordAuth ? 'yes' : 'no'}`,
        `KbdInteractiveAuthentication ${this.opts.kbdInteractive ? 'yes' : 'no'}`,
        'AllowTcpForwarding yes',
        'AllowAgentForwarding no',
        'X11Forwarding no',
        'PermitUserEnvironment no',
        'Subsystem sftp internal-sftp',
        'MaxSessions 30',
        'MaxStartups 100:30:200',
        'LogLevel VERBOSE',
        'PrintMotd no',
        // The machine's own ~/.bashrc (pyenv, cargo, …) can take seconds per command; bash reads it
        // for every ssh command. Point HOME at an empty dir so tests measure ssh, not dotfiles.
        `SetEnv ${[`HOME=${this.home}`, ...Object.entries(this.sessionEnv()).map(([k, v]) => `${k}=${v}`)].map(quoteSetEnv).join(' ')}`,
        this.opts.extraConfig ?? '',
        '',
      ].join('\n'),
    );
    return cfg;
  }

  async start(): Promise<this> {
    if (!existsSync('/run/sshd')) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    if (!this.port) this.port = await freePort();
    const cfg = this.writeConfig();
    // Validate first so a bad config fails with sshd's own words.
    try {
      execFileSync(SSHD, ['-t', '-f', cfg], { stdio: 'pipe' });
    } catch (e) {
      throw new Error(`sshd rejected the test config: ${String((e as { stderr?: Buffer }).stderr ?? e)}`);
    }
    appendFileSync(this.logFile, `--- start generation ${this.generation} ---\n`);
    const child = spawn(SSHD, ['-D', '-e', '-f', cfg, '-E', this.logFile], { stdio: 'ignore' });
    this.child = child;
    let exited = false;
    child.once('exit', () => {
      exited = true;
    });
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (exited) throw new Error(`sshd exited at start; log:\n${this.log()}`);
      if (await banner(this.port)) return this;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`sshd did not start listening on 127.0.0.1:${this.port} within 10 s; log:\n${this.log()}`);
  }

  /** Stop, replace the host key with a new one, start again on the same port. */
  async restartWithNewHostKey(type: SshdOptions['hostKeyType'] = this.opts.hostKeyType ?? 'ed25519'): Promise<void> {
    await this.stop();
    this.generation++;
    this.hostKeyFile = join(this.dir, `host_key_${this.generation}`);
    keygen(this.hostKeyFile, type);
    await this.start();
  }

  /** Per-connection sshd processes (children of the listener). */
  sessionPids(): number[] {
    const root = this.child?.pid;
    if (!root) return [];
    const parents = new Map<number, number>();
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        parents.set(Number(d), ppid);
      } catch {
        /* gone */
      }
    }
    const out: number[] = [];
    const walk = (pid: number): void => {
      for (const [p, pp] of parents)
        if (pp === pid) {
          out.push(p);
          walk(p);
        }
    };
    walk(root);
    return out;
  }

  /** Kill every live SSH connection (the listener keeps running). */
  killSessions(): number {
    const pids = this.sessionPids();
    for (const p of pids) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    return pids.length;
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const pids = [];
    for (const p of (() => {
      this.child = child;
      const s = this.sessionPids();
      this.child = undefined;
      return s;
    })())
      pids.push(p);
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => {
        try {
          child.kill('SIGKILL');
        } catch {
          /* gone */
        }
      }, 3000).unref();
    });
    for (const p of pids) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** sshd_config takes a SetEnv word in double quotes when it has spaces. */
function quoteSetEnv(assignment: string): string {
  if (/["\\\n]/.test(assignment)) throw new Error(`unsupported character in SetEnv ${assignment}`);
  return /\s/.test(assignment) ? `"${assignment}"` : assignment;
}

function banner(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    const t = setTimeout(() => {
      s.destroy();
      resolve(false);
    }, 1000);
    s.once('data', (d: Buffer) => {
      clearTimeout(t);
      s.destroy();
      resolve(d.toString('latin1').startsWith('SSH-'));
    });
    s.once('error', () => {
      clearTimeout(t);
      resolve(false);
    });
  });
}

export async function startSshd(opts: SshdOptions = {}): Promise<Sshd> {
  const s = new Sshd(opts);
  try {
    return await s.start();
  } catch (e) {
    await s.close();
    throw e;
  }
}

/**
 * Why keyboard-interactive (PAM) tests cannot run here, or undefined when they can: PAM
 * authentication of other users needs sshd running as root, the sshd PAM service and useradd.
 */
export function kbdInteractiveUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'keyboard-interactive via PAM needs sshd running as root (run the tests as root)';
  if (!existsSync('/etc/pam.d/sshd')) return '/etc/pam.d/sshd is missing (install openssh-server with its PAM config)';
  if (!existsSync('/usr/sbin/useradd') || !existsSync('/usr/sbin/chpasswd')) return 'useradd/chpasswd are missing (needed for a throwaway user)';
  return undefined;
}

/** A throwaway local user with a password, for password-auth tests. Undefined if useradd is missing. */
export function createThrowawayUser(): { name: string; password: string; remove(): void } | undefined {
  if (!existsSync('/usr/sbin/useradd') || !existsSync('/usr/sbin/chpasswd') || process.getuid?.() !== 0) return undefined;
  const name = `idt${process.pid % 100000}${Math.floor(Math.random() * 1000)}`;
  const password = `pw-${Math.random().toString(36).slice(2)}-X9`;
  execFileSync('/usr/sbin/useradd', ['-m', '-s', '/bin/sh', name], { stdio: 'ignore' });
  execFileSync('/usr/sbin/chpasswd', [], { input: `${name}:${password}\n`, stdio: ['pipe', 'ignore', 'ignore'] });
  return {
    name,
    password,
    remove: () => {
      try {
        execFileSync('/usr/sbin/userdel', ['-r', '-f', name], { stdio: 'ignore' });
      } catch {
        /* best effort */
      }
    },
  };
}

/** The SSH target of a test sshd on loopback, resolved with no ssh config. */
export function targetFor(d: Sshd, home: string, extra: Partial<SshTarget> = {}): SshTarget {
  return { ...resolveSshTarget({ host: '127.0.0.1', user: d.user, port: d.port }, { configFile: '/dev/null', home }), ...extra };
}
