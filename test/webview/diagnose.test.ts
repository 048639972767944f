/**
 * The Diagnose Server panel's page in headless Chromium: the exact HTML the panel ships (the
 * webview shell with diagnose.js) and a stub acquireVsCodeApi; the test plays the host. The
 * diagnosis carries hostile titles, evidence, fix notes, labels and sources (HTML, `javascript:`
 * and look-alike links, bidi controls): all of it must arrive as text, and only
 * `https://github.com/…` sources may be links.
 */
import { strict as assert } from 'node:assert';
import type { Page } from 'playwright-core';
import type { Finding } from '../../src/core/diagnose/rules/engine';
import { isDiagnoseWebviewMessage, type DiagnoseViewState, type HostToDiagnoseWebview } from '../../src/shared/diagnoseProtocol';
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

const CANARY = '__pwned';
const HOSTILE = [
  `<img src=x onerror="window.${CANARY}=1">`,
  `<script>window.${CANARY}=1</script>`,
  `</li></ul><svg onload="window.${CANARY}=1">`,
  `<a href="javascript:window.${CANARY}=1">click me</a>`,
  'RLO:\u202Egnp.exe\u202C',
];
const GOOD_SOURCE = 'https://github.com/sgl-project/sglang/issues/12178';
/** A GitHub address whose path tries to break out of the attribute: still one link, percent-encoded. */
const QUOTED_SOURCE = `https://github.com/flashinfer-ai/flashinfer/issues/2577"><img/src=x/onerror=window.${CANARY}=1>`;
const BAD_SOURCES = [
  `javascript:window.${CANARY}=1`,
  'JaVaScRiPt:alert(1)',
  `data:text/html,<script>window.${CANARY}=1</script>`,
  'http://github.com/sgl-project/sglang/issues/1',
  'https://github.com.evil.example/sgl-project/sglang',
  'https://evil.example/?https://github.com/x',
  'https://user:pass@github.com/sgl-project/sglang',
  'https://github.com:8443/sgl-project/sglang',
  'https://gist.github.com/x/y',
  ` https://github.com/leading-space`,
  `https://github.com/x\u202E`,
  'https://github.com/with space',
  'vscode://inferenceDoctor.applyAndVerify',
  'command:inferenceDoctor.sweep',
];

function finding(over: Partial<Finding> = {}): Finding {
  return {
    id: 'sglang-nvfp4-gemm-flashinfer-cutlass-sm120',
    title: `Dense NVFP4 GEMMs ${HOSTILE[0]}`,
    confidence: 'match',
    score: 1,
    engine: 'sglang',
    symptoms: ['nan', 'token0-flood'],
    mechanism: `FlashInfer's CUTLASS kernel returns NaN ${HOSTILE[1]}`,
    evidence: [
      { stance: 'for', text: `GPU NVIDIA RTX PRO 6000 ${HOSTILE[4]}`, source: 'discovery', where: `discovery on ${HOSTILE[2]}` },
      { stance: 'for', text: '`fp4_gemm_runner_backend` is flashinfer_cutlass (server-info, /server_info)', source: 'server-info', where: '/server_info' },
      { stance: 'for', text: 'a probe answer shows token0-run', source: 'probe' },
      { stance: 'for', text: 'a probe answer shows token0-run', source: 'probe' },
      { stance: 'against', text: `sources disagree on gpu.count ${HOSTILE[3]}` },
    ],
    missing: [`Read the FlashInfer version ${HOSTILE[2]}`],
    fix: {
      flags: { '--fp4-gemm-backend': 'flashinfer_cudnn' },
      env: {},
      steps: [
        { flags: { '--fp4-gemm-backend': `flashinfer_cudnn${HOSTILE[0]}` }, note: `cuDNN's FP4 GEMM ${HOSTILE[3]}` },
        { env: { SGLANG_X: HOSTILE[1] }, note: 'an env step' },
        { packages: [{ name: 'flashinfer-python', action: 'upgrade' }], note: 'A newer FlashInfer.' },
      ],
    },
    ruleOut: [`Answers stay broken ${HOSTILE[4]}`],
    sources: [GOOD_SOURCE, QUOTED_SOURCE, ...BAD_SOURCES],
    ...over,
  };
}

