/**
 * The servers feature: the Servers view, its commands and the /server_info documents. The store
 * and health monitor are the servers service on the context (servers/service.ts).
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { Ctx, ServersService } from '../context';
import { normaliseBaseUrl, type ServerConfig } from '../core/servers';
import type { HealthMonitor } from './healthMonitor';
import type { ServerStore } from './serverStore';
import { ServersView } from './serversView';
import { ServerInfoDocuments } from './serverInfoDocuments';
import { notificationText } from '../core/text/foreign';
import { errorMessage } from '../core/errors';
import { clickedRow } from '../ui/rowCommand';
import { TryoutSimulator } from './tryoutSimulator';

export function register(ctx: Ctx): void {
  const { store, health } = ctx.servers;
  const view = new ServersView(store, health);
  const infoDocs = new ServerInfoDocuments(store);
  const treeView = vscode.window.createTreeView('inferenceDoctor.servers', { treeDataProvider: view, showCollapseAll: true });
  // Health checks start when the view is first shown, not at activation.
  const startChecks = treeView.onDidChangeVisibility((e) => {
    if (e.visible) {
      health.start();
      startChecks.dispose();
    }
  });
  if (treeView.visible) health.start();

  const tryout = new TryoutSimulator(store, health);
  ctx.pushCleanup(view, treeView, startChecks, vscode.workspace.registerTextDocumentContentProvider(ServerInfoDocuments.scheme, infoDocs), tryout);
  const servers = ctx.servers;
  ctx.registerCommand(COMMANDS.addServer, () => addServer(store, health));
  ctx.registerCommand(COMMANDS.editServer, (arg) => editServer(servers, arg));
  ctx.registerCommand(COMMANDS.removeServer, (arg) => removeServer(servers, arg, tryout));
  ctx.registerCommand(COMMANDS.trySimulator, () => trySimulator(ctx, tryout));
  ctx.registerCommand(COMMANDS.stopSimulator, () => stopSimulator(tryout));
  ctx.registerCommand(COMMANDS.setApiKey, (arg) => setApiKey(servers, arg));
  ctx.registerCommand(COMMANDS.refreshServers, () => health.refresh());
  // The probe panel takes the row itself, a server or one of its details (serverFromArg).
  ctx.registerCommand(COMMANDS.openClickedServer, () => ctx.executeCommand(COMMANDS.openProbePanel, clickedRow(treeView)));
  ctx.registerCommand(COMMANDS.showServerInfo, async (arg) => {
    const server = await servers.pick(arg, 'Show /server_info of which server?');
    if (server) await infoDocs.open(server);
  });
}

function validateUrl(value: string): string | undefined {
  if (!value.trim()) return 'Enter the server URL, for example http://127.0.0.1:30000';
  try {
    normaliseBaseUrl(value);
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

async function addServer(store: ServerStore, health: HealthMonitor): Promise<void> {
  const url = await vscode.window.showInputBox({
    title: 'Add Server (1/3): URL',
    prompt: 'Base URL of an SGLang or other OpenAI-compatible server',
    placeHolder: 'http://127.0.0.1:30000',
    ignoreFocusOut: true,
    validateInput: validateUrl,
  });
  if (url === undefined) return;
  const baseUrl = normaliseBaseUrl(url);
  const label = await vscode.window.showInputBox({
    title: 'Add Server (2/3): name',
    prompt: 'A name for the Servers view',
    value: new URL(baseUrl).host,
    ignoreFocusOut: true,
  });
  if (label === undefined) return;
  const apiKey = await vscode.window.showInputBox({
    title: 'Add Server (3/3): API key',
    prompt: 'The --api-key the server was started with; leave empty if none. Kept in VS Code secret storage.',
    password: true,
    ignoreFocusOut: true,
  });
  if (apiKey === undefined) return;
  const server = await store.add({ label, baseUrl, apiKey });
  void health.refresh(server.id);
}

/** Starts the tryout simulator (or finds the running one) and opens the probe panel on it. */
async function trySimulator(ctx: Ctx, tryout: TryoutSimulator): Promise<void> {
  let server: ServerConfig;
  try {
    server = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Starting the SGLang simulator on this machine…' }, () =>
      tryout.start(),
    );
  } catch (error) {
    void vscode.window.showErrorMessage(`The simulator did not start: ${errorMessage(error)}`);
    return;
  }
  // Stopped while it started: nothing to open.
  if (!ctx.servers.store.get(server.id)) return;
  await ctx.executeCommand(COMMANDS.openProbePanel, server.id);
  void vscode.window.showInformationMessage(
    `${server.label} runs at ${server.baseUrl}. Pick a model in the probe panel: "healthy" answers well, each "broken-…" one fails the way real servers do. Stop Simulator ends it.`,
  );
}

