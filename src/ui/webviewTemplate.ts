/**
 * The HTML shell of the extension's webviews (probe panel, sweep panel), as a pure function (no
 * VS Code API) so the headless Chromium tests render exactly what the panels ship. The page is
 * empty: its script builds the UI with DOM APIs, and every value put into this template is escaped.
 * Only scripts carrying the nonce run, and no inline style or other origin is allowed.
 */
export interface WebviewHtmlInput {
  /** `webview.cspSource`: the origin the webview may load its own resources from. */
  cspSource: string;
  /** Fresh per render; only scripts carrying it run. */
  nonce: string;
  /** URI of the page's script (dist/webview/<name>.js) as the webview sees it. */
  scriptUri: string;
  /** URI of dist/webview/codicons/codicon.css as the webview sees it. */
  codiconsUri: string;
  title: string;
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&#39;');
}

/**
 * A source list may hold host sources and the quoted 'self' keyword (code-server's cspSource is
 * `'self' https://*.vscode-cdn.net`), but nothing that ends the directive or adds a keyword
 * like 'unsafe-inline'.
 */
function assertCspToken(name: string, value: string): void {
  const tokens = value.trim().split(/[ \t]+/);
  const safe = value.trim() !== '' && tokens.every((t) => t === "'self'" || /^[^\s;,'"<>]+$/.test(t));
  if (!safe) throw new Error(`Unsafe ${name} for the webview CSP: ${value}`);
}

export function contentSecurityPolicy({ cspSource, nonce }: Pick<WebviewHtmlInput, 'cspSource' | 'nonce'>): string {
  return [
    `default-src 'none'`,
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
  ].join('; ');
}

export function webviewHtml(input: WebviewHtmlInput): string {
  assertCspToken('cspSource', input.cspSource);
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(input.nonce)) throw new Error('The webview nonce must be 16+ base64 characters');
  const csp = escapeAttr(contentSecurityPolicy(input));
  const nonce = escapeAttr(input.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" id="vscode-codicon-stylesheet" href="${escapeAttr(input.codiconsUri)}" nonce="${nonce}">
<title>${escapeAttr(input.title)}</title>
</head>
<body>
<div id="app" data-testid="app"></div>
<script nonce="${nonce}" src="${escapeAttr(input.scriptUri)}"></script>
</body>
</html>
`;
}
