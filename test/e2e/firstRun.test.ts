/**
 * A new user with no inference server and an empty folder: the packaged extension in code-server
 * offers the simulator from the Servers view's welcome, the probe panel opens on it and catches the
 * NaN answer, Stop Simulator ends it (its port stops answering), and the Get Started walkthrough
 * lists its steps and starts the simulator from its first one.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type Page } from 'playwright-core';
import { probeFrame, resultsDir, runCommand, serversPane, showInferenceDoctor, toastText, useWorkbench } from './ui';
import { listening, waitFor } from '../support/wait';

const SIM_LABEL = 'Simulator (this machine, no GPU)';

/** The simulator's URL, from the notice Try the Simulator shows. */
async function simulatorUrl(page: Page): Promise<string> {
  const text = await toastText(page, 'runs at', [/runs at http:\/\/127\.0\.0\.1:\d+/]);
  return /http:\/\/127\.0\.0\.1:\d+/.exec(text)![0];
}

describe('e2e: a new user with no server tries the simulator', function () {
  this.timeout(300_000);
  const workbench = useWorkbench('first-run');
  let page: Page;
  before(() => {
    page = workbench.page;
  });

  it("starts the simulator from the Servers view's welcome, and the probe panel catches its NaN answer", async () => {
    await showInferenceDoctor(page);
    await serversPane(page).locator('.welcome-view-content .monaco-button', { hasText: 'Try the Simulator' }).click();
    const url = await simulatorUrl(page);
    assert.ok(await listening(url), 'the simulator answers on loopback');
    await serversPane(page).locator('.monaco-list-row', { hasText: SIM_LABEL }).waitFor({ timeout: 30_000 });
    // The panel opens on the simulator; with no model chosen it gets the first one, the NaN model.
    const panel = probeFrame(page);
    await panel.locator('[data-testid="run"]').waitFor({ timeout: 60_000 });
    const serverSelect = panel.locator('[data-testid="server-select"]');
    await waitFor(
      'the panel to select the simulator',
      async () => (await serverSelect.evaluate((el) => (el as HTMLSelectElement).value)).startsWith('session:'),
      30_000,
    );
    await panel.locator('[data-testid="run"]').click();
    const main = panel.locator('[data-testid="pane-main"]');
    await main.locator('[data-testid="verdict-badge"][data-verdict="nan"]').waitFor({ timeout: 60_000 });
    assert.match(await main.locator('[data-testid="answer"]').innerText(), /^!{8,}/);
    await page.screenshot({ path: join(resultsDir, 'e2e-first-run-simulator-nan.png') });

    // Stop Simulator in the view's title bar: the row goes, the welcome comes back, the port closes.
    await serversPane(page).locator('.pane-header').hover();
    await serversPane(page).locator('.pane-header .action-item a[aria-label="Stop Simulator"]').click();
    await serversPane(page).locator('.welcome-view-content .monaco-button', { hasText: 'Try the Simulator' }).waitFor({ timeout: 30_000 });
    assert.equal(await serversPane(page).locator('.monaco-list-row', { hasText: SIM_LABEL }).count(), 0);
    await waitFor('the simulator to stop answering', async () => !(await listening(url)), 15_000);
  });

  it('the Get Started walkthrough lists its steps and starts the simulator from the first', async () => {
    // The notice of the first test's simulator must not be read for this one's.
    await runCommand(page, 'Notifications: Clear All Notifications');
    await runCommand(page, 'Welcome: Open Walkthrough...');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get Started with Inference Doctor' }).first().click();
    const walkthrough = page.locator('.gettingStartedContainer');
    for (const title of [
      'See what it catches, no GPU needed',
      'Add your inference server',
      'Probe it and read the verdict',
      'Check the launch command',
      'Reach the GPU host over SSH',
      'Change a flag and verify the fix',
    ]) {
      await walkthrough.locator('.getting-started-step', { hasText: title }).waitFor({ timeout: 30_000 });
    }
    await page.screenshot({ path: join(resultsDir, 'e2e-first-run-walkthrough.png') });
    const firstStep = walkthrough.locator('.getting-started-step', { hasText: 'See what it catches' });
    await firstStep.getByRole('button', { name: 'Try the Simulator' }).click();
    const url = await simulatorUrl(page);
    // The probe panel opened over the walkthrough; back on it, the step is marked done.
    await page.locator('.tab', { hasText: 'Walkthrough' }).click();
    await firstStep.locator('.codicon-getting-started-step-checked').waitFor({ timeout: 15_000 });
    await serversPane(page).locator('.monaco-list-row', { hasText: SIM_LABEL }).waitFor({ timeout: 30_000 });
    assert.ok(await listening(url));
    await runCommand(page, 'Inference Doctor: Stop Simulator');
    await waitFor('the simulator to stop answering', async () => !(await listening(url)), 15_000);
  });
});
