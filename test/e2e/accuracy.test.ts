/**
 * Fluent but wrong, in VS Code: the packaged extension in code-server runs the Accuracy Smoke Test
 * from the Servers view on a simulated model that answers in good sentences and slips on 40% of
 * the problems (the NaN detector passes every answer), and sees it fail; then Compare with
 * Reference Server… tells a drifting server (late splits, close logprobs) from a reference.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { repoRoot, startCodeServer, type RunningCodeServer } from '../../scripts/lib/codeServer';
import { makeBaseline } from '../../src/core/eval/baseline';
import { summarise } from '../../src/core/eval/report';
import { runEval } from '../../src/core/eval/run';
import { startSimulator, type RunningSimulator } from '../../src/sim/server';
import { waitFor } from '../support/wait';
import {
  closeCodeServer,
  openWorkbench,
  pickQuickItem,
  probeFrame,
  resultsDir,
  runCommand,
  screenshotIfFailed,
  serversPane,
  showInferenceDoctor,
  toastText,
} from './ui';

/**
 * code-server's open and save dialogs are a quick input holding a path. It fills in its starting
 * folder (or the default name) a moment after it shows: wait for that, so it does not overwrite
 * the path typed over it.
 */
async function answerFileDialog(page: Page, path: string, opener: Locator): Promise<void> {
  const input = page.locator('.quick-input-widget input.input');
  await opener.click();
  // A click that lands while the page re-renders its toolbar can be lost: click once more if no dialog came.
  if (
    !(await input.waitFor({ state: 'visible', timeout: 15_000 }).then(
      () => true,
      () => false,
    ))
  )
    await opener.click();
  await input.waitFor({ state: 'visible', timeout: 30_000 });
  // It may fill in twice (a folder, then another): wait until the value holds still, then type over
  // it, and type again if the dialog still changed it after that.
  let last = '';
  await waitFor(
    'the dialog to settle on its path',
    async () => {
      const value = await input.inputValue();
      const settled = value.startsWith('/') && value === last;
      last = value;
      return settled;
    },
    10_000,
    400,
  );
  for (let i = 0; i < 3 && (await input.inputValue()) !== path; i++) {
    await input.fill(path);
    await page.waitForTimeout(400);
  }
  await waitFor('the typed path', async () => (await input.inputValue()) === path, 10_000);
  await input.press('Enter');
}

const scenario = (name: string): string => join(repoRoot, 'test/fixtures/scenarios', `${name}.json`);

