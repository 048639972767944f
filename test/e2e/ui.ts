/**
 * What the e2e tests do in VS Code's UI, shared by the test files: the palette, quick inputs, the
 * Servers view, the probe panel's frame, and hovers over a token in an editor.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core';
import { repoRoot, startCodeServer, type RunningCodeServer } from '../../scripts/lib/codeServer';
import { waitFor } from '../support/wait';

export const resultsDir = join(repoRoot, 'test-results');
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** The Servers view's pane in the Inference Doctor sidebar (Hosts, Search and Backend Flags sit below it). */
/** Debian's Chromium on code-server's workbench, once the workbench has drawn. */
export async function openWorkbench(url: string, viewport = { width: 1600, height: 1000 }): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs, timeout: 60_000 });
  const page = await browser.newPage({ viewport });
  await page.goto(url, { timeout: 120_000, waitUntil: 'domcontentloaded' });
  await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  return { browser, page };
}

/** A failed test leaves a picture of the workbench for the CI artefacts: `<prefix>-<test title>.png`. */
export async function screenshotIfFailed(test: Mocha.Test | undefined, page: Page | undefined, prefix: string): Promise<void> {
  if (test?.state !== 'failed' || !page) return;
  const name = test.title.replace(/[^\w]+/g, '-').slice(0, 60);
  await page.screenshot({ path: join(resultsDir, `${prefix}-${name}.png`) }).catch(() => undefined);
}

/** Keeps code-server's log in the CI artefacts under `logName`, then stops it. */
export async function closeCodeServer(codeServer: RunningCodeServer | undefined, logName: string): Promise<void> {
  if (!codeServer) return;
  writeFileSync(join(resultsDir, logName), codeServer.logs());
  await codeServer.close();
}

/**
 * The hooks of a test file that needs only a workspace folder, code-server on it and the
 * workbench: `fill` writes the folder's files first. A failed test leaves `<name>-failed-….png`,
 * and code-server's log is kept as `code-server-<name>.log`. Read `page` and `workspace` inside tests.
 */
export function useWorkbench(name: string, fill: (workspace: string) => void = () => undefined): { readonly page: Page; readonly workspace: string } {
  let workspace: string | undefined;
  let codeServer: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  before(async () => {
    mkdirSync(resultsDir, { recursive: true });
    workspace = mkdtempSync(join(tmpdir(), `id-e2e-${name}-`));
    fill(workspace);
    codeServer = await startCodeServer({ workspace });
    ({ browser, page } = await openWorkbench(codeServer.url));
  });
  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, page, `e2e-${name}-failed`);
  });
  after(async () => {
    await browser?.close();
    await closeCodeServer(codeServer, `code-server-${name}.log`);
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });
  return {
    get page() {
      if (!page) throw new Error('the workbench is not open yet: read page inside a test');
      return page;
    },
    get workspace() {
      if (!workspace) throw new Error('no workspace yet: read it inside a test');
      return workspace;
    },
  };
}

/** Shows the Inference Doctor sidebar (its activity bar icon). */
export async function showInferenceDoctor(page: Page): Promise<void> {
  await page.locator('.activitybar a.action-label[aria-label^="Inference Doctor"]').click({ timeout: 60_000 });
}