async function stopSimulator(tryout: TryoutSimulator): Promise<void> {
  if (!(await tryout.stop())) void vscode.window.showInformationMessage('No simulator runs in this window.');
}

async function editServer({ store, health, pick }: ServersService, arg: unknown): Promise<void> {
  const server = await pick(arg, 'Edit which server?');
  if (!server || (await explainSettingsServer(store, server.id)) || explainSessionServer(store, server.id)) return;
  const url = await vscode.window.showInputBox({
    title: `Edit ${notificationText(server.label)}: URL`,
    value: server.baseUrl,
    validateInput: validateUrl,
    ignoreFocusOut: true,
  });
  if (url === undefined) return;
  const label = await vscode.window.showInputBox({ title: `Edit ${notificationText(server.label)}: name`, value: server.label, ignoreFocusOut: true });
  if (label === undefined) return;
  await store.update(server.id, { baseUrl: url, label });
  void health.refresh(server.id);
}

async function removeServer({ store, pick }: ServersService, arg: unknown, tryout: TryoutSimulator): Promise<void> {
  const server = await pick(arg, 'Remove which server?');
  if (!server || (await explainSettingsServer(store, server.id))) return;
  // The window's own simulator: removing it is stopping it (nothing of it is saved).
  if (store.isSession(server.id)) {
    await tryout.stop();
    return;
  }
  const remove = 'Remove';
  const answer = await vscode.window.showWarningMessage(
    `Remove ${notificationText(server.label)} (${notificationText(server.baseUrl)})? Its saved API key is deleted too; probe history stays.`,
    { modal: true },
    remove,
  );
  if (answer === remove) await store.remove(server.id);
}

async function setApiKey({ store, health, pick }: ServersService, arg: unknown): Promise<void> {
  const server = await pick(arg, 'Set the API key of which server?');
  if (!server || explainSessionServer(store, server.id)) return;
  const apiKey = await vscode.window.showInputBox({
    title: `API key for ${server.label}`,
    prompt: 'Leave empty to remove the saved key.',
    password: true,
    ignoreFocusOut: true,
  });
  if (apiKey === undefined) return;
  await store.setApiKey(server.id, apiKey || undefined);
  void health.refresh(server.id);
}

/** The window's own simulator has no URL, name or key to change; says so. */
function explainSessionServer(store: ServerStore, id: string): boolean {
  if (!store.isSession(id)) return false;
  void vscode.window.showInformationMessage(
    'This window runs that simulator itself, at a port it picked, with no API key: nothing to set. Stop Simulator ends it.',
  );
  return true;
}

/** Servers from settings are edited in settings; says so and offers to open them. */
async function explainSettingsServer(store: ServerStore, id: string): Promise<boolean> {
  if (!store.isFromSettings(id)) return false;
  const open = 'Open Settings';
  const answer = await vscode.window.showInformationMessage('This server is defined in the "inferenceDoctor.servers" setting. Change it there.', open);
  if (answer === open) await vscode.commands.executeCommand('workbench.action.openSettings', 'inferenceDoctor.servers');
  return true;
}
