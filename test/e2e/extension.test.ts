/**
 * The packaged .vsix in real VS Code (code-server 4.100.3), driven through Debian Chromium:
 * open the sidebar, add the simulator as a server, probe a model that answers "!!!!" + NaN and
 * one that answers well, and read the verdict the probe panel shows.
 */
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, mkdirSync, rmSync, mkdtempSync, readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { freePort, startCodeServer, repoRoot, type RunningCodeServer } from '../../scripts/lib/codeServer';
import { startSimulator } from '../../src/sim/server';
import { startSshd, type Sshd } from '../support/sshd';
import { startFakeLaunchServer, type FakeLaunchServer } from '../support/fakeLaunchServer';
import { execFileSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../support/wait';
import { Supervisor } from '../../src/core/fix/supervisor';
import { waitUntilReady } from '../../src/core/fix/loop';

import {
  answerQuickInput,
  chooseModel,
  chooseQuickFix,
  chooseServer,
  closeCodeServer,
  flagsPane,
  hoverToken,
  hoverTokenAgain,
  openFile,
  openWorkbench,
  pickQuickItem,
  probeFrame,
  resultsDir,
  runCommand,
  runCommandAndAnswer,
  runCommandAndPick,
  screenshotIfFailed,
  serversPane,
  setPrompt,
  showInferenceDoctor,
  toastText,
} from './ui';

describe('e2e: Inference Doctor in code-server', function () {
  this.timeout(300_000);
  let sim: { url: string; close(): Promise<void> };
  let sshd: Sshd;
  let remoteServer: FakeLaunchServer;
  let fakePython: string;
  /** Where `supervise` keeps the incident server's pid and log (the extension reads it from settings). */
  let superviseDir = '';
  let incidentPort = 0;
  let incidentScript = '';
  let incidentOriginal = '';
  /** Temp dirs removed when the suite ends. */
  const scratch: string[] = [];
  let workspace: string;
  let codeServer: RunningCodeServer;
  let browser: Browser;
  let page: Page;
  let canary: Server;
  let canaryUrl = '';
  let canaryHits = 0;
  /** A server whose every string is an attack on the UI (models, /server_info, errors). */
  let hostile: Server;
  let hostileUrl = '';

  before(async () => {
    mkdirSync(resultsDir, { recursive: true });
    sim = await startSimulator({ port: 0, scenario: join(repoRoot, 'test/fixtures/scenarios/e2e.json') });
    workspace = mkdtempSync(join(tmpdir(), 'id-e2e-ws-'));
    scratch.push(workspace);
    writeFileSync(join(workspace, 'README.md'), '# scratch workspace for the e2e test\n');
    // A canary that counts every request: the hostile workspace and server below point at it.
    canary = createServer((_req, res) => {
      canaryHits++;
      res.end('x');
    });
    await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
    canaryUrl = `http://127.0.0.1:${(canary.address() as AddressInfo).port}`;
    hostile = createHostileServer(hostileText(canaryUrl));
    await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
    hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
    // A hostile workspace: a rule file whose texts carry command links, images and an override,
    // matching only hostile/run.sh (so the incident's unit keeps its own diagnostics).
    const attack = hostileText(canaryUrl);
    mkdirSync(join(workspace, '.inference-doctor'));
    writeFileSync(
      join(workspace, '.inference-doctor', 'rules.json'),
      JSON.stringify({
        rules: [
          {
            id: 'hostile-rule',
            engine: 'sglang',
            confidence: 'confirmed',
            title: `Hostile ${attack}`,
            symptom: attack,
            sources: ['https://evil.invalid/x)](command:workbench.action.terminal.new'],
            match: { fields: { kv_cache_dtype: ['fp8_e4m3'] } },
            fix: { summary: attack, set: [{ flag: '--kv-cache-dtype', field: 'kv_cache_dtype', value: 'auto' }] },
          },
        ],
      }),
    );
    mkdirSync(join(workspace, 'hostile'));
    writeFileSync(join(workspace, 'hostile', 'run.sh'), 'python3 -m sglang.launch_server --model-path m --kv-cache-dtype fp8_e4m3\n');
    // For the hostile server_args.py field the suite adds near its end.
    writeFileSync(join(workspace, 'hostile', 'evil.sh'), 'python3 -m sglang.launch_server --model-path m --evil-backend auto\n');
    // A checkout-shaped SGLang source (main-era server_args.py) and the incident's systemd unit.
    mkdirSync(join(workspace, 'sglang/srt'), { recursive: true });
    copyFileSync(join(repoRoot, 'test/fixtures/server_args/dataclass_main.py'), join(workspace, 'sglang/srt/server_args.py'));
    mkdirSync(join(workspace, 'deploy'));
    copyFileSync(join(repoRoot, 'test/fixtures/launch/sglang.service'), join(workspace, 'deploy/sglang.service'));
    // The "GPU box" runs SGLang: a process whose command line is the launch command (the FP4 GEMM
    // backend it asks for differs from what the server reports), serving the simulator.
    remoteServer = await startFakeLaunchServer({
      simJs: join(repoRoot, 'dist/sim.js'),
      scenario: join(repoRoot, 'test/fixtures/scenarios/e2e.json'),
      port: await freePort(),
      flags: [
        '--model-path',
        '/models/Qwen3-Next-80B-A3B-Instruct-NVFP4',
        '--quantization',
        'modelopt_fp4',
        '--moe-runner-backend',
        'flashinfer_cutlass',
        '--fp4-gemm-backend',
        'flashinfer_cudnn',
      ],
    });
    // A real OpenSSH server on 127.0.0.1 as the "GPU box", reached through an ssh config alias.
    // Its GPU: the stub nvidia-smi (an SM 12.0 card) first on the PATH of every SSH session.
    sshd = await startSshd({ gpuStub: true });
    const sshConfig = join(workspace, '.ssh-config');
    writeFileSync(sshConfig, sshd.sshConfigEntry('gpu-box'));
    const knownHosts = join(workspace, '.known_hosts');
    writeFileSync(knownHosts, '');
    // A Python "with SGLang installed": the fake package (its plugin grows a choice list at import).
    const venv = mkdtempSync(join(tmpdir(), 'id-e2e-venv-'));
    scratch.push(venv);
    fakePython = join(venv, 'python3');
    writeFileSync(fakePython, `#!/bin/sh\nPYTHONDONTWRITEBYTECODE=1 PYTHONPATH='${join(repoRoot, 'test/fixtures/fake-sglang')}' exec python3 "$@"\n`, {
      mode: 0o755,
    });
    superviseDir = mkdtempSync(join(tmpdir(), 'id-e2e-supervise-'));
    scratch.push(superviseDir);
    // The incident's launch script for the apply-and-verify step (its server starts in that step).
    const incidentBin = mkdtempSync(join(tmpdir(), 'id-e2e-sglang-'));
    scratch.push(incidentBin);
    execFileSync(process.execPath, [join(repoRoot, 'dist/sim.js'), 'wrapper', incidentBin]);
    incidentPort = await freePort();
    incidentScript = join(workspace, 'deploy', 'incident.sh');
    incidentOriginal = [
      '#!/bin/sh',
      `exec ${join(incidentBin, 'python3')} -m sglang.launch_server \\`,
      '  --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --quantization modelopt_fp4 \\',
      `  --sim-gpu rtx-pro-6000 --sim-start-seconds 0.3 --sim-tokens-per-second 200 --port ${incidentPort} \\`,
      '  --moe-runner-backend flashinfer_cutlass --fp4-gemm-backend flashinfer_cutlass',
      '',
    ].join('\n');
    writeFileSync(incidentScript, incidentOriginal, { mode: 0o755 });
    codeServer = await startCodeServer({
      workspace,
      settings: {
        'inferenceDoctor.health.intervalSeconds': 0,
        'inferenceDoctor.ssh.configFile': sshConfig,
        'inferenceDoctor.ssh.knownHostsFile': knownHosts,
        'inferenceDoctor.flags.python': fakePython,
        'inferenceDoctor.fix.superviseStateDir': superviseDir,
        'inferenceDoctor.fix.readyTimeoutSeconds': 60,
      },
    });
    ({ browser, page } = await openWorkbench(codeServer.url));
  });

  afterEach(async function () {
    // A failed step leaves a picture of the editor for the CI artefacts.
    await screenshotIfFailed(this.currentTest, page, 'e2e-failed');
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
    if (canary) await new Promise<void>((r) => canary.close(() => r()));
    if (hostile) await new Promise<void>((r) => hostile.close(() => r()));
    await remoteServer?.stop();
    await sshd?.close();
    for (const d of scratch) rmSync(d, { recursive: true, force: true });
  });

  it('shows the Inference Doctor sidebar with its welcome content', async () => {
    await showInferenceDoctor(page);
    const welcome = serversPane(page).locator('.welcome-view-content');
    await welcome.waitFor({ timeout: 60_000 });
    assert.match(await welcome.innerText(), /No inference servers yet/);
  });

  it('adds the simulator through the view and shows it in the Servers tree', async () => {
    await serversPane(page).locator('.welcome-view-content .monaco-button', { hasText: 'Add Server' }).click();
    await answerQuickInput(page, 'Add Server (1/3)', sim.url);
    await answerQuickInput(page, 'Add Server (2/3)', 'simulator');
    await answerQuickInput(page, 'Add Server (3/3)', '');
    // The row's description becomes the served model once the health check has answered.
    const row = serversPane(page).locator('.monaco-list-row', { hasText: 'simulator' }).filter({ hasText: 'nan-model' });
    await row.waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(resultsDir, 'e2e-servers.png') });
  });

  it('probes a model that answers !!!! and NaN, and the panel says NaN', async () => {
    await serversPane(page).locator('.monaco-list-row', { hasText: 'simulator' }).click();
    const panel = probeFrame(page);
    await panel.locator('[data-testid="prompt"]').waitFor({ timeout: 60_000 });
    await chooseModel(panel, 'nan-model');
    await setPrompt(panel, 'What is the capital of France?');
    await panel.locator('[data-testid="run"]').click();
    const main = panel.locator('[data-testid="pane-main"]');
    await main.locator('[data-testid="verdict-badge"][data-verdict="nan"]').waitFor({ timeout: 60_000 });
    assert.match(await main.locator('[data-testid="answer"]').innerText(), /^!{8,}/);
    assert.match(await main.locator('[data-testid="reasons"]').innerText(), /NaN/i);
    // The Servers row says what the probe found, not just what /health says.
    const row = serversPane(page).locator('.monaco-list-row', { hasText: 'simulator' }).filter({ hasText: 'NaN ·' });
    await row.waitFor({ timeout: 30_000 });
    assert.equal(await row.locator('.codicon-error').count(), 1, 'the row carries the NaN mark');
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
    // A good answer clears the mark.
    await serversPane(page).locator('.monaco-list-row', { hasText: 'simulator' }).filter({ hasNotText: 'NaN ·' }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(resultsDir, 'e2e-probe-ok.png') });
  });

  it("Show Server Info opens the server's /server_info as a JSON document", async () => {
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
    await toastText(page, 'NaN', [/simulator: NaN/]);
    // NaN is an error, not a warning.
    assert.equal(await toast.locator('.codicon-error').count(), 1, 'the NaN result is an error notification');
    const report = page.locator('.monaco-editor .view-lines', { hasText: /Quick.Health.Probe/ }).first();
    // A busy machine can swallow the first click on a toast that is still animating in: retry, bounded.
    for (let attempt = 0; attempt < 3 && !(await report.isVisible()); attempt++) {
      const button = toast.locator('.monaco-button', { hasText: 'Show Details' });
      if (await button.isVisible()) await button.click();
      await report.waitFor({ timeout: 20_000 }).catch(() => undefined);
    }
    await report.waitFor({ timeout: 10_000 });
    const text = await report.innerText();
    assert.match(text, /Greeting:\sNaN/);
    assert.match(text, /Counting:\sNaN/);
    // A read-only report: its tab is not an unsaved Untitled document.
    const tab = page.locator('.tab.active', { hasText: 'quick-health-probe.md' });
    await tab.waitFor({ timeout: 10_000 });
    assert.equal(await tab.evaluate((el) => el.classList.contains('dirty')), false, 'the report is not a dirty document');
    await page.screenshot({ path: join(resultsDir, 'e2e-quick-probe.png') });
  });

  it("a probe that fails says Request failed, and switching server forgets the last server's model", async () => {
    // A second server whose base path the simulator does not serve: every API call answers 404.
    await runCommand(page, 'Inference Doctor: Add Server');
    await answerQuickInput(page, 'Add Server (1/3)', `${sim.url}/missing`);
    await answerQuickInput(page, 'Add Server (2/3)', 'wrong path');
    await answerQuickInput(page, 'Add Server (3/3)', '');
    // Pick the simulator and its model in the panel, then switch to the new server from the tree.
    await runCommand(page, 'Inference Doctor: Open Probe Panel');
    const panel = probeFrame(page);
    await chooseServer(panel, 'simulator');
    await chooseModel(panel, 'healthy-model');
    await serversPane(page).locator('.monaco-list-row', { hasText: 'wrong path' }).click();
    // The panel now targets the new server and no longer offers (or sends) the simulator's model.
    const select = panel.locator('[data-testid="model-select"]');
    await waitFor('the model list of the new server', async () => !(await select.innerText()).includes('healthy-model'), 30_000);
    assert.notEqual(await select.evaluate((el) => (el as HTMLSelectElement).value), 'healthy-model');
    await setPrompt(panel, 'Hello');
    await panel.locator('[data-testid="run"]').click();
    const main = panel.locator('[data-testid="pane-main"]');
    const badge = main.locator('[data-testid="verdict-badge"][data-verdict="failed"]');
    await badge.waitFor({ timeout: 60_000 });
    assert.match(await badge.innerText(), /Request failed/);
    assert.equal(await main.locator('[data-testid="verdict-badge"][data-verdict="ok"]').count(), 0, 'a failed run is never OK');
    const row = panel.locator('[data-testid="history-row"]').first();
    await row.waitFor({ timeout: 30_000 });
    assert.equal(await row.getAttribute('data-outcome'), 'failed');
    assert.equal(await row.locator('.codicon-pass').count(), 0, 'no green check for a failed run');
    await page.screenshot({ path: join(resultsDir, 'e2e-probe-failed.png') });
  });

  it("Apply to Server and Re-probe: the known issue's fix goes to the running server, which then answers well; Roll Back restores it", async () => {
    // The incident on this machine: the simulator in launch mode (an RTX PRO 6000, SM 12.0) started
    // by `supervise` from a launch script in the workspace. Its own rules decide how it answers.
    const supervisor = new Supervisor(superviseDir);
    await supervisor.start('incident', ['sh', incidentScript]);
    try {
      assert.ok((await waitUntilReady({ baseUrl: `http://127.0.0.1:${incidentPort}` }, 30_000, 200)) !== undefined, 'the incident server is up');
      // Whatever an earlier step left open (a pick, a hover, a pick that arrives late) goes first:
      // close until nothing has come back for two seconds, bounded.
      const quickInput = page.locator('.quick-input-widget input.input');
      for (let i = 0; i < 6; i++) {
        await page.keyboard.press('Escape');
        await page.waitForTimeout(2_000);
        if (!(await quickInput.isVisible())) break;
      }
      assert.equal(await quickInput.isVisible(), false, 'a quick input kept coming back');
      // The sidebar shown: the extension is active (also when this test runs alone).
      // (Clicking the icon of the sidebar already shown would hide it.)
      if (!(await serversPane(page).isVisible())) await showInferenceDoctor(page);
      await serversPane(page).waitFor({ timeout: 60_000 });
      // "Forward Port and Add to Servers" was used last, so it tops the palette: click the row itself.
      await page.keyboard.press('F1');
      await quickInput.fill('>Inference Doctor: Add Server');
      await page
        .locator('.quick-input-list .monaco-list-row', { hasText: 'Inference Doctor: Add Server' })
        .filter({ hasNotText: 'Forward' })
        .first()
        .click({ timeout: 30_000 });
      await answerQuickInput(page, 'Add Server (1/3)', `http://127.0.0.1:${incidentPort}`);
      await answerQuickInput(page, 'Add Server (2/3)', 'incident box');
      await answerQuickInput(page, 'Add Server (3/3)', '');
      await openFile(page, 'incident.sh');
      await page.locator('.monaco-editor .squiggly-warning').first().waitFor({ timeout: 90_000 });
      // The known issue sits on the FP4 GEMM flag (line 5): its quick fixes are there.
      await chooseQuickFix(page, 5, 50, 'Apply to Server and Re-probe: Run the MoE layers');
      // Asked once for this file: how it is restarted (the supervised name that runs it comes first).
      await pickQuickItem(page, 'runs this file');
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor({ timeout: 30_000 });
      assert.match(await dialog.innerText(), /--fp4-gemm-backend flashinfer_cudnn[\s\S]*incident box/);
      await dialog.locator('.monaco-button', { hasText: 'Apply and Re-probe' }).click();
      const done = page.locator('.notification-toast', { hasText: 'is healthy now' }).first();
      await done.waitFor({ timeout: 120_000 });
      assert.match(await done.innerText(), /incident box is healthy now: NaN → OK after: Run the MoE layers/);
      assert.equal(
        readFileSync(incidentScript, 'utf8'),
        incidentOriginal.replace('--fp4-gemm-backend flashinfer_cutlass', '--fp4-gemm-backend flashinfer_cudnn'),
      );
      await page.screenshot({ path: join(resultsDir, 'e2e-apply-and-verify.png') });
      await done.locator('.monaco-button', { hasText: 'Roll Back' }).click();
      await page.locator('.notification-toast', { hasText: 'Rolled back' }).first().waitFor({ timeout: 60_000 });
      assert.equal(readFileSync(incidentScript, 'utf8'), incidentOriginal, 'the launch script is back byte for byte');
    } finally {
      await supervisor.stop('incident', { timeoutMs: 3000 });
    }
  });

  it('hover on a flag in a .service file shows its help, the rename and a known-issue warning', async () => {
    await openFile(page, 'sglang.service');
    // The language server starts with the first matching document; wait for its squiggles.
    await page.locator('.monaco-editor .squiggly-warning').first().waitFor({ timeout: 90_000 });

    const help = await hoverToken(page, '--moe-runner-backend', '--moe-runner-backend');
    assert.match(help, /Kernel family for MoE/);
    assert.match(help, /Choices:.*flashinfer_cutlass/s);
    await page.screenshot({ path: join(resultsDir, 'e2e-service-hover.png') });
    await page.mouse.move(5, 500);

    // The known-bad rule is reported on the launch command itself.
    const issue = await hoverToken(page, 'sglang.launch_server', 'GDN');
    assert.match(issue, /SM 12/);
    // No host is selected yet: the rule says which GPUs it is about.
    assert.match(issue, /the GPU is unknown/);
    await page.screenshot({ path: join(resultsDir, 'e2e-service-known-issue.png') });
    await page.mouse.move(5, 500);

    await hoverToken(page, '--fp4-gemm-runner-backend', 'renamed to --fp4-gemm-backend');
    await page.mouse.move(5, 500);
  });

  it('the flags language server comes back after its process is killed, and on Restart Flags Language Server', async () => {
    const serverPids = (): number[] => {
      try {
        return execFileSync('pgrep', ['-f', `${codeServer.extensionsDir}/.*/dist/server\\.js`], { encoding: 'utf8' })
          .split(/\s+/)
          .filter(Boolean)
          .map(Number);
      } catch {
        return [];
      } // pgrep exits 1 when nothing matches
    };
    const before = await waitFor('the language server process', () => serverPids()[0], 60_000);
    process.kill(before, 'SIGKILL');
    // The client restarts a crashed server (within its budget); hover works on the new process.
    const after = await waitFor('a new language server process', () => serverPids().find((p) => p !== before), 60_000);
    await openFile(page, 'sglang.service');
    // A hover asked while the new server still initialises comes back empty: ask again, bounded.
    assert.match(await hoverTokenAgain(page, '--moe-runner-backend', 'Kernel family'), /Choices:.*flashinfer_cutlass/s);
    await page.mouse.move(5, 500);

    await runCommand(page, 'Inference Doctor: Restart Flags Language Server');
    await page.locator('.notification-toast', { hasText: 'flags language server was restarted' }).first().waitFor({ timeout: 60_000 });
    const restarted = await waitFor('the restarted process', () => serverPids().find((p) => p !== after && p !== before), 30_000);
    assert.ok(restarted > 0);
    assert.equal(serverPids().includes(after), false, 'the old server process was stopped');
    assert.match(await hoverTokenAgain(page, '--moe-runner-backend', 'Kernel family'), /flashinfer_cutlass/);
    await page.mouse.move(5, 500);
  });

  it('code lenses appear on server_args.py', async () => {
    await openFile(page, 'server_args.py');
    const listLens = page.locator('.monaco-editor .codelens-decoration:visible', { hasText: /used by \d+ flags? · can grow at run time/ }).first();
    await listLens.waitFor({ timeout: 90_000 });
    // Jump to the renamed FP4 GEMM field: its lens names the flag, not the field.
    const source = readFileSync(join(repoRoot, 'test/fixtures/server_args/dataclass_main.py'), 'utf8').split('\n');
    const line = source.findIndex((l) => /^\s*fp4_gemm_runner_backend\b/.test(l)) + 1;
    assert.ok(line > 0);
    await page.keyboard.press('Control+G');
    const input = page.locator('.quick-input-widget input.input');
    await input.waitFor({ state: 'visible', timeout: 30_000 });
    await input.fill(`:${line}`);
    await input.press('Enter');
    const lens = page.locator('.monaco-editor .codelens-decoration:visible', { hasText: '--fp4-gemm-backend ·' }).first();
    await lens.waitFor({ timeout: 30_000 });
    assert.match(await lens.innerText(), /default/);
    assert.match(await lens.innerText(), /Copy Flag/);
    const lenses = await page.locator('.monaco-editor .codelens-decoration').count();
    assert.ok(lenses > 50, `only ${lenses} code lenses for a 200-flag file`);
    await page.screenshot({ path: join(resultsDir, 'e2e-server-args-lenses.png') });
  });

  it('Show Environment Report runs discovery on This machine and opens the report', async () => {
    await runCommand(page, 'Inference Doctor: Show Environment Report');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'This machine' }).first().waitFor({ timeout: 30_000 });
    await page.locator('.quick-input-widget input.input').press('Enter');
    await page.locator('.tab', { hasText: 'environment-report.txt' }).waitFor({ timeout: 120_000 });
    const text = await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText();
    assert.match(text, /environment\sreport/i);
    assert.match(text, /Python/);
    await page.screenshot({ path: join(resultsDir, 'e2e-environment-report.png') });
  });

  it('connects to an SSH host only after the user trusts its key, then reports its environment', async () => {
    const hostsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Hosts/i }) });
    const hostRow = hostsPane.locator('.monaco-list-row', { hasText: 'gpu-box' });
    await hostRow.waitFor({ timeout: 30_000 });
    // The row's inline "Connect to Host" action (shown on hover); a context menu can close under load.
    await hostRow.hover();
    await hostRow.locator('.action-label[aria-label^="Connect to Host"]').click({ timeout: 30_000 });
    // Unknown host key: a modal with the SHA256 fingerprint, before any authentication.
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 60_000 });
    const expected = execFileSync('/usr/bin/ssh-keygen', ['-lf', `${sshd.hostKeyFile}.pub`], { encoding: 'utf8' }).split(/\s+/)[1];
    const dialogText = await dialog.innerText();
    assert.match(dialogText, /authenticity of gpu-box/);
    assert.ok(dialogText.includes(expected), `dialog should show ${expected}:\n${dialogText}`);
    assert.doesNotMatch(sshd.log(), /Accepted publickey/, 'no authentication before the key is trusted');
    await page.screenshot({ path: join(resultsDir, 'e2e-ssh-host-key.png') });
    await dialog.locator('.monaco-button', { hasText: 'Trust Once' }).click();
    await hostsPane
      .locator('.monaco-list-row', { hasText: 'gpu-box' })
      .filter({ hasText: /connected/ })
      .waitFor({ timeout: 60_000 });
    assert.match(sshd.log(), /Accepted publickey/);

    await runCommand(page, 'Inference Doctor: Show Environment Report');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'gpu-box' }).first().waitFor({ timeout: 30_000 });
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'gpu-box' }).first().click();
    await page.locator('.tab', { hasText: 'environment-report.txt' }).filter({ hasText: 'environment' }).first().waitFor({ timeout: 120_000 });
    await page.locator('.monaco-editor .view-lines', { hasText: 'gpu-box' }).first().waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(resultsDir, 'e2e-ssh-environment.png') });
  });

  it('searches the source on the SSH host, streams results into the view, and opens a match read-only', async () => {
    const { matchRow } = await searchOnGpuBox(page, join(workspace, 'sglang'), 'FP4_GEMM_RUNNER_BACKEND_CHOICES', 'server_args.py');
    await matchRow.click({ timeout: 30_000 });
    const tab = page.locator('.tab', { hasText: 'server_args.py' }).filter({ hasText: /server_args\.py/ });
    await page.locator('.monaco-editor .view-line', { hasText: 'FP4_GEMM_RUNNER_BACKEND_CHOICES' }).first().waitFor({ timeout: 60_000 });
    assert.ok((await tab.count()) >= 1);
    // The remote document gets the same code lenses as a local server_args.py.
    await page
      .locator('.monaco-editor .codelens-decoration:visible', { hasText: /used by \d+ flags? · can grow at run time/ })
      .first()
      .waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(resultsDir, 'e2e-ssh-search.png') });
  });

  it('forwards the server found on the SSH host to a local port and lists it in Servers', async () => {
    await runCommand(page, 'Inference Doctor: Forward Port and Add to Servers');
    const toast = page.locator('.notification-toast', { hasText: 'is forwarded to' });
    await pickServerOnGpuBox(page, remoteServer.port, toast);
    await toast.waitFor({ timeout: 60_000 });
    const forwarded = new RegExp(`gpu-box:${remoteServer.port} is forwarded to http://127\\.0\\.0\\.1:(\\d+)`);
    const m = forwarded.exec(await toastText(page, 'is forwarded to', [forwarded]));
    assert.ok(m);
    const localPort = Number(m[1]);
    assert.notEqual(localPort, remoteServer.port);
    // The local end answers as the server does: the tunnel runs through sshd to the remote port.
    const models = (await (await fetch(`http://127.0.0.1:${localPort}/v1/models`)).json()) as { data: { id: string }[] };
    assert.ok(
      models.data.some((x) => x.id === 'nan-model'),
      JSON.stringify(models),
    );
    await serversPane(page).locator('.monaco-list-row', { hasText: 'Qwen3-Next-80B-A3B-Instruct-NVFP4' }).waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(resultsDir, 'e2e-ssh-forward.png') });
  });

  it('shows /server_info beside the launch command as a diff, naming what differs', async () => {
    await runCommand(page, 'Inference Doctor: Compare /server_info with Launch File');
    await pickServerOnGpuBox(page, remoteServer.port, page.locator('.notification-toast', { hasText: 'Launch file vs /server_info' }));
    const toast = page.locator('.notification-toast', { hasText: 'Launch file vs /server_info' });
    await toast.waitFor({ timeout: 60_000 });
    // model_path differs too: the simulator serves its own model, not the path on the command line.
    await toastText(page, 'Launch file vs /server_info', [/\b2 differ\b/]);
    await page.locator('.tab', { hasText: 'server_info' }).first().waitFor({ timeout: 30_000 });
    const diff = page.locator('.monaco-diff-editor').first();
    await diff.waitFor({ timeout: 30_000 });
    // The launch side asked for cuDNN; the server reports the CUTLASS default it actually runs.
    await diff.locator('.editor.original .view-lines', { hasText: 'flashinfer_cudnn' }).waitFor({ timeout: 30_000 });
    await diff.locator('.editor.modified .view-lines', { hasText: 'flashinfer_cutlass' }).waitFor({ timeout: 30_000 });
    assert.match(await diff.locator('.editor.modified .view-lines').innerText(), /fp4_gemm_runner_backend/);
    await page.screenshot({ path: join(resultsDir, 'e2e-ssh-compare.png') });
  });

  it('opens the launch command of the server on the host, with hovers on its flags', async () => {
    await runCommand(page, 'Inference Doctor: Open Launch File');
    await pickServerOnGpuBox(page, remoteServer.port, page.locator('.tab.active', { hasText: 'command-line.sh' }));
    // No unit file or script for this process: its own command line, as a shell script.
    await page.locator('.tab.active', { hasText: 'command-line.sh' }).waitFor({ timeout: 60_000 });
    // The line is long: hover a flag near its start, inside the viewport.
    const help = await hoverToken(page, '--model-path', 'Local folder or Hugging Face repo id');
    assert.match(help, /--model-path/);
    await page.screenshot({ path: join(resultsDir, 'e2e-ssh-launch-file.png') });
    await page.mouse.move(5, 500);
  });

  it('follows the server log and warns when the server reports NaN', async () => {
    await runCommand(page, 'Inference Doctor: Follow Server Log');
    await pickServerOnGpuBox(page, remoteServer.port, page.locator('.tab', { hasText: 'server.log' }).first());
    await page.locator('.tab', { hasText: 'server.log' }).first().waitFor({ timeout: 60_000 });
    const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
    await editor.filter({ hasText: 'test stand-in' }).waitFor({ timeout: 60_000 });
    appendFileSync(remoteServer.logFile, '[2026-11-29 12:00:00 TP0] Detected errors during sampling! NaN in the logits.\n');
    const toast = page.locator('.notification-toast', { hasText: 'Detected errors during sampling' }).first();
    await toast.waitFor({ timeout: 60_000 });
    await toastText(page, 'Detected errors during sampling', [/gpu-box/]);
    await editor.filter({ hasText: 'NaN in the logits' }).waitFor({ timeout: 30_000 });
    // The log is a read-only editor in the sglang-log language.
    await page
      .locator('.statusbar-item', { hasText: /SGLang Log/i })
      .first()
      .waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(resultsDir, 'e2e-ssh-log.png') });
  });

  it('asks again after Trust Once; Trust and Remember stores the key so the next connect asks nothing', async () => {
    const accepted = (): number => (sshd.log().match(/Accepted publickey/g) ?? []).length;
    await runCommand(page, 'Inference Doctor: Disconnect Host');
    await pickQuickItem(page, 'gpu-box');
    await runCommand(page, 'Inference Doctor: Connect to Host');
    await pickQuickItem(page, 'gpu-box');
    const before = accepted();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 60_000 });
    assert.match(await dialog.innerText(), /authenticity of gpu-box/);
    await dialog.locator('.monaco-button', { hasText: 'Trust and Remember' }).click();
    await waitFor('sshd to accept the key after Trust and Remember', () => accepted() > before, 60_000);
    const store = findFile(join(codeServer.userDataDir, 'User', 'globalStorage'), 'known_hosts');
    assert.ok(store, 'no trust store written');
    assert.ok(readFileSync(store, 'utf8').includes(sshd.hostKeyPub.split(/\s+/)[1]), 'the trust store should hold the host key');

    await runCommand(page, 'Inference Doctor: Disconnect Host');
    await pickQuickItem(page, 'gpu-box');
    const second = accepted();
    await runCommand(page, 'Inference Doctor: Connect to Host');
    await pickQuickItem(page, 'gpu-box');
    await waitFor('the reconnect to authenticate', () => accepted() > second, 60_000);
    assert.equal(await dialog.isVisible(), false, 'a remembered key must not ask again');
    await page.screenshot({ path: join(resultsDir, 'e2e-ssh-remembered.png') });
  });

  it("Backend Flags view: filter, the selected server's value, open the definition, copy a choice, find usages", async () => {
    // Focusing the view opens the sidebar on it (a click on the activity icon would toggle it closed).
    await runCommand(page, 'Focus on Backend Flags View');
    const pane = flagsPane(page);
    await runCommandAndPick(page, 'Inference Doctor: Select Server for Flags', 'simulator');
    await runCommandAndAnswer(page, 'Inference Doctor: Filter Backend Flags', 'Filter Backend Flags', 'fp4-gemm');
    // The renamed flag, with the value /server_info reports on the selected server.
    const flagRow = pane.locator('.monaco-list-row', { hasText: '--fp4-gemm-backend' }).first();
    await flagRow.filter({ hasText: '● flashinfer_cutlass' }).waitFor({ timeout: 60_000 });
    await pane.locator('.pane-header', { hasText: 'filter: fp4-gemm' }).waitFor({ timeout: 10_000 });

    // A click opens the field's definition in server_args.py.
    await flagRow.click();
    const source = readFileSync(join(repoRoot, 'test/fixtures/server_args/dataclass_main.py'), 'utf8').split('\n');
    const line = source.findIndex((l) => /^\s*fp4_gemm_runner_backend\b/.test(l)) + 1;
    await page.locator('.tab.active', { hasText: 'server_args.py' }).waitFor({ timeout: 30_000 });
    await page
      .locator('.statusbar-item', { hasText: new RegExp(`Ln ${line},`) })
      .first()
      .waitFor({ timeout: 30_000 });

    // A choice row's inline action copies "--flag value".
    if (!(await pane.locator('.monaco-list-row', { hasText: 'flashinfer_cudnn' }).first().isVisible())) {
      await flagRow.locator('.monaco-tl-twistie').click();
    }
    const choice = pane.locator('.monaco-list-row', { hasText: 'flashinfer_cudnn' }).first();
    await choice.hover();
    await choice.locator('.action-label[aria-label^="Copy Flag with Value"]').click({ timeout: 30_000 });
    await page.locator('.statusbar-item', { hasText: 'Copied --fp4-gemm-backend flashinfer_cudnn' }).first().waitFor({ timeout: 30_000 });
    const marks = await pane.locator('.monaco-list-row', { hasText: 'flashinfer_cutlass' }).filter({ hasText: 'on simulator' }).count();
    assert.equal(marks, 1, "the server's value is marked on its choice row");

    // Find Usages searches the SGLang tree for the field (not the flag: the two differ here).
    await flagRow.click();
    await runCommand(page, 'Inference Doctor: Find Usages of Flag Field');
    const searchView = page.locator('.search-view');
    await searchView.locator('.monaco-list-row', { hasText: 'server_args.py' }).first().waitFor({ timeout: 60_000 });
    assert.equal(await searchView.locator('.search-widget textarea').first().inputValue(), 'fp4_gemm_runner_backend');
    await page.screenshot({ path: join(resultsDir, 'e2e-flags-view.png') });
  });

  it('Load Flags from Installed SGLang builds the parser in that Python and marks what grew at run time', async () => {
    await runCommand(page, 'Focus on Backend Flags View');
    await runCommand(page, 'Inference Doctor: Load Flags from Installed SGLang');
    // gpu-box is connected too, so the command asks where first.
    await pickQuickItem(page, 'This machine');
    await pickQuickItem(page, fakePython);
    const toast = page.locator('.notification-toast', { hasText: 'loaded' }).filter({ hasText: 'flags from SGLang' }).first();
    await toast.waitFor({ timeout: 120_000 });
    const text = await toastText(page, 'flags from SGLang', [/loaded \d+ flags from SGLang 0\.0\.0-fake/]);
    assert.match(text, /with choices added at run time/);
    // The plugin's attention backend shows on the flag's row and as a choice "added at run time".
    await runCommandAndAnswer(page, 'Inference Doctor: Filter Backend Flags', 'Filter Backend Flags', 'attention-backend');
    const pane = flagsPane(page);
    const row = pane.locator('.monaco-list-row', { hasText: '--attention-backend' }).filter({ hasText: 'at run time' }).first();
    await row.waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(resultsDir, 'e2e-flags-runtime.png') });
  });

  it("Load Flags from an SSH host gives known-issue checks that host's GPU", async () => {
    await runCommand(page, 'Inference Doctor: Load Flags from Installed SGLang');
    await pickQuickItem(page, 'gpu-box');
    // Discovery on gpu-box knows its interpreters; the SGLang one is typed as another path here.
    await pickQuickItem(page, 'Other interpreter');
    await answerQuickInput(page, 'Python interpreter on gpu-box', fakePython);
    const toast = page.locator('.notification-toast', { hasText: 'on gpu-box' }).filter({ hasText: 'flags from SGLang' }).first();
    await toast.waitFor({ timeout: 120_000 });
    await toastText(page, 'on gpu-box', [/Known issues now check the GPU of gpu-box \(SM 12\.0\)/]);
    // The known issue on the incident's unit now speaks of this GPU, not of an unknown one.
    await openFile(page, 'sglang.service');
    const issue = await hoverToken(page, 'sglang.launch_server', 'GDN');
    assert.match(issue, /Matches the selected host: GPU compute capability 12\.0/);
    assert.doesNotMatch(issue, /GPU is unknown/);
    await page.screenshot({ path: join(resultsDir, 'e2e-flags-host-gpu.png') });
    await page.mouse.move(5, 500);
  });

  it("a hostile server's label, model name and errors stay text: no link runs a command, nothing loads the canary", async () => {
    // Recently used commands come first in the palette: click the row by its name, not Enter.
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input.input').fill('>Inference Doctor: Add Server');
    await page
      .getByRole('option', { name: /^Inference Doctor: Add Server\b(?! Host)/ })
      .first()
      .click({ timeout: 30_000 });
    await answerQuickInput(page, 'Add Server (1/3)', hostileUrl);
    await answerQuickInput(page, 'Add Server (2/3)', `Evil [x](command:workbench.action.terminal.new) ![p](${canaryUrl}/label.png) $(alert) \u202Eledom`);
    await answerQuickInput(page, 'Add Server (3/3)', '');
    const row = serversPane(page).locator('.monaco-list-row', { hasText: 'Evil' }).first();
    await row.waitFor({ timeout: 60_000 });
    // The tooltip (markdown) on hover: text only, no image.
    await row.hover();
    const tooltip = page.locator('.monaco-hover-content:visible', { hasText: 'Evil' }).first();
    await tooltip.waitFor({ timeout: 30_000 }).catch(() => undefined);
    assert.equal(await page.locator('.monaco-hover-content img').count(), 0, 'no image in the tooltip');
    await page.mouse.move(5, 500);

    // Quick Health Probe on it: three 500s whose message carries the attack.
    await runCommand(page, 'Inference Doctor: Quick Health Probe');
    await pickQuickItem(page, 'Evil');
    // While it runs, the progress notification names the server: as text.
    const progress = page.locator('.notification-toast', { hasText: 'Quick Health Probe on' }).first();
    await progress.waitFor({ timeout: 30_000 }).catch(() => undefined);
    assert.equal(await page.locator('.notification-toast .notification-list-item-message a').count(), 0, 'no link in the progress notification');
    // The foreign text is shown as text, and the override in the label is shown, not obeyed.
    await toastText(page, 'All probes failed', [/Open the server log/, /⟨U\+202E⟩ledom/]);
    const toast = page.locator('.notification-toast', { hasText: 'All probes failed' }).first();
    // Every link the toasts offer: there must be none from foreign text.
    const links = page.locator('.notification-toast .notification-list-item-message a');
    const hrefs = await links.evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? a.textContent ?? ''));
    assert.deepEqual(hrefs, [], 'no link in a notification');
    assert.equal(await page.locator('.notification-toast .codicon-alert').count(), 0, 'no icon drawn from the label');
    await page.screenshot({ path: join(resultsDir, 'e2e-hostile-toast.png') });
    // The report it offers quotes the label, the errors and the prompts: no link in the document either.
    await toast.locator('.monaco-button', { hasText: 'Show Details' }).click({ timeout: 30_000 });
    const report = page
      .locator('.monaco-editor .view-lines', { hasText: /Quick.Health.Probe/ })
      .filter({ hasText: 'Evil' })
      .first();
    await report.waitFor({ timeout: 30_000 });
    // Word wrap may break a line anywhere between words.
    assert.match(await report.innerText(), /Open\s+the\s+server\s+log/);
    assert.match(await report.innerText(), /Greeting:\s+request\s+failed/);
    await assertNoEditorLinks(page, [hostileUrl]);

    // The probe panel on it: the server's error is text, its override marked, and nothing in the panel links.
    await serversPane(page).locator('.monaco-list-row', { hasText: 'Evil' }).first().click();
    const panel = probeFrame(page);
    await panel.locator('[data-testid="server-select"]').waitFor({ timeout: 60_000 });
    await setPrompt(panel, 'Hello');
    await panel.locator('[data-testid="run"]').click();
    // The pane may still show the last run's error (another server's) until this run's answer comes:
    // wait for this server's error by its text.
    const error = panel.locator('[data-testid="pane-main"] [data-testid="error"]', { hasText: 'Open the server log' });
    await error.waitFor({ timeout: 60_000 });
    assert.ok((await error.locator('.ctl').count()) >= 1, 'the override is marked in the error');
    assert.equal(
      await panel.locator('[data-testid="pane-main"] [data-testid="verdict-badge"]').getAttribute('data-verdict'),
      'failed',
      'a failed request is not OK',
    );
    const historyRow = panel.locator('[data-testid="history-row"]', { hasText: 'Evil' }).first();
    await historyRow.waitFor({ timeout: 30_000 });
    assert.ok((await historyRow.locator('.history-meta .ctl').count()) >= 1, 'the override is marked in the history row');
    assert.equal(await panel.locator('a[href], img, iframe, object, embed').count(), 0, 'nothing in the panel links or loads');
    await page.screenshot({ path: join(resultsDir, 'e2e-hostile-panel.png') });
    // Nothing opened: no terminal, and the canary saw no request.
    await page.waitForTimeout(1_000);
    assert.equal(await page.locator('.terminal-wrapper, .xterm').count(), 0, 'no terminal opened');
    assert.equal(canaryHits, 0, 'the canary saw a request');
    await page.keyboard.press('Escape');
  });

  it("a hostile workspace's rule file shows as text in hovers: no image, no command link, the source shows its host", async () => {
    await openFile(page, 'run.sh');
    await page.locator('.monaco-editor .squiggly-warning').first().waitFor({ timeout: 90_000 });
    const text = await hoverToken(page, '--kv-cache-dtype', 'Hostile');
    assert.match(text, /Open the server log/, 'the rule text is shown');
    assert.match(text, /⟨U\+202E⟩evil/, 'the override is shown, not obeyed');
    const hover = page.locator('.monaco-hover-content:visible', { hasText: 'Hostile' }).first();
    assert.equal(await hover.locator('img').count(), 0, 'no image in the hover');
    const hrefs = await linkTargets(hover);
    assert.ok(hrefs.length >= 1, 'the rule source is a link');
    for (const href of hrefs) assert.match(href, /^https:\/\/evil\.invalid\//, `only the rule's https source links: ${JSON.stringify(hrefs)}`);
    assert.match(text, /source \(evil\.invalid\)/, 'the source link shows its real host');
    await page.screenshot({ path: join(resultsDir, 'e2e-hostile-hover.png') });
    // Click the one link there is: VS Code asks before it opens an external site, and nothing runs.
    await hover.locator('a[data-href^="https://evil.invalid/"], a[href^="https://evil.invalid/"]').first().click({ timeout: 10_000 });
    await dismissOpenExternal(page);
    await page.mouse.move(5, 500);
    await page.waitForTimeout(1_000);
    assert.equal(await page.locator('.terminal-wrapper, .xterm').count(), 0, 'no terminal opened');
    assert.equal(canaryHits, 0, 'the canary saw a request');
  });

  it('a hostile installed SGLang stays text: its version, path and flags in the progress and load notifications and the differences document', async () => {
    const attack = hostileText(canaryUrl);
    const python = hostileSglang(attack);
    await runCommand(page, 'Inference Doctor: Load Flags from Installed SGLang');
    await pickQuickItem(page, 'This machine');
    await pickQuickItem(page, 'Other interpreter');
    await answerQuickInput(page, 'Python interpreter', python);
    const toast = page.locator('.notification-toast', { hasText: '0.0.0-evil' }).filter({ hasText: 'flags from SGLang' }).first();
    await toast.waitFor({ timeout: 120_000 });
    // The version is shown as text.
    await toastText(page, '0.0.0-evil', [/flags from SGLang/, /Open the server log/]);
    assert.equal(await page.locator('.notification-toast .notification-list-item-message a').count(), 0, 'no link in a notification');
    assert.equal(await page.locator('.notification-toast .codicon-alert').count(), 0, 'no icon drawn from the version');
    // The differences document quotes the version, the path and the flags: no link in it.
    await toast.locator('.monaco-button', { hasText: 'Show Differences' }).click({ timeout: 30_000 });
    await page
      .locator('.monaco-editor .view-lines', { hasText: 'Flags of the installed SGLang' })
      .filter({ hasText: 'evil-backend' })
      .first()
      .waitFor({ timeout: 30_000 });
    await assertNoEditorLinks(page);
    await page.keyboard.press('Escape');
  });

  it("a hostile server_args.py's flag stays text: the Flags view (with a hostile server's value), hovers and completion docs", async () => {
    // The workspace's server_args.py wins over a loaded runtime catalog: give it a field whose help and
    // choices carry the attack (restored afterwards).
    const serverArgs = join(workspace, 'sglang/srt/server_args.py');
    const original = readFileSync(serverArgs, 'utf8');
    const anchor = '    """Every server option. Fields become flags through add_cli_args_from_dataclass."""\n';
    assert.ok(original.includes(anchor), "the fixture's ServerArgs docstring moved");
    writeFileSync(serverArgs, original.replace(anchor, `${anchor}\n${hostileField(hostileText(canaryUrl))}`));
    try {
      await hostileFlagSurfaces();
    } finally {
      writeFileSync(serverArgs, original);
    }
  });

  /** The Flags view, hover and completion on the hostile field written by the test above. */
  async function hostileFlagSurfaces(): Promise<void> {
    // The server pick for the Flags view shows the hostile label as text, with no icon drawn from it.
    await runCommand(page, 'Focus on Backend Flags View');
    await runCommand(page, 'Inference Doctor: Select Server for Flags');
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Evil' }).first();
    await pick.waitFor({ timeout: 30_000 });
    assert.match(await pick.innerText(), /⟨U\+202E⟩ledom/);
    assert.equal(await page.locator('.quick-input-list .codicon-alert').count(), 0, 'no icon drawn from a label in the pick');
    await pick.click();
    await runCommandAndAnswer(page, 'Inference Doctor: Filter Backend Flags', 'Filter Backend Flags', 'evil-backend');
    const pane = flagsPane(page);
    // The row carries the value the hostile server's /server_info reports, as text.
    const row = pane.locator('.monaco-list-row', { hasText: '--evil-backend' }).filter({ hasText: '●' }).first();
    await row.waitFor({ timeout: 60_000 });
    assert.match(await row.innerText(), /⟨U\+202E⟩/);
    await row.hover();
    const tooltip = page.locator('.monaco-hover-content:visible', { hasText: 'Open the server log' }).first();
    await tooltip.waitFor({ timeout: 30_000 });
    assert.match(await tooltip.innerText(), /On Evil/, 'the selected server is named, as text');
    await assertInertHover(tooltip);
    await page.screenshot({ path: join(resultsDir, 'e2e-hostile-flags-view.png') });
    await page.mouse.move(5, 500);
    if (!(await pane.locator('.monaco-list-row', { hasText: 'ledom' }).first().isVisible())) await row.locator('.monaco-tl-twistie').click();
    const choice = pane.locator('.monaco-list-row', { hasText: 'ledom' }).first();
    await choice.waitFor({ timeout: 30_000 });
    assert.match(await choice.innerText(), /⟨U\+202E⟩ledom/, 'a choice shows its override');
    assert.equal(await pane.locator('.codicon-alert').count(), 0, "no icon drawn from a flag's text");

    // Hover and completion on the flag in a launch script.
    await openFile(page, 'evil.sh');
    await hoverToken(page, '--evil-backend', 'Open the server log');
    await assertInertHover(page.locator('.monaco-hover-content:visible', { hasText: 'Open the server log' }).first());
    await page.mouse.move(5, 500);
    await page.keyboard.press('Escape');
    await page.locator('.monaco-editor .view-line', { hasText: '--evil-backend' }).first().click();
    await page.keyboard.press('End');
    await page.keyboard.type(' --evil');
    const details = page.locator('.suggest-details-container .suggest-details', { hasText: 'Open the server log' }).first();
    for (let attempt = 0; attempt < 3 && !(await details.isVisible()); attempt++) {
      if (!(await page.locator('.suggest-widget.visible').isVisible())) await page.keyboard.press('Control+Space');
      await page.locator('.suggest-widget.visible .monaco-list-row', { hasText: '--evil-backend' }).first().waitFor({ timeout: 30_000 });
      // A second Ctrl+Space opens the focused item's documentation beside the list.
      if (!(await details.isVisible())) await page.keyboard.press('Control+Space');
      await details.waitFor({ timeout: 10_000 }).catch(() => undefined);
    }
    await details.waitFor({ timeout: 10_000 });
    await assertInertHover(details);
    assert.match(await details.innerText(), /⟨U\+202E⟩evil/);
    await page.screenshot({ path: join(resultsDir, 'e2e-hostile-completion.png') });
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Z');
    await page.waitForTimeout(1_000);
    assert.equal(await page.locator('.terminal-wrapper, .xterm').count(), 0, 'no terminal opened');
    assert.equal(canaryHits, 0, 'the canary saw a request');
  }

  it('a hostile process and source on the SSH host stay text: the Hosts and Search trees and the forward pick', async () => {
    // No spaces: discovery reads \`ps -eo pid,args\`, where an argument's own spaces cannot be told apart.
    const attack = `evil[x](command:workbench.action.terminal.new)![p](http:$(alert)\u202Eledom`;
    const evilServer = await startFakeLaunchServer({
      simJs: join(repoRoot, 'dist/sim.js'),
      scenario: join(repoRoot, 'test/fixtures/scenarios/e2e.json'),
      port: await freePort(),
      flags: ['--model-path', `/models/${attack}`],
    });
    try {
      await runCommand(page, 'Inference Doctor: Refresh Hosts');
      const hostsPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Hosts/i }) });
      // Open gpu-box and fold its environment, so its running servers fit in the pane.
      await expandRow(hostsPane.locator('.monaco-list-row[aria-level="1"]', { hasText: 'gpu-box' }).first(), true);
      await expandRow(hostsPane.locator('.monaco-list-row[aria-level="2"]', { hasText: 'Environment' }).first(), false);
      await expandRow(hostsPane.locator('.monaco-list-row[aria-level="2"]', { hasText: 'Running servers' }).first(), true);
      const row = hostsPane.locator('.monaco-list-row', { hasText: 'ledom' }).first();
      await row.waitFor({ timeout: 60_000 });
      // ps prints the override as "?"; either way it must not reach the row as itself.
      assert.match(await row.innerText(), /\$\(alert\)(⟨U\+202E⟩|\?+)ledom/, 'the icon syntax is shown as text');
      assert.doesNotMatch(await row.innerText(), /\u202E/);
      assert.equal(await hostsPane.locator('.codicon-alert').count(), 0, 'no icon drawn from the model path');
      await row.hover();
      const tooltip = page.locator('.monaco-hover-content:visible', { hasText: 'ledom' }).first();
      await tooltip.waitFor({ timeout: 30_000 });
      await assertInertHover(tooltip);
      await page.mouse.move(5, 500);

      // Forwarding asks which server: the pick shows the path as text.
      await runCommand(page, 'Inference Doctor: Forward Port and Add to Servers');
      await pickQuickItem(page, 'gpu-box');
      const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'ledom' }).first();
      await pick.waitFor({ timeout: 30_000 });
      assert.match(await pick.innerText(), /\$\(alert\)(⟨U\+202E⟩|\?+)ledom/, 'the icon syntax is shown as text');
      assert.doesNotMatch(await pick.innerText(), /\u202E/);
      assert.equal(await page.locator('.quick-input-list .codicon-alert').count(), 0, 'no icon drawn from the model path in the pick');
      await page.keyboard.press('Escape');

      // A source file on the host whose line is an attack: the match row shows it as text.
      const src = mkdtempSync(join(tmpdir(), 'id-e2e-evil-src-'));
      scratch.push(src);
      // The override and the icon first: a match row shows the line around the match, cut short.
      writeFileSync(join(src, 'evil.py'), `EVIL_MARKER = ${JSON.stringify(`\u202Eevil $(alert) ${hostileText(canaryUrl)}`)}\n`);
      const { searchPane, matchRow: match } = await searchOnGpuBox(page, src, 'EVIL_MARKER', 'evil.py');
      assert.match(await match.innerText(), /⟨U\+202E⟩evil/);
      assert.equal(await searchPane.locator('.codicon-alert').count(), 0, 'no icon drawn from a source line');
      await match.hover();
      const matchTip = page.locator('.monaco-hover-content:visible', { hasText: 'EVIL_MARKER' }).first();
      await matchTip.waitFor({ timeout: 30_000 }).catch(() => undefined);
      assert.equal(await page.locator('.monaco-hover-content img').count(), 0, 'no image in a tooltip');
      await page.screenshot({ path: join(resultsDir, 'e2e-hostile-host.png') });
      await page.mouse.move(5, 500);
      await page.waitForTimeout(1_000);
      assert.equal(await page.locator('.terminal-wrapper, .xterm').count(), 0, 'no terminal opened');
      assert.equal(canaryHits, 0, 'the canary saw a request');
    } finally {
      await evilServer.stop();
    }
  });
});

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

