/**
 * What Diagnose Server reads about one server, found where the extension already knows it: the
 * server itself (/v1/models, /server_info, the Quick Health Probe), its launch file (the one Apply
 * and Verify remembers for it, else the workspace launch file on its port), the log of the
 * supervised name that runs that file, the host's discovery report (the Hosts view's, else one run
 * here for a server on this machine, kept a few minutes), and its latest probe in the history. A
 * server on an SSH host (a Hosts view row, or a forward in the Servers view) brings that host's
 * launch file, log tail and report through the runtime hosts service. Loaded on first use.
 */
import { existsSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { Ctx } from '../context';
import { gatherEvidence, type GatherInputs } from '../core/diagnose/gather';
import { bundledDiagnosisRules, diagnose } from '../core/diagnose/rules';
import { discoverEnv, type EnvReport } from '../core/discovery/index';
import { errorMessage } from '../core/errors';
import { launchServerUrl } from '../core/fix/loop';
import { defaultSupervisorDir, Supervisor } from '../core/fix/supervisor';
import { HistoryStore } from '../core/history';
import { LocalHost } from '../core/hosts/local';
import type { QuickProbeResult } from '../core/probe/quick';
import type { ServerConfig } from '../core/servers';
import { MAX_FINDINGS, type DiagnoseViewState, type GatheredSource } from '../shared/diagnoseProtocol';
import { findWorkspaceLaunchFiles, PROBE_SERVER_KEY } from '../services/launchFiles';
import type { HostServerEvidence, RuntimeHostTarget } from '../services/runtimeHosts';
import { guardPicks } from '../ui/foreignText';

/** What a diagnosis is about. */
export interface DiagnoseSubject {
  label: string;
  /** A registered server (a Servers row, or the forward of a host's server). */
  server?: ServerConfig;
  /** A Hosts view row: the host and the server's key there. */
  host?: { hostId: string; key: string };
  /** The probe that prompted it: a history entry, or a Quick Health Probe's result (then no probe is sent again). */
  historyId?: string;
  quickProbe?: QuickProbeResult;
}

/** The launch file a cause's fix goes to. */
export interface LaunchChoice {
  uri: vscode.Uri;
  label: string;
}

export interface DiagnoseRun {
  state: DiagnoseViewState;
  launch?: LaunchChoice;
  /** The registered server this was about (for Apply and Verify's probe). */
  serverId?: string;
}

/** A discovery report run here is reused this long (the GPU and the installed libraries rarely change). */
const REPORT_TTL_MS = 5 * 60_000;
/** At most this much of a supervised server's log is read (its end, where the latest start is). */
const MAX_LOG_BYTES = 8 * 1024 * 1024;

/** The latest probe in the history counts when it is this recent (unless the diagnosis was asked for from it). */
const RECENT_PROBE_MS = 60 * 60_000;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1', '0.0.0.0']);

function portOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.port || (u.protocol === 'https:' ? '443' : '80');
  } catch {
    return undefined;
  }
}

function isLoopback(url: string): boolean {
  try {
    return LOOPBACK.has(new URL(url).hostname);
  } catch {
    return false;
  }
}

export class EvidenceGatherer {
  private localReport: { report: EnvReport; at: number } | undefined;

  constructor(private readonly ctx: Ctx) {}

