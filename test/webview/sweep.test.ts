/**
 * The sweep panel's page in headless Chromium: the exact HTML the panel ships (the webview shell
 * with sweep.js) and a stub acquireVsCodeApi; the test plays the host. Rows carry hostile flag
 * values, reasons, errors and log lines, and a failed start: all of it must arrive as text.
 */
import { strict as assert } from 'node:assert';
import type { Page } from 'playwright-core';
import type { SweepRow } from '../../src/core/fix/sweep';
import { isSweepWebviewMessage, type HostToSweepWebview, type SweepViewState } from '../../src/shared/sweepProtocol';
import {
  assertPageClean,
  elementsInApp,
  openWatchedPage,
  postedMessages,
  sendToWebview,
  startRig,
  waitForPosted,
  type PageWatch,
  type WebviewRig,
} from './harness';

const WAIT = { timeout: 20_000 };
const CANARY = '__pwned';
const HOSTILE = [
  `<img src=x onerror="window.${CANARY}=1">`,
  `<script>window.${CANARY}=1</script>`,
  `</td></tr></table><svg onload="window.${CANARY}=1">`,
  `<vscode-button onclick="window.${CANARY}=1">Apply this row</vscode-button>`,
  'RLO:\u202Egnp.exe\u202C',
];

const FLAG = '--fp4-gemm-backend';
const EVIL_FLAG = `--x${HOSTILE[0]}`;

function setupState(): SweepViewState {
  return {
    setup: {
      launchLabel: `run.sh ${HOSTILE[1]}`,
      targetLabel: `run.sh under supervise ${HOSTILE[2]}`,
      serverLabel: `gpu-box ${HOSTILE[4]}`,
      axes: [
        { flag: FLAG, values: ['flashinfer_cutlass', 'flashinfer_cudnn', HOSTILE[3]], current: 'flashinfer_cutlass' },
        { flag: EVIL_FLAG, values: ['a'] },
      ],
      total: 3,
    },
    rows: [],
    progress: 'starting',
    phase: 'running',
  };
}

const ROWS: SweepRow[] = [
  {
    flags: { [FLAG]: 'flashinfer_cutlass', [EVIL_FLAG]: 'a' },
    started: true,
    verdict: 'nan',
    reasons: ['nan-text', HOSTILE[1]],
    ttftMs: 41.5,
    tokensPerSecond: 38.2,
    readySeconds: 1.2,
  },
  {
    flags: { [FLAG]: HOSTILE[3], [EVIL_FLAG]: 'a' },
    started: false,
    verdict: 'error',
    reasons: [],
    ttftMs: null,
    tokensPerSecond: null,
    error: `exited during start-up ${HOSTILE[0]}`,
    logLines: ['RuntimeError: CUDA error: no kernel image is available', HOSTILE[2], HOSTILE[4]],
  },
  { flags: { [FLAG]: 'flashinfer_cudnn', [EVIL_FLAG]: 'a' }, started: true, verdict: 'ok', reasons: [], ttftMs: 35, tokensPerSecond: 40.1, readySeconds: 0.9 },
];

