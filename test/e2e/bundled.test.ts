/**
 * A new user with only a launch file (no server_args.py, no SGLang installed): the packaged
 * extension in code-server checks a two-document compose file with an anchor against the bundled
 * catalog of the SGLang release its image tag names — hover with our own help and the release,
 * an invalid choice and a renamed flag marked, completion of flags and choices.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Page } from 'playwright-core';
import { hoverTokenAgain, openFile, resultsDir, TOKEN_CENTRE, useWorkbench } from './ui';
import { waitFor } from '../support/wait';

/** Two documents: a compose file whose service takes its command through an anchor, and a Kubernetes Deployment. */
const COMPOSE_WITH_ANCHOR = `# one file, two documents: compose, then the same server on Kubernetes
x-launch: &launch
  command: >
    python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B

    --attention-backend flashinferr --tp-size 1
services:
  sglang:
    image: lmsysorg/sglang:v0.5.12-cu130
    <<: *launch
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang
spec:
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.12-cu130
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "Qwen/Qwen3-8B", "--fp4-gemm-runner-backend", "flashinfer_cudnn"]
`;

describe('e2e: only a launch file, no server_args.py — the bundled catalog of its SGLang release', function () {
  this.timeout(300_000);
  const workbench = useWorkbench('bundled', (workspace) => {
    mkdirSync(join(workspace, 'deploy'));
    writeFileSync(join(workspace, 'deploy', 'compose.yaml'), COMPOSE_WITH_ANCHOR);
  });
  let page: Page;
  before(() => {
    page = workbench.page;
  });

  it('hovers a flag of the anchored command with our help and the release from the image tag', async () => {
    await openFile(page, 'compose.yaml');
    // The misspelt choice is an error squiggle (the bundled catalog of 0.5.12 knows the choices).
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 90_000 });
    const help = await hoverTokenAgain(page, '--attention-backend', 'bundled facts of SGLang');
    assert.match(help, /bundled facts of SGLang 0\.5\.12/);
    assert.match(help, /image tag lmsysorg\/sglang:v0\.5\.12-cu130/);
    assert.match(help, /Picks the attention kernel/, 'our own help text');
    assert.match(help, /Choices:.*flashinfer/s);
    await page.screenshot({ path: join(resultsDir, 'e2e-bundled-hover.png') });
    await page.mouse.move(5, 500);
  });

  it('marks the invalid choice and, in the second document (Kubernetes), the renamed flag', async () => {
    const choice = await hoverTokenAgain(page, 'flashinferr', 'not a valid choice');
    assert.match(choice, /"flashinferr" is not a valid choice for --attention-backend: choose from flashinfer/);
    await page.mouse.move(5, 500);
    const renamed = await hoverTokenAgain(page, '--fp4-gemm-runner-backend', 'renamed');
    assert.match(renamed, /--fp4-gemm-runner-backend was renamed to --fp4-gemm-backend/);
    await page.mouse.move(5, 500);
  });

  it('completes flags and their choices from the bundled catalog', async () => {
    // Type a new flag at the end of the folded command, then a value for it.
    const point = await waitFor(
      'the --tp-size token',
      async () => (await page.evaluate<{ x: number; y: number } | null>(`(${TOKEN_CENTRE})(${JSON.stringify('--tp-size 1')})`)) ?? undefined,
      30_000,
    );
    await page.mouse.click(point.x, point.y);
    await page.keyboard.press('End');
    await page.keyboard.type(' --moe-runner-b');
    const suggest = page.locator('.suggest-widget .monaco-list-row', { hasText: '--moe-runner-backend' }).first();
    if (!(await suggest.isVisible().catch(() => false))) await page.keyboard.press('Control+Space');
    await suggest.waitFor({ timeout: 30_000 });
    await page.keyboard.press('Enter');
    await page.keyboard.type(' ');
    const value = page.locator('.suggest-widget .monaco-list-row', { hasText: 'flashinfer_cutlass' }).first();
    if (!(await value.isVisible().catch(() => false))) await page.keyboard.press('Control+Space');
    await value.waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(resultsDir, 'e2e-bundled-completion.png') });
    await page.keyboard.press('Escape');
  });
});
