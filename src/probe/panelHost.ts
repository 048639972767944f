/**
 * Wires ProbePanel to the extension's servers feature, settings and global storage. Loaded
 * lazily by ./register.ts (first use of a probe command, or panel restore after reload).
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import { HistoryStore } from '../core/history';
import { runProbe } from '../core/probe/runner';
import { fetchModels } from '../core/probe/server-api';
import type { ServersFeature } from '../servers/register';
import { ProbePanel, type ProbePanelDeps } from './panel';

let history: HistoryStore | undefined;
let deps: ProbePanelDeps | undefined;

/** One HistoryStore per extension host, over globalStorageUri/probe-history. */
function historyStore(context: vscode.ExtensionContext): HistoryStore {
  history ??= new HistoryStore(context.globalStorageUri.fsPath, {
    maxEntries: vscode.workspace.getConfiguration('inferenceDoctor.history').get<number>('maxEntries', 200),
    onCorrupt: (file, error) => console.warn(`Inference Doctor: skipped unreadable probe history file ${file}: ${error.message}`),
  });
  return history;
}

export function panelDeps(context: vscode.ExtensionContext, servers: ServersFeature): ProbePanelDeps {
  deps ??= {
    extensionUri: context.extensionUri,
    listServers: () => servers.store.list().map((s) => ({ id: s.id, label: s.label, baseUrl: s.baseUrl })),
    onDidChangeServers: servers.store.onDidChange,
    resolveTarget: (serverId) => servers.store.target(serverId),
    recordOutcome: (serverId, outcome) => servers.health.recordProbe(serverId, outcome),
    runProbe,
    fetchModels: async (target) => (await fetchModels(target)).map((m) => m.id),
    history: historyStore(context),
    addServer: async () => {
      await vscode.commands.executeCommand(COMMANDS.addServer);
    },
    probeDefaults: () => {
      const config = vscode.workspace.getConfiguration('inferenceDoctor.probe');
      return {
        timeoutMs: config.get<number>('timeoutSeconds', 120) * 1000,
        maxTokens: config.get<number>('maxTokens', 256),
        earlyStop: config.get<boolean>('earlyStop', true),
      };
    },
  };
  return deps;
}

/** "Open Probe Panel", optionally on a server. */
export function showPanel(context: vscode.ExtensionContext, servers: ServersFeature, serverId?: string): void {
  ProbePanel.createOrShow(panelDeps(context, servers), serverId ? { serverId } : {});
}

/** WebviewPanelSerializer: the webview restores its own form from setState. */
export function restorePanel(context: vscode.ExtensionContext, servers: ServersFeature, panel: vscode.WebviewPanel, _state: unknown): void {
  ProbePanel.revive(panel, panelDeps(context, servers));
}

/** "Open Probe History": quick pick, then the entry opens in the panel. */
export function pickHistoryEntry(context: vscode.ExtensionContext, servers: ServersFeature): Promise<void> {
  return ProbePanel.pickHistoryEntry(panelDeps(context, servers));
}
