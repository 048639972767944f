/** The Hosts view: hosts, their connection state, and what discovery found on connected ones. */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import { ccText, archOf } from '../core/gpu/gpus';
import type { EnvWarning, InterpreterReport, RunningServer } from '../core/discovery/index';
import { PACKAGE_LABELS, SERVER_KIND_LABEL } from '../core/discovery/report';
import { serverKey, sourceName } from '../core/remote/session';
import type { HostEntry, HostManager } from './hostManager';
import { guardTreeItem } from '../ui/foreignText';
import { rowCommand } from '../ui/rowCommand';

export type HostsNode =
  | { kind: 'host'; hostId: string }
  | { kind: 'error'; hostId: string; message: string }
  | { kind: 'section'; hostId: string; section: 'env' | 'servers' }
  | { kind: 'search'; hostId: string }
  | { kind: 'info'; hostId: string; label: string; description?: string; icon: string; tooltip?: string; color?: string }
  | { kind: 'interpreter'; hostId: string; index: number }
  | { kind: 'server'; hostId: string; key: string };

const STATE_ICON: Record<string, [string, string | undefined]> = {
  disconnected: ['debug-disconnect', undefined],
  connecting: ['loading~spin', undefined],
  connected: ['vm-active', 'testing.iconPassed'],
  error: ['error', 'testing.iconFailed'],
};

export interface ForwardInfo {
  localPort: number;
  serverId?: string;
}

/** The last segment of the server's model path (`/models/Qwen3-8B/` → `Qwen3-8B`). */
export function modelName(s: RunningServer): string | undefined {
  return s.modelPath?.replace(/\/+$/, '').split('/').pop() || undefined;
}