function doneState(over: Partial<DiagnoseViewState> = {}): DiagnoseViewState {
  return {
    serverLabel: `SM120 box ${HOSTILE[1]}`,
    phase: 'done',
    at: Date.UTC(2026, 0, 1),
    sources: [
      { kind: 'launch', label: `deploy/run.sh ${HOSTILE[2]}` },
      { kind: 'discovery', label: 'discovery on This machine' },
    ],
    notes: [`/server_info: HTTP 404 ${HOSTILE[0]}`],
    symptoms: [{ symptom: 'token0-flood', from: `probe ${HOSTILE[4]}` }],
    findings: [
      finding(),
      finding({ id: 'sglang-nvfp4-sm120-sgl-kernel-without-sm120', title: 'sgl-kernel without SM 12.x code', confidence: 'possible', score: 0.5, sources: [] }),
      finding({
        id: 'no-flags',
        title: 'A rebuild only',
        fix: { flags: {}, env: {}, steps: [{ packages: [{ name: 'sgl-kernel', action: 'rebuild' }], note: 'Rebuild.' }] },
      }),
    ],
    nextCheck: `Try --fp4-gemm-backend flashinfer_cudnn ${HOSTILE[3]}`,
    rulesJudged: 42,
    launchLabel: `deploy/run.sh ${HOSTILE[0]}`,
    ...over,
  };
}

