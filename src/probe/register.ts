import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { ServersFeature } from '../servers/register';
import { pickServer, serverFromArg } from '../servers/pickServer';
import { runQuickProbeCommand } from './quickProbeCommand';

/**
 * Probe commands. The panel module (webview host, history store, runner) is imported on first
 * use so activation stays cheap; the serializer is the only thing registered up front, because
 * VS Code needs it to restore a panel after reload.
 */
export function registerProbe(context: vscode.ExtensionContext, servers: ServersFeature): void {
  let panelModule: Promise<typeof import('./panelHost')> | undefined;
  const loadPanel = () => (panelModule ??= import('./panelHost'));

  context.subscriptions.push(
    vscode.window.registerWebviewPanelSerializer('inferenceDoctor.probe', {
      deserializeWebviewPanel: async (panel, state: unknown) => (await loadPanel()).restorePanel(context, servers, panel, state),
    }),
    vscode.commands.registerCommand(COMMANDS.openProbePanel, async (arg: unknown) => {
      const server = serverFromArg(servers.store, arg);
      (await loadPanel()).showPanel(context, servers, server?.id);
    }),
    vscode.commands.registerCommand(COMMANDS.openProbeHistory, async () => (await loadPanel()).pickHistoryEntry(context, servers)),
    vscode.commands.registerCommand(COMMANDS.quickHealthProbe, async (arg: unknown) => {
      const server = await pickServer(servers.store, arg, 'Run the Quick Health Probe on which server?');
      if (server) await runQuickProbeCommand(servers, server);
    }),
  );
}
