import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { HealthState, ServerConfig, ServerStatus } from '../core/servers';
import type { ServerStore } from './serverStore';
import type { HealthMonitor } from './healthMonitor';
import { codeSpan, escapeMarkdown } from '../core/text/foreign';
import { guardTreeItem } from '../ui/foreignText';
import { rowCommand } from '../ui/rowCommand';
import { OUTCOME_ICON, OUTCOME_LABEL, type RunOutcome } from '../core/probe/outcome';

/** A row in the Servers view: a server, or one fact about it. */
export type ServersNode =
  { kind: 'server'; server: ServerConfig } | { kind: 'detail'; serverId: string; label: string; description?: string; icon: string; tooltip?: string };

const HEALTH_ICON: Record<HealthState, [string, string | undefined]> = {
  unknown: ['circle-outline', undefined],
  checking: ['loading~spin', undefined],
  healthy: ['circle-filled', 'testing.iconPassed'],
  unhealthy: ['circle-filled', 'testing.iconFailed'],
  unreachable: ['circle-slash', 'testing.iconFailed'],
};

/** The outcomes of a last probe that mark the row (their icon in this colour); an OK one leaves the health icon. */
const PROBE_MARK_COLOR: Partial<Record<RunOutcome, string>> = {
  nan: 'testing.iconFailed',
  degenerate: 'problemsWarningIcon.foreground',
  failed: 'testing.iconFailed',
};

export class ServersView implements vscode.TreeDataProvider<ServersNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ServersNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];
  /** Node objects are kept per server so a health change refreshes just that row. */
  private readonly serverNodes = new Map<string, Extract<ServersNode, { kind: 'server' }>>();

  constructor(
    private readonly store: ServerStore,
    private readonly health: HealthMonitor,
  ) {
    this.subscriptions = [store.onDidChange(() => this.changed.fire(undefined)), health.onDidChange((id) => this.changed.fire(this.serverNodes.get(id)))];
  }

  getTreeItem(node: ServersNode): vscode.TreeItem {
    return guardTreeItem(this.itemFor(node));
  }

  private itemFor(node: ServersNode): vscode.TreeItem {
    if (node.kind === 'detail') {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
      item.description = node.description;
      item.iconPath = new vscode.ThemeIcon(node.icon);
      item.tooltip = node.tooltip;
      item.contextValue = 'serverDetail';
      return item;
    }
    const { server } = node;
    const status = this.health.status(server.id);
    const item = new vscode.TreeItem(server.label, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = server.id;
    const outcome = status.lastProbe?.outcome;
    const mark = outcome && PROBE_MARK_COLOR[outcome];
    const model = status.models?.[0] ?? server.baseUrl;
    item.description = outcome && mark ? `${OUTCOME_LABEL[outcome]} · ${model}` : model;
    // A bad last probe outranks /health: a server that answers NaN is not "healthy".
    const [icon, color] = outcome && mark ? [OUTCOME_ICON[outcome], mark] : HEALTH_ICON[status.health];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    item.tooltip = new vscode.MarkdownString(
      [
        `**${escapeMarkdown(server.label)}**`,
        '',
        codeSpan(server.baseUrl),
        '',
        `Health: ${status.health}`,
        status.lastProbe ? `\n\nLast probe: ${OUTCOME_LABEL[status.lastProbe.outcome]} (${new Date(status.lastProbe.at).toLocaleTimeString()})` : '',
        status.lastError ? `\n\n${escapeMarkdown(status.lastError, { maxLength: 500 })}` : '',
      ].join('\n'),
    );
    // The window's simulator: probe it like any server, but Stop it instead of editing or removing it.
    item.contextValue = this.store.isSession(server.id) ? 'sessionServer' : 'server';
    // The health monitor redraws rows as checks finish: the command reads the clicked row (rowCommand.ts).
    item.command = rowCommand(COMMANDS.openClickedServer, 'Open Probe Panel');
    return item;
  }

  getChildren(node?: ServersNode): ServersNode[] {
    if (!node) {
      const servers = this.store.list();
      this.serverNodes.clear();
      return servers.map((server) => {
        const serverNode = { kind: 'server', server } as const;
        this.serverNodes.set(server.id, serverNode);
        return serverNode;
      });
    }
    if (node.kind !== 'server') return [];
    return detailsOf(node.server, this.health.status(node.server.id));
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}

function detailsOf(server: ServerConfig, status: ServerStatus): ServersNode[] {
  const serverId = server.id;
  const rows: ServersNode[] = [
    { kind: 'detail', serverId, label: 'URL', description: server.baseUrl, icon: 'link' },
    { kind: 'detail', serverId, label: '/health', description: status.health, icon: 'pulse' },
  ];
  if (status.generateHealth) {
    rows.push({
      kind: 'detail',
      serverId,
      label: '/health_generate',
      description: status.generateHealth,
      icon: 'beaker',
      tooltip: 'A one-token generation. A server that answers NaN can still pass it: run a probe.',
    });
  }
  for (const model of status.models ?? []) rows.push({ kind: 'detail', serverId, label: 'Model', description: model, icon: 'symbol-class' });
  if (status.version) rows.push({ kind: 'detail', serverId, label: 'Version', description: status.version, icon: 'versions' });
  for (const [field, value] of Object.entries(status.backends ?? {})) {
    rows.push({ kind: 'detail', serverId, label: field, description: value, icon: 'settings-gear' });
  }
  if (status.lastProbe) {
    rows.push({ kind: 'detail', serverId, label: 'Last probe', description: OUTCOME_LABEL[status.lastProbe.outcome], icon: 'beaker' });
  }
  if (status.lastError) rows.push({ kind: 'detail', serverId, label: 'Last error', description: status.lastError, icon: 'warning', tooltip: status.lastError });
  return rows;
}
