/**
 * The probe panels of one extension host: the panel (at most one), its dependencies wired to the
 * context, and the probe history. Loaded lazily by ./register.ts (first use of a probe command,
 * or panel restore after a reload), which keeps the one instance.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { Ctx } from '../context';
import { EvalHistoryStore } from '../core/eval/history';
import { HistoryStore } from '../core/history';
import { runOutcome, OUTCOME_ICON } from '../core/probe/outcome';
import { runWatchedProbe } from '../core/probe/watch';
import { fetchModels } from '../core/probe/server-api';
import { guardPicks } from '../ui/foreignText';
import { ProbePanel, PROBE_VIEW_TYPE, type ProbePanelDeps, type ShowOptions } from './panel';
import { probeWebviewOptions } from './html';

export class ProbePanels {
  private current: ProbePanel | undefined;
  private readonly deps: ProbePanelDeps;
  /** The accuracy smoke tests, listed beside the probes (the eval feature writes them). */
  private readonly evalHistory: EvalHistoryStore;

  constructor(private readonly ctx: Ctx) {
    const { servers, config } = ctx;
    this.deps = {
      extensionUri: ctx.extension.extensionUri,
      listServers: () => servers.store.list().map((s) => ({ id: s.id, label: s.label, baseUrl: s.baseUrl })),
      onDidChangeServers: servers.store.onDidChange,
      resolveTarget: (serverId) => servers.store.target(serverId),
      recordOutcome: (serverId, outcome) => servers.health.recordProbe(serverId, outcome),
      runProbe: runWatchedProbe,
      fetchModels: async (target) => (await fetchModels(target)).map((m) => m.id),
      history: new HistoryStore(ctx.extension.globalStorageUri.fsPath, {
        maxEntries: config.get('history.maxEntries'),
        onCorrupt: (file, error) => ctx.log.warn(`skipped unreadable probe history file ${file}: ${error.message}`),
      }),
      addServer: async () => {
        await ctx.executeCommand(COMMANDS.addServer);
      },
      diagnose: async (serverId, historyId) => {
        await ctx.executeCommand(COMMANDS.diagnoseServer, { serverId, historyId });
      },
      probeDefaults: () => ({
        timeoutMs: config.get('probe.timeoutSeconds') * 1000,
        maxTokens: config.get('probe.maxTokens'),
        earlyStop: config.get('probe.earlyStop'),
      }),
    };
    this.evalHistory = new EvalHistoryStore(ctx.extension.globalStorageUri.fsPath, {
      maxEntries: config.get('history.maxEntries'),
      onCorrupt: (file, error) => ctx.log.warn(`skipped unreadable accuracy test history file ${file}: ${error.message}`),
    });
    ctx.pushCleanup({ dispose: () => this.current?.dispose() });
  }

  /** "Open Probe Panel": shows the panel (creating it when needed), then applies `options`. */
  show(options: ShowOptions = {}): ProbePanel {
    let panel = this.current;
    if (panel) panel.reveal();
    else {
      const webviewPanel = vscode.window.createWebviewPanel(
        PROBE_VIEW_TYPE,
        'Probe',
        { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
        { ...probeWebviewOptions(this.deps.extensionUri), retainContextWhenHidden: false },
      );
      panel = this.adopt(webviewPanel);
    }
    panel.apply(options);
    return panel;
  }

  /** WebviewPanelSerializer: takes over a panel VS Code restored after a reload (the webview restores its form). */
  revive(webviewPanel: vscode.WebviewPanel): void {
    this.current?.dispose();
    this.adopt(webviewPanel);
  }

  /**
   * "Open Probe History": quick pick over the probe history and, beside it, the accuracy smoke
   * tests (newest first); a probe opens in the panel, an accuracy test in its own.
   */
  async pickHistoryEntry(): Promise<void> {
    const [probes, tests] = await Promise.all([this.deps.history.list(), this.evalHistory.list()]);
    if (probes.length === 0 && tests.length === 0) {
      void vscode.window.showInformationMessage('No probes in the history yet. Run one from the Probe panel.');
      return;
    }
    const probeItems = probes.map((entry) => ({
      label: entry.prompt.replace(/\s+/g, ' ').slice(0, 120) || '(empty prompt)',
      ownIcon: OUTCOME_ICON[runOutcome(entry.verdict, entry.status)],
      description: entry.serverLabel,
      detail: `${new Date(entry.startedAt).toLocaleString()} · ${entry.verdict}${entry.status === 'completed' ? '' : ` · ${entry.status}`}`,
      startedAt: entry.startedAt,
      open: () => this.show({ historyId: entry.id }),
    }));
    const testItems = tests.map((entry) => ({
      label: `Accuracy smoke test · ${entry.suite} · ${entry.n} problems${entry.model ? ` · ${entry.model}` : ''}`,
      ownIcon: entry.pass === null ? 'circle-slash' : entry.pass ? 'pass' : 'error',
      description: entry.serverLabel,
      detail: `${new Date(entry.startedAt).toLocaleString()} · ${entry.accuracy === null ? 'nothing graded' : `${(entry.accuracy * 100).toFixed(1)}% right`} · ${entry.pass === null ? entry.status : entry.pass ? 'pass' : 'fail'}`,
      startedAt: entry.startedAt,
      open: () => this.ctx.executeCommand(COMMANDS.runAccuracyTest, { historyId: entry.id }),
    }));
    const picked = await vscode.window.showQuickPick(guardPicks([...probeItems, ...testItems].sort((a, b) => b.startedAt - a.startedAt)), {
      title: 'Open Probe History',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    // The probe panel's showEntry reads the entry (and says so if it went away since the list).
    if (picked) await picked.open();
  }

  private adopt(webviewPanel: vscode.WebviewPanel): ProbePanel {
    const panel: ProbePanel = new ProbePanel(webviewPanel, this.deps, () => {
      if (this.current === panel) this.current = undefined;
    });
    this.current = panel;
    return panel;
  }
}