/** Picks the row of an open QuickPick that shows `text`. */
/**
 * gpu-box is this machine, so the incident server of the apply-and-verify step is found there too
 * and the extension asks which server: this picks the one on `port`, or goes on when it was not asked.
 */
async function pickServerOnGpuBox(page: Page, port: number, next: Locator): Promise<void> {
  await pickQuickItem(page, 'gpu-box');
  const ours = page.locator('.quick-input-list .monaco-list-row', { hasText: `port ${port} ` }).first();
  await Promise.race([next.waitFor({ timeout: 60_000 }), ours.waitFor({ timeout: 60_000 })]);
  if (await ours.isVisible()) await ours.click();
}

function findFile(dir: string, name: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const f = findFile(path, name);
      if (f) return f;
    } else if (entry.name === name) return path;
  }
  return undefined;
}

/** A server whose model name, /server_info values and errors all carry the attack. */
function createHostileServer(attack: string): Server {
  return createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/v1/models')) return void res.end(JSON.stringify({ object: 'list', data: [{ id: `m ${attack}`, object: 'model' }] }));
    if (req.url?.startsWith('/health')) return void res.end('{}');
    if (req.url?.startsWith('/server_info') || req.url?.startsWith('/get_server_info')) {
      return void res.end(JSON.stringify({ model_path: `m ${attack}`, evil_backend: `v ${attack}`, attention_backend: attack, version: attack }));
    }
    res.statusCode = 500;
    res.end(JSON.stringify({ error: { message: `CUDA error: ${attack}`, type: 'InternalServerError', code: 500 } }));
  });
}

