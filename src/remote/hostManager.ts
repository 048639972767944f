/**
 * Hosts the user can connect to (ssh config aliases, hand-added user@host:port, This machine),
 * their connection state, and one HostSession per connected host. SSH code is imported here,
 * and this module itself is loaded on first use (see register.ts).
 */
import * as vscode from 'vscode';
import type { Config } from '../config';
import { LocalHost } from '../core/hosts/local';
import { PasswordSession, sshPasswordKey } from '../core/hosts/savedPassword';
import { connectSsh, type SshCallbacks, type UnknownHostKeyInfo, type HostKeyDecision } from '../core/hosts/ssh';
import { expandTilde, listSshAliases, parseHostSpec, resolveSshTarget, type SshConfigOptions } from '../core/hosts/sshConfig';
import { HostError, type Host } from '../core/hosts/types';
import type { DiscoverOptions, EnvReport } from '../core/discovery/index';
import { HostSession } from '../core/remote/session';
import { notificationText } from '../core/text/foreign';
import { errorMessage } from '../core/errors';

export type HostSource = 'local' | 'config' | 'manual';
export type ConnectionState = 'disconnected' | 'connecting' | 'connected' | 'error';

export interface HostEntry {
  /** Stable id: `local`, `config:<alias>`, `manual:<user@host:port>`. Also ServerConfig.hostId. */
  id: string;
  label: string;
  source: HostSource;
  /** What is resolved through ssh config (alias or user@host:port). */
  spec: string;
}

export interface HostState {
  state: ConnectionState;
  lastError?: string;
  session?: HostSession;
  discovering?: Promise<EnvReport | undefined>;
  discoveryError?: string;
}

const MANUAL_KEY = 'inferenceDoctor.remote.manualHosts';

