/** VS Code side of the probe webview HTML: URIs, nonce and resource roots. */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { probeHtml } from './htmlTemplate';

/** The only folder the webview may load from. */
export function webviewRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
}

export function probeWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, enableCommandUris: false, localResourceRoots: [webviewRoot(extensionUri)] };
}

/** Renders the panel HTML with a fresh nonce. */
export function renderProbeHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const root = webviewRoot(extensionUri);
  return probeHtml({
    cspSource: webview.cspSource,
    nonce: randomBytes(18).toString('base64'),
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'probe.js')).toString(),
    codiconsUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'codicons', 'codicon.css')).toString(),
  });
}