describe('e2e: the accuracy smoke test and the reference check in VS Code', function () {
  this.timeout(300_000);
  let workspace: string;
  let codeServer: RunningCodeServer;
  let browser: Browser;
  let page: Page;
  const sims: RunningSimulator[] = [];

  before(async () => {
    mkdirSync(resultsDir, { recursive: true });
    workspace = mkdtempSync(join(tmpdir(), 'id-e2e-accuracy-'));
    const accuracy = await startSimulator({ port: 0, scenario: scenario('accuracy') });
    // Two servers of one scenario: the same seed, so the reference model answers alike on both.
    const reference = await startSimulator({ port: 0, scenario: scenario('drift') });
    const suspect = await startSimulator({ port: 0, scenario: scenario('drift') });
    sims.push(accuracy, reference, suspect);
    codeServer = await startCodeServer({
      workspace,
      settings: {
        'inferenceDoctor.health.intervalSeconds': 0,
        'inferenceDoctor.servers': [
          { name: 'fp8-box', url: accuracy.url },
          { name: 'reference-box', url: reference.url },
          { name: 'suspect-box', url: suspect.url },
        ],
        'inferenceDoctor.eval.problems': 60,
        'inferenceDoctor.eval.concurrency': 8,
        'inferenceDoctor.compare.prompts': 6,
      },
    });
    ({ browser, page } = await openWorkbench(codeServer.url));
  });

  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, page, 'e2e-accuracy-failed');
  });

  after(async () => {
    await browser?.close();
    await closeCodeServer(codeServer, 'code-server-accuracy.log');
    for (const sim of sims) await sim.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  it('runs the smoke test from the Servers view on a fluent-but-wrong model and sees it fail, with no NaN found', async () => {
    await showInferenceDoctor(page);
    const row = serversPane(page).locator('.monaco-list-row', { hasText: 'fp8-box' });
    await row.waitFor({ timeout: 60_000 });
    await row.click({ button: 'right' });
    // VS Code's context menu ignores a mouse-up that comes right after it opened: point at the item, wait, click,
    // and press Enter on it if the menu is still open.
    const item = page.locator('.monaco-menu .action-label', { hasText: 'Run Accuracy Smoke Test' }).first();
    await item.hover({ timeout: 30_000 });
    await page.waitForTimeout(300);
    await item.click({ timeout: 30_000 });
    if (await item.isVisible()) await page.keyboard.press('Enter');
    // The simulator serves three models: the test asks which.
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Which model of fp8-box?' }).waitFor({ timeout: 30_000 });
    await pickQuickItem(page, 'Qwen/Qwen3-8B-kv-fp8-no-scale');

    const panel = probeFrame(page);
    const verdict = panel.locator('[data-testid="verdict"]');
    await verdict.waitFor({ timeout: 120_000 });
    assert.equal(await verdict.getAttribute('data-pass'), 'false');
    assert.match(await verdict.innerText(), /FAIL: accuracy below the floor: easy/);
    assert.equal(await panel.locator('[data-testid="invalid-rate"]').innerText(), '0.0%', 'every answer reads fine to the NaN detector');
    assert.match(await panel.locator('[data-testid="status"]').innerText(), /60\/60 answered/);
    assert.ok((await panel.locator('[data-testid="chart"] g.below').count()) >= 1, 'the chart marks a difficulty below its floor');
    assert.ok((await panel.locator('[data-testid="wrong-list"] [data-testid="answer-row"]').count()) > 0);
    await panel.locator('[data-testid="diagnose"]').waitFor({ timeout: 10_000 });
    // The result's toast (with its Diagnose button), not the progress toast that may still be fading out.
    const toast = page.locator('.notifications-toasts .notification-toast', {
      hasText: 'Accuracy smoke test on fp8-box',
      has: page.locator('.monaco-button', { hasText: 'Diagnose' }),
    });
    await toast.waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(resultsDir, 'e2e-accuracy-fail.png') });
    await runCommand(page, 'Notifications: Clear All Notifications');
  });

  it('saves the run as a baseline file where the user says, and Undo removes it again', async () => {
    const file = join(workspace, 'fp8.eval.json');
    await answerFileDialog(page, file, probeFrame(page).locator('[data-testid="save-baseline"]'));
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'Saved the baseline to fp8.eval.json' });
    await toast.waitFor({ timeout: 30_000 });
    await toastText(page, 'Saved the baseline to fp8.eval.json', [/this run did not pass/], 30_000);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { format: string; n: number; counts: { correct: number }; model: string };
    assert.deepEqual([saved.format, saved.n, saved.counts.correct, saved.model], ['inference-doctor-eval-baseline', 60, 35, 'Qwen/Qwen3-8B-kv-fp8-no-scale']);
    await probeFrame(page).locator('[data-testid="saved"]', { hasText: 'fp8.eval.json' }).waitFor({ timeout: 10_000 });
    await toast.locator('.monaco-button', { hasText: 'Undo' }).click();
    await waitFor('the baseline file removed', () => !existsSync(file), 10_000);
    await probeFrame(page).locator('[data-testid="saved"]').waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('Compare with Baseline… runs the problem set of the baseline again and fails the drop against it', async () => {
    // The baseline: the healthy model's run of the same set, made here with the same core and written as --save-baseline does.
    const healthy = summarise(await runEval({ baseUrl: sims[0].url }, { suite: 'mixed', n: 60, seed: 1, concurrency: 8, model: 'Qwen/Qwen3-8B' }));
    const file = join(workspace, 'healthy.eval.json');
    writeFileSync(file, JSON.stringify(makeBaseline(healthy, 'test')));
    await answerFileDialog(page, file, probeFrame(page).locator('[data-testid="compare-baseline"]'));
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Which model of fp8-box?' }).waitFor({ timeout: 30_000 });
    await pickQuickItem(page, 'Qwen/Qwen3-8B-kv-fp8-no-scale');
    const panel = probeFrame(page);
    await panel.locator('[data-testid="baseline-label"]', { hasText: 'healthy.eval.json' }).waitFor({ timeout: 30_000 });
    const verdict = panel.locator('#app[data-phase="done"] [data-testid="verdict"]');
    await verdict.waitFor({ timeout: 120_000 });
    assert.match(await verdict.innerText(), /FAIL: accuracy significantly below the baseline: 58\.3% vs baseline 100\.0%/);
    assert.equal(await panel.locator('[data-testid="chart"] .floor').count(), 0, 'judged by the baseline, not the floors');
    await runCommand(page, 'Notifications: Clear All Notifications');
  });

  it('Diagnose on the failed run opens Diagnose Server with the accuracy drop as the symptom', async () => {
    await probeFrame(page).locator('[data-testid="diagnose"]').click();
    // The Diagnose panel replaces the accuracy panel in the editor group (a hidden page is unloaded).
    await page.locator('.tab.active', { hasText: 'Diagnose: fp8-box' }).waitFor({ timeout: 30_000 });
    const symptom = probeFrame(page).locator('[data-testid="symptom"]', { hasText: 'accuracy-drop' });
    await symptom.waitFor({ timeout: 120_000 });
    assert.match(await probeFrame(page).locator('[data-testid="symptoms"]').innerText(), /accuracy smoke test: 58\.3% right/);
    await probeFrame(page).locator('#app[data-phase="done"]').waitFor({ timeout: 120_000 });
    await page.screenshot({ path: join(resultsDir, 'e2e-accuracy-diagnose.png') });
    await runCommand(page, 'Notifications: Clear All Notifications');
    await runCommand(page, 'View: Close All Editors');
  });

  it('keeps the run in the history beside the probes', async () => {
    await runCommand(page, 'Inference Doctor: Open Probe History');
    await pickQuickItem(page, 'Accuracy smoke test · mixed · 60 problems');
    const verdict = probeFrame(page).locator('[data-testid="verdict"]');
    await verdict.waitFor({ timeout: 60_000 });
    assert.equal(await verdict.getAttribute('data-pass'), 'false');
    await runCommand(page, 'View: Close All Editors');
  });

  it('compares a drifting server with the reference: drift, the split marked and the logprobs plotted', async () => {
    await runCommand(page, 'Inference Doctor: Compare with Reference Server…');
    // The first pick is the server under suspicion (its placeholder asks which).
    await pickQuickItem(page, 'suspect-box');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'with which reference' }).waitFor({ timeout: 30_000 });
    await pickQuickItem(page, 'reference-box');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Which model of reference-box?' }).waitFor({ timeout: 30_000 });
    await pickQuickItem(page, 'reference');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Which model of suspect-box?' }).waitFor({ timeout: 30_000 });
    await pickQuickItem(page, 'drifting');

    const panel = probeFrame(page);
    const verdict = panel.locator('[data-testid="verdict"]');
    await verdict.waitFor({ timeout: 120_000 });
    assert.equal(await verdict.getAttribute('data-verdict'), 'drift');
    assert.equal(await panel.locator('[data-testid="prompt-row"]').count(), 6);
    const open = panel.locator('[data-testid="prompt-row"][open]');
    assert.equal(await open.count(), 1, 'the first prompt that parts is open');
    assert.equal(await open.locator('[data-testid="split-mark"]').count(), 2);
    assert.equal(await open.locator('[data-testid="split-line"]').count(), 1);
    assert.equal(await open.locator('[data-testid="plot-a"]').count(), 1);
    assert.equal(await panel.locator('[data-testid="diagnose"]').count(), 0, 'drift is no bug: no Diagnose');
    await page.screenshot({ path: join(resultsDir, 'e2e-compare-drift.png') });
  });
});
