/** VS Code side of the probe webview HTML: the shared webview page (src/ui/webviewHtml.ts) with the probe bundle. */
import type * as vscode from 'vscode';
import { renderWebviewHtml, webviewOptions } from '../ui/webviewHtml';
import { PROBE_TITLE } from './htmlTemplate';

export function probeWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return webviewOptions(extensionUri);
}

/** Renders the panel HTML with a fresh nonce. */
export function renderProbeHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  return renderWebviewHtml(webview, extensionUri, 'probe', PROBE_TITLE);
}