describe('sweep webview: the live matrix in headless Chromium', function () {
  this.timeout(120_000);
  let rig: WebviewRig;

  before(async () => {
    rig = await startRig();
  });

  after(async () => {
    await rig?.close();
  });

  const openPage = () => openWatchedPage(rig, '/sweep', { waitReady: true });
  const send = (page: Page, m: HostToSweepWebview) => sendToWebview(page, m);

  async function assertClean(page: Page, watch: PageWatch): Promise<void> {
    await assertPageClean(page, watch, rig.harness.origin, CANARY);
    // Nothing a payload spells exists as an element; the only buttons are the page's own.
    assert.deepEqual(await elementsInApp(page, 'img, script, svg, iframe, style, a, [onerror], [onload], [onclick]'), []);
    for (const m of await postedMessages(page)) assert.ok(isSweepWebviewMessage(m), `the page posts only valid messages: ${JSON.stringify(m)}`);
  }

  it('fills in the matrix row by row, shows a failed start with its log lines, and keeps every foreign string as text', async () => {
    const { page, watch } = await openPage();
    await send(page, { type: 'state', state: setupState() });
    await page.waitForSelector('[data-testid="setup"] h1');
    assert.equal(await page.textContent('[data-testid="launch-label"]'), `run.sh ${HOSTILE[1]}`);
    assert.ok((await page.textContent('[data-testid="setup"]'))?.includes(HOSTILE[2]));
    const headText = await page.textContent('[data-testid="matrix"] thead');
    assert.ok(headText?.includes(EVIL_FLAG), 'a hostile flag name heads its column as text');

    await send(page, { type: 'progress', message: `1/3: ${FLAG} flashinfer_cutlass ${HOSTILE[0]}` });
    await send(page, { type: 'row', index: 0, row: ROWS[0] });
    await page.waitForSelector('[data-testid="row"][data-index="0"]');
    assert.equal(await page.getAttribute('[data-testid="row"][data-index="0"]', 'data-verdict'), 'nan');
    assert.ok((await page.textContent('[data-testid="progress"]'))?.includes(HOSTILE[0]), 'progress as text');
    assert.ok((await page.textContent('[data-testid="row"] [data-testid="reasons"]'))?.includes(HOSTILE[1]));
    assert.equal(await page.locator('[data-testid="row"][data-index="0"] [data-testid="verdict"] .codicon-error').count(), 1, 'NaN shows with its icon');

    await send(page, { type: 'row', index: 1, row: ROWS[1] });
    await page.waitForSelector('[data-testid="row-log"]');
    const failed = page.locator('[data-testid="row"][data-index="1"]');
    assert.ok((await failed.textContent())?.includes('Did not start'));
    assert.ok((await failed.locator('[data-testid="flag-value"]').first().textContent())?.includes(HOSTILE[3]));
    assert.equal(await page.textContent('[data-testid="row-error"]'), `exited during start-up ${HOSTILE[0]}`);
    assert.equal(await page.textContent('[data-testid="log-lines"]'), ROWS[1].logLines?.join('\n'));
    // The bidi override is kept (copy gives the exact text) but isolated and labelled.
    assert.ok((await page.locator('[data-testid="log-lines"] .ctl[data-cp="U+202E"]').count()) === 1);
    assert.equal(await page.locator('[data-testid="apply-row"]').count(), 0, 'no Apply while running');
    await assertClean(page, watch);
    await page.close();
  });

  it('Cancel posts the cancel message; the end says the original launch was restored and offers Apply on the healthy row only', async () => {
    const { page, watch } = await openPage();
    await send(page, { type: 'state', state: { ...setupState(), rows: [ROWS[0], ROWS[1]], progress: '3/3' } });
    await page.waitForSelector('[data-testid="row"][data-index="1"]');
    await page.click('[data-testid="cancel"]');
    await waitForPosted(page, 'cancel');
    await send(page, { type: 'cancelling' });
    await page.waitForFunction(() => document.querySelector('[data-testid="cancel"]')?.hasAttribute('disabled'), undefined, WAIT);
    assert.match((await page.textContent('[data-testid="final"]')) ?? '', /Cancelling/);

    await send(page, { type: 'row', index: 2, row: ROWS[2] });
    await send(page, {
      type: 'finished',
      end: { complete: false, cancelled: true, restored: true, reports: { json: `/w/run.sh.sweep-1.json ${HOSTILE[0]}`, md: '/w/run.sh.sweep-1.md' } },
    });
    await page.waitForSelector('[data-testid="restored"]');
    assert.equal(await page.getAttribute('[data-testid="final"]', 'data-restored'), 'true');
    assert.match((await page.textContent('[data-testid="summary"]')) ?? '', /^Cancelled: 1 of 3 combinations healthy/);
    assert.match((await page.textContent('[data-testid="restored"]')) ?? '', /original launch was restored/);
    assert.ok((await page.textContent('[data-testid="reports"]'))?.includes(HOSTILE[0]), 'the report path as text');

    const apply = page.locator('[data-testid="apply-row"]');
    assert.equal(await apply.count(), 1, 'only the healthy row can be applied');
    assert.equal(await apply.getAttribute('data-index'), '2');
    await apply.click();
    await page.click('[data-testid="open-md"]');
    await waitForPosted(page, 'openReport');
    const sent = (await postedMessages(page)).filter((m) => m.type !== 'ready');
    assert.deepEqual(sent, [{ type: 'cancel' }, { type: 'applyRow', index: 2 }, { type: 'openReport', kind: 'md' }]);
    await assertClean(page, watch);
    await page.close();
  });

  it('says the original launch was NOT restored, with the restore error as text, and offers no Apply', async () => {
    const { page, watch } = await openPage();
    await send(page, { type: 'state', state: { ...setupState(), rows: [ROWS[2]] } });
    await send(page, {
      type: 'finished',
      end: { complete: false, cancelled: false, restored: false, restoreError: `Restoring run.sh failed ${HOSTILE[1]}`, error: HOSTILE[2] },
    });
    await page.waitForSelector('[data-testid="not-restored"]');
    assert.equal(await page.getAttribute('[data-testid="final"]', 'data-restored'), 'false');
    assert.ok((await page.textContent('[data-testid="not-restored"]'))?.includes(`Restoring run.sh failed ${HOSTILE[1]}`));
    assert.equal(await page.textContent('[data-testid="sweep-error"]'), HOSTILE[2]);
    assert.equal(await page.locator('[data-testid="apply-row"]').count(), 0);
    await assertClean(page, watch);
    await page.close();
  });
});
