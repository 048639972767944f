/**
 * SSH host on top of `ssh2`, loaded lazily (only when an SSH host actually connects; the
 * extension bundles ssh2 as a separate chunk). One SSH connection per host carries every exec
 * channel, the SFTP session and port forwards. Host keys are decided in `hostVerifier`, i.e.
 * during key exchange, before any authentication request is sent.
 */
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { AnyAuthMethod, AuthHandlerMiddleware, AuthenticationType, Client, ClientChannel, ConnectConfig, SFTPWrapper, Stats } from 'ssh2';
import { appendKnownHost, checkHostKey, hostKeyName, keyTypeOfBlob, loadKnownHosts, sha256Fingerprint } from './knownHosts';
import { listenForward } from './local';
import { OutputCollector } from './output';
import { quoteArgv, quoteArg } from './quote';
import type { SshTarget } from './sshConfig';
import {
  HostError,
  abortError,
  checkRange,
  show,
  throwIfAborted,
  type DirEntry,
  type EntryType,
  type ExecOptions,
  type ExecResult,
  type ForwardedPort,
  type Host,
  type RandomAccessFile,
  type StatResult,
} from './types';

type Ssh2 = typeof import('ssh2');
let ssh2Module: Promise<Ssh2> | undefined;
/** Load ssh2 on first use only. */
export function loadSsh2(): Promise<Ssh2> {
  ssh2Module ??= import('ssh2').then((m) => (m as unknown as { default?: Ssh2 }).default ?? m);
  return ssh2Module;
}

export interface UnknownHostKeyInfo {
  host: string;
  port: number;
  keyType: string;
  sha256Fingerprint: string;
}
export type HostKeyDecision = 'once' | 'remember' | 'reject';

export interface PasswordPromptInfo {
  user: string;
  host: string;
  prompt: string;
  /** Whether the answer may be shown while typed (false for passwords). */
  echo: boolean;
  method: 'keyboard-interactive' | 'password';
  attempt: number;
}

export interface SshCallbacks {
  /** Asked for a key that no known_hosts file has. No callback = reject. */
  onUnknownHostKey?(info: UnknownHostKeyInfo): HostKeyDecision | Promise<HostKeyDecision>;
  /** Passphrase for an encrypted identity file; undefined skips the key. */
  askPassphrase?(info: { keyFile: string; attempt: number }): Promise<string | undefined>;
  /**
   * Password / keyboard-interactive answers. `prompt` is the server's own text for
   * keyboard-interactive (e.g. "Password: "); `attempt` counts from 1 per method. Undefined =
   * the user declined: no further password prompts on this connection.
   */
  askPassword?(info: PasswordPromptInfo): Promise<string | undefined>;
  /** Progress and notes (ignored known_hosts lines, reconnects). */
  log?(message: string): void;
}

export interface SshConnectOptions {
  /** known_hosts files to read (default: the target's UserKnownHostsFile list). */
  knownHostsFiles?: string[];
  /** Extra trust store; read too, and `remember` appends here. */
  trustStoreFile?: string;
  /** Write remembered entries hashed (default true). */
  hashKnownHosts?: boolean;
  /** Extra identity files tried before the configured ones (e.g. --identity). */
  identityFiles?: string[];
  /** ssh-agent socket; default $SSH_AUTH_SOCK; null disables the agent. */
  agentSocket?: string | null;
  signal?: AbortSignal;
  /** Handshake timeout per hop (default: ConnectTimeout or 20 s). */
  readyTimeoutMs?: number;
  /** Keep-alive when the config has no ServerAliveInterval (default 15 s; 0 = off). */
  defaultKeepaliveMs?: number;
  /** Connection attempts for network errors (default 3), with backoff from 250 ms up to 4 s. */
  connectAttempts?: number;
  /** Tries per password method (keyboard-interactive, then password), as OpenSSH's NumberOfPasswordPrompts (default 3). */
  passwordAttempts?: number;
  /** Concurrent exec channels on the connection (OpenSSH MaxSessions defaults to 10). */
  maxSessions?: number;
}

interface Live {
  client: Client;
  hops: Client[];
  sftp?: Promise<SFTPWrapper>;
  dead: boolean;
  deadReason?: HostError;
  onDead: Set<(err: HostError) => void>;
}