  async run(subject: DiagnoseSubject, opts: { signal: AbortSignal; onProgress: (m: string) => void; fresh?: boolean }): Promise<DiagnoseRun> {
    const { ctx } = this;
    const inputs: GatherInputs = { launch: [], logs: [], discovery: [], probes: [] };
    const sources: GatheredSource[] = [];
    const notes: string[] = [];
    let launch: LaunchChoice | undefined;
    let server = subject.server;

    // A server on an SSH host: what that host knows about it.
    let remote: HostServerEvidence | undefined;
    const hostId = subject.host?.hostId ?? server?.hostId;
    const target = hostId ? ctx.hosts.connected().find((h) => h.id === hostId) : undefined;
    if (hostId && !target) notes.push(`The host ${hostId} is not connected: connect it in the Hosts view for its GPU, packages, launch file and log.`);
    if (target?.serverEvidence) {
      opts.onProgress(`Asking ${target.label} about the server`);
      const ref = subject.host ? { key: subject.host.key } : { serverId: server?.id ?? '' };
      remote = await target.serverEvidence(ref, opts.signal).catch((e: unknown) => {
        notes.push(`${target.label}: ${errorMessage(e)}`);
        return undefined;
      });
      if (remote) {
        notes.push(...remote.notes);
        if (!server && remote.serverId) server = ctx.servers.store.get(remote.serverId);
      }
    }

    // The server: its API and a quick probe (unless the probe that prompted this is given).
    const baseUrl = server?.baseUrl ?? remote?.baseUrl;
    if (server || baseUrl) {
      const t = server ? await ctx.servers.store.target(server.id) : { baseUrl: baseUrl as string };
      const model = server ? ctx.servers.health.status(server.id).models?.[0] : undefined;
      inputs.server = { target: t, ...(model ? { model } : {}), probe: !subject.quickProbe };
      sources.push({
        kind: 'server',
        label: `${server?.label ?? subject.label} (${t.baseUrl}): /v1/models, /server_info${subject.quickProbe ? '' : ', Quick Health Probe'}`,
      });
    } else notes.push('The server is not reachable from here (no port forward): only what the host says is judged.');

    // The launch file and the log.
    if (remote?.launch) {
      inputs.launch?.push({ text: remote.launch.text, fileName: remote.launch.fileName });
      sources.push({ kind: 'launch', label: remote.launch.fileName });
      if (remote.launch.uri) launch = { uri: vscode.Uri.parse(remote.launch.uri), label: remote.launch.fileName };
    } else if (server && !hostId) {
      opts.onProgress('Finding the launch file');
      const found = await this.launchFileFor(server);
      if (found) {
        launch = { uri: found.uri, label: vscode.workspace.asRelativePath(found.uri) };
        inputs.launch?.push({ text: found.text, fileName: launch.label });
        sources.push({ kind: 'launch', label: launch.label });
        const log = await this.supervisedLog(found.uri).catch(() => undefined);
        if (log) {
          inputs.logs?.push({ lines: log.lines, label: log.label, head: log.head });
          sources.push({ kind: 'log', label: log.label });
        }
      } else notes.push('No launch file in the workspace starts this server (none on its port, none chosen for it in Apply to Server).');
    }
    if (remote?.log) {
      inputs.logs?.push({ lines: remote.log.text.split('\n'), label: remote.log.label, head: remote.log.text.slice(0, 64 * 1024) });
      sources.push({ kind: 'log', label: remote.log.label });
    }

    // The host's environment.
    const report = remote?.report ?? target?.report?.() ?? (!hostId && baseUrl && isLoopback(baseUrl) ? await this.thisMachine(opts, notes) : undefined);
    if (report) {
      inputs.discovery?.push(report);
      sources.push({ kind: 'discovery', label: `discovery on ${target?.label ?? report.host ?? 'this machine'}` });
    } else if (!hostId && baseUrl && !isLoopback(baseUrl))
      notes.push('The server is on another machine: add that host in the Hosts view (and forward the server from there) for its GPU and libraries.');

    // The probe that prompted this, else the latest in the history.
    if (subject.quickProbe) {
      inputs.probes?.push(subject.quickProbe);
      sources.push({ kind: 'probe', label: 'the Quick Health Probe just run' });
    }
    const entry = await this.historyEntry(server?.id, subject.historyId).catch(() => undefined);
    if (entry) {
      inputs.probes?.push(entry.result);
      sources.push({ kind: 'probe', label: `probe history: ${entry.result.verdict.kind} at ${new Date(entry.startedAt).toLocaleString()}` });
    }

    const { evidence, notes: gatherNotes } = await gatherEvidence(inputs, { signal: opts.signal, onProgress: opts.onProgress });
    const { rules, errors } = bundledDiagnosisRules();
    for (const e of errors) ctx.log.warn(`diagnosis rule ${e.rule ?? ''} in ${e.source} ignored: ${e.message}`);
    const d = diagnose(evidence, { rules, limit: MAX_FINDINGS });
    const state: DiagnoseViewState = {
      serverLabel: server?.label ?? (remote && target ? `port ${remote.port} on ${target.label}` : subject.label),
      phase: 'done',
      at: Date.now(),
      sources,
      notes: [...notes, ...gatherNotes],
      symptoms: d.symptoms,
      findings: d.findings,
      rulesJudged: d.rulesJudged,
      ...(d.nextCheck ? { nextCheck: d.nextCheck } : {}),
      ...(launch ? { launchLabel: launch.label } : {}),
    };
    return { state, ...(launch ? { launch } : {}), ...(server ? { serverId: server.id } : {}) };
  }

