/**
 * The packaged .vsix in real VS Code (code-server 4.100.3), driven through Debian Chromium:
 * open the sidebar, add the simulator as a server, probe a model that answers "!!!!" + NaN and
 * one that answers well, and read the verdict the probe panel shows.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core';
import { startCodeServer, repoRoot, type RunningCodeServer } from '../../scripts/lib/codeServer';
import { startSimulator } from '../../src/sim/server';

const resultsDir = join(repoRoot, 'test-results');
const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic'];

describe('e2e: Inference Doctor in code-server', function () {
  this.timeout(300_000);
  let sim: { url: string; close(): Promise<void> };
  let codeServer: RunningCodeServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    mkdirSync(resultsDir, { recursive: true });
    sim = await startSimulator({ port: 0, scenario: join(repoRoot, 'test/fixtures/scenarios/e2e.json') });
    const workspace = mkdtempSync(join(tmpdir(), 'id-e2e-ws-'));
    writeFileSync(join(workspace, 'README.md'), '# scratch workspace for the e2e test\n');
    codeServer = await startCodeServer({ workspace, settings: { 'inferenceDoctor.health.intervalSeconds': 0 } });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs, timeout: 60_000 });
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await page.goto(codeServer.url, { timeout: 120_000, waitUntil: 'domcontentloaded' });
    await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  });

  after(async () => {
    if (page) await page.screenshot({ path: join(resultsDir, 'e2e-last.png') }).catch(() => undefined);
    await browser?.close();
    if (codeServer) {
      writeFileSync(join(resultsDir, 'code-server.log'), codeServer.logs());
      copyActivationTiming(codeServer.userDataDir);
      await codeServer.close();
    }
    await sim?.close();
  });

  it('shows the Inference Doctor sidebar with its welcome content', async () => {
    await page.locator('.activitybar a.action-label[aria-label^="Inference Doctor"]').click({ timeout: 60_000 });
    const welcome = page.locator('.welcome-view-content');
    await welcome.waitFor({ timeout: 60_000 });
    assert.match(await welcome.innerText(), /No inference servers yet/);
  });

  it('adds the simulator through the view and shows it in the Servers tree', async () => {
    await page.locator('.welcome-view-content .monaco-button', { hasText: 'Add Server' }).click();
    await answerQuickInput(page, sim.url);
    await answerQuickInput(page, 'simulator');
    await answerQuickInput(page, '');
    // The row's description becomes the served model once the health check has answered.
    const row = page.locator('.monaco-list-row', { hasText: 'simulator' }).filter({ hasText: 'nan-model' });
    await row.waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(resultsDir, 'e2e-servers.png') });
  });

  it('probes a model that answers !!!! and NaN, and the panel says NaN', async () => {
    await page.locator('.monaco-list-row', { hasText: 'simulator' }).click();
    const panel = probeFrame(page);
    await panel.locator('[data-testid="prompt"]').waitFor({ timeout: 60_000 });
    await chooseModel(panel, 'nan-model');
    await setPrompt(panel, 'What is the capital of France?');
    await panel.locator('[data-testid="run"]').click();
    const main = panel.locator('[data-testid="pane-main"]');
    await main.locator('[data-testid="verdict-badge"][data-verdict="nan"]').waitFor({ timeout: 60_000 });
    assert.match(await main.locator('[data-testid="answer"]').innerText(), /^!{8,}/);
    assert.match(await main.locator('[data-testid="reasons"]').innerText(), /NaN/i);
    await page.screenshot({ path: join(resultsDir, 'e2e-probe-nan.png') });
  });

  it('probes a healthy model and the panel says OK', async () => {
    const panel = probeFrame(page);
    await chooseModel(panel, 'healthy-model');
    await setPrompt(panel, 'Write a function that checks whether a number is prime, in Python.');
    await panel.locator('[data-testid="run"]').click();
    const main = panel.locator('[data-testid="pane-main"]');
    await main.locator('[data-testid="verdict-badge"][data-verdict="ok"]').waitFor({ timeout: 60_000 });
    const answer = await main.locator('[data-testid="answer"]').innerText();
    assert.ok(answer.length > 40, `answer too short: ${answer}`);
    assert.doesNotMatch(answer, /!!!!/);
    await page.screenshot({ path: join(resultsDir, 'e2e-probe-ok.png') });
  });

  it('Show Server Info opens the server\'s /server_info as a JSON document', async () => {
    await runCommand(page, 'Inference Doctor: Show Server Info');
    const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
    await page.locator('.tab', { hasText: 'server_info.json' }).waitFor({ timeout: 30_000 });
    await editor.waitFor({ timeout: 30_000 });
    const text = await editor.innerText();
    assert.match(text, /fp4_gemm_runner_backend/);
    assert.match(text, /flashinfer_cutlass/);
  });

  it('Quick Health Probe reports NaN for the NaN model and details each prompt', async () => {
    await runCommand(page, 'Inference Doctor: Quick Health Probe');
    const toast = page.locator('.notification-toast', { hasText: 'NaN' });
    await toast.waitFor({ timeout: 90_000 });
    assert.match(await toast.innerText(), /simulator: NaN/);
    await toast.locator('.monaco-button', { hasText: 'Show Details' }).click();
    const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
    await page.locator('.monaco-editor .view-lines', { hasText: 'Quick Health Probe' }).first().waitFor({ timeout: 30_000 });
    const text = await editor.innerText();
    assert.match(text, /Greeting:\sNaN/);
    assert.match(text, /Counting:\sNaN/);
    await page.screenshot({ path: join(resultsDir, 'e2e-quick-probe.png') });
  });
});

async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: 30_000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 30_000 });
  await input.press('Enter');
}

async function answerQuickInput(page: Page, text: string): Promise<void> {
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: 30_000 });
  await input.fill(text);
  await input.press('Enter');
  // The next input box reuses the widget; wait for the value to be consumed.
  await page.waitForTimeout(300);
}

/** VS Code nests a webview's document two iframes deep. */
function probeFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

async function chooseModel(panel: FrameLocator, model: string): Promise<void> {
  const select = panel.locator('[data-testid="model-select"]');
  await select.waitFor({ timeout: 30_000 });
  await panel.locator(`[data-testid="model-select"] vscode-option[value="${model}"], [data-testid="model-select"] option[value="${model}"]`)
    .first().waitFor({ state: 'attached', timeout: 30_000 });
  await select.evaluate((el, value) => {
    (el as HTMLSelectElement).value = value;
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }, model);
}

async function setPrompt(panel: FrameLocator, text: string): Promise<void> {
  const prompt = panel.locator('[data-testid="prompt"]');
  await prompt.evaluate((el, value) => {
    (el as HTMLTextAreaElement).value = value;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
}

/** The extension writes its activate() timing to its log folder; keep it for `npm run bench`. */
function copyActivationTiming(userDataDir: string): void {
  const logs = join(userDataDir, 'logs');
  if (!existsSync(logs)) return;
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === 'activation.json' && path.includes('inference-doctor')) found.push(path);
    }
  };
  walk(logs);
  if (found.length) writeFileSync(join(resultsDir, 'activation.json'), readFileSync(found[found.length - 1]));
}
