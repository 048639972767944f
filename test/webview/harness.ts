/**
 * Serves the probe webview outside VS Code: the HTML comes from the same probeHtml() the panel
 * uses, plus a nonce'd stub of acquireVsCodeApi that records posted messages and state.
 * Host messages are sent from the test with window.postMessage.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { probeHtml } from '../../src/probe/htmlTemplate';
import { webviewHtml } from '../../src/ui/webviewTemplate';

export const ROOT = join(__dirname, '..', '..');
export const DIST_WEBVIEW = join(ROOT, 'dist', 'webview');

export function buildWebview(): void {
  execFileSync('node', ['scripts/build.mjs', '--only', 'webview'], { cwd: ROOT, stdio: 'inherit', timeout: 60_000 });
}

/** A dark theme's worth of VS Code variables, so screenshots look like the editor. */
const THEME_CSS = `:root {
  --vscode-font-family: system-ui, 'Segoe UI', Ubuntu, sans-serif; --vscode-font-size: 13px;
  --vscode-editor-font-family: 'DejaVu Sans Mono', monospace; --vscode-editor-font-size: 12px;
  --vscode-foreground: #cccccc; --vscode-editor-background: #1f1f1f; --vscode-descriptionForeground: #9d9d9d;
  --vscode-panel-border: #2b2b2b; --vscode-widget-border: #313131; --vscode-focusBorder: #0078d4;
  --vscode-input-background: #313131; --vscode-input-foreground: #cccccc; --vscode-input-border: #3c3c3c;
  --vscode-button-background: #0078d4; --vscode-button-foreground: #ffffff; --vscode-button-hoverBackground: #026ec1;
  --vscode-button-secondaryBackground: #313131; --vscode-button-secondaryForeground: #cccccc;
  --vscode-dropdown-background: #313131; --vscode-dropdown-border: #3c3c3c; --vscode-dropdown-foreground: #cccccc;
  --vscode-checkbox-background: #313131; --vscode-checkbox-border: #3c3c3c;
  --vscode-textCodeBlock-background: #2b2b2b; --vscode-sideBar-background: #181818;
  --vscode-testing-iconPassed: #73c991; --vscode-editorWarning-foreground: #cca700; --vscode-errorForeground: #f85149;
  --vscode-editor-findMatchHighlightBackground: #9e6a0366; --vscode-list-hoverBackground: #2a2d2e;
  --vscode-inputValidation-errorBackground: #5a1d1d; --vscode-inputValidation-errorBorder: #be1100;
  --vscode-icon-foreground: #cccccc; --vscode-toolbar-hoverBackground: #5a5d5e50;
}`;

const STUB = `
window.__posted = [];
// A test restores a panel by setting __restoreState in an init script.
window.__state = window.__restoreState;
window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__violations.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample });
});
window.acquireVsCodeApi = () => ({
  postMessage: (m) => { window.__posted.push(JSON.parse(JSON.stringify(m))); },
  getState: () => window.__state,
  setState: (s) => { window.__state = JSON.parse(JSON.stringify(s)); },
});
`;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
};

/** The sweep, diagnose, accuracy test and reference check panels ship the same shell with their own bundles: path → [bundle, title]. */
const SHELL_PAGES: Record<string, [string, string]> = {
  '/sweep': ['sweep', 'Inference Doctor: Backend Sweep'],
  '/diagnose': ['diagnose', 'Inference Doctor: Diagnose Server'],
  '/eval': ['eval', 'Inference Doctor: Accuracy Smoke Test'],
  '/compare': ['compare', 'Inference Doctor: Compare with Reference Server'],
};

export interface Harness {
  origin: string;
  server: Server;
  /** Last nonce rendered, for assertions. */
  lastNonce(): string;
  close(): Promise<void>;
}

/**
 * Serves `/` (the shipped probe page), `/nocsp` (same page without the CSP meta, to test the DOM
 * code alone), `/sweep` (the sweep panel's page), `/diagnose` (the Diagnose Server panel's), `/eval`
 * (the Accuracy Smoke Test's) and `/compare` (the reference check's).
 */
export async function startHarness(): Promise<Harness> {
  let nonce = '';
  let origin = '';
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      if (url.pathname === '/' || url.pathname === '/nocsp' || Object.hasOwn(SHELL_PAGES, url.pathname)) {
        nonce = randomBytes(18).toString('base64');
        const page = {
          cspSource: origin,
          nonce,
          scriptUri: `${origin}/webview/probe.js`,
          codiconsUri: `${origin}/webview/codicons/codicon.css`,
        };
        const own = Object.hasOwn(SHELL_PAGES, url.pathname) ? SHELL_PAGES[url.pathname] : undefined;
        let html = own ? webviewHtml({ ...page, scriptUri: `${origin}/webview/${own[0]}.js`, title: own[1] }) : probeHtml(page);
        const stub = `<link rel="stylesheet" href="${origin}/theme.css">\n<script nonce="${nonce}">${STUB}</script>\n`;
        html = html.replace('<title>', `${stub}<title>`);
        if (url.pathname === '/nocsp') html = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '');
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(html);
        return;
      }
      if (url.pathname === '/favicon.ico') {
        res.writeHead(204).end();
        return;
      }
      if (url.pathname === '/theme.css') {
        res.writeHead(200, { 'content-type': 'text/css' });
        res.end(THEME_CSS);
        return;
      }
      if (url.pathname.startsWith('/webview/')) {
        const file = normalize(join(DIST_WEBVIEW, decodeURIComponent(url.pathname.slice('/webview/'.length))));
        if (!file.startsWith(DIST_WEBVIEW + sep)) {
          res.writeHead(403).end();
          return;
        }
        try {
          const body = await fs.readFile(file);
          res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
          res.end(body);
        } catch {
          res.writeHead(404).end();
        }
        return;
      }
      res.writeHead(404).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    server,
    lastNonce: () => nonce,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    timeout: 60_000,
  });
}