function targetName(t: SshTarget): string {
  return `${t.user}@${t.hostName}${t.port !== 22 ? `:${t.port}` : ''}`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(t);
      reject(abortError(signal?.reason));
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

class Semaphore {
  private active = 0;
  private readonly queue: (() => void)[] = [];
  constructor(private readonly max: number) {}
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.active >= this.max) {
      await new Promise<void>((resolve, reject) => {
        const go = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = (): void => {
          const i = this.queue.indexOf(go);
          if (i >= 0) this.queue.splice(i, 1);
          reject(abortError(signal?.reason));
        };
        this.queue.push(go);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.queue.shift()?.();
    };
  }
}

/** "a, b ×3, c": consecutive repeats of one method (password retries) counted, not listed. */
function describeTried(tried: readonly string[]): string {
  const out: { m: string; n: number }[] = [];
  for (const m of tried) {
    const last = out[out.length - 1];
    if (last?.m === m) last.n++;
    else out.push({ m, n: 1 });
  }
  return out.map(({ m, n }) => (n > 1 ? `${m} ×${n}` : m)).join(', ');
}

/** Translate an ssh2 / socket error into one that says what to do. */
function connectError(err: unknown, t: SshTarget, via?: string, tried: readonly string[] = []): HostError {
  if (err instanceof HostError) return err;
  const e = err as NodeJS.ErrnoException & { level?: string };
  const where = `${t.hostName}:${t.port}${via ? ` (via ${via})` : ''}`;
  const msg = e?.message ?? String(err);
  if (e?.level === 'client-authentication') {
    const detail = tried.length ? `${msg}; tried: ${describeTried(tried)}` : msg;
    // Answers were sent and refused: the advice is about the password, not about keys.
    const typed = tried.some((m) => m === 'password' || m === 'keyboard-interactive');
    return new HostError(
      'auth',
      `Authentication as ${show(t.user)} on ${where} failed (${detail}). ` +
        (typed
          ? 'The server did not accept the password (or keyboard-interactive answers): check the password and the user name, ' +
            'or use a key (ssh-agent, --identity / IdentityFile).'
          : 'Check the user name, load your key into ssh-agent (`ssh-add`), pass it with --identity / IdentityFile, ' +
            'or add its public key to ~/.ssh/authorized_keys on the server.'),
      { cause: err },
    );
  }
  if (e?.level === 'client-timeout' || /timed out/i.test(msg)) {
    return new HostError('connect', `Timed out connecting to ${where}: check the host name, VPN and firewall, or raise ConnectTimeout.`, { cause: err });
  }
  switch (e?.code) {
    case 'ECONNREFUSED':
      return new HostError('connect', `Connection refused by ${where}: is sshd running there, and is the port right?`, { cause: err });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new HostError('connect', `Host name ${show(t.hostName)} could not be resolved: check HostName in your ssh config or DNS.`, { cause: err });
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new HostError('connect', `${where} is unreachable: check the network or VPN.`, { cause: err });
    case 'ECONNRESET':
      return new HostError(
        'disconnected',
        `Connection to ${where} was reset: the server or a firewall dropped it. Retry; check sshd logs on the server if it persists.`,
        { cause: err },
      );
    default:
      return new HostError('connect', `Could not connect to ${where}: ${msg}`, { cause: err });
  }
}

const RETRYABLE = new Set(['connect', 'disconnected']);

interface KeyCandidate {
  file: string;
  data: Buffer;
  passphrase?: string;
}

export class SshHost implements Host {
  readonly id: string;
  readonly label: string;
  private live?: Promise<Live>;
  private closed = false;
  private readonly sessions: Semaphore;
  /** Decrypted keys are remembered for reconnects (passphrase asked once per host object). */
  private readonly keyCache = new Map<string, KeyCandidate | null>();
  private connectCount = 0;

  constructor(
    readonly target: SshTarget,
    private readonly callbacks: SshCallbacks = {},
    private readonly options: SshConnectOptions = {},
  ) {
    this.id = `ssh:${targetName(target)}`;
    this.label = target.alias;
    this.sessions = new Semaphore(options.maxSessions ?? 8);
  }

  /** How many SSH connections this host has opened so far (1 = never reconnected). */
  get connections(): number {
    return this.connectCount;
  }

  /** Connect now (otherwise the first operation connects). */
  async connect(signal?: AbortSignal): Promise<void> {
    await this.conn(signal);
  }

  private conn(signal?: AbortSignal): Promise<Live> {
    if (this.closed) return Promise.reject(new HostError('disconnected', `SSH host ${this.label} was closed`));
    const cur = this.live;
    if (cur) {
      return cur.then(
        (l) => (l.dead ? this.reconnect(signal) : l),
        () => this.reconnect(signal),
      );
    }
    return this.reconnect(signal);
  }

  private reconnect(signal?: AbortSignal): Promise<Live> {
    // Share one in-flight attempt between concurrent callers.
    const p = this.connectWithRetry(signal);
    this.live = p;
    p.catch(() => {
      if (this.live === p) this.live = undefined;
    });
    return p;
  }

  private async connectWithRetry(signal?: AbortSignal): Promise<Live> {
    const attempts = Math.max(1, this.options.connectAttempts ?? 3);
    let delay = 250;
    for (let i = 1; ; i++) {
      throwIfAborted(signal);
      try {
        return await this.openChain(signal);
      } catch (e) {
        const err = e instanceof HostError ? e : connectError(e, this.target);
        const code = (err.cause as NodeJS.ErrnoException | undefined)?.code;
        if (!RETRYABLE.has(err.kind) || code === 'ENOTFOUND' || i >= attempts) throw err;
        this.callbacks.log?.(`${this.label}: ${err.message} — retrying in ${delay} ms (attempt ${i + 1}/${attempts})`);
        await sleep(delay, signal);
        delay = Math.min(delay * 2, 4000);
      }
    }
  }

  private async openChain(signal?: AbortSignal): Promise<Live> {
    const ssh2 = await loadSsh2();
    const hops: Client[] = [];
    const chain = [...this.target.proxyJump, this.target];
    let sock: Readable | undefined;
    let via: string | undefined;
    try {
      for (const hop of chain) {
        const client = await this.openOne(ssh2, hop, sock, via, signal);
        hops.push(client);
        if (hop !== this.target) {
          const next = chain[chain.indexOf(hop) + 1];
          sock = await new Promise<Readable>((resolve, reject) => {
            client.forwardOut('127.0.0.1', 0, next.hostName, next.port, (err, stream) => {
              if (err)
                reject(
                  new HostError(
                    'connect',
                    `Jump host ${hop.alias} could not reach ${next.hostName}:${next.port} (${err.message}). Check the target's HostName/Port as seen from the jump host, and that the jump host allows TCP forwarding (AllowTcpForwarding).`,
                    { cause: err },
                  ),
                );
              else resolve(stream);
            });
          });
          via = hop.alias;
        }
      }
    } catch (e) {
      for (const c of hops.reverse()) c.end();
      throw e;
    }
    this.connectCount++;
    const client = hops[hops.length - 1];
    const live: Live = { client, hops, dead: false, onDead: new Set() };
    const markDead = (why: HostError): void => {
      if (live.dead) return;
      live.dead = true;
      live.deadReason = why;
      for (const f of live.onDead) f(why);
      live.onDead.clear();
      for (const c of hops) c.end();
    };
    for (const c of hops) {
      c.on('error', (err: Error) => markDead(connectError(err, this.target)));
      c.on('close', () =>
        markDead(
          new HostError(
            'disconnected',
            `Connection to ${this.label} (${targetName(this.target)}) was lost. It reconnects on the next request; if it keeps dropping, check the network and the server's sshd.`,
          ),
        ),
      );
    }
    return live;
  }

  private openOne(ssh2: Ssh2, hop: SshTarget, sock: Readable | undefined, via: string | undefined, signal?: AbortSignal): Promise<Client> {
    throwIfAborted(signal);
    const client = new ssh2.Client();
    let hostKeyFailure: HostError | undefined;
    let authTried: string[] = [];
    return new Promise<Client>((resolve, reject) => {
      let settled = false;
      const finish = (err?: unknown): void => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        if (err === undefined) {
          client.removeListener('error', onError);
          resolve(client);
          return;
        }
        client.end();
        (sock as Socket | undefined)?.destroy?.();
        reject(err instanceof Error ? err : new Error('SSH connection failed'));
      };
      const onAbort = (): void => finish(abortError(signal?.reason));
      const onError = (err: Error & { level?: string }): void => {
        if (hostKeyFailure) {
          finish(hostKeyFailure);
          return;
        }
        finish(connectError(err, hop, via, err.level === 'client-authentication' ? authTried : []));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      client.on('error', onError);
      client.once('ready', () => finish());
      client.once('close', () =>
        finish(hostKeyFailure ?? new HostError('disconnected', `Connection to ${hop.hostName}:${hop.port} closed during the handshake.`)),
      );

      const keepaliveMs = hop.serverAliveInterval > 0 ? hop.serverAliveInterval * 1000 : (this.options.defaultKeepaliveMs ?? 15000);
      const cfg: ConnectConfig = {
        host: hop.hostName,
        port: hop.port,
        username: hop.user,
        readyTimeout: this.options.readyTimeoutMs ?? hop.connectTimeoutMs ?? 20000,
        keepaliveInterval: keepaliveMs,
        keepaliveCountMax: hop.serverAliveCountMax,
        agentForward: false,
        hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
          this.verifyHostKey(hop, key).then(
            () => verify(true),
            (e: unknown) => {
              hostKeyFailure = e instanceof HostError ? e : new HostError('host-key-unknown', String(e));
              verify(false);
            },
          );
        },
        authHandler: this.makeAuthHandler(
          hop,
          (tried) => {
            authTried = tried;
          },
          signal,
        ),
        ...(sock ? { sock } : {}),
      };
      try {
        client.connect(cfg);
      } catch (e) {
        finish(connectError(e, hop, via));
      }
    });
  }

  private async verifyHostKey(hop: SshTarget, key: Buffer): Promise<void> {
    const files = [...(this.options.knownHostsFiles ?? hop.userKnownHostsFiles)];
    if (this.options.trustStoreFile && !files.includes(this.options.trustStoreFile)) files.push(this.options.trustStoreFile);
    const known = await loadKnownHosts(files);
    for (const n of known.notes) this.callbacks.log?.(n);
    const verdict = checkHostKey(known.entries, hop.hostName, hop.port, key);
    const fp = sha256Fingerprint(key);
    const keyType = keyTypeOfBlob(key) ?? 'unknown';
    const name = hostKeyName(hop.hostName, hop.port);
    switch (verdict.status) {
      case 'known':
        return;
      case 'revoked':
        throw new HostError(
          'host-key-revoked',
          `The ${keyType} host key of ${name} (${fp}) is marked @revoked in ${verdict.entry.file}:${verdict.entry.line}. ` +
            'Refusing to connect. Ask the server administrator for the new host key.',
        );
      case 'changed': {
        const expected = verdict.expected.map((e) => `${sha256Fingerprint(e.key)} (${e.file}:${e.line})`).join(', ');
        const plain = hop.port === 22 ? hop.hostName : `[${hop.hostName}]:${hop.port}`;
        const where = [...new Set(verdict.expected.map((e) => e.file))];
        throw new HostError(
          'host-key-changed',
          `WARNING: the host key of ${name} has CHANGED. Expected ${expected}; the server offered ${keyType} ${fp}. ` +
            'This could be a reinstalled server, or someone intercepting the connection. Refusing to connect (nothing was sent). ' +
            `If you have confirmed the new key with the server administrator, remove the old entry with \`ssh-keygen -R '${plain}'${where.map((f) => ` -f ${quoteArg(f)}`).join('')}\` and connect again.`,
        );
      }
      case 'unknown': {
        const cb = this.callbacks;
        const info: UnknownHostKeyInfo = { host: hop.hostName, port: hop.port, keyType, sha256Fingerprint: fp };
        const decision: HostKeyDecision = cb.onUnknownHostKey ? await cb.onUnknownHostKey(info) : 'reject';
        if (decision === 'once') return;
        if (decision === 'remember') {
          const store = this.options.trustStoreFile ?? files[0];
          if (!store) throw new HostError('config', 'No known_hosts or trust-store file to remember the host key in.');
          await appendKnownHost(store, hop.hostName, hop.port, key, this.options.hashKnownHosts ?? true);
          this.callbacks.log?.(`Remembered ${keyType} ${fp} for ${name} in ${store}`);
          return;
        }
        const other = verdict.otherTypes.length ? ` (known_hosts has ${verdict.otherTypes.join(', ')} keys for it, but not this ${keyType} key)` : '';
        throw new HostError(
          'host-key-unknown',
          `The authenticity of ${name} can't be established: it offered ${keyType} key ${fp}, which is not in ${files.join(', ') || 'any known_hosts file'}${other}. ` +
            'Verify the fingerprint with the server administrator (on the server: `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`), then accept it ' +
            '(CLI: --accept-new-host-key) or add it with `ssh-keyscan`.',
        );
      }
    }
  }

  private async loadKey(file: string, ssh2: Ssh2, signal?: AbortSignal): Promise<KeyCandidate | null> {
    if (this.keyCache.has(file)) return this.keyCache.get(file)!;
    let data: Buffer;
    try {
      data = await readFile(file);
    } catch {
      this.keyCache.set(file, null);
      return null;
    }
    let parsed = ssh2.utils.parseKey(data);
    let passphrase: string | undefined;
    let attempt = 0;
    while (parsed instanceof Error && /passphrase|decrypt|integrity/i.test(parsed.message) && this.callbacks.askPassphrase && attempt < 3) {
      throwIfAborted(signal);
      attempt++;
      passphrase = await this.callbacks.askPassphrase({ keyFile: file, attempt });
      if (passphrase === undefined) break;
      parsed = ssh2.utils.parseKey(data, passphrase);
    }
    if (parsed instanceof Error) {
      this.callbacks.log?.(`Skipping identity ${file}: ${parsed.message}`);
      this.keyCache.set(file, null);
      return null;
    }
    const c: KeyCandidate = { file, data, ...(passphrase !== undefined ? { passphrase } : {}) };
    this.keyCache.set(file, c);
    return c;
  }

  private makeAuthHandler(hop: SshTarget, report: (tried: string[]) => void, signal?: AbortSignal) {
    const tried: string[] = [];
    const agent = this.options.agentSocket === undefined ? process.env.SSH_AUTH_SOCK : (this.options.agentSocket ?? undefined);
    // `wire` is the method name the server lists, so a step the server does not accept is skipped
    // before it runs (before the user is asked anything for it).
    interface Step {
      wire: AuthenticationType;
      run(): Promise<AnyAuthMethod | undefined>;
    }
    const steps: Step[] = [];
    const username = hop.user;
    if (agent && !hop.identitiesOnly) steps.push({ wire: 'publickey', run: () => Promise.resolve({ type: 'agent', username, agent }) });
    const idFiles = [...new Set([...(hop === this.target ? (this.options.identityFiles ?? []) : []), ...hop.identityFiles])];
    for (const f of idFiles) {
      steps.push({
        wire: 'publickey',
        run: async () => {
          const ssh2 = await loadSsh2();
          const k = await this.loadKey(f, ssh2, signal);
          if (!k) return undefined;
          return { type: 'publickey', username, key: k.data, ...(k.passphrase !== undefined ? { passphrase: k.passphrase } : {}) };
        },
      });
    }
    const cb = this.callbacks;
    const ask = cb.askPassword ? cb.askPassword.bind(cb) : undefined;
    if (ask) {
      // Once the user declines (undefined), no later password prompt is shown for this connection.
      let declined = false;
      const attempts = Math.max(1, this.options.passwordAttempts ?? 3);
      for (let attempt = 1; attempt <= attempts; attempt++) {
        steps.push({
          wire: 'keyboard-interactive',
          run: () =>
            Promise.resolve(
              declined
                ? undefined
                : {
                    type: 'keyboard-interactive',
                    username,
                    prompt: (_name, _instr, _lang, prompts, finish) => {
                      void (async () => {
                        const answers: string[] = [];
                        for (const p of prompts) {
                          throwIfAborted(signal);
                          const a = declined
                            ? undefined
                            : await ask({
                                user: username,
                                host: hop.hostName,
                                prompt: p.prompt,
                                echo: !!p.echo,
                                method: 'keyboard-interactive',
                                attempt,
                              });
                          if (a === undefined) {
                            declined = true;
                            break;
                          }
                          answers.push(a);
                        }
                        // Always answer every prompt (the protocol requires the count to match); empty
                        // answers after a decline just fail this round.
                        finish(prompts.map((_p, i) => answers[i] ?? ''));
                      })().catch(() => {
                        declined = true;
                        finish(prompts.map(() => ''));
                      });
                    },
                  },
            ),
        });
      }
      for (let attempt = 1; attempt <= attempts; attempt++) {
        steps.push({
          wire: 'password',
          run: async () => {
            if (declined) return undefined;
            const pw = await ask({
              user: username,
              host: hop.hostName,
              prompt: `${username}@${hop.hostName}'s password: `,
              echo: false,
              method: 'password',
              attempt,
            });
            if (pw === undefined) {
              declined = true;
              return undefined;
            }
            return { type: 'password', username, password: pw };
          },
        });
      }
    }
    let i = 0;
    const handler: AuthHandlerMiddleware = (methodsLeftIn, _partial, nextIn) => {
      // ssh2 passes null on the first call and accepts `false` for "no more methods".
      const methodsLeft = methodsLeftIn as AuthenticationType[] | null;
      const next = nextIn as (m: AnyAuthMethod | false) => void;
      void (async () => {
        while (i < steps.length) {
          const step = steps[i++];
          if (methodsLeft && !methodsLeft.includes(step.wire)) continue;
          try {
            const m = await step.run();
            if (!m) continue;
            tried.push(m.type === 'publickey' ? `key ${idFiles.find((f) => this.keyCache.get(f)?.data === m.key) ?? ''}` : m.type);
            report(tried);
            next(m);
            return;
          } catch {
            /* skip this method */
          }
        }
        report(tried);
        next(false);
      })();
    };
    return handler;
  }

  // ---- exec -------------------------------------------------------------------------------

  async exec(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    let cmd = quoteArgv(argv); // validates (NUL, empty) before any network use
    if (opts.env) {
      const assigns = Object.entries(opts.env).map(([k, v]) => {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new HostError('invalid-argument', `Bad environment variable name ${show(k)}`);
        return quoteArg(`${k}=${v}`);
      });
      if (argv[0].includes('='))
        throw new HostError('invalid-argument', `Program name ${show(argv[0])} contains "=", which env(1) would take as an assignment`);
      if (assigns.length) cmd = `env ${assigns.join(' ')} ${cmd}`;
    }
    if (opts.cwd !== undefined) cmd = `cd ${quoteArg(opts.cwd.startsWith('-') ? `./${opts.cwd}` : opts.cwd)} && ${cmd}`;
    throwIfAborted(opts.signal);
    const live = await this.conn(opts.signal);
    const release = await this.sessions.acquire(opts.signal);
    try {
      return await this.runChannel(live, cmd, argv[0], opts);
    } finally {
      release();
    }
  }

  private runChannel(live: Live, cmd: string, program: string, opts: ExecOptions): Promise<ExecResult> {
    return new Promise<ExecResult>((resolve, reject) => {
      let channel: ClientChannel | undefined;
      let failure: HostError | undefined;
      let exit: { code: number | null; signal?: string } | undefined;
      let done = false;
      const stop = (): void => {
        if (!channel) return;
        try {
          channel.signal('KILL');
        } catch {
          /* server may not support signals */
        }
        channel.close();
      };
      const out = new OutputCollector(opts, stop);
      const cleanup = (): void => {
        done = true;
        if (timer) clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        live.onDead.delete(onDead);
      };
      const fail = (err: HostError): void => {
        failure ??= err;
        // Kill and close the channel, and return now: a server that ignores the signal may keep
        // the channel open until the command ends by itself.
        stop();
        finishNow();
      };
      const finishNow = (): void => {
        if (done) return;
        cleanup();
        out.flush();
        if (failure) {
          Object.assign(failure, { partial: { stdout: out.stdout, stderr: out.stderr } });
          reject(failure);
          return;
        }
        if (!exit) {
          reject(
            Object.assign(
              new HostError(
                'disconnected',
                `${show(program)} on ${this.label} ended without an exit status (the connection dropped?). Partial output was kept.`,
              ),
              { partial: { stdout: out.stdout, stderr: out.stderr } },
            ),
          );
          return;
        }
        resolve({ code: exit.code, ...(exit.signal ? { signal: exit.signal } : {}), stdout: out.stdout, stderr: out.stderr, truncated: out.truncated });
      };
      const onAbort = (): void => fail(abortError(opts.signal?.reason));
      const onDead = (why: HostError): void => {
        failure ??= new HostError('disconnected', `${why.message} ${show(program)} was interrupted; partial output was kept.`, { cause: why });
        finishNow();
      };
      const timer =
        opts.timeoutMs !== undefined
          ? setTimeout(() => fail(new HostError('timeout', `${show(program)} on ${this.label} did not finish within ${opts.timeoutMs} ms`)), opts.timeoutMs)
          : undefined;
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (live.dead) {
        onDead(live.deadReason ?? new HostError('disconnected', 'Connection lost.'));
        return;
      }
      live.onDead.add(onDead);
      live.client.exec(cmd, (err, ch) => {
        if (err) {
          failure ??= new HostError('io', `Could not start ${show(program)} on ${this.label}: ${err.message}. The server may limit sessions (MaxSessions).`, {
            cause: err,
          });
          finishNow();
          return;
        }
        channel = ch;
        if (done) {
          stop();
          return;
        }
        if (failure) stop();
        ch.on('data', (d: Buffer) => out.out(d));
        ch.stderr.on('data', (d: Buffer) => out.err(d));
        ch.on('exit', (code: number | null, signal?: string) => {
          exit = { code: typeof code === 'number' ? code : null, ...(signal ? { signal: String(signal) } : {}) };
        });
        ch.on('close', () => finishNow());
        ch.on('error', (e: Error) => {
          failure ??= new HostError('io', `Channel error running ${show(program)}: ${e.message}`, { cause: e });
        });
      });
    });
  }

  // ---- SFTP -------------------------------------------------------------------------------

  private async sftp(signal?: AbortSignal): Promise<SFTPWrapper> {
    const live = await this.conn(signal);
    live.sftp ??= new Promise<SFTPWrapper>((resolve, reject) => {
      live.client.sftp((err, sftp) => {
        if (err) {
          live.sftp = undefined;
          reject(
            new HostError('io', `The SFTP subsystem is not available on ${this.label} (${err.message}). Enable "Subsystem sftp" in the server's sshd_config.`, {
              cause: err,
            }),
          );
        } else resolve(sftp);
      });
    });
    return live.sftp;
  }

  private sftpError(err: unknown, what: string, path: string): HostError {
    const e = err as { code?: number; message?: string };
    if (e?.code === 2) return new HostError('not-found', `${what}: no such file or directory on ${this.label}: ${show(path)}`, { cause: err });
    if (e?.code === 3) return new HostError('io', `${what} ${show(path)} on ${this.label}: permission denied`, { cause: err });
    if (err instanceof HostError) return err;
    return new HostError('io', `${what} ${show(path)} on ${this.label} failed: ${e?.message ?? String(err)}`, { cause: err });
  }

  async readFile(path: string, opts: { maxBytes?: number; signal?: AbortSignal } = {}): Promise<Uint8Array> {
    throwIfAborted(opts.signal);
    const sftp = await this.sftp(opts.signal);
    return new Promise<Uint8Array>((resolve, reject) => {
      const max = opts.maxBytes ?? Infinity;
      const chunks: Buffer[] = [];
      let total = 0;
      const stream = sftp.createReadStream(path, {
        highWaterMark: 256 * 1024,
        ...(Number.isFinite(max) ? { end: Math.max(0, max - 1) } : {}),
      });
      const onAbort = (): void => {
        stream.destroy();
        reject(abortError(opts.signal?.reason));
      };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      stream.on('data', (d: Buffer) => {
        chunks.push(d);
        total += d.length;
      });
      stream.on('error', (e: unknown) => {
        opts.signal?.removeEventListener('abort', onAbort);
        reject(this.sftpError(e, 'Read', path));
      });
      stream.on('end', () => {
        opts.signal?.removeEventListener('abort', onAbort);
        const all = Buffer.concat(chunks, total);
        resolve(new Uint8Array(all.subarray(0, Math.min(all.length, max))));
      });
      if (max === 0) {
        stream.destroy();
        resolve(new Uint8Array());
      }
    });
  }

  /**
   * One SFTP handle for many reads at any offset: the headers of a large library cost a request
   * each, not the whole file. Reads may be in flight together (SFTP pipelines them).
   */
  async openFile(path: string, opts: { signal?: AbortSignal } = {}): Promise<RandomAccessFile> {
    throwIfAborted(opts.signal);
    const sftp = await this.sftp(opts.signal);
    const handle = await new Promise<Buffer>((resolve, reject) => {
      sftp.open(path, 'r', (err, h) => (err ? reject(this.sftpError(err, 'Open', path)) : resolve(h)));
    });
    let closed = false;
    const close = (): Promise<void> => {
      if (closed) return Promise.resolve();
      closed = true;
      // A failed close (the connection dropped) leaves nothing to clean up here.
      return new Promise<void>((resolve) => {
        try {
          sftp.close(handle, () => resolve());
        } catch {
          resolve();
        }
      });
    };
    let size: number;
    try {
      size = await new Promise<number>((resolve, reject) => {
        sftp.fstat(handle, (err, st) => (err ? reject(this.sftpError(err, 'Stat', path)) : resolve(st.size)));
      });
    } catch (e) {
      await close();
      throw e;
    }
    const readAt = (buf: Buffer, off: number, len: number, position: number): Promise<number> =>
      new Promise((resolve, reject) => {
        // ssh2 splits a read larger than the server's packet limit and reports end of file as 0 bytes.
        sftp.read(handle, buf, off, len, position, (err, n) => (err ? reject(this.sftpError(err, 'Read', path)) : resolve(n)));
      });
    return {
      size,
      read: async (position, length, signal) => {
        checkRange(position, length);
        throwIfAborted(signal);
        if (closed) throw new HostError('invalid-argument', `Read of ${show(path)} after it was closed`);
        const buf = Buffer.allocUnsafe(length);
        let got = 0;
        while (got < length) {
          throwIfAborted(signal);
          const n = await readAt(buf, got, length - got, position + got);
          if (!n) break;
          got += n;
        }
        return new Uint8Array(buf.buffer, buf.byteOffset, got);
      },
      close,
    };
  }

  async stat(path: string): Promise<StatResult> {
    const sftp = await this.sftp();
    const ask = (op: 'lstat' | 'stat'): Promise<Stats> =>
      new Promise((resolve, reject) => {
        sftp[op](path, (err, s) => (err ? reject(err) : resolve(s)));
      });
    const own = await ask('lstat').catch((err: Error) => {
      throw this.sftpError(err, 'Stat', path);
    });
    if (modeType(own) !== 'symlink') return { type: modeType(own), size: own.size, mtimeMs: own.mtime * 1000 };
    // A link (conda, spack, nix, editable installs): the size is the target's, not the link's 79 bytes.
    const target = await ask('stat').catch(() => undefined);
    const s = target ?? own;
    return { type: modeType(s), size: s.size, mtimeMs: s.mtime * 1000, symlink: true };
  }

  async readDir(path: string): Promise<DirEntry[]> {
    const sftp = await this.sftp();
    return new Promise((resolve, reject) => {
      sftp.readdir(path, (err, list) => {
        if (err) reject(this.sftpError(err, 'List', path));
        else resolve(list.map((e) => ({ name: e.filename, type: modeType(e.attrs) })));
      });
    });
  }

  // ---- forwarding ---------------------------------------------------------------------------

  forwardPort(remotePort: number, remoteHost = '127.0.0.1'): Promise<ForwardedPort> {
    if (!Number.isInteger(remotePort) || remotePort < 1 || remotePort > 65535) {
      return Promise.reject(new HostError('invalid-argument', `Bad remote port ${remotePort}`));
    }
    return listenForward((sock) => {
      sock.pause();
      this.conn().then(
        (live) => {
          live.client.forwardOut('127.0.0.1', sock.remotePort ?? 0, remoteHost, remotePort, (err, stream) => {
            if (err) {
              this.callbacks.log?.(
                `Port forward to ${remoteHost}:${remotePort} on ${this.label} failed: ${err.message}. Is anything listening there? Does sshd allow TCP forwarding?`,
              );
              sock.destroy();
              return;
            }
            sock.pipe(stream).pipe(sock);
            sock.resume();
            // A dropped connection must not look like a finished response: reset the local socket
            // (the client sees ECONNRESET, not a clean end) and say why.
            const cut = (why: HostError): void => {
              this.callbacks.log?.(`Port forward to ${remoteHost}:${remotePort} on ${this.label} was cut mid-transfer: ${why.message}`);
              if (!sock.destroyed) sock.resetAndDestroy();
            };
            live.onDead.add(cut);
            stream.on('error', () => sock.destroy());
            stream.on('close', () => {
              // When the whole connection drops, channels close just before it is marked dead: let `cut` go first.
              setImmediate(() => {
                live.onDead.delete(cut);
                if (!sock.destroyed) sock.end();
              });
            });
            sock.on('error', () => stream.destroy());
            sock.on('close', () => stream.close());
          });
        },
        (e: unknown) => {
          this.callbacks.log?.(`Port forward: ${(e as Error).message}`);
          sock.destroy();
        },
      );
    });
  }

  // ---- lifecycle ----------------------------------------------------------------------------

  /** Drop the current connection (testing / "reconnect" command); the next call reconnects. */
  async disconnect(): Promise<void> {
    const cur = this.live;
    this.live = undefined;
    if (!cur) return;
    const live = await cur.catch(() => undefined);
    if (!live) return;
    await new Promise<void>((resolve) => {
      if (live.dead) {
        resolve();
        return;
      }
      live.onDead.add(() => resolve());
      for (const c of [...live.hops].reverse()) c.end();
      setTimeout(resolve, 2000).unref();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const cur = this.live;
    this.live = undefined;
    const live = await cur?.catch(() => undefined);
    if (!live) return;
    await new Promise<void>((resolve) => {
      if (live.dead) {
        resolve();
        return;
      }
      live.onDead.add(() => resolve());
      for (const c of [...live.hops].reverse()) c.end();
      setTimeout(resolve, 2000).unref();
    });
  }
}

function modeType(s: { mode: number }): EntryType {
  switch (s.mode & 0o170000) {
    case 0o100000:
      return 'file';
    case 0o040000:
      return 'dir';
    case 0o120000:
      return 'symlink';
    default:
      return 'other';
  }
}

/**
 * Create an SSH host and connect it (so host-key and auth problems surface here).
 * The returned host reconnects by itself after a drop.
 */
export async function connectSsh(target: SshTarget, callbacks: SshCallbacks = {}, options: SshConnectOptions = {}): Promise<SshHost> {
  const host = new SshHost(target, callbacks, options);
  try {
    await host.connect(options.signal);
  } catch (e) {
    await host.close();
    throw e;
  }
  return host;
}