export class HostsView implements vscode.TreeDataProvider<HostsNode>, vscode.Disposable {
  private readonly hostNodes = new Map<string, HostsNode>();
  private readonly changed = new vscode.EventEmitter<HostsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly hosts: HostManager,
    private readonly forwardOf: (hostId: string, key: string) => ForwardInfo | undefined,
  ) {
    this.subscription = hosts.onDidChange((id) => this.refresh(id));
  }

  refresh(hostId?: string): void {
    this.changed.fire(hostId ? this.hostNodes.get(hostId) : undefined);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  getTreeItem(node: HostsNode): vscode.TreeItem {
    return guardTreeItem(this.itemFor(node));
  }

  private itemFor(node: HostsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'host':
        return this.hostItem(node.hostId);
      case 'error': {
        const item = new vscode.TreeItem(node.message.split('\n')[0].slice(0, 200));
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
        item.tooltip = node.message;
        item.contextValue = 'hostError';
        return item;
      }
      case 'section': {
        const item = new vscode.TreeItem(node.section === 'env' ? 'Environment' : 'Running servers', vscode.TreeItemCollapsibleState.Expanded);
        item.id = `${node.hostId}/${node.section}`;
        item.iconPath = new vscode.ThemeIcon(node.section === 'env' ? 'circuit-board' : 'server-process');
        item.contextValue = node.section === 'env' ? 'hostEnvironment' : 'hostServers';
        const st = this.hosts.state(node.hostId);
        if (st.discovering) item.description = 'discovering…';
        else if (node.section === 'servers' && st.session?.report) item.description = String(st.session.report.servers.length);
        return item;
      }
      case 'search': {
        const what = sourceName(this.hosts.session(node.hostId)?.sourceDirs() ?? []);
        const item = new vscode.TreeItem(`Search ${what} source…`);
        item.iconPath = new vscode.ThemeIcon('search');
        item.contextValue = 'hostSearch';
        // Rows redraw as the host connects and discovers: the command reads the clicked row (rowCommand.ts).
        item.command = rowCommand(COMMANDS.searchClickedHost, `Search ${what} Source on Host`);
        return item;
      }
      case 'info': {
        const item = new vscode.TreeItem(node.label);
        item.description = node.description;
        item.iconPath = new vscode.ThemeIcon(node.icon, node.color ? new vscode.ThemeColor(node.color) : undefined);
        item.tooltip = node.tooltip ?? (node.description ? `${node.label} ${node.description}` : node.label);
        item.contextValue = 'hostInfo';
        return item;
      }
      case 'interpreter': {
        const it = this.hosts.session(node.hostId)?.report?.interpreters[node.index];
        const item = new vscode.TreeItem(it?.path ?? '?', vscode.TreeItemCollapsibleState.Collapsed);
        item.iconPath = new vscode.ThemeIcon('symbol-namespace');
        item.description = it?.error ? 'could not inspect' : enginesText(it);
        item.tooltip = `${it?.path ?? ''}\nFound via: ${it?.sources.join(', ') ?? ''}${it?.alsoAt?.length ? `\nAlso found as: ${it.alsoAt.join(', ')}` : ''}`;
        item.contextValue = 'hostInterpreter';
        return item;
      }
      case 'server':
        return this.serverItem(node);
    }
  }

  private hostItem(hostId: string): vscode.TreeItem {
    const entry = this.hosts.get(hostId);
    const st = this.hosts.state(hostId);
    const hasRows = st.state === 'connected' || !!st.lastError;
    const item = new vscode.TreeItem(entry?.label ?? hostId, hasRows ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = `host/${hostId}`;
    const [icon, color] = STATE_ICON[st.state];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    item.description = [
      st.state === 'connected' ? 'connected' : st.state === 'connecting' ? 'connecting…' : st.state === 'error' ? 'failed' : '',
      entry?.source === 'local' ? 'local' : entry?.source === 'manual' ? 'added' : 'ssh config',
    ]
      .filter(Boolean)
      .join(' · ');
    item.tooltip = `${entry?.label ?? hostId}${entry && entry.source !== 'local' ? ` (${entry.spec})` : ''}\nState: ${st.state}${st.lastError ? `\nLast error: ${st.lastError}` : ''}`;
    item.contextValue = `host.${st.state}${entry?.source === 'manual' ? '.manual' : ''}`;
    return item;
  }

  private serverItem(node: Extract<HostsNode, { kind: 'server' }>): vscode.TreeItem {
    const s = this.findServer(node.hostId, node.key);
    const fwd = this.forwardOf(node.hostId, node.key);
    const who = s?.unit ?? (s?.pid !== undefined ? `pid ${s.pid}` : 'server');
    const item = new vscode.TreeItem(`${who} :${s?.port ?? '?'}`);
    // Which engine, first: the rest of the row (model, forward) reads the same for both.
    const engine = s ? (s.engine === 'vllm' ? 'vLLM' : 'SGLang') : undefined;
    item.iconPath = new vscode.ThemeIcon(fwd ? 'plug' : 'server-process', fwd ? new vscode.ThemeColor('testing.iconPassed') : undefined);
    const model = s && modelName(s);
    item.description = [engine, model, fwd ? `→ 127.0.0.1:${fwd.localPort}` : undefined].filter(Boolean).join(' · ');
    item.tooltip = s
      ? [
          `${SERVER_KIND_LABEL[s.kind]} on ${s.host}:${s.port}${s.portIsDefault ? ' (default port)' : ''}`,
          s.modelPath ? `Model: ${s.modelPath}` : '',
          flagsText(s.argv),
          s.unit ? `systemd unit: ${s.unit}` : '',
          s.pid !== undefined ? `pid ${s.pid}` : '',
          s.interpreter ? `Python: ${s.interpreter}` : '',
          s.env && Object.keys(s.env).length
            ? `Environment: ${Object.entries(s.env)
                .map(([k, v]) => `${k}=${v}`)
                .join(' ')}`
            : '',
          fwd ? `Forwarded to http://127.0.0.1:${fwd.localPort}` : '',
        ]
          .filter(Boolean)
          .join('\n')
      : undefined;
    item.contextValue = fwd ? 'remoteServer.forwarded' : 'remoteServer';
    return item;
  }

  findServer(hostId: string, key: string): RunningServer | undefined {
    return this.hosts.session(hostId)?.report?.servers.find((s) => serverKey(s) === key);
  }

  getChildren(node?: HostsNode): HostsNode[] {
    if (!node) {
      this.hostNodes.clear();
      return this.hosts.list().map((h: HostEntry) => {
        const n: HostsNode = { kind: 'host', hostId: h.id };
        this.hostNodes.set(h.id, n);
        return n;
      });
    }
    const id = node.hostId;
    const st = this.hosts.state(id);
    const report = st.session?.report;
    switch (node.kind) {
      case 'host': {
        const rows: HostsNode[] = [];
        if (st.lastError) rows.push({ kind: 'error', hostId: id, message: st.lastError });
        if (st.state === 'connected')
          rows.push({ kind: 'section', hostId: id, section: 'env' }, { kind: 'section', hostId: id, section: 'servers' }, { kind: 'search', hostId: id });
        return rows;
      }
      case 'section': {
        if (st.discovering && !report) return [{ kind: 'info', hostId: id, label: 'Discovering…', icon: 'loading~spin' }];
        if (st.discoveryError) return [{ kind: 'error', hostId: id, message: `Discovery failed: ${st.discoveryError}` }];
        if (!report) return [{ kind: 'info', hostId: id, label: 'Not discovered yet', icon: 'circle-outline' }];
        if (node.section === 'servers') {
          if (report.servers.length === 0) return [{ kind: 'info', hostId: id, label: 'No SGLang or vLLM server running', icon: 'info' }];
          return report.servers.map((s) => ({ kind: 'server', hostId: id, key: serverKey(s) }));
        }
        return this.envRows(id);
      }
      case 'interpreter':
        return interpreterRows(id, report?.interpreters[node.index]);
      default:
        return [];
    }
  }

  private envRows(id: string): HostsNode[] {
    const report = this.hosts.session(id)?.report;
    if (!report) return [];
    const rows: HostsNode[] = [];
    for (const w of report.warnings) rows.push(warningRow(id, w));
    for (const g of report.gpus) {
      rows.push({
        kind: 'info',
        hostId: id,
        label: `GPU ${g.index}: ${g.name}`,
        icon: 'chip',
        description: g.computeCap ? `${archOf(g.computeCap)} · compute ${ccText(g.computeCap)}` : 'compute capability unknown',
      });
    }
    if (report.gpus.length === 0) rows.push({ kind: 'info', hostId: id, label: 'No NVIDIA GPU found', icon: 'chip' });
    // The driver (and the CUDA version it supports) and the toolkit's compiler are different things:
    // one row each, so a host with only nvcc does not read "Driver nvcc 13.0".
    const driver = [report.driverVersion, report.driverCudaVersion ? `CUDA ${report.driverCudaVersion}` : ''].filter(Boolean).join(' · ');
    if (driver) rows.push({ kind: 'info', hostId: id, label: 'Driver', description: driver, icon: 'info' });
    if (report.nvccVersion) rows.push({ kind: 'info', hostId: id, label: 'CUDA toolkit', description: `nvcc ${report.nvccVersion}`, icon: 'tools' });
    report.interpreters.forEach((_it, index) => rows.push({ kind: 'interpreter', hostId: id, index }));
    return rows;
  }
}

