/** VS Code side of the extension's webview pages: their one resource root, options, and HTML with a fresh nonce. */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { webviewHtml } from './webviewTemplate';

/** The only folder a webview may load from. */
export function webviewRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
}

/** Scripts on, command URIs off, resources from dist/webview only. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, enableCommandUris: false, localResourceRoots: [webviewRoot(extensionUri)] };
}

/** The page whose bundle is dist/webview/<script>.js, with a nonce new for this render. */
export function renderWebviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, script: string, title: string): string {
  const root = webviewRoot(extensionUri);
  return webviewHtml({
    cspSource: webview.cspSource,
    nonce: randomBytes(18).toString('base64'),
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(root, `${script}.js`)).toString(),
    codiconsUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'codicons', 'codicon.css')).toString(),
    title,
  });
}