export function serversPane(page: Page) {
  return page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Servers/i }) });
}
/** The Backend Flags view's pane. */
export function flagsPane(page: Page) {
  return page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Backend Flags/i }) });
}
export async function openFile(page: Page, name: string): Promise<void> {
  const input = page.locator('.quick-input-widget input.input');
  const active = page.locator('.tab.active', { hasText: name });
  // Quick Open can close under a notification or an opening editor: retry, bounded, until the
  // file is the active tab (an older tab of the same file does not count).
  for (let attempt = 1; ; attempt++) {
    try {
      // F1 opens the same widget; without the '>' prefix it searches files. (Ctrl+P can reach the
      // browser instead of the workbench when focus is on a notification.)
      if (!(await input.isVisible())) await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill(name, { timeout: 5_000 });
      await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 10_000 });
      await input.press('Enter', { timeout: 5_000 });
      await active.waitFor({ timeout: 10_000 });
      return;
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
}
export async function runCommand(page: Page, title: string): Promise<void> {
  const input = page.locator('.quick-input-widget input.input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  // The palette can be lost while focus moves (an editor opening after a click closes it): open it
  // again and retype, bounded.
  for (let attempt = 1; ; attempt++) {
    try {
      if (!(await input.isVisible())) await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill(`>${title}`, { timeout: 5_000 });
      await row.waitFor({ timeout: attempt < 3 ? 10_000 : 30_000 });
      await input.press('Enter', { timeout: 5_000 });
      return;
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
}
/** Answers one input box, after making sure it is the one with that title (the widget is reused). */
export async function answerQuickInput(page: Page, title: string, text: string, timeout = 30_000): Promise<void> {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ state: 'visible', timeout });
  const input = page.locator('.quick-input-widget input.input');
  await input.fill(text, { timeout });
  await input.press('Enter', { timeout });
}

/**
 * Runs a command that asks with an input box, and answers it. An input box closes when focus moves
 * away while it opens (a document or view that a step before opens late), so the command runs
 * again, bounded, when its box was gone before it could be answered.
 */
export async function runCommandAndAnswer(page: Page, command: string, title: string, text: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await runCommand(page, command);
    try {
      await answerQuickInput(page, title, text, attempt < 3 ? 10_000 : 30_000);
      return;
    } catch (e) {
      if (attempt >= 3) throw e;
      await page.keyboard.press('Escape');
    }
  }
}
/** VS Code nests a webview's document two iframes deep. */
export function probeFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}
export async function chooseModel(panel: FrameLocator, model: string): Promise<void> {
  const select = panel.locator('[data-testid="model-select"]');
  await select.waitFor({ timeout: 30_000 });
  await panel
    .locator(`[data-testid="model-select"] vscode-option[value="${model}"], [data-testid="model-select"] option[value="${model}"]`)
    .first()
    .waitFor({ state: 'attached', timeout: 30_000 });
  await select.evaluate((el, value) => {
    (el as HTMLSelectElement).value = value;
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }, model);
}
/** Selects the server with this label in the panel's server list (its value is the server's id). */
export async function chooseServer(panel: FrameLocator, label: string): Promise<void> {
  const select = panel.locator('[data-testid="server-select"]');
  await select.waitFor({ timeout: 30_000 });
  await select.evaluate((el, text) => {
    const option = [...el.querySelectorAll('vscode-option, option')].find((o) => o.textContent?.trim() === text);
    if (!option) throw new Error(`no server option ${text}`);
    (el as HTMLSelectElement).value = option.getAttribute('value') ?? '';
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }, label);
}
export async function setPrompt(panel: FrameLocator, text: string): Promise<void> {
  const prompt = panel.locator('[data-testid="prompt"]');
  await prompt.evaluate((el, value) => {
    (el as HTMLTextAreaElement).value = value;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
}
/**
 * Runs in the page: the centre of `tok` in a visible editor line, from a DOM Range over its
 * characters (a line's text is split into spans by tokens and by link or diagnostic decorations,
 * differently per language). Kept as source text: the test's compiler would add helpers the page
 * does not have.
 */
export const TOKEN_CENTRE = `(tok) => {
  for (const line of document.querySelectorAll('.monaco-editor .view-lines .view-line')) {
    const nodes = [];
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
    const at = nodes.map((n) => n.data).join('').replace(/\\u00a0/g, ' ').indexOf(tok);
    if (at < 0) continue;
    const locate = (i) => {
      for (const n of nodes) { if (i < n.data.length) return [n, i]; i -= n.data.length; }
      const last = nodes[nodes.length - 1];
      return [last, last.data.length];
    };
    const range = document.createRange();
    range.setStart(...locate(at));
    range.setEnd(...locate(at + tok.length));
    const r = range.getBoundingClientRect();
    if (r.width > 0 && r.left >= 0 && r.right <= window.innerWidth) return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  }
  return null;
}`;

/** Points the mouse at `token` in a visible editor and returns the text of the hover that contains `hoverText`. */
export async function hoverToken(page: Page, token: string, hoverText: string): Promise<string> {
  const point = await waitFor(
    `${token} on screen`,
    async () => (await page.evaluate<{ x: number; y: number } | null>(`(${TOKEN_CENTRE})(${JSON.stringify(token)})`)) ?? undefined,
    30_000,
  );
  await page.mouse.move(point.x, point.y);
  const hover = page.locator('.monaco-hover-content:visible', { hasText: hoverText }).first();
  await hover.waitFor({ timeout: 30_000 });
  return hover.innerText();
}
/** hoverToken, moving away and back up to four times (a server that just started may answer the first hover empty). */
export async function hoverTokenAgain(page: Page, token: string, hoverText: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    await page.mouse.move(5, 500);
    await page.waitForTimeout(500);
    try {
      return await hoverToken(page, token, hoverText);
    } catch (e) {
      if (attempt >= 4) throw e;
    }
  }
}
export async function pickQuickItem(page: Page, text: string, timeout = 30_000): Promise<void> {
  const row = page.locator('.quick-input-list .monaco-list-row:visible', { hasText: text }).first();
  await row.waitFor({ timeout });
  await row.click();
}
/**
 * Runs a command that opens a pick and chooses `item` in it. A view that redraws as the command
 * runs can take focus and close the pick: the command runs again, bounded.
 */
export async function runCommandAndPick(page: Page, title: string, item: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await runCommand(page, title);
    try {
      await pickQuickItem(page, item, attempt < 3 ? 15_000 : 30_000);
      return;
    } catch (e) {
      if (attempt >= 3) throw e;
      await page.keyboard.press('Escape');
    }
  }
}