/** The engines an interpreter has, with versions: `sglang 0.5.2 · vllm 0.10.1`, else `no sglang or vllm`. */
function enginesText(it: InterpreterReport | undefined): string {
  const pk = it?.probe?.packages;
  const found = (['sglang', 'vllm'] as const).filter((k) => pk?.[k].found).map((k) => `${k} ${pk?.[k].version ?? '?'}`);
  return found.length ? found.join(' · ') : 'no sglang or vllm';
}

function warningRow(hostId: string, w: EnvWarning): HostsNode {
  const [icon, color] =
    w.severity === 'error'
      ? ['error', 'problemsErrorIcon.foreground']
      : w.severity === 'warning'
        ? ['warning', 'problemsWarningIcon.foreground']
        : ['info', undefined];
  const short = w.message.split(' — ')[0];
  return { kind: 'info', hostId, label: short.length > 120 ? `${short.slice(0, 117)}…` : short, icon, ...(color ? { color } : {}), tooltip: w.message };
}

/** The server's options as written (everything from its first `--flag`), cut for a tooltip. */
function flagsText(argv: string[]): string {
  const at = argv.findIndex((a) => a.startsWith('-') && a !== '-m' && !a.startsWith('-m'));
  const text = at < 0 ? '' : argv.slice(at).join(' ');
  return text ? `Flags: ${text.length > 600 ? `${text.slice(0, 597)}…` : text}` : '';
}

function interpreterRows(hostId: string, it: InterpreterReport | undefined): HostsNode[] {
  if (!it) return [];
  if (it.error || !it.probe) return [{ kind: 'error', hostId, message: it.error ?? 'could not inspect' }];
  const p = it.probe;
  const rows: HostsNode[] = [{ kind: 'info', hostId, label: 'Python', description: p.python.version, icon: 'symbol-misc' }];
  for (const [key, label] of PACKAGE_LABELS) {
    const pkg = p.packages[key];
    // vLLM's row only where it is installed: most SGLang hosts have none, and the reverse.
    if (key === 'vllm' && !pkg.found) continue;
    let description = pkg.found ? (pkg.version ?? '(version unknown)') : 'not installed';
    if (key === 'torch' && p.packages.torch.found && p.packages.torch.imported) {
      description += ` · CUDA ${p.packages.torch.cudaVersion ?? 'none'}`;
    }
    rows.push({
      kind: 'info',
      hostId,
      label,
      description,
      icon: pkg.found ? 'package' : 'circle-slash',
      ...(pkg.path ? { tooltip: `${label} ${description}\n${pkg.path}` } : {}),
    });
  }
  for (const v of it.verdicts) {
    const bad = v.level === 'none';
    const warn = v.level === 'ptx-jit';
    rows.push({
      kind: 'info',
      hostId,
      label: v.message.length > 120 ? `${v.message.slice(0, 117)}…` : v.message,
      tooltip: v.message,
      icon: bad ? 'error' : warn ? 'warning' : 'pass',
      ...(bad ? { color: 'problemsErrorIcon.foreground' } : warn ? { color: 'problemsWarningIcon.foreground' } : {}),
    });
  }
  return rows;
}