  /** The launch file Apply to Server remembers for this server, else the only workspace launch file on its port, else the user's pick among them. */
  private async launchFileFor(server: ServerConfig): Promise<{ uri: vscode.Uri; text: string } | undefined> {
    const files = await findWorkspaceLaunchFiles();
    const state = this.ctx.extension.workspaceState;
    const remembered = files.filter((f) => state.get<string>(PROBE_SERVER_KEY + f.uri.toString()) === server.id);
    if (remembered.length === 1) return remembered[0];
    const port = portOf(server.baseUrl);
    const onPort = isLoopback(server.baseUrl)
      ? files.filter((f) => {
          try {
            return portOf(launchServerUrl(f.text, f.uri.path)) === port;
          } catch {
            return false;
          }
        })
      : [];
    const candidates = remembered.length ? remembered : onPort;
    if (candidates.length <= 1) return candidates[0];
    const picked = await vscode.window.showQuickPick(
      guardPicks(candidates.map((f) => ({ label: vscode.workspace.asRelativePath(f.uri), description: 'starts a server on this port', f }))),
      { title: `Diagnose ${server.label}: which launch file starts it?`, ignoreFocusOut: true },
    );
    return picked?.f;
  }

  /**
   * The log of the supervised name (inference-doctor supervise) that runs this launch file. Every
   * restart appends to it: only the latest start counts, from its last `server_args=` dump.
   */
  private async supervisedLog(uri: vscode.Uri): Promise<{ lines: string[]; label: string; head: string } | undefined> {
    if (uri.scheme !== 'file') return undefined;
    const dir = this.ctx.config.text('fix.superviseStateDir') ?? defaultSupervisorDir();
    if (!existsSync(dir)) return undefined;
    const sup = new Supervisor(dir);
    const name = readdirSync(dir).find((n) => existsSync(join(dir, n, 'command.json')) && sup.status(n).command?.argv.includes(uri.fsPath));
    if (!name) return undefined;
    const fh = await open(sup.status(name).logFile, 'r');
    let text: string;
    try {
      const size = (await fh.stat()).size;
      const length = Math.min(size, MAX_LOG_BYTES);
      const buf = Buffer.alloc(length);
      const { bytesRead } = await fh.read(buf, 0, length, size - length);
      text = buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await fh.close();
    }
    const dump = text.lastIndexOf('server_args=ServerArgs(');
    const from = dump < 0 ? 0 : text.lastIndexOf('\n', dump) + 1;
    const latest = text.slice(from);
    return { lines: latest.split('\n'), label: `log of "${name}" (supervise)`, head: latest.slice(0, 64 * 1024) };
  }

  /** This machine's discovery report: the Hosts view's when it has one, else one run here (reused for a few minutes). */
  private async thisMachine(opts: { signal: AbortSignal; onProgress: (m: string) => void; fresh?: boolean }, notes: string[]): Promise<EnvReport | undefined> {
    const local: RuntimeHostTarget | undefined = this.ctx.hosts.connected().find((h) => h.local);
    const cached = local?.report?.();
    if (cached && !opts.fresh) return cached;
    if (this.localReport && !opts.fresh && Date.now() - this.localReport.at < REPORT_TTL_MS) return this.localReport.report;
    opts.onProgress('Inspecting this machine (GPU, drivers, packages, kernel architectures)');
    // VS Code's PATH may lack the nvidia-smi the setting names.
    const smi = this.ctx.config.text('gpu.nvidiaSmiPath');
    const env = smi ? { PATH: [dirname(smi), process.env.PATH ?? '/usr/bin:/bin'].join(delimiter) } : undefined;
    const paths = this.ctx.config.get('remote.pythonPaths');
    try {
      const report = await discoverEnv(new LocalHost(), {
        torch: 'no',
        signal: opts.signal,
        ...(env ? { env } : {}),
        ...(Array.isArray(paths) && paths.length ? { pythonPaths: paths.filter((p) => typeof p === 'string' && p.startsWith('/')) } : {}),
      });
      this.localReport = { report, at: Date.now() };
      return report;
    } catch (e) {
      if (opts.signal.aborted) throw e;
      notes.push(`discovery on this machine: ${errorMessage(e)}`);
      return undefined;
    }
  }

  /** The history entry asked for, else this server's latest probe. */
  private async historyEntry(serverId: string | undefined, historyId: string | undefined) {
    const history = new HistoryStore(this.ctx.extension.globalStorageUri.fsPath, {
      maxEntries: this.ctx.config.get('history.maxEntries'),
      onCorrupt: () => undefined,
    });
    if (historyId) return history.get(historyId);
    if (!serverId) return undefined;
    const label = this.ctx.servers.store.get(serverId)?.label;
    // An older probe may predate a fix: only a recent one speaks for the server as it is.
    const recent = (await history.list()).filter((x) => x.serverLabel === label && Date.now() - x.startedAt < RECENT_PROBE_MS);
    for (const s of recent.slice(0, 10)) {
      const entry = await history.get(s.id);
      if (entry?.serverId === serverId) return entry;
    }
    return undefined;
  }
}
