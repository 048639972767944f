import * as vscode from 'vscode';
import type { ServerConfig } from '../core/servers';
import { fetchServerInfo } from '../core/probe/server-api';
import type { ServerStore } from './serverStore';
import { notificationText } from '../core/text/foreign';
import { errorMessage } from '../core/errors';

/**
 * Read-only JSON documents with a server's /server_info, e.g.
 * `inference-doctor-info:/my-server/server_info.json?srv-123`. Re-opening fetches again.
 */
export class ServerInfoDocuments implements vscode.TextDocumentContentProvider {
  static readonly scheme = 'inference-doctor-info';
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly store: ServerStore) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '// Run "Inference Doctor: Show Server Info" again to fetch this server\'s /server_info.\n';
  }

  async open(server: ServerConfig): Promise<void> {
    const uri = vscode.Uri.from({
      scheme: ServerInfoDocuments.scheme,
      path: `/${server.label.replace(/[^\w.-]+/g, '_')}/server_info.json`,
      query: server.id,
    });
    const text = await vscode.window
      .withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Fetching /server_info from ${notificationText(server.label)}`, cancellable: true },
        async (_progress, token) => {
          const controller = new AbortController();
          token.onCancellationRequested(() => controller.abort());
          const info = await fetchServerInfo(await this.store.target(server.id), { signal: controller.signal });
          return `${JSON.stringify(info, jsonReplacer, 2)}\n`;
        },
      )
      .then(undefined, (error: unknown) => {
        void vscode.window.showErrorMessage(`Could not read /server_info of ${notificationText(server.label)}: ${notificationText(errorMessage(error))}`);
        return undefined;
      });
    if (text === undefined) return;
    this.contents.set(uri.toString(), text);
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, 'jsonc');
    await vscode.window.showTextDocument(doc, { preview: false });
  }
}

/** Python's encoder can send NaN/Infinity: show them as the literals the server sent. */
function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) return `${String(value)} (non-finite number in the server's JSON)`;
  return value;
}
