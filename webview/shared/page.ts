/**
 * The start of every page-shell panel's script (sweep, diagnose, accuracy test, reference check):
 * the VS Code API, typed by the page's protocol, and the shared and own styles adopted as one
 * constructable stylesheet (allowed by the CSP without an inline <style>).
 */
import baseCss from './page.css';

interface VsCodeApi<ToHost> {
  postMessage(message: ToHost): void;
}
declare function acquireVsCodeApi<ToHost>(): VsCodeApi<ToHost>;

/** Adopts the styles and returns the page's one way to talk to the host. */
export function startPage<ToHost>(ownCss: string): (message: ToHost) => void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(`${baseCss}\n${ownCss}`);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  const vscode = acquireVsCodeApi<ToHost>();
  return (message) => vscode.postMessage(message);
}

/** Calls `onMessage` with each object message the host sends that has a string `type`. */
export function onHostMessage<ToPage extends { type: string }>(onMessage: (message: ToPage) => void): void {
  window.addEventListener('message', (event: MessageEvent<ToPage>) => {
    const m = event.data;
    if (m && typeof m === 'object' && typeof m.type === 'string') onMessage(m);
  });
}