/** `~/x` in a path setting → under the home directory. */
export class HostManager implements vscode.Disposable {
  private readonly states = new Map<string, HostState>();
  private readonly connecting = new Map<string, Promise<HostSession | undefined>>();
  private readonly changed = new vscode.EventEmitter<string | undefined>();
  /** Fires with a host id (or undefined for the whole list). */
  readonly onDidChange = this.changed.event;
  private readonly sessionEnded = new vscode.EventEmitter<HostEntry>();
  readonly onDidDisconnect = this.sessionEnded.event;
  private readonly sessionStarted = new vscode.EventEmitter<HostEntry>();
  readonly onDidConnect = this.sessionStarted.event;
  private configCache?: HostEntry[];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly config: Config,
  ) {}

  private sshConfigOptions(): SshConfigOptions {
    const file = this.config.text('ssh.configFile');
    return file ? { configFile: expandTilde(file) } : {};
  }

  list(): HostEntry[] {
    if (!this.configCache) {
      let aliases: string[] = [];
      try {
        aliases = listSshAliases(this.sshConfigOptions());
      } catch (e) {
        this.log.warn(`Could not read the ssh config: ${errorMessage(e)}`);
      }
      this.configCache = aliases.map((a) => ({ id: `config:${a}`, label: a, source: 'config', spec: a }));
    }
    const manual = this.context.globalState.get<string[]>(MANUAL_KEY, []).filter((s) => typeof s === 'string');
    return [
      { id: 'local', label: 'This machine', source: 'local', spec: 'local' },
      ...this.configCache,
      ...manual.map((s): HostEntry => ({ id: `manual:${s}`, label: s, source: 'manual', spec: s })),
    ];
  }

  get(id: string): HostEntry | undefined {
    return this.list().find((h) => h.id === id);
  }
  state(id: string): HostState {
    return this.states.get(id) ?? { state: 'disconnected' };
  }
  session(id: string): HostSession | undefined {
    return this.states.get(id)?.session;
  }
  connected(): HostEntry[] {
    return this.list().filter((h) => this.state(h.id).state === 'connected');
  }

  /** Re-read ~/.ssh/config. */
  reload(): void {
    this.configCache = undefined;
    this.changed.fire(undefined);
  }

  async addManual(spec: string): Promise<HostEntry> {
    const parsed = parseHostSpec(spec); // throws a HostError with a useful message
    if (parsed.kind === 'local') return this.get('local')!;
    const norm = spec.trim().replace(/^ssh:\/\//i, '');
    const list = this.context.globalState.get<string[]>(MANUAL_KEY, []);
    if (!list.includes(norm)) await this.context.globalState.update(MANUAL_KEY, [...list, norm]);
    this.changed.fire(undefined);
    return this.get(`manual:${norm}`)!;
  }

  async removeManual(id: string): Promise<void> {
    await this.disconnect(id);
    const spec = id.slice('manual:'.length);
    await this.context.globalState.update(
      MANUAL_KEY,
      this.context.globalState.get<string[]>(MANUAL_KEY, []).filter((s) => s !== spec),
    );
    await this.context.secrets.delete(sshPasswordKey(id));
    this.states.delete(id);
    this.changed.fire(undefined);
  }

  private set(id: string, patch: Partial<HostState>): void {
    this.states.set(id, { ...this.state(id), ...patch });
    this.changed.fire(id);
  }

  /** Connect (once; concurrent callers share the attempt). Undefined when cancelled or failed (the error is shown). */
  connect(id: string): Promise<HostSession | undefined> {
    const existing = this.session(id);
    if (existing) return Promise.resolve(existing);
    let p = this.connecting.get(id);
    if (!p) {
      p = this.doConnect(id).finally(() => this.connecting.delete(id));
      this.connecting.set(id, p);
    }
    return p;
  }

  private async doConnect(id: string): Promise<HostSession | undefined> {
    const entry = this.get(id);
    if (!entry) return undefined;
    this.set(id, { state: 'connecting', lastError: undefined });
    try {
      const host = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Connecting to ${notificationText(entry.label)}…`, cancellable: true },
        (_p, token) => this.openHost(entry, token),
      );
      const session = new HostSession(host, id, this.discoverDefaults());
      this.set(id, { state: 'connected', session, lastError: undefined, discoveryError: undefined });
      this.sessionStarted.fire(entry);
      void this.discover(id);
      return session;
    } catch (e) {
      const cancelled = e instanceof HostError && e.kind === 'aborted';
      this.set(id, { state: cancelled ? 'disconnected' : 'error', lastError: cancelled ? undefined : errorMessage(e) });
      if (!cancelled) await this.showConnectError(entry, e);
      return undefined;
    }
  }

  private discoverDefaults(): { pythonPaths?: string[] } {
    const paths = this.config.get('remote.pythonPaths');
    return Array.isArray(paths) && paths.length ? { pythonPaths: paths.filter((p) => typeof p === 'string' && p.startsWith('/')) } : {};
  }

  private async openHost(entry: HostEntry, token: vscode.CancellationToken): Promise<Host> {
    if (entry.source === 'local') return new LocalHost();
    const ac = new AbortController();
    const sub = token.onCancellationRequested(() => ac.abort('cancelled'));
    try {
      const spec = parseHostSpec(entry.spec);
      if (spec.kind === 'local') return new LocalHost();
      const target = resolveSshTarget(spec, this.sshConfigOptions());
      const known = this.config.text('ssh.knownHostsFile');
      const trustStoreFile = vscode.Uri.joinPath(this.context.globalStorageUri, 'known_hosts').fsPath;
      await vscode.workspace.fs.createDirectory(this.context.globalStorageUri);
      const passwords = new PasswordSession(this.context.secrets, entry.id, ({ user, host, prompt, echo, attempt }) =>
        Promise.resolve(
          vscode.window.showInputBox({
            title: notificationText(`${user}@${host}`),
            prompt: `${attempt > 1 ? 'Not accepted, try again. ' : ''}${prompt.trim() || 'Password'}`,
            password: !echo,
            ignoreFocusOut: true,
          }),
        ),
      );
      let host: Host;
      try {
        host = await connectSsh(
          target,
          { ...this.callbacks(entry), askPassword: passwords.askPassword },
          {
            trustStoreFile,
            ...(known ? { knownHostsFiles: [expandTilde(known)] } : {}),
            signal: ac.signal,
          },
        );
      } catch (e) {
        // Forgets the saved password only when it was offered and refused.
        await passwords.failed(e).catch(() => false);
        throw e;
      }
      void passwords.connected(() => this.confirmSavePassword(entry)).catch((e: unknown) => this.log.warn(`Could not save the password: ${errorMessage(e)}`));
      return host;
    } finally {
      sub.dispose();
    }
  }

  private callbacks(entry: HostEntry): SshCallbacks {
    return {
      log: (m) => this.log.info(m),
      onUnknownHostKey: (info) => askHostKey(entry, info),
      askPassphrase: async ({ keyFile, attempt }) =>
        vscode.window.showInputBox({
          title: `Passphrase for ${notificationText(keyFile)}`,
          prompt: attempt > 1 ? 'Wrong passphrase, try again (Escape skips this key)' : `To connect to ${entry.label}. Not saved.`,
          password: true,
          ignoreFocusOut: true,
        }),
    };
  }

  private async confirmSavePassword(entry: HostEntry): Promise<boolean> {
    const save = 'Save Password';
    const answer = await vscode.window.showInformationMessage(
      `Connected to ${notificationText(entry.label)}. Save the password in VS Code's secret storage for next time?`,
      save,
      "Don't Save",
    );
    return answer === save;
  }

  private async showConnectError(entry: HostEntry, e: unknown): Promise<void> {
    const msg = errorMessage(e);
    if (e instanceof HostError && (e.kind === 'host-key-changed' || e.kind === 'host-key-revoked')) {
      await vscode.window.showErrorMessage(`Refused to connect to ${notificationText(entry.label)}`, {
        modal: true,
        detail: notificationText(msg, { maxLength: 2000 }),
      });
      return;
    }
    void vscode.window.showErrorMessage(`Could not connect to ${notificationText(entry.label)}: ${notificationText(msg)}`);
  }

  /** Run discovery (again); the tree shows progress. */
  discover(id: string, opts?: DiscoverOptions): Promise<EnvReport | undefined> {
    const st = this.state(id);
    const session = st.session;
    if (!session) return Promise.resolve(undefined);
    // A running discovery without the asked-for options: let it finish, then run one with them.
    if (st.discovering) return opts ? st.discovering.then(() => this.discover(id, opts)) : st.discovering;
    const p = session.discover(opts).then(
      (r) => {
        this.set(id, { discovering: undefined, discoveryError: undefined });
        return r;
      },
      (e: unknown) => {
        this.set(id, { discovering: undefined, discoveryError: errorMessage(e) });
        return undefined;
      },
    );
    this.set(id, { discovering: p });
    return p;
  }

  /** Record an operation error on the host row (the connection itself reconnects on the next request). */
  noteError(id: string, e: unknown): void {
    this.set(id, { lastError: errorMessage(e) });
  }

  async disconnect(id: string): Promise<void> {
    const st = this.state(id);
    const entry = this.get(id);
    this.set(id, { state: 'disconnected', session: undefined, discovering: undefined, lastError: undefined });
    if (entry && st.session) this.sessionEnded.fire(entry);
    if (st.session) {
      await st.session.dispose();
      await st.session.host.close().catch(() => undefined);
    }
  }

  dispose(): void {
    for (const id of [...this.states.keys()]) void this.disconnect(id);
    this.changed.dispose();
    this.sessionEnded.dispose();
    this.sessionStarted.dispose();
  }
}

async function askHostKey(entry: HostEntry, info: UnknownHostKeyInfo): Promise<HostKeyDecision> {
  const once = 'Trust Once';
  const remember = 'Trust and Remember';
  const where = info.port === 22 ? info.host : `${info.host}:${info.port}`;
  const answer = await vscode.window.showWarningMessage(
    `The authenticity of ${notificationText(entry.label)} (${notificationText(where)}) can't be established.`,
    {
      modal: true,
      detail: `${info.keyType} key fingerprint:\n${info.sha256Fingerprint}\n\nCompare it with the server's own key before trusting it (on the server: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub). "Trust and Remember" stores the key in Inference Doctor's own known_hosts file.`,
    },
    once,
    remember,
  );
  return answer === once ? 'once' : answer === remember ? 'remember' : 'reject';
}
