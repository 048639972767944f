import * as vscode from 'vscode';
import { registerServers } from './servers/register';
import { registerProbe } from './probe/register';
import { registerLanguageClient } from './flags/languageClient';
import { registerFlagsFeature } from './flags/register';
import { registerRemote } from './remote/register';
import { disposeLog } from './log';
import { registerReportDocuments } from './ui/reportDocuments';

const moduleLoadedAt = performance.now();

/**
 * Wires features into VS Code. Everything is registered through context.subscriptions and
 * nothing talks to the network or disk here: stores, views and panels do their work when used.
 */
export function activate(context: vscode.ExtensionContext): void {
  const started = performance.now();
  registerReportDocuments(context);
  const servers = registerServers(context);
  registerProbe(context, servers);
  registerLanguageClient(context);
  registerFlagsFeature(context, servers);
  registerRemote(context, servers);
  recordActivation(context, started);
}

export function deactivate(): void {
  disposeLog();
}

/** Writes activation timing to the log folder after activate() returns, for the benchmark. */
function recordActivation(context: vscode.ExtensionContext, started: number): void {
  const activateMs = performance.now() - started;
  const sinceModuleLoadMs = performance.now() - moduleLoadedAt;
  setTimeout(() => {
    const body = JSON.stringify({ activateMs, sinceModuleLoadMs, at: new Date().toISOString() });
    const dir = context.logUri;
    void Promise.resolve(vscode.workspace.fs.createDirectory(dir))
      .then(() => vscode.workspace.fs.writeFile(vscode.Uri.joinPath(dir, 'activation.json'), Buffer.from(body)))
      .then(undefined, () => undefined);
  }, 0);
}
