/**
 * A vLLM user in the packaged extension (code-server): hover on a `vllm serve` flag in a launch
 * script (the bundled vLLM catalog, with our own help), and a probe of a server with the
 * simulator's vLLM personality whose logits are NaN behind fluent text: the panel says NaN because
 * vLLM's corrupted-requests counter moved, and names the engine and the counter. Then the Backend
 * Flags view, switched from SGLang's flags to vLLM's, lists a vLLM-only flag.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { startCodeServer, type RunningCodeServer } from '../../scripts/lib/codeServer';
import { startSimulator, type RunningSimulator } from '../../src/sim/server';
import {
  chooseModel,
  closeCodeServer,
  flagsPane,
  hoverTokenAgain,
  openFile,
  openWorkbench,
  probeFrame,
  resultsDir,
  runCommand,
  runCommandAndAnswer,
  runCommandAndPick,
  screenshotIfFailed,
  serversPane,
  setPrompt,
  showInferenceDoctor,
} from './ui';

const MODEL = 'nvidia/Qwen3-30B-A3B-NVFP4';

describe('e2e: a vLLM user — hover on a vllm serve flag, and a probe verdict from vLLM', function () {
  this.timeout(300_000);
  let workspace: string;
  let sim: RunningSimulator;
  let codeServer: RunningCodeServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    mkdirSync(resultsDir, { recursive: true });
    sim = await startSimulator({
      port: 0,
      scenario: {
        engine: 'vllm',
        version: '0.17.1',
        env: { VLLM_COMPUTE_NANS_IN_LOGITS: '1' },
        models: { [MODEL]: { behaviour: 'healthy', logprobs: 'nan' } },
      },
    });
    workspace = mkdtempSync(join(tmpdir(), 'id-e2e-vllm-'));
    writeFileSync(join(workspace, 'serve.sh'), `#!/bin/sh\nexec vllm serve ${MODEL} --kv-cache-dtype fp8 --max_model_len 8192 --port 8000\n`);
    // The release serve.sh runs: the Backend Flags view lists that release's bundled vLLM flags.
    writeFileSync(join(workspace, 'requirements.txt'), 'vllm==0.11.0\n');
    codeServer = await startCodeServer({
      workspace,
      settings: { 'inferenceDoctor.health.intervalSeconds': 0, 'inferenceDoctor.servers': [{ name: 'vllm-box', url: sim.url }] },
    });
    ({ browser, page } = await openWorkbench(codeServer.url));
  });

  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, page, 'e2e-vllm-failed');
  });

  after(async () => {
    await browser?.close();
    await closeCodeServer(codeServer, 'code-server-vllm.log');
    await sim?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  it('hovers --kv-cache-dtype of a vllm serve script with our help and the bundled vLLM facts', async () => {
    await openFile(page, 'serve.sh');
    const help = await hoverTokenAgain(page, '--kv-cache-dtype', 'bundled facts of vLLM');
    assert.match(help, /Field: cache_dtype/);
    assert.match(help, /Choices:.*fp8/s);
    await page.screenshot({ path: join(resultsDir, 'e2e-vllm-hover.png') });
    await page.mouse.move(5, 500);
  });

  it('probes the vLLM server: NaN from the corrupted-requests counter, with the engine named', async () => {
    await showInferenceDoctor(page);
    const row = serversPane(page).locator('.monaco-list-row', { hasText: 'vllm-box' });
    await row.waitFor({ timeout: 60_000 });
    await row.hover();
    await row.locator('.action-label[aria-label^="Open Probe Panel"]').click({ timeout: 30_000 });
    const panel = probeFrame(page);
    await panel.locator('[data-testid="prompt"]').waitFor({ timeout: 60_000 });
    await chooseModel(panel, MODEL);
    await setPrompt(panel, 'What is the capital of France?');
    await panel.locator('[data-testid="run"]').click();
    const main = panel.locator('[data-testid="pane-main"]');
    await main.locator('[data-testid="verdict-badge"][data-verdict="nan"]').waitFor({ timeout: 60_000 });
    assert.doesNotMatch(await main.locator('[data-testid="answer"]').innerText(), /!!!!/, 'the text itself looks fine');
    assert.match(await main.locator('[data-testid="reasons"]').innerText(), /vllm:corrupted_requests counter rose by 1/);
    assert.match(
      await main.locator('[data-testid="server-watch"]').innerText(),
      /^vLLM 0\.17\.1 · max_model_len 32768 · repetition detection asked · corrupted requests 0 → 1/,
    );
    await page.screenshot({ path: join(resultsDir, 'e2e-vllm-probe.png') });
  });

  it("Backend Flags: switched from SGLang's flags to vLLM's, the selected vLLM server without /server_info gives no values and no error", async () => {
    await runCommand(page, 'Focus on Backend Flags View');
    const pane = flagsPane(page);
    const header = pane.locator('.pane-header');
    // serve.sh starts vLLM: the view opened on vLLM's flags; the user asks for SGLang's, then back.
    await header.filter({ hasText: 'vLLM · bundled' }).waitFor({ timeout: 60_000 });
    await runCommand(page, 'Inference Doctor: Show SGLang Flags');
    await header.filter({ hasText: 'SGLang · bundled release' }).waitFor({ timeout: 60_000 });
    await runCommandAndAnswer(page, 'Inference Doctor: Filter Backend Flags', 'Filter Backend Flags', 'gpu-memory');
    await pane.getByText('No flag matches "gpu-memory".').waitFor({ timeout: 30_000 });

    await runCommand(page, 'Inference Doctor: Show vLLM Flags');
    await header.filter({ hasText: 'vLLM · bundled release 0.11.0' }).waitFor({ timeout: 60_000 });
    const row = pane.locator('.monaco-list-row', { hasText: '--gpu-memory-utilization' }).first();
    await row.waitFor({ timeout: 60_000 });
    await pane.locator('.monaco-list-row', { hasText: 'KV cache' }).filter({ hasText: '1 flag' }).waitFor({ timeout: 10_000 });

    await runCommandAndPick(page, 'Inference Doctor: Select Server for Flags', 'vllm-box');
    await header.filter({ hasText: 'values: vllm-box' }).waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('.notification-toast', { hasText: 'server_info' }).count(), 0, 'no /server_info warning for vLLM');
    assert.doesNotMatch(await row.innerText(), /●/, 'no value from a server without /server_info');
    // The bundled vLLM facts have no source file: Open Flag Definition is not offered, copying is.
    await row.hover();
    await row.locator('.action-label[aria-label^="Copy Flag with Value"]').waitFor({ timeout: 30_000 });
    assert.equal(await row.locator('.action-label[aria-label^="Open Flag Definition"]').count(), 0);
    await page.screenshot({ path: join(resultsDir, 'e2e-vllm-flags.png') });
  });
});