describe('diagnose webview: the ranked causes in headless Chromium', function () {
  this.timeout(120_000);
  let rig: WebviewRig;

  before(async () => {
    rig = await startRig();
  });

  after(async () => {
    await rig?.close();
  });

  const openPage = () => openWatchedPage(rig, '/diagnose', { waitReady: true });
  const send = (page: Page, m: HostToDiagnoseWebview) => sendToWebview(page, m);

  async function assertClean(page: Page, watch: PageWatch): Promise<void> {
    await assertPageClean(page, watch, rig.harness.origin, CANARY);
    assert.equal(new URL(page.url()).pathname, '/diagnose', 'the page never navigated');
    // Nothing a payload spells exists as an element; the only links are GitHub's.
    assert.deepEqual(await elementsInApp(page, 'img, script, svg, iframe, style, object, embed, form, [onerror], [onload], [onclick]'), []);
    for (const m of await postedMessages(page)) assert.ok(isDiagnoseWebviewMessage(m), `the page posts only valid messages: ${JSON.stringify(m)}`);
  }

  it('shows the symptoms, the causes best first with evidence for and against, checks, fix steps and sources, all as text', async () => {
    const { page, watch } = await openPage();
    await send(page, { type: 'state', state: doneState() });
    await page.waitForSelector('[data-testid="finding"]');
    assert.equal(await page.textContent('[data-testid="server-label"]'), `SM120 box ${HOSTILE[1]}`);
    assert.equal(await page.getAttribute('#app', 'data-phase'), 'done');
    assert.equal(await page.textContent('[data-testid="symptom"]'), 'token0-flood');
    assert.ok((await page.textContent('[data-testid="symptoms"]'))?.includes(HOSTILE[4]));

    const cards = page.locator('[data-testid="finding"]');
    assert.equal(await cards.count(), 3);
    assert.deepEqual(await cards.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.id)), [
      'sglang-nvfp4-gemm-flashinfer-cutlass-sm120',
      'sglang-nvfp4-sm120-sgl-kernel-without-sm120',
      'no-flags',
    ]);
    const top = cards.first();
    assert.equal(await top.locator('[data-testid="finding-title"]').textContent(), `Dense NVFP4 GEMMs ${HOSTILE[0]}`);
    assert.equal(await top.locator('[data-testid="confidence"]').textContent(), 'match');
    assert.equal(await top.locator('[data-testid="score"]').textContent(), 'score 1.00');
    assert.equal(await top.locator('[data-testid="mechanism"]').textContent(), `FlashInfer's CUTLASS kernel returns NaN ${HOSTILE[1]}`);
    assert.equal(await cards.nth(1).getAttribute('data-confidence'), 'possible');

    // Evidence for (✓) first, then against (✗), each as text with where it came from.
    const ev = top.locator('[data-testid="evidence-item"]');
    assert.deepEqual(await ev.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.stance)), ['for', 'for', 'for', 'against']);
    assert.match((await ev.nth(0).textContent()) ?? '', /^✓/);
    assert.match((await ev.nth(3).textContent()) ?? '', /^✗/);
    // A source the line already names is not repeated; the same line from several probes shows once, counted.
    assert.equal(await ev.nth(1).textContent(), '✓ `fp4_gemm_runner_backend` is flashinfer_cutlass (server-info, /server_info)');
    assert.equal(await ev.nth(2).textContent(), '✓ a probe answer shows token0-run ×2');
    assert.equal(await ev.nth(0).locator('[data-testid="evidence-text"]').textContent(), `GPU NVIDIA RTX PRO 6000 ${HOSTILE[4]}`);
    assert.ok((await ev.nth(0).textContent())?.includes(`discovery on ${HOSTILE[2]}`));
    assert.equal(await ev.nth(3).locator('[data-testid="evidence-text"]').textContent(), `sources disagree on gpu.count ${HOSTILE[3]}`);
    // The bidi override is kept (copy gives the exact text) but isolated and labelled.
    assert.equal(await ev.nth(0).locator('.ctl[data-cp="U+202E"]').count(), 1);

    assert.equal(await top.locator('[data-testid="missing"] li').textContent(), `Read the FlashInfer version ${HOSTILE[2]}`);
    const steps = top.locator('[data-testid="fix-steps"] li');
    assert.equal(await steps.count(), 3);
    assert.equal(await steps.nth(0).locator('[data-testid="fix-change"]').textContent(), `--fp4-gemm-backend flashinfer_cudnn${HOSTILE[0]}`);
    assert.ok((await steps.nth(0).textContent())?.endsWith(`cuDNN's FP4 GEMM ${HOSTILE[3]}`));
    assert.equal(await steps.nth(1).locator('[data-testid="fix-change"]').textContent(), `SGLANG_X=${HOSTILE[1]}`);
    assert.equal(await steps.nth(2).locator('[data-testid="fix-change"]').textContent(), 'upgrade flashinfer-python');
    assert.equal(await top.locator('[data-testid="rule-out"] li').textContent(), `Answers stay broken ${HOSTILE[4]}`);

    // Sources: the two GitHub addresses are links (the second percent-encoded), every other string is text.
    const links = top.locator('a');
    const hrefs = await links.evaluateAll((els) => els.map((e) => e.getAttribute('href') ?? ''));
    assert.equal(hrefs.length, 2, `only GitHub sources are links: ${hrefs.join(' ')}`);
    assert.equal(hrefs[0], GOOD_SOURCE);
    assert.ok(hrefs[1].startsWith('https://github.com/flashinfer-ai/flashinfer/issues/2577'));
    assert.ok(!/["<> ]/.test(hrefs[1]), 'the quote and brackets are encoded');
    for (const h of hrefs) assert.equal(new URL(h).origin, 'https://github.com');
    assert.equal(await page.locator('a').count(), 4, 'no other link on the page (two causes cite these sources)');
    const texts = await top.locator('[data-testid="source-text"]').allTextContents();
    assert.deepEqual(texts, BAD_SOURCES);

    assert.equal(await page.textContent('[data-testid="next-check"] p'), `Try --fp4-gemm-backend flashinfer_cudnn ${HOSTILE[3]}`);
    assert.ok((await page.textContent('[data-testid="sources"]'))?.includes(`deploy/run.sh ${HOSTILE[2]}`));
    assert.ok((await page.textContent('[data-testid="launch"]'))?.includes(`deploy/run.sh ${HOSTILE[0]}`));
    assert.ok((await page.textContent('[data-testid="notes"]'))?.includes(`/server_info: HTTP 404 ${HOSTILE[0]}`));
    await assertClean(page, watch);
    await page.close();
  });

  it('asks the host to open a GitHub source (the page never navigates), and its buttons post Apply and Verify, Sweep and Diagnose again', async () => {
    const { page, watch } = await openPage();
    await send(page, { type: 'state', state: doneState() });
    await page.waitForSelector('[data-testid="finding"]');
    await page.locator('[data-testid="source-link"]').first().click();
    const top = page.locator('[data-testid="finding"]').first();
    await top.locator('[data-testid="apply"]').click();
    await top.locator('[data-testid="sweep"]').click();
    await page.locator('[data-testid="finding"]').nth(1).locator('[data-testid="sweep"]').click();
    // A cause whose fix changes no flags offers no Apply.
    const third = page.locator('[data-testid="finding"]').nth(2);
    assert.equal(await third.locator('[data-testid="apply"]').getAttribute('disabled'), '');
    await page.click('[data-testid="rediagnose"]');
    await waitForPosted(page, 'rediagnose');
    const sent = (await postedMessages(page)).filter((m) => m.type !== 'ready');
    assert.deepEqual(sent, [
      { type: 'openSource', url: GOOD_SOURCE },
      { type: 'applyAndVerify', index: 0 },
      { type: 'sweep', index: 0 },
      { type: 'sweep', index: 1 },
      { type: 'rediagnose' },
    ]);
    await assertClean(page, watch);
    await page.close();
  });

  it('while gathering shows the progress as text; without a launch file Apply and Sweep are off; an error shows as text', async () => {
    const { page, watch } = await openPage();
    await send(page, {
      type: 'state',
      state: { ...doneState(), phase: 'running', progress: `Reading ${HOSTILE[0]}/server_info`, findings: [], symptoms: [], sources: [] },
    });
    await page.waitForSelector('#app[data-phase="running"]');
    assert.ok((await page.textContent('[data-testid="status"]'))?.includes(`Reading ${HOSTILE[0]}/server_info`));
    assert.equal(await page.locator('[data-testid="finding"]').count(), 0);
    assert.equal(await page.getAttribute('[data-testid="rediagnose"]', 'disabled'), '');

    const { launchLabel: _drop, ...withoutLaunch } = doneState();
    void _drop;
    await send(page, { type: 'state', state: withoutLaunch });
    await page.waitForSelector('#app[data-phase="done"]');
    for (const id of ['apply', 'sweep']) {
      const states = await page.locator(`[data-testid="${id}"]`).evaluateAll((els) => els.map((e) => e.hasAttribute('disabled')));
      assert.deepEqual(states, [true, true, true], `${id} is off without a launch file`);
    }
    assert.equal(await page.locator('[data-testid="launch"]').count(), 0);

    await send(page, { type: 'state', state: { ...doneState(), findings: [], error: `connect ECONNREFUSED ${HOSTILE[1]}` } });
    await page.waitForSelector('[data-testid="error"]');
    assert.equal(await page.textContent('[data-testid="error"]'), `connect ECONNREFUSED ${HOSTILE[1]}`);
    await send(page, { type: 'state', state: { ...doneState(), findings: [], nextCheck: undefined } });
    await page.waitForSelector('[data-testid="no-findings"]');
    assert.match((await page.textContent('[data-testid="no-findings"]')) ?? '', /No cause in the 42 rules/);
    await assertClean(page, watch);
    await page.close();
  });
});
