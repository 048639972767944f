/**
 * Everything behind the Hosts and Search views and the remote commands. Loaded on first use by
 * register.ts; imports the SSH host layer and discovery. It meets the other features through the
 * context: the servers service (forwarded ports become servers), the flags client (flag → field
 * mapping) and the runtime hosts registry (hosts the flags feature can read SGLang from).
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import { BACKEND_OPTION_PRESETS } from '../core/hosts/search';
import { parseHostSpec } from '../core/hosts/sshConfig';
import { formatEnvReport, type RunningServer } from '../core/discovery/index';
import { comparisonJson, summariseComparison } from '../core/remote/compare';
import { describeLogSource, followArgv, type LogSource } from '../core/remote/logWatch';
import { SearchResultGroups } from '../core/remote/searchGroups';
import { serverKey, sourceName, type HostSession, type SourceDir, type SourceEngine } from '../core/remote/session';
import type { Ctx } from '../context';
import { GENERATED_SCHEME, LogDocuments } from './documents';
import { GeneratedDocuments, slug } from '../ui/generatedDocuments';
import { HostManager, type HostEntry } from './hostManager';
import { HostsView, modelName, type HostsNode } from './hostsView';
import { RemoteFileSystem, remoteUri } from './remoteFs';
import { SearchView, type SearchState } from './searchView';
import { catalogFieldResolver } from './catalogFields';
import { runtimeInterpreters, type HostServerEvidence, type RuntimeHostTarget } from '../services/runtimeHosts';
import { ruleContextFromReport } from '../core/remote/ruleContext';
import { notificationText } from '../core/text/foreign';
import { createLogChannel, guardPicks } from '../ui/foreignText';
import { errorMessage } from '../core/errors';

interface ForwardRecord {
  serverId: string;
  hostId: string;
  key: string;
  remotePort: number;
  remoteHost: string;
}
const FORWARDS_KEY = 'inferenceDoctor.remote.forwards';

export class RemoteFeature implements vscode.Disposable {
  readonly log = createLogChannel('Inference Doctor: Hosts');
  readonly hosts: HostManager;
  readonly hostsView: HostsView;
  readonly searchView: SearchView;
  readonly fs: RemoteFileSystem;
  readonly generated = new GeneratedDocuments(GENERATED_SCHEME);
  readonly logs = new LogDocuments();
  private readonly disposables: vscode.Disposable[] = [];

  private readonly context: vscode.ExtensionContext;
  private readonly servers: Ctx['servers'];

  constructor(private readonly ctx: Ctx) {
    this.context = ctx.extension;
    this.servers = ctx.servers;
    this.hosts = new HostManager(ctx.extension, this.log, ctx.config);
    this.hostsView = new HostsView(this.hosts, (h, k) => this.forwardInfo(h, k));
    this.searchView = new SearchView();
    this.fs = new RemoteFileSystem(this.hosts);
    this.disposables.push(
      this.hosts,
      this.hostsView,
      this.searchView,
      this.generated,
      this.logs,
      this.log,
      this.hosts.onDidConnect((e) => void this.restoreForwards(e)),
      this.hosts.onDidDisconnect(() => this.hostsView.refresh()),
      ctx.servers.store.onDidChange(() => void this.dropForwardsOfRemovedServers()),
      ctx.config.onDidChange(['ssh.configFile'], () => this.hosts.reload()),
      ctx.hosts.provide(() => this.runtimeHostTargets()),
    );
  }

  /** Connected hosts for "Load Flags from Installed SGLang or vLLM": their interpreters and GPU. */
  private runtimeHostTargets(): RuntimeHostTarget[] {
    const out: RuntimeHostTarget[] = [];
    for (const entry of this.hosts.connected()) {
      const session = this.hosts.session(entry.id);
      if (!session) continue;
      const report = session.report;
      out.push({
        id: entry.id,
        label: entry.label,
        host: session.host,
        interpreters: runtimeInterpreters(report),
        ruleContext: (python) => (session.report ? ruleContextFromReport(session.report, python) : undefined),
        local: entry.source === 'local',
        report: () => session.report,
        serverEvidence: (ref, signal) => this.serverEvidence(entry, session, ref, signal),
      });
    }
    return out;
  }

  /** For Diagnose Server: what this host knows about one of its servers (launch file, log tail, forward). */
  private async serverEvidence(
    entry: HostEntry,
    session: HostSession,
    ref: { key: string } | { serverId: string },
    signal?: AbortSignal,
  ): Promise<HostServerEvidence | undefined> {
    const rec = 'serverId' in ref ? this.forwardRecords().find((r) => r.hostId === entry.id && r.serverId === ref.serverId) : undefined;
    const key = 'key' in ref ? ref.key : rec?.key;
    if (!key) return undefined;
    const report = session.report ?? (await this.hosts.discover(entry.id));
    const server = report?.servers.find((s) => serverKey(s) === key);
    if (!server) return undefined;
    const out: HostServerEvidence = { port: server.port, notes: [], ...(report ? { report } : {}) };
    const note = (what: string) => (e: unknown) => {
      out.notes.push(`${what} on ${entry.label}: ${errorMessage(e)}`);
      return undefined;
    };
    const src = await session.launchSource(server).catch(note('launch file'));
    const launch = src ? await session.readLaunchText(src).catch(note('launch file')) : undefined;
    if (launch)
      out.launch = {
        text: launch.text,
        fileName: launch.path ?? `command line on ${entry.label}`,
        ...(launch.path ? { uri: remoteUri(entry.id, launch.path).toString() } : {}),
      };
    const log = await session.logSourceFor(server).catch(note('log'));
    if (log) {
      const argv = followArgv(log, 5000).filter((a) => a !== '-f' && a !== '-F');
      const r = await session.host.exec(argv, { timeoutMs: 20_000, maxOutputBytes: 16 << 20, ...(signal ? { signal } : {}) }).catch(note('log'));
      if (r?.code === 0) out.log = { text: r.stdout, label: `${describeLogSource(log)} on ${entry.label}` };
    }
    const fwd = await session.forward(key, server.port, server.host).catch(note('port forward'));
    if (fwd) out.baseUrl = `http://127.0.0.1:${fwd.localPort}`;
    const registered = rec ?? this.forwardRecords().find((r) => r.hostId === entry.id && r.key === key);
    if (registered && this.servers.store.get(registered.serverId)) out.serverId = registered.serverId;
    return out;
  }

  /** The interpreter row's action: read the flags of the SGLang or vLLM it has (the command asks when it has both). */
  async loadFlagsFromInterpreter(arg: unknown): Promise<void> {
    const n = arg as Partial<Extract<HostsNode, { kind: 'interpreter' }>> | undefined;
    if (n?.kind !== 'interpreter' || !n.hostId || n.index === undefined) return;
    const it = this.hosts.session(n.hostId)?.report?.interpreters[n.index];
    if (!it) return;
    await this.ctx.executeCommand(COMMANDS.loadRuntime, { hostId: n.hostId, python: it.path });
  }

  // ---- argument helpers ---------------------------------------------------------------------

  private hostIdOf(arg: unknown): string | undefined {
    if (typeof arg === 'string') return this.hosts.get(arg) ? arg : undefined;
    if (arg && typeof arg === 'object' && typeof (arg as { hostId?: unknown }).hostId === 'string') return (arg as { hostId: string }).hostId;
    return undefined;
  }

  /** The host a command is about: its tree node, a single connected host, or the user's pick (connecting it). */
  private async pickSession(arg: unknown, placeHolder: string): Promise<{ entry: HostEntry; session: HostSession } | undefined> {
    let id = this.hostIdOf(arg);
    if (!id) {
      const connected = this.hosts.connected();
      if (connected.length === 1) id = connected[0].id;
      else {
        const all = this.hosts.list();
        const pick = await vscode.window.showQuickPick(
          guardPicks(
            all.map((h) => ({
              label: h.label,
              description: this.hosts.state(h.id).state === 'connected' ? 'connected' : h.source === 'local' ? 'local' : h.spec,
              id: h.id,
            })),
          ),
          { placeHolder },
        );
        id = pick?.id;
      }
    }
    if (!id) return undefined;
    const entry = this.hosts.get(id);
    const session = await this.hosts.connect(id);
    return entry && session ? { entry, session } : undefined;
  }

  private serverOf(arg: unknown): { hostId: string; key: string; server: RunningServer } | undefined {
    const n = arg as Partial<Extract<HostsNode, { kind: 'server' }>> | undefined;
    if (n?.kind !== 'server' || !n.hostId || !n.key) return undefined;
    const server = this.hostsView.findServer(n.hostId, n.key);
    return server ? { hostId: n.hostId, key: n.key, server } : undefined;
  }

  private async pickServerOnHost(
    arg: unknown,
    placeHolder: string,
  ): Promise<{ hostId: string; key: string; server: RunningServer; session: HostSession; entry: HostEntry } | undefined> {
    const direct = this.serverOf(arg);
    if (direct) {
      const session = this.hosts.session(direct.hostId);
      const entry = this.hosts.get(direct.hostId);
      if (session && entry) return { ...direct, session, entry };
    }
    const picked = await this.pickSession(arg, placeHolder);
    if (!picked) return undefined;
    const report = picked.session.report ?? (await this.hosts.discover(picked.entry.id));
    const servers = report?.servers ?? [];
    if (servers.length === 0) {
      void vscode.window.showInformationMessage(`No running SGLang or vLLM server was found on ${notificationText(picked.entry.label)}.`);
      return undefined;
    }
    const server =
      servers.length === 1
        ? servers[0]
        : (
            await vscode.window.showQuickPick(
              guardPicks(
                servers.map((s) => ({
                  label: s.unit ?? `pid ${s.pid ?? '?'}`,
                  description: `${s.engine === 'vllm' ? 'vLLM' : 'SGLang'} · port ${s.port}${s.modelPath ? ` · ${s.modelPath}` : ''}`,
                  s,
                })),
              ),
              { placeHolder },
            )
          )?.s;
    return server ? { hostId: picked.entry.id, key: serverKey(server), server, session: picked.session, entry: picked.entry } : undefined;
  }

  // ---- host commands ------------------------------------------------------------------------

  async addHost(): Promise<void> {
    const spec = await vscode.window.showInputBox({
      title: 'Add SSH Host',
      prompt: 'user@host[:port] (or an alias from your ssh config)',
      placeHolder: 'root@gpu-box:22',
      ignoreFocusOut: true,
      validateInput: (v) => {
        if (!v.trim()) return 'Enter user@host[:port]';
        try {
          parseHostSpec(v);
          return undefined;
        } catch (e) {
          return errorMessage(e);
        }
      },
    });
    if (!spec) return;
    const entry = await this.hosts.addManual(spec);
    await this.hosts.connect(entry.id);
  }

  /** From the Command Palette (no tree node): pick among the hosts the command applies to. */
  private async pickHost(wantConnected: boolean, placeHolder: string): Promise<string | undefined> {
    const hosts = this.hosts.list().filter((h) => (this.hosts.state(h.id).state === 'connected') === wantConnected);
    if (hosts.length === 0) {
      void vscode.window.showInformationMessage(wantConnected ? 'No host is connected.' : 'Every host is already connected.');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      guardPicks(
        hosts.map((h) => ({
          label: h.label,
          description: h.source === 'local' ? 'local' : h.spec,
          id: h.id,
        })),
      ),
      { placeHolder },
    );
    return pick?.id;
  }

  async connect(arg: unknown): Promise<void> {
    const id = this.hostIdOf(arg) ?? (await this.pickHost(false, 'Connect to which host?'));
    if (id) await this.hosts.connect(id);
  }

  async disconnect(arg: unknown): Promise<void> {
    const id = this.hostIdOf(arg) ?? (await this.pickHost(true, 'Disconnect which host?'));
    if (!id) return;
    if (this.searchView.state?.hostId === id) this.searchView.state.cancel?.();
    await this.hosts.disconnect(id);
  }

  async removeHost(arg: unknown): Promise<void> {
    const id = this.hostIdOf(arg);
    const entry = id ? this.hosts.get(id) : undefined;
    if (!entry || entry.source !== 'manual') return;
    const remove = 'Remove';
    if (
      (await vscode.window.showWarningMessage(
        `Remove ${notificationText(entry.label)} from the Hosts view? A saved password is deleted too.`,
        { modal: true },
        remove,
      )) === remove
    ) {
      await this.hosts.removeManual(entry.id);
    }
  }

  async refresh(arg: unknown): Promise<void> {
    const id = this.hostIdOf(arg);
    if (id && this.hosts.session(id)) {
      await this.hosts.discover(id);
      return;
    }
    this.hosts.reload();
    await Promise.all(this.hosts.connected().map((h) => this.hosts.discover(h.id)));
  }

  async showEnvironmentReport(arg: unknown): Promise<void> {
    const picked = await this.pickSession(arg, 'Environment report of which host?');
    if (!picked) return;
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Discovering the environment on ${notificationText(picked.entry.label)}…` },
      // The report asked for by hand includes SGLang's check_env and vLLM's collect_env where they exist.
      () => this.hosts.discover(picked.entry.id, { checkEnv: true }),
    );
    if (!report) {
      void vscode.window.showErrorMessage(
        `Discovery on ${notificationText(picked.entry.label)} failed: ${notificationText(this.hosts.state(picked.entry.id).discoveryError ?? 'unknown error')}`,
      );
      return;
    }
    await this.generated.open(`/${slug(picked.entry.label)}/environment-report.txt`, formatEnvReport(report), 'plaintext');
  }

  // ---- search -------------------------------------------------------------------------------

  async search(arg: unknown): Promise<void> {
    const picked = await this.pickSession(arg, 'Search SGLang or vLLM source on which host?');
    if (!picked) return;
    const { entry, session } = picked;
    if (!session.report && !Array.isArray((arg as { paths?: unknown } | undefined)?.paths)) {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Finding SGLang and vLLM on ${notificationText(entry.label)}…` },
        () => this.hosts.discover(entry.id),
      );
    }
    // Callers (other commands, tests) may name the directories: { hostId, paths: ['/abs/dir'] }.
    const given = (arg as { paths?: unknown } | undefined)?.paths;
    const found = session.sourceDirs();
    let dirs: SourceDir[] =
      Array.isArray(given) && given.every((p) => typeof p === 'string' && p.startsWith('/'))
        ? (given as string[]).map((path) => found.find((d) => d.path === path) ?? { engine: 'sglang', path })
        : found;
    if (dirs.length === 0) {
      const dir = await vscode.window.showInputBox({
        title: `No SGLang installation found on ${notificationText(entry.label)}, nor vLLM`,
        prompt: 'Absolute path of a directory to search instead',
        placeHolder: '/opt/venv/lib/python3.12/site-packages/sglang',
        ignoreFocusOut: true,
        validateInput: (v) => (v.startsWith('/') ? undefined : 'Enter an absolute path'),
      });
      if (!dir) return;
      dirs = [{ engine: 'sglang', path: dir }];
    } else if (dirs.length > 1) {
      const pick = await vscode.window.showQuickPick(
        guardPicks([
          { label: `All ${sourceName(dirs)} installations`, dirs },
          ...dirs.map((d) => ({ label: d.path, description: d.engine === 'vllm' ? 'vLLM' : 'SGLang', dirs: [d] })),
        ]),
        { placeHolder: 'Several installations found: search which?' },
      );
      if (!pick) return;
      dirs = pick.dirs;
    }
    const query = await askQuery(entry.label, sourceName(dirs));
    if (!query) return;
    await this.runSearch(
      entry,
      session,
      dirs.map((d) => d.path),
      query,
    );
  }

  private async runSearch(entry: HostEntry, session: HostSession, paths: string[], q: Query): Promise<void> {
    this.searchView.clear();
    const ac = new AbortController();
    const max = this.ctx.config.get('remote.maxSearchResults');
    const st: SearchState = {
      hostId: entry.id,
      hostLabel: entry.label,
      pattern: q.pattern,
      fixedStrings: q.fixedStrings,
      caseSensitive: q.caseSensitive,
      groups: new SearchResultGroups(paths, max),
      running: true,
      cancel: () => ac.abort('cancelled'),
    };
    this.searchView.start(st);
    void vscode.commands.executeCommand('inferenceDoctor.search.focus');
    let last = 0;
    const run = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Searching "${notificationText(q.pattern)}" on ${notificationText(entry.label)}`,
        cancellable: true,
      },
      async (progress, token) => {
        token.onCancellationRequested(() => ac.abort('cancelled'));
        return session.search({
          pattern: q.pattern,
          fixedStrings: q.fixedStrings,
          caseSensitive: q.caseSensitive,
          wordRegexp: q.wordRegexp,
          paths,
          ...(q.within ? { within: q.within } : {}),
          maxResults: max,
          signal: ac.signal,
          onProgress: (groups) => {
            // A newer search (or Clear) replaced this one: its late batches must not land there.
            if (this.searchView.state !== st) return;
            st.groups = groups;
            const now = Date.now();
            if (now - last > 200) {
              last = now;
              this.searchView.update();
              progress.report({ message: groups.describe() });
            }
          },
        });
      },
    );
    if (this.searchView.state !== st) return;
    st.groups = run.groups;
    st.running = false;
    if (run.error && !run.cancelled) {
      st.error = `Search stopped: ${errorMessage(run.error)}`;
      this.hosts.noteError(entry.id, run.error);
      void vscode.window.showErrorMessage(
        `${notificationText(st.error)} (${run.groups.matchCount} results kept). Run the search again to retry; the host reconnects by itself.`,
      );
    } else if (run.cancelled) st.error = 'Cancelled';
    this.searchView.update();
  }

  cancelSearch(): void {
    this.searchView.state?.cancel?.();
  }
  clearSearch(): void {
    this.searchView.clear();
  }

  // ---- servers on a host --------------------------------------------------------------------

  private forwardRecords(): ForwardRecord[] {
    return this.context.globalState.get<ForwardRecord[]>(FORWARDS_KEY, []);
  }
  private async saveForwardRecords(r: ForwardRecord[]): Promise<void> {
    await this.context.globalState.update(FORWARDS_KEY, r);
  }

  private forwardInfo(hostId: string, key: string): { localPort: number; serverId?: string } | undefined {
    const fwd = this.hosts.session(hostId)?.forwardFor(key);
    if (!fwd) return undefined;
    const rec = this.forwardRecords().find((r) => r.hostId === hostId && r.key === key);
    return { localPort: fwd.localPort, ...(rec ? { serverId: rec.serverId } : {}) };
  }

  async forwardServer(arg: unknown): Promise<void> {
    const s = await this.pickServerOnHost(arg, 'Forward which server?');
    if (!s) return;
    try {
      const fwd = await s.session.forward(s.key, s.server.port, s.server.host);
      const baseUrl = `http://127.0.0.1:${fwd.localPort}`;
      const records = this.forwardRecords();
      const existing = records.find((r) => r.hostId === s.hostId && r.key === s.key && this.servers.store.get(r.serverId));
      let serverId: string;
      if (existing) {
        serverId = existing.serverId;
        if (this.servers.store.get(serverId)?.baseUrl !== baseUrl) await this.servers.store.update(serverId, { baseUrl });
      } else {
        const model = modelName(s.server) ?? 'sglang';
        const added = await this.servers.store.add({ label: `${model} on ${s.entry.label}:${s.server.port}`, baseUrl, hostId: s.hostId });
        serverId = added.id;
        await this.saveForwardRecords([
          ...records.filter((r) => !(r.hostId === s.hostId && r.key === s.key)),
          { serverId, hostId: s.hostId, key: s.key, remotePort: s.server.port, remoteHost: s.server.host },
        ]);
      }
      void this.servers.health.refresh(serverId);
      this.hostsView.refresh(s.hostId);
      void vscode.window.showInformationMessage(
        `${notificationText(s.entry.label)}:${s.server.port} is forwarded to ${notificationText(baseUrl)} and listed in Servers.`,
      );
    } catch (e) {
      this.hosts.noteError(s.hostId, e);
      void vscode.window.showErrorMessage(
        `Could not forward port ${s.server.port} on ${notificationText(s.entry.label)}: ${notificationText(errorMessage(e))}`,
      );
    }
  }

  /** On (re)connect, forward again the servers this host owns and point them at the new local port. */
  private async restoreForwards(entry: HostEntry): Promise<void> {
    const session = this.hosts.session(entry.id);
    if (!session) return;
    for (const r of this.forwardRecords().filter((x) => x.hostId === entry.id)) {
      if (!this.servers.store.get(r.serverId)) continue;
      try {
        const fwd = await session.forward(r.key, r.remotePort, r.remoteHost);
        await this.servers.store.update(r.serverId, { baseUrl: `http://127.0.0.1:${fwd.localPort}` });
        void this.servers.health.refresh(r.serverId);
      } catch (e) {
        this.log.warn(`Could not restore the forward of ${entry.label}:${r.remotePort}: ${errorMessage(e)}`);
      }
    }
    this.hostsView.refresh(entry.id);
  }

  private async dropForwardsOfRemovedServers(): Promise<void> {
    const records = this.forwardRecords();
    const gone = records.filter((r) => !this.servers.store.get(r.serverId));
    if (gone.length === 0) return;
    for (const r of gone) await this.hosts.session(r.hostId)?.closeForward(r.key);
    await this.saveForwardRecords(records.filter((r) => !gone.includes(r)));
    this.hostsView.refresh();
  }

  async openLaunchFile(arg: unknown): Promise<void> {
    const s = await this.pickServerOnHost(arg, 'Open the launch file of which server?');
    if (!s) return;
    try {
      const src = await s.session.launchSource(s.server);
      if (!src) {
        void vscode.window.showWarningMessage(`No launch file found for the server on port ${s.server.port}.`);
        return;
      }
      if (src.kind === 'command-line') {
        await this.generated.open(`/${slug(s.entry.label)}/${slug(s.key)}/command-line.sh`, src.text, 'shellscript');
        return;
      }
      await vscode.window.showTextDocument(remoteUri(s.hostId, src.path), { preview: false });
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not open the launch file: ${notificationText(errorMessage(e))}`);
    }
  }

  async compareServerInfo(arg: unknown): Promise<void> {
    const s = await this.pickServerOnHost(arg, 'Compare /server_info of which server?');
    if (!s) return;
    // Asked in parallel with the port forward and /server_info; falls back to the built-in table.
    const fields = catalogFieldResolver(() => this.ctx.flags.catalogEntries());
    try {
      const result = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Comparing ${notificationText(s.entry.label)}:${s.server.port} with its launch file…`,
          cancellable: true,
        },
        async (_p, token) => {
          const ac = new AbortController();
          token.onCancellationRequested(() => ac.abort());
          const fwd = await s.session.forward(s.key, s.server.port, s.server.host);
          const rec = this.forwardRecords().find((r) => r.hostId === s.hostId && r.key === s.key);
          const apiKey = rec && this.servers.store.get(rec.serverId) ? (await this.servers.store.target(rec.serverId)).apiKey : undefined;
          const { resolver } = await fields;
          return s.session.compareWithLaunch(s.server, `http://127.0.0.1:${fwd.localPort}`, {
            signal: ac.signal,
            ...(apiKey ? { apiKey } : {}),
            ...(resolver ? { fields: resolver } : {}),
          });
        },
      );
      const base = `/${slug(s.entry.label)}/${slug(s.key)}`;
      const left = this.generated.set(`${base}/launch-file.json`, comparisonJson(result.comparison.launchDoc));
      const right = this.generated.set(`${base}/server_info.json`, comparisonJson(result.comparison.serverDoc));
      const from = result.launch.path ?? 'command line';
      await vscode.commands.executeCommand('vscode.diff', left, right, `${from} ↔ /server_info (${s.entry.label}:${s.server.port})`, { preview: false });
      const { source, note } = await fields;
      if (note) this.log.info(`Compare /server_info: flag fields from the ${source} (${note}).`);
      void vscode.window.showInformationMessage(
        `Launch file vs /server_info: ${notificationText(summariseComparison(result.comparison))} (fields from the ${notificationText(source)}).`,
      );
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not compare: ${notificationText(errorMessage(e))}`);
    }
  }

  // ---- logs ---------------------------------------------------------------------------------

  async followLog(arg: unknown): Promise<void> {
    const s = await this.pickServerOnHost(arg, 'Follow the log of which server?');
    if (!s) return;
    let source: LogSource | undefined = await s.session.logSourceFor(s.server).catch(() => undefined);
    if (!source) {
      const path = await vscode.window.showInputBox({
        title: `Log file of the server on ${notificationText(s.entry.label)}:${s.server.port}`,
        prompt: 'The server is not a systemd unit and its output does not go to a file Inference Doctor can see. Absolute path of its log file:',
        placeHolder: '/var/log/sglang.log',
        ignoreFocusOut: true,
        validateInput: (v) => (v.startsWith('/') ? undefined : 'Enter an absolute path'),
      });
      if (!path) return;
      source = { kind: 'file', path };
    }
    const uri = this.logs.uriFor(s.entry.label, source.kind === 'journal' ? source.unit : (source.path.split('/').pop() ?? 'log'));
    const maxLines = this.ctx.config.get('remote.logMaxLines');
    const follower = s.session.followLog(source, {
      maxLines,
      onLines: () => this.logs.touch(uri),
      onAlert: (alert, notify) => {
        if (!notify) return;
        void vscode.window
          .showWarningMessage(
            `${notificationText(s.entry.label)}: ${alert.title} in ${notificationText(describeLogSource(source))}: ${notificationText(alert.line.trim(), { maxLength: 200 })}`,
            'Show',
          )
          .then(async (a) => {
            if (a !== 'Show') return;
            const doc = await vscode.workspace.openTextDocument(uri);
            const buf = follower.buffer;
            const firstKept = buf.lineCount - buf.size + 1;
            const line = Math.max(0, alert.lineNumber - firstKept + (buf.dropped > 0 ? 1 : 0));
            const range = new vscode.Range(line, 0, line, 0);
            await vscode.window.showTextDocument(doc, { selection: range, preview: false });
          });
      },
    });
    const docSource = { text: () => follower.buffer.text(), stop: () => follower.stop() };
    this.logs.add(uri, docSource);
    void follower.done.then((d) => {
      const note = d.reason === 'stopped' ? 'following stopped' : d.reason === 'ended' ? 'the log command ended' : `following failed: ${errorMessage(d.error)}`;
      this.logs.ended(uri, docSource, `${follower.buffer.text()}\n[Inference Doctor] ${note}`);
      if (d.reason === 'error')
        void vscode.window.showWarningMessage(
          `${notificationText(s.entry.label)}: ${notificationText(note)} (${notificationText(describeLogSource(source))}).`,
        );
    });
    let doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== 'sglang-log')
      doc = await vscode.languages.setTextDocumentLanguage(doc, 'sglang-log').then(
        (d) => d,
        () => doc,
      );
    await vscode.window.showTextDocument(doc, { preview: false });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

interface Query {
  pattern: string;
  fixedStrings: boolean;
  caseSensitive: boolean;
  wordRegexp: boolean;
  /** A preset's paths under each engine's directory. */
  within?: Readonly<Record<SourceEngine, readonly string[]>>;
}

/** QuickPick with the backend presets, free text, and regex / case / whole-word toggles. */
function askQuery(hostLabel: string, source: string): Promise<Query | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { preset?: (typeof BACKEND_OPTION_PRESETS)[number] }>();
    const opts = { regex: false, caseSensitive: true, word: false };
    const button = (icon: string, name: string, on: boolean): vscode.QuickInputButton => ({
      iconPath: new vscode.ThemeIcon(icon),
      tooltip: `${name}: ${on ? 'on' : 'off'}`,
    });
    const render = (): void => {
      qp.title = `Search ${source} source on ${notificationText(hostLabel)} — regex ${opts.regex ? 'on' : 'off'}, match case ${opts.caseSensitive ? 'on' : 'off'}, whole word ${opts.word ? 'on' : 'off'}`;
      qp.buttons = [
        button('regex', 'Use Regular Expression', opts.regex),
        button('case-sensitive', 'Match Case', opts.caseSensitive),
        button('whole-word', 'Match Whole Word', opts.word),
      ];
      const typed = qp.value.trim();
      const presets = BACKEND_OPTION_PRESETS.map((p) => ({
        label: p.label,
        description: p.pattern,
        detail: p.fixedStrings ? 'literal' : 'regular expression',
        preset: p,
      }));
      qp.items = typed
        ? [{ label: `Search for "${typed}"`, description: opts.regex ? 'regular expression' : 'literal text', alwaysShow: true }, ...presets]
        : presets;
    };
    qp.placeholder = 'Type text to search for, or pick a preset';
    qp.matchOnDescription = true;
    qp.onDidTriggerButton((b) => {
      const t = typeof b.tooltip === 'string' ? b.tooltip : '';
      if (t.startsWith('Use Regular')) opts.regex = !opts.regex;
      else if (t.startsWith('Match Case')) opts.caseSensitive = !opts.caseSensitive;
      else if (t.startsWith('Match Whole')) opts.word = !opts.word;
      render();
    });
    qp.onDidChangeValue(() => render());
    let done = false;
    qp.onDidAccept(() => {
      const item = qp.selectedItems[0];
      const typed = qp.value.trim();
      if (item?.preset)
        resolve({
          pattern: item.preset.pattern,
          fixedStrings: item.preset.fixedStrings,
          caseSensitive: opts.caseSensitive,
          wordRegexp: opts.word,
          ...(item.preset.within ? { within: item.preset.within } : {}),
        });
      else if (typed) resolve({ pattern: typed, fixedStrings: !opts.regex, caseSensitive: opts.caseSensitive, wordRegexp: opts.word });
      else return;
      done = true;
      qp.hide();
    });
    qp.onDidHide(() => {
      if (!done) resolve(undefined);
      qp.dispose();
    });
    render();
    qp.show();
  });
}

export function createRemoteFeature(ctx: Ctx): RemoteFeature {
  const f = new RemoteFeature(ctx);
  ctx.pushCleanup(f);
  return f;
}