/**
 * Opens the quick fixes at line:column and chooses the one whose title holds `title`. The menu's
 * pointer block swallows clicks, so the row is chosen with the keyboard.
 */
export async function chooseQuickFix(page: Page, line: number, column: number, title: string): Promise<void> {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: 30_000 });
  await input.fill(`:${line}:${column}`);
  await input.press('Enter');
  const action = page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
  for (let attempt = 0; attempt < 3 && !(await action.isVisible()); attempt++) {
    await page.keyboard.press('Control+.');
    await action.waitFor({ timeout: 15_000 }).catch(() => undefined);
  }
  const focused = page.locator('.action-widget .monaco-list-row.focused');
  for (let i = 0; i < 10 && !(await focused.innerText().catch(() => '')).includes(title); i++) await page.keyboard.press('ArrowDown');
  if (!(await focused.innerText()).includes(title)) throw new Error(`no quick fix "${title}" at ${line}:${column}`);
  await page.keyboard.press('Enter');
}
/**
 * The text of the notification toast that shows `hasText` and matches every pattern in `settledOn`.
 * VS Code re-renders a toast's list when another notification comes or goes, so a toast found by its
 * title can read empty for a moment: poll the toasts' text, bounded, instead of reading it once.
 */
export async function toastText(page: Page, hasText: string | RegExp, settledOn: RegExp[], timeoutMs = 90_000): Promise<string> {
  const toasts = page.locator('.notification-toast', { hasText });
  let seen: string[] = [];
  try {
    return await waitFor(
      `a notification with ${String(hasText)} matching ${settledOn.join(', ')}`,
      async () => {
        seen = await toasts.evaluateAll((els) => els.map((el) => (el as HTMLElement).innerText));
        return seen.find((text) => settledOn.every((re) => re.test(text)));
      },
      timeoutMs,
      100,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; the toasts read: ${JSON.stringify(seen)}`);
  }
}