/** Page-side problems worth failing on. */
export interface PageWatch {
  consoleErrors: string[];
  dialogs: string[];
  pageErrors: string[];
  requests: string[];
}

export function watchPage(page: Page): PageWatch {
  const watch: PageWatch = { consoleErrors: [], dialogs: [], pageErrors: [], requests: [] };
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') watch.consoleErrors.push(`${msg.type()}: ${msg.text()}`);
  });
  page.on('dialog', (dialog) => {
    watch.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss().catch(() => undefined);
  });
  page.on('pageerror', (error) => watch.pageErrors.push(error.message));
  page.on('request', (request) => watch.requests.push(request.url()));
  return watch;
}

/**
 * tsx compiles test files with esbuild's keepNames, which wraps functions in `__name(...)`;
 * functions handed to page.evaluate carry that call into the page, so define it there.
 */
export async function preparePage(page: Page): Promise<void> {
  await page.addInitScript('window.__name = (fn) => fn;');
}

/** Sends one host message to the webview. */
export async function sendToWebview(page: Page, message: unknown): Promise<void> {
  await page.evaluate((m) => window.postMessage(m, '*'), message);
}

/** What the harness stub records on every page. */
export interface HarnessWindow {
  __posted: { type: string; [key: string]: unknown }[];
  __violations: unknown[];
}

/** The harness and a browser, shared by one describe block's pages. */
export interface WebviewRig {
  harness: Harness;
  browser: Browser;
  close(): Promise<void>;
}

/** Builds the webview bundles, serves them and starts Chromium. */
export async function startRig(): Promise<WebviewRig> {
  buildWebview();
  const harness = await startHarness();
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (error) {
    await harness.close();
    throw error;
  }
  return {
    harness,
    browser,
    close: async () => {
      await browser.close();
      await harness.close();
    },
  };
}

const POSTED_WAIT = { timeout: 20_000 };

/** Resolves once the page has posted a message of this type. */
export async function waitForPosted(page: Page, type: string): Promise<void> {
  await page.waitForFunction((t) => (window as unknown as HarnessWindow).__posted?.some((m) => m.type === t), type, POSTED_WAIT);
}

/** Every message the page has posted so far. */
export function postedMessages(page: Page): Promise<HarnessWindow['__posted']> {
  return page.evaluate(() => (window as unknown as HarnessWindow).__posted);
}

/**
 * A new page at the harness's `path`, watched from the start; `beforeLoad` runs before it loads
 * (init scripts), `waitReady` waits for the page's `ready` message.
 */
export async function openWatchedPage(
  rig: WebviewRig,
  path: string,
  o: { waitReady?: boolean; beforeLoad?: (page: Page) => Promise<unknown> } = {},
): Promise<{ page: Page; watch: PageWatch }> {
  const page = await rig.browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(20_000);
  const watch = watchPage(page);
  await preparePage(page);
  await o.beforeLoad?.(page);
  await page.goto(rig.harness.origin + path, { waitUntil: 'load', timeout: 20_000 });
  if (o.waitReady) await waitForPosted(page, 'ready');
  return { page, watch };
}

/**
 * What every hostile-input page test holds at its end: no dialog, page error, console error or
 * warning, no payload ran (`window[canary]` unset), no CSP violation, no request off the origin.
 */
export async function assertPageClean(page: Page, watch: PageWatch, origin: string, canary: string): Promise<void> {
  assert.deepEqual(watch.dialogs, [], 'no dialog opened');
  assert.deepEqual(watch.pageErrors, [], 'no uncaught page errors');
  assert.deepEqual(watch.consoleErrors, [], 'no console errors or warnings');
  assert.equal(await page.evaluate((c) => (window as unknown as Record<string, unknown>)[c], canary), undefined, 'no payload script ran');
  assert.deepEqual(await page.evaluate(() => (window as unknown as HarnessWindow).__violations), [], 'no CSP violations');
  assert.deepEqual(
    watch.requests.filter((url) => !url.startsWith(origin)),
    [],
    'no request left the page origin',
  );
}

/** The start of each element under #app that matches `selector` (elements a payload may not create). */
export function elementsInApp(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => Array.from(document.getElementById('app')!.querySelectorAll(sel)).map((e) => e.outerHTML.slice(0, 100)), selector);
}