/**
 * A Python whose SGLang (a copy of the fake one) has a hostile version and a plugin flag whose help and
 * choices carry the attack. Returns the interpreter's path.
 */
function hostileSglang(attack: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'id-e2e-evil-sglang-'));
  cpSync(join(repoRoot, 'test/fixtures/fake-sglang'), dir, { recursive: true });
  writeFileSync(join(dir, 'sglang', 'version.py'), `__version__ = ${JSON.stringify(`0.0.0-evil ${attack.replace(/["']/g, '')}`)}\n`);
  appendFileSync(
    join(dir, 'sglang', 'srt', 'plugins.py'),
    [
      '',
      '',
      `_ATTACK = ${JSON.stringify(attack)}`,
      '',
      'def _add_evil(parser):',
      '    parser.add_argument("--evil-backend", choices=["auto", "x " + _ATTACK.replace("evil", "ledom")], default="auto", help="Evil " + _ATTACK)',
      '',
      '',
      '_load_plugins = load_plugins',
      '',
      'def load_plugins():',
      '    _load_plugins()',
      '    from sglang.srt import server_args',
      '    server_args.add_cli_hook(_add_evil)',
      '',
    ].join('\n'),
  );
  const python = join(dir, 'python3');
  writeFileSync(python, `#!/bin/sh\nPYTHONDONTWRITEBYTECODE=1 PYTHONPATH='${dir}' exec python3 "$@"\n`, { mode: 0o755 });
  return python;
}

/**
 * Where the links inside `el` go. Links carry an href (data-href in VS Code's hover); anchors without
 * one are the hover's own actions.
 */
async function linkTargets(el: ReturnType<Page['locator']>): Promise<string[]> {
  return (await el.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('data-href') ?? a.getAttribute('href') ?? ''))).filter((h) => h !== '');
}

/**
 * Searches `dir` on gpu-box for `query` (the host has no SGLang, so the command asks for a directory)
 * and waits for the file's row in Search Results; returns the pane and the first match row (shown).
 */
async function searchOnGpuBox(page: Page, dir: string, query: string, fileName: string) {
  await runCommand(page, 'Inference Doctor: Search SGLang Source on Host');
  // Two hosts are connected (This machine, gpu-box): pick the SSH one.
  await pickQuickItem(page, 'gpu-box');
  await answerQuickInput(page, 'No SGLang installation found on gpu-box', dir);
  const input = page.locator('.quick-input-widget input.input');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Search SGLang source on gpu-box' }).waitFor({ timeout: 30_000 });
  await input.fill(query);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: `Search for "${query}"` }).waitFor({ timeout: 30_000 });
  await input.press('Enter');
  const searchPane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Search Results/i }) });
  const fileRow = searchPane.locator('.monaco-list-row', { hasText: fileName }).first();
  await fileRow.waitFor({ timeout: 60_000 });
  // Rows are redrawn while results stream in: click only once the view says the search is done
  // (a click on a row that is being replaced can select it without opening it).
  await searchPane
    .getByText(/\d+ results? in \d+ files?(?!.*searching)/)
    .first()
    .waitFor({ timeout: 60_000 });
  const matchRow = searchPane.locator('.monaco-list-row', { hasText: query }).first();
  if (!(await matchRow.isVisible().catch(() => false))) await fileRow.click();
  await matchRow.waitFor({ timeout: 30_000 });
  return { searchPane, matchRow };
}

/** A hover, tooltip or completion-docs element shows foreign text: no image, and no link but https ones. */
async function assertInertHover(hover: ReturnType<Page['locator']>): Promise<void> {
  assert.equal(await hover.locator('img').count(), 0, 'no image');
  const hrefs = await linkTargets(hover);
  for (const href of hrefs) assert.match(href, /^https:\/\//, `a link from foreign text: ${JSON.stringify(hrefs)}`);
  assert.equal(await hover.locator('.codicon-alert').count(), 0, 'no icon drawn from foreign text');
}

/** The active editor has no link in it (markdown links, autolinked URLs) but the extension's own `allowed` ones. */
async function assertNoEditorLinks(page: Page, allowed: string[] = []): Promise<void> {
  // Link detection runs after the document settles.
  await page.waitForTimeout(1_500);
  const editor = page.locator('.editor-group-container.active .editor-instance .monaco-editor').first();
  const links = await editor.locator('.detected-link, .detected-link-active').allInnerTexts();
  assert.deepEqual(
    links.filter((l) => !allowed.includes(l.trim())),
    [],
    'a link in the generated document',
  );
}

/** A ServerArgs field (main-era Annotated shape) whose help and choices carry the attack. */
function hostileField(attack: string): string {
  return [
    '    evil_backend: A[',
    '        str,',
    '        Arg(',
    `            help=${JSON.stringify(`Evil ${attack}`)},`,
    `            choices=["auto", ${JSON.stringify(`x ${attack.replace('evil', 'ledom')}`)}],`,
    '        ),',
    '        NS("exec.kernel"),',
    '    ] = "auto"',
    '',
  ].join('\n');
}

/** Opens (or folds) a tree row by its twistie, unless it already is. */
async function expandRow(row: ReturnType<Page['locator']>, open: boolean): Promise<void> {
  await row.waitFor({ timeout: 30_000 });
  if ((await row.getAttribute('aria-expanded')) !== String(open)) await row.locator('.monaco-tl-twistie').click();
  await waitFor(`the row to be ${open ? 'open' : 'folded'}`, async () => (await row.getAttribute('aria-expanded')) === String(open), 10_000);
}

/** VS Code asks before it opens an external site; say no. */
async function dismissOpenExternal(page: Page): Promise<void> {
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 10_000 });
  assert.match(await dialog.innerText(), /evil\.invalid/, 'the dialog names the real host');
  await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
}

/** The attack every hostile string carries: command and file links, images and HTML aimed at the canary, an override. */
function hostileText(canaryUrl: string): string {
  return (
    `[Open the server log](command:workbench.action.terminal.new) ![pixel](${canaryUrl}/pixel.png) ` +
    `<img src="${canaryUrl}/img.png"> [docs](${canaryUrl}/docs) [file](file:///etc/passwd) ${canaryUrl}/bare \u202Eevil`
  );
}

describe('e2e: Restricted Mode (an untrusted workspace)', function () {
  this.timeout(240_000);
  const scratch: string[] = [];
  let codeServer: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let ranMarker = '';
  let workspacePython = '';

  before(async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'id-e2e-untrusted-'));
    scratch.push(workspace);
    mkdirSync(join(workspace, 'deploy'));
    copyFileSync(join(repoRoot, 'test/fixtures/launch/sglang.service'), join(workspace, 'deploy/sglang.service'));
    // Its SGLang checkout gives the flag catalog: reading it is text, allowed in Restricted Mode.
    mkdirSync(join(workspace, 'sglang/srt'), { recursive: true });
    copyFileSync(join(repoRoot, 'test/fixtures/server_args/dataclass_main.py'), join(workspace, 'sglang/srt/server_args.py'));
    // The workspace names a "python" to run: in Restricted Mode it must never run.
    ranMarker = join(workspace, 'python-ran');
    workspacePython = join(workspace, 'tools', 'evil-python');
    mkdirSync(join(workspace, 'tools'));
    writeFileSync(workspacePython, `#!/bin/sh\ntouch '${ranMarker}'\nexit 1\n`, { mode: 0o755 });
    mkdirSync(join(workspace, '.vscode'));
    writeFileSync(
      join(workspace, '.vscode', 'settings.json'),
      JSON.stringify({
        'inferenceDoctor.flags.python': workspacePython,
        'inferenceDoctor.remote.pythonPaths': [workspacePython],
      }),
    );
    codeServer = await startCodeServer({ workspace, restricted: true, settings: { 'inferenceDoctor.health.intervalSeconds': 0 } });
    ({ browser, page } = await openWorkbench(codeServer.url));
  });

  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, page, 'e2e-restricted-failed');
  });

  after(async () => {
    await browser?.close();
    await closeCodeServer(codeServer, 'code-server-restricted.log');
    for (const d of scratch) rmSync(d, { recursive: true, force: true });
  });

  it('opens in Restricted Mode and hover on a launch file still works', async () => {
    await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: 60_000 });
    await openFile(page, 'sglang.service');
    await page.locator('.monaco-editor .squiggly-warning').first().waitFor({ timeout: 90_000 });
    const help = await hoverTokenAgain(page, '--moe-runner-backend', '--moe-runner-backend');
    assert.match(help, /Kernel family for MoE/);
    await page.screenshot({ path: join(resultsDir, 'e2e-restricted-hover.png') });
    await page.mouse.move(5, 500);
  });

  it("ignores the workspace's inferenceDoctor.flags.python: it is not offered and never runs", async () => {
    await runCommand(page, 'Inference Doctor: Load Flags from Installed SGLang');
    const other = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Other interpreter' }).first();
    await other.waitFor({ timeout: 60_000 });
    const rows = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    assert.ok(rows.length >= 1);
    assert.equal(
      rows.some((r) => r.includes('evil-python')),
      false,
      `the workspace's python is offered: ${rows.join(' | ')}`,
    );
    await page.keyboard.press('Escape');
    await page.waitForTimeout(1_000);
    assert.equal(existsSync(ranMarker), false, "the workspace's python was run");
  });
});
