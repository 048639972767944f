/**
 * Hostile model output in the real probe webview, in headless Chromium. The page is the exact
 * HTML the panel ships (probeHtml) with a stub acquireVsCodeApi; the test plays the host.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { ProbeResult } from '../../src/core/probe/types';
import type { Verdict } from '../../src/core/detect/types';
import { isWebviewMessage, type HostToWebview, type WebviewToHost } from '../../src/shared/webviewProtocol';
import { assertPageClean, openWatchedPage, ROOT, sendToWebview, startRig, waitForPosted, type PageWatch, type WebviewRig } from './harness';

const RESULTS = join(ROOT, 'test-results');
const WAIT = { timeout: 20_000 };

/** Every payload tries to set this global if it ever runs. */
const CANARY = '__pwned';

const BASES: string[] = [
  `<script>window.${CANARY}=1</script>`,
  `<img src=x onerror="window.${CANARY}=1">`,
  `<img src="x" onerror=window.${CANARY}=1 />`,
  `<a href="javascript:window.${CANARY}=1">click me</a>`,
  `javascript:window.${CANARY}=1`,
  `<svg onload="window.${CANARY}=1"><circle r="1"/></svg>`,
  `<svg><script>window.${CANARY}=1</script></svg>`,
  `</style><style>body{display:none}</style>`,
  `<style>*{color:red!important;display:none}</style>`,
  `</pre></div><script>window.${CANARY}=1</script>`,
  `<iframe src="javascript:parent.${CANARY}=1"></iframe>`,
  `<iframe srcdoc="<script>parent.${CANARY}=1</script>"></iframe>`,
  '`${window.' + CANARY + '=1}`',
  '${window.' + CANARY + '=1}',
  `{{constructor.constructor('window.${CANARY}=1')()}}`,
  `&lt;script&gt;window.${CANARY}=1&lt;/script&gt;`,
  `&#60;img src=x onerror=window.${CANARY}=1&#62;`,
  `&amp;&quot;&#x27;&nbsp;&#0;&#xD800;`,
  'RLO:\u202Egnp.exe\u202C PDF',
  'LRI:\u2066isolated\u2069 FSI:\u2068x\u2069 RLI:\u2067y\u2069',
  'zero\u200Bwidth\u200C\u200D\uFEFFjoiners\u2060',
  'lone high \uD800 here',
  'lone low \uDC00 here',
  'split pair a\uD83D',
  '\uDE00b (low half of the previous one)',
  'NUL:\u0000:NUL',
  `\u0000<script>window.${CANARY}=1</script>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=window.${CANARY}=1>`,
  `<details open ontoggle="window.${CANARY}=1">x</details>`,
  `<body onload="window.${CANARY}=1">`,
  `<object data="javascript:window.${CANARY}=1"></object>`,
  `<embed src="data:text/html,<script>parent.${CANARY}=1</script>">`,
  `<meta http-equiv="refresh" content="0;url=javascript:window.${CANARY}=1">`,
  `<base href="javascript:/">`,
  `<link rel="stylesheet" href="data:text/css,body{display:none}">`,
  `<form action="javascript:window.${CANARY}=1"><button>x</button></form>`,
  `<input autofocus onfocus="window.${CANARY}=1">`,
  `<vscode-button onclick="window.${CANARY}=1">hi</vscode-button>`,
  `<template><script>window.${CANARY}=1</script></template>`,
  '<!--',
  '-->',
  '<![CDATA[',
  ']]>',
  `<div style="position:fixed;inset:0;background:red">cover</div>`,
  `"><script>window.${CANARY}=1</script>`,
  `'--></script><script>window.${CANARY}=1</script>`,
  'controls \r\n\t\v\f\u0085\u2028\u2029 end',
  '!!!!!!!!!!!!!!!!',
  'data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+',
  `<x onmouseover=window.${CANARY}=1>hover</x>`,
  `<img src="http://127.0.0.1:9/track.png">`,
  `<mark class="onset" data-testid="onset">fake onset</mark>`,
  `<span data-testid="verdict-badge" data-verdict="ok">OK</span>`,
  `\uFFFD\uFFFE\uFFFF replacement and non-characters`,
  `emoji 👩‍👩‍👧 flags 🇩🇪 combining e\u0301\u0301\u0301`,
];

/** Wrap each base a few ways: bare, in prose, doubled, with zero-width noise, in a code fence. */
function hostilePayloads(): string[] {
  const out: string[] = [];
  for (const base of BASES) {
    out.push(base, `Sure! Here it is: ${base} Hope that helps.`, base + base, base.split('').join('\u200B'), '```html\n' + base + '\n```');
  }
  return out;
}

/** Small deterministic PRNG so delta boundaries (including inside surrogate pairs) are reproducible. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** UTF-16 code units as base64, so lone surrogates survive the trip into the page. */
function encode(text: string): string {
  const buf = Buffer.alloc(text.length * 2);
  for (let i = 0; i < text.length; i++) buf.writeUInt16LE(text.charCodeAt(i), i * 2);
  return buf.toString('base64');
}

function splitRandomly(text: string, rnd: () => number, maxLen: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length;) {
    const n = 1 + Math.floor(rnd() * maxLen);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

function result(content: string, verdict: Verdict, extra: Partial<ProbeResult> = {}): ProbeResult {
  return {
    status: 'completed',
    content,
    reasoning: '',
    contentDroppedChars: 0,
    totalChars: content.length,
    finishReason: 'stop',
    matchedStop: null,
    verdict,
    ttftMs: 42,
    durationMs: 1234,
    completionTokens: 64,
    tokensPerSecond: 51.9,
    chunkCount: 64,
    ...extra,
  };
}

/** Globals the harness stub and the tests put on the page. */
interface TestWindow {
  __posted: { type: string; [key: string]: unknown }[];
  __state: { form?: { params?: { prompt?: string } }; compareOpen?: boolean; shown?: Record<string, string> } | undefined;
  __violations: unknown[];
  __longTasks: number[];
  __restoreState?: unknown;
  __streamStart?: number;
}

const OK: Verdict = { kind: 'ok', reasons: [], onset: null };

async function send(page: Page, message: HostToWebview): Promise<void> {
  await sendToWebview(page, message);
}

async function init(page: Page, extra: Partial<Extract<HostToWebview, { type: 'init' }>> = {}): Promise<void> {
  await waitForPosted(page, 'ready');
  await send(page, {
    type: 'init',
    servers: [
      { id: 's1', label: 'gpu-box (SGLang)', baseUrl: 'http://10.0.0.5:30000' },
      { id: 's2', label: 'staging', baseUrl: 'http://10.0.0.6:30000' },
    ],
    history: [],
    ...extra,
  });
  await send(page, { type: 'models', serverId: 's1', models: ['Qwen/Qwen3-8B', 'meta-llama/Llama-3.1-8B-Instruct'] });
}

/** Streams `deltas` for a run in `pane` (base64 UTF-16) then finishes it, all inside the page. */
async function streamRun(
  page: Page,
  opts: { runId: string; pane: 'main' | 'compare'; deltas: string[]; final: ProbeResult; verdictEvent?: Verdict; prompt?: string },
): Promise<void> {
  await page.evaluate(
    async ({ runId, pane, deltas, final, finalContent, verdictEvent, prompt }) => {
      const decode = (b64: string): string => {
        const bin = atob(b64);
        let s = '';
        for (let i = 0; i < bin.length; i += 2 * 8192) {
          const part: number[] = [];
          for (let j = i; j < Math.min(bin.length, i + 2 * 8192); j += 2) part.push(bin.charCodeAt(j) | (bin.charCodeAt(j + 1) << 8));
          s += String.fromCharCode(...part);
        }
        return s;
      };
      const post = (m: unknown) => window.postMessage(m, '*');
      // Decode first, so the page's own work can be timed apart from the test's.
      const texts = deltas.map(decode);
      const content = decode(finalContent);
      await new Promise((r) => setTimeout(r, 20));
      (window as unknown as TestWindow).__streamStart = performance.now();
      post({ type: 'runStarted', runId, pane, serverLabel: 'gpu-box (SGLang)', params: { endpoint: 'chat', model: 'Qwen/Qwen3-8B', prompt, stream: true } });
      post({ type: 'runEvent', runId, event: { type: 'request', url: 'http://10.0.0.5:30000/v1/chat/completions', body: {}, at: 0 } });
      post({ type: 'runEvent', runId, event: { type: 'response', status: 200, at: 30 } });
      let at = 40;
      let batch: unknown[] = [];
      for (const content of texts) {
        at += 2;
        batch.push({ type: 'chunk', raw: `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}`, at });
        batch.push({ type: 'delta', content, at });
        if (batch.length >= 16) {
          post({ type: 'runEvents', runId, events: batch });
          batch = [];
          // Let frames happen mid-stream, like a real server would.
          await new Promise((r) => setTimeout(r, 0));
        }
      }
      if (batch.length) post({ type: 'runEvents', runId, events: batch });
      if (verdictEvent) post({ type: 'runEvent', runId, event: { type: 'verdict', verdict: verdictEvent, at } });
      post({ type: 'runFinished', runId, result: { ...final, content }, historyId: `h-${runId}` });
    },
    { ...opts, final: { ...opts.final, content: '' }, finalContent: encode(opts.final.content), prompt: opts.prompt ?? 'Say hi' },
  );
  await page.waitForFunction(
    ({ pane }) => {
      const el = document.querySelector<HTMLElement>(`[data-testid="pane-${pane}"]`);
      return el !== null && el.dataset.status !== 'running' && el.dataset.status !== 'idle';
    },
    { pane: opts.pane },
    WAIT,
  );
}

/** Compares the pane's answer textContent with `expected` inside the page (no UTF-8 round trip). */
async function answerMatches(
  page: Page,
  pane: 'main' | 'compare',
  expected: string,
): Promise<{ equal: boolean; got: number; want: number; elements: string[]; marks: number }> {
  return page.evaluate(
    ({ pane, b64 }) => {
      const bin = atob(b64);
      let want = '';
      for (let i = 0; i < bin.length; i += 2 * 8192) {
        const part: number[] = [];
        for (let j = i; j < Math.min(bin.length, i + 2 * 8192); j += 2) part.push(bin.charCodeAt(j) | (bin.charCodeAt(j + 1) << 8));
        want += String.fromCharCode(...part);
      }
      const answer = document.querySelector(`[data-testid="pane-${pane}"] [data-testid="answer"]`)!;
      const got = answer.textContent ?? '';
      // The view's own elements: block segments and the onset mark, with fixed attributes only.
      const own = (e: Element) => {
        const attrs = e.getAttributeNames().sort().join(',');
        if (e.tagName === 'SPAN' && e.className === 'ctl') {
          // A marked control: one character, labelled by its code point.
          return (
            attrs === 'class,data-cp,title' &&
            [...(e.textContent ?? '')].length === 1 &&
            e.children.length === 0 &&
            e.getAttribute('data-cp') === `U+${e.textContent.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
          );
        }
        if (e.tagName === 'SPAN') return /^seg( onset-tail)?$/.test(e.className) && attrs === 'class';
        if (e.tagName === 'MARK') return e.className === 'onset' && attrs === 'class,data-testid,title';
        return false;
      };
      const all = Array.from(answer.querySelectorAll('*'));
      return {
        equal: got === want,
        got: got.length,
        want: want.length,
        elements: all.filter((e) => !own(e)).map((e) => e.outerHTML.slice(0, 80)),
        marks: all.filter((e) => e.tagName === 'MARK').length,
      };
    },
    { pane, b64: encode(expected) },
  );
}

/** Elements a payload could have created anywhere in the document (light DOM). */
async function foreignElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const bad = document.querySelectorAll(
      'img, iframe, object, embed, svg, math, form, input, template, base, meta[http-equiv="refresh"], x, details, script:not([src]):not([nonce]), style, a[href]',
    );
    const scripts = Array.from(document.scripts).filter((s) => !s.nonce);
    const links = Array.from(document.querySelectorAll('link')).filter((l) => !l.href.startsWith(location.origin));
    return [...Array.from(bad), ...scripts, ...links].map((e) => e.outerHTML.slice(0, 120));
  });
}

describe('probe webview: hostile model output in headless Chromium', function () {
  this.timeout(120_000);
  let rig: WebviewRig;

  before(async () => {
    mkdirSync(RESULTS, { recursive: true });
    rig = await startRig();
  });

  after(async () => {
    await rig?.close();
  });

  async function openPage(path = '/'): Promise<{ page: Page; watch: PageWatch }> {
    const opened = await openWatchedPage(rig, path);
    await init(opened.page);
    return opened;
  }

  const assertClean = (watch: PageWatch, page: Page): Promise<void> => assertPageClean(page, watch, rig.harness.origin, CANARY);

  for (const variant of [
    { path: '/', name: 'with the shipped CSP' },
    { path: '/nocsp', name: 'with the CSP removed (DOM code alone)' },
  ]) {
    it(`renders ≥ 200 hostile payloads as exact text, ${variant.name}`, async () => {
      const { page, watch } = await openPage(variant.path);
      if (variant.path === '/') {
        const csp = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content'));
        assert.ok(csp, 'CSP meta present');
        assert.match(csp, /default-src 'none'/);
        assert.match(csp, new RegExp(`script-src 'nonce-${rig.harness.lastNonce().replace(/[+/=]/g, '\\$&')}'`));
        assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      }
      const payloads = hostilePayloads();
      assert.ok(payloads.length >= 200, `${payloads.length} payloads`);
      const rnd = prng(7);

      // 1. All payloads in one streamed answer, deltas cut at random places (surrogate pairs too).
      const all = payloads.join('\n');
      const deltas = splitRandomly(all, rnd, 40).map(encode);
      await streamRun(page, { runId: 'all', pane: 'main', deltas, final: result(all, OK), prompt: payloads[0] });
      const whole = await answerMatches(page, 'main', all);
      assert.equal(whole.equal, true, `answer text differs (${whole.got} vs ${whole.want} chars)`);
      assert.deepEqual(whole.elements, [], 'no element from the payload inside the answer');
      assert.equal(whole.marks, 0);
      const rawElements = await page.evaluate(
        () => Array.from(document.querySelectorAll('[data-testid="raw-chunks"] *')).filter((e) => e.tagName !== 'LI').length,
      );
      assert.equal(rawElements, 0, 'raw chunk list holds only <li> text');

      // 2. Each payload as its own run in the compare pane, flagged degenerate halfway, so the
      //    onset split runs over hostile text too.
      const mismatches = await page.evaluate(
        async ({ list }) => {
          const decode = (b64: string): string => {
            const bin = atob(b64);
            const units: number[] = [];
            for (let j = 0; j < bin.length; j += 2) units.push(bin.charCodeAt(j) | (bin.charCodeAt(j + 1) << 8));
            return String.fromCharCode(...units);
          };
          const pane = document.querySelector('[data-testid="pane-compare"]') as HTMLElement;
          const bad: string[] = [];
          for (let i = 0; i < list.length; i++) {
            const text = decode(list[i]);
            const runId = `p${i}`;
            const onset = Math.floor(text.length / 2);
            const verdict = { kind: 'degenerate', reasons: [{ code: 'short-loop', kind: 'degenerate', message: text, offset: onset }], onset };
            window.postMessage(
              { type: 'runStarted', runId, pane: 'compare', serverLabel: text, params: { endpoint: 'completions', model: text, prompt: text, stream: true } },
              '*',
            );
            window.postMessage({ type: 'runEvent', runId, event: { type: 'delta', content: text.slice(0, 5), at: 1 } }, '*');
            window.postMessage({ type: 'runEvent', runId, event: { type: 'chunk', raw: text, at: 1 } }, '*');
            window.postMessage(
              {
                type: 'runFinished',
                runId,
                historyId: `h${i}`,
                result: {
                  status: 'error',
                  content: text,
                  reasoning: text,
                  contentDroppedChars: 0,
                  totalChars: text.length,
                  finishReason: text,
                  matchedStop: text,
                  verdict,
                  ttftMs: 1,
                  durationMs: 2,
                  completionTokens: 3,
                  tokensPerSecond: 4,
                  chunkCount: 1,
                  error: { kind: 'server', message: text, bodySnippet: text },
                },
              },
              '*',
            );
            const deadline = Date.now() + 5000;
            while (pane.dataset.historyId !== `h${i}`) {
              if (Date.now() > deadline) {
                bad.push(`${i}: timed out`);
                break;
              }
              await new Promise((r) => setTimeout(r, 0));
            }
            const answer = pane.querySelector('[data-testid="answer"]')!;
            if (answer.textContent !== text) bad.push(`${i}: answer text differs`);
            const tags = Array.from(answer.querySelectorAll('*')).map((e) => `${e.tagName}.${e.className}`);
            if (tags.filter((t) => t !== 'SPAN.seg' && t !== 'SPAN.ctl').join() !== 'MARK.onset') bad.push(`${i}: answer elements ${tags.join(',')}`);
            const mark = answer.querySelector('mark');
            if (mark && mark.textContent !== text.slice(onset)) bad.push(`${i}: onset split at the wrong place`);
            if (pane.querySelector('[data-testid="reasoning"]')!.textContent !== text) bad.push(`${i}: reasoning differs`);
            if (pane.querySelector('[data-testid="reasons"] li')!.textContent !== `short-loop ${text}`) bad.push(`${i}: reason differs`);
            const error = pane.querySelector('[data-testid="error-body"]');
            if (error?.textContent !== text) bad.push(`${i}: error body differs`);
            const bodyElements = pane.querySelectorAll('img, iframe, script, svg, object, embed, style, a, form, input, x, details');
            if (bodyElements.length) bad.push(`${i}: foreign elements in the pane`);
          }
          return bad;
        },
        { list: payloads.map(encode) },
      );
      assert.deepEqual(mismatches, []);

      // 3. Hostile strings in server labels, model names, history and host errors.
      const hostile = payloads.slice(0, 40);
      await send(page, { type: 'servers', servers: hostile.map((label, i) => ({ id: `x${i}`, label, baseUrl: label })) });
      await send(page, { type: 'models', serverId: 'x0', models: hostile });
      await send(page, {
        type: 'history',
        entries: hostile.map((prompt, i) => ({
          id: `e${i}`,
          serverLabel: prompt,
          startedAt: 1_700_000_000_000 + i,
          prompt,
          verdict: 'nan',
          status: 'completed',
        })),
      });
      await send(page, { type: 'error', message: hostile.join(' ') });
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="history-row"]').length === n, hostile.length, WAIT);
      const historyText = await page.evaluate(() =>
        Array.from(document.querySelectorAll('[data-testid="history-row"] .history-prompt')).map((e) => e.textContent),
      );
      assert.equal(historyText.length, hostile.length);
      assert.equal(await page.evaluate(() => (document.querySelector('[data-testid="host-error"]')?.textContent ?? '').length > 0), true);

      // 4. Two 1 MB single lines, streamed in 64 KB deltas.
      const big1 = `<img src=x onerror=window.${CANARY}=1>`.repeat(Math.ceil((1 << 20) / 36)).slice(0, 1 << 20);
      const big2 = 'A'.repeat(1 << 20);
      const bigAll = big1 + big2;
      const bigDeltas: string[] = [];
      for (let i = 0; i < bigAll.length; i += 64 * 1024) bigDeltas.push(encode(bigAll.slice(i, i + 64 * 1024)));
      // Responsiveness: no single task (a frame's flush and layout) may block the page for long.
      await page.evaluate(() => {
        (window as unknown as TestWindow).__longTasks = [];
        new PerformanceObserver((list) => {
          const w = window as unknown as TestWindow;
          for (const entry of list.getEntries()) if (entry.startTime >= (w.__streamStart ?? 0)) w.__longTasks.push(Math.round(entry.duration));
        }).observe({ type: 'longtask', buffered: false });
      });
      const started = Date.now();
      await streamRun(page, { runId: 'big', pane: 'main', deltas: bigDeltas, final: result(bigAll, OK) });
      const longTasks: number[] = await page.evaluate(() => (window as unknown as TestWindow).__longTasks);
      const big = await answerMatches(page, 'main', bigAll);
      assert.equal(big.equal, true, `1 MB answer differs (${big.got} vs ${big.want})`);
      assert.deepEqual(big.elements, []);
      const nodes = await page.evaluate(() => document.querySelector('[data-testid="pane-main"] [data-testid="answer"]')!.childNodes.length);
      assert.ok(nodes <= 64, `segment count stays small (${nodes})`);
      const textNodes = await page.evaluate(() => {
        const walker = document.createTreeWalker(document.querySelector('[data-testid="pane-main"] [data-testid="answer"]')!, NodeFilter.SHOW_TEXT);
        let n = 0;
        while (walker.nextNode()) n++;
        return n;
      });
      assert.ok(textNodes <= 64, `text node count stays small (${textNodes})`);
      assert.ok(Date.now() - started < 60_000, 'the 2 MB answer renders in time');
      // A frame that re-laid out the whole answer would take seconds here; a segment takes ~100 ms.
      assert.ok(Math.max(0, ...longTasks) < 1500, `longest task ${Math.max(0, ...longTasks)} ms (${longTasks.join(', ')})`);

      // Give any deferred payload (onerror, onload, timers) a chance to fire.
      await page.waitForTimeout(300);
      assert.deepEqual(await foreignElements(page), []);
      await assertClean(watch, page);
      await page.close();
    });
  }

  it('shows the NaN verdict for a streamed !!!! answer with matched_stop "NaN happened"', async () => {
    const { page, watch } = await openPage();
    const bangs = '!'.repeat(256);
    const verdict: Verdict = {
      kind: 'nan',
      reasons: [
        { code: 'nan-marker', kind: 'nan', message: 'The server stopped with matched_stop "NaN happened": the logits were NaN.', offset: 0 },
        { code: 'token0-run', kind: 'nan', message: 'The answer is a run of token 0 ("!"), what argmax over all-NaN logits returns.', offset: 0 },
      ],
      onset: 0,
    };
    const deltas = splitRandomly(bangs, prng(3), 8).map(encode);
    await streamRun(page, {
      runId: 'nan',
      pane: 'main',
      deltas,
      verdictEvent: verdict,
      prompt: 'What is the capital of France?',
      final: result(bangs, verdict, { finishReason: 'stop', matchedStop: 'NaN happened', tokensPerSecond: 88.2, completionTokens: 256 }),
    });
    await page.waitForSelector('[data-testid="pane-main"] [data-testid="verdict-badge"][data-verdict="nan"]', WAIT);
    const reasons = await page.$$eval('[data-testid="pane-main"] [data-testid="reasons"] li', (els) => els.map((e) => e.getAttribute('data-code')));
    assert.deepEqual(reasons, ['nan-marker', 'token0-run']);
    const match = await answerMatches(page, 'main', bangs);
    assert.equal(match.equal, true);
    assert.deepEqual(match.elements, []);
    assert.equal(match.marks, 1, 'the onset is highlighted');
    const finish = await page.textContent('[data-testid="pane-main"] [data-testid="finish"]');
    assert.match(finish ?? '', /NaN happened/);
    await page.screenshot({ path: join(RESULTS, 'webview-nan.png'), fullPage: true });
    await assertClean(watch, page);
    await page.close();
  });

  it('marks bidi and invisible characters in the answer, keeps them for copy, and isolates them', async () => {
    const { page, watch } = await openPage();
    const answer = 'The file is \u202Egnp.exe\u202C and the\u200Bsecret\u2066 part.';
    await streamRun(page, {
      runId: 'ctl',
      pane: 'main',
      deltas: splitRandomly(answer, prng(13), 3).map(encode),
      final: result(answer, OK),
      prompt: 'Name the file.',
    });
    const marks = await page.$$eval('[data-testid="pane-main"] [data-testid="answer"] .ctl', (els) =>
      els.map((e) => ({
        cp: e.getAttribute('data-cp'),
        text: e.textContent,
        bidi: getComputedStyle(e).unicodeBidi,
        label: getComputedStyle(e, '::before').content,
      })),
    );
    assert.deepEqual(
      marks.map((m) => m.cp),
      ['U+202E', 'U+202C', 'U+200B', 'U+2066'],
    );
    assert.deepEqual(
      marks.map((m) => m.text),
      ['\u202E', '\u202C', '\u200B', '\u2066'],
    );
    for (const m of marks) {
      assert.equal(m.bidi, 'isolate');
      assert.equal(m.label, `"${m.cp}"`);
    }
    const match = await answerMatches(page, 'main', answer);
    assert.equal(match.equal, true, 'the exact text is kept for copy');
    assert.deepEqual(match.elements, []);
    // A server label and a prompt with an override: marked in the history row, shown in the server select.
    const label = 'box \u202Erorre';
    await send(page, { type: 'servers', servers: [{ id: 's-ctl', label, baseUrl: 'http://127.0.0.1:1' }] });
    await send(page, {
      type: 'history',
      entries: [{ id: 'h-ctl', serverLabel: label, startedAt: 1_700_000_000_000, prompt: 'say \u202Eih', verdict: 'ok', status: 'completed' }],
    });
    await page.waitForSelector('[data-testid="history-row"][data-id="h-ctl"]', WAIT);
    const row = await page.$eval('[data-testid="history-row"][data-id="h-ctl"]', (el) => ({
      meta: Array.from(el.querySelectorAll('.history-meta .ctl')).map((e) => e.getAttribute('data-cp')),
      prompt: Array.from(el.querySelectorAll('.history-prompt .ctl')).map((e) => e.getAttribute('data-cp')),
      promptText: el.querySelector('.history-prompt')?.textContent,
    }));
    assert.deepEqual(row, { meta: ['U+202E'], prompt: ['U+202E'], promptText: 'say \u202Eih' });
    const option = await page.$eval('[data-testid="server-select"] vscode-option[value="s-ctl"]', (el) => el.textContent);
    assert.equal(option, 'box ⟨U+202E⟩rorre');
    await page.screenshot({ path: join(RESULTS, 'webview-controls.png'), fullPage: true });
    await assertClean(watch, page);
    await page.close();
  });

  it('shows a suspect reason under an OK verdict, labelled, without an onset mark', async () => {
    const { page, watch } = await openPage();
    const answer = 'The capital of France is Paris, которые sits on the Seine and has been the seat of government for centuries.';
    const offset = answer.indexOf('которые');
    const verdict: Verdict = {
      kind: 'ok',
      reasons: [{ code: 'spliced-token', kind: 'suspect', message: `One word in another writing system at offset ${offset} interrupts the text.`, offset }],
      onset: null,
    };
    await streamRun(page, {
      runId: 'suspect',
      pane: 'main',
      deltas: splitRandomly(answer, prng(11), 6).map(encode),
      verdictEvent: verdict,
      final: result(answer, verdict),
      prompt: 'What is the capital of France?',
    });
    await page.waitForSelector('[data-testid="pane-main"] [data-testid="reasons"] li[data-kind="suspect"]', WAIT);
    assert.equal(await page.getAttribute('[data-testid="pane-main"] [data-testid="verdict-badge"]', 'data-verdict'), 'ok');
    const item = await page.$eval('[data-testid="pane-main"] [data-testid="reasons"] li', (li) => ({
      code: li.getAttribute('data-code'),
      cls: li.className,
      label: li.querySelector('[data-testid="suspect-label"]')?.textContent,
      text: li.textContent,
    }));
    assert.equal(item.code, 'spliced-token');
    assert.match(item.cls, /reason-suspect/);
    assert.equal(item.label, 'suspect');
    assert.match(item.text ?? '', /another writing system/);
    assert.equal(await page.$('[data-testid="pane-main"] mark.onset'), null, 'a suspect marks no onset');
    const match = await answerMatches(page, 'main', answer);
    assert.equal(match.equal, true);
    await page.screenshot({ path: join(RESULTS, 'webview-suspect.png'), fullPage: true });
    await assertClean(watch, page);
    await page.close();
  });

  it("keeps the underscores of an answer's last line inside its segment, which clips what it paints", async () => {
    const { page, watch } = await openPage();
    // "<|im_start|>" read "<|im start|>": a segment's paint containment (content-visibility) cut
    // off whatever of its last line hung below the line box, and "_" hangs lowest.
    const answer = 'The answer ends here.<|im_end|>\n<|im_start|>user';
    const verdict: Verdict = { kind: 'ok', reasons: [], onset: null };
    await streamRun(page, { runId: 'underscore', pane: 'main', deltas: [encode(answer)], verdictEvent: verdict, final: result(answer, verdict) });
    await page.waitForSelector('[data-testid="pane-main"] [data-testid="verdict-badge"][data-verdict="ok"]', WAIT);
    const room = await page
      .locator('[data-testid="pane-main"] [data-testid="answer"] .seg')
      .last()
      .evaluate((segment) => {
        // An empty inline-block sits on the baseline of the line it ends.
        const probe = document.createElement('span');
        probe.style.display = 'inline-block';
        segment.append(probe);
        const below = segment.getBoundingClientRect().bottom - probe.getBoundingClientRect().bottom;
        probe.remove();
        const style = getComputedStyle(segment);
        const ctx = document.createElement('canvas').getContext('2d')!;
        ctx.font = `${style.fontSize} ${style.fontFamily}`;
        return { below, underscore: ctx.measureText('_').actualBoundingBoxDescent, clips: style.contentVisibility };
      });
    assert.equal(room.clips, 'auto', 'segments still skip their off-screen work (the reason they clip)');
    // A pixel more than the glyph's descent: its antialiased lower edge is painted too.
    assert.ok(room.below >= room.underscore + 1, `${room.below.toFixed(2)} px below the baseline, "_" needs ${room.underscore.toFixed(2)} and a pixel`);
    await assertClean(watch, page);
    await page.close();
  });

  it('never shows a failed or stopped run as OK: the badge and the history say what happened', async () => {
    const { page, watch } = await openPage();
    await streamRun(page, {
      runId: 'e404',
      pane: 'main',
      deltas: [],
      final: result('', OK, { status: 'error', finishReason: null, error: { kind: 'http', status: 404, message: 'The server answered 404 Not Found.' } }),
    });
    const badge = '[data-testid="pane-main"] [data-testid="verdict-badge"]';
    assert.equal(await page.getAttribute(badge, 'data-verdict'), 'failed');
    assert.match((await page.textContent(badge)) ?? '', /Request failed/);
    await streamRun(page, {
      runId: 'stop',
      pane: 'main',
      deltas: [encode('The capital')],
      final: result('The capital', OK, { status: 'stopped', finishReason: null }),
    });
    assert.equal(await page.getAttribute(badge, 'data-verdict'), 'stopped');
    // A NaN verdict stays NaN even when the stream then broke.
    const nan: Verdict = { kind: 'nan', reasons: [{ code: 'nan-marker', kind: 'nan', message: 'NaN happened.', offset: 0 }], onset: 0 };
    await streamRun(page, {
      runId: 'nanerr',
      pane: 'main',
      deltas: [encode('!!!!')],
      final: result('!!!!', nan, { status: 'error', error: { kind: 'unreachable', message: 'The connection dropped.' } }),
    });
    assert.equal(await page.getAttribute(badge, 'data-verdict'), 'nan');
    await send(page, {
      type: 'history',
      entries: [
        { id: 'h1', serverLabel: 's', startedAt: 1, prompt: 'a', verdict: 'ok', status: 'error' },
        { id: 'h2', serverLabel: 's', startedAt: 2, prompt: 'b', verdict: 'ok', status: 'stopped' },
        { id: 'h3', serverLabel: 's', startedAt: 3, prompt: 'c', verdict: 'ok', status: 'completed' },
        { id: 'h4', serverLabel: 's', startedAt: 4, prompt: 'd', verdict: 'nan', status: 'error' },
      ],
    });
    await page.waitForSelector('[data-testid="history-row"][data-id="h4"]', WAIT);
    const outcomes = await page.$$eval('[data-testid="history-row"]', (rows) =>
      rows.map((r) => [r.getAttribute('data-id'), r.getAttribute('data-outcome'), r.querySelector('.verdict-icon .codicon')?.className ?? '']),
    );
    assert.deepEqual(
      outcomes.map(([id, outcome]) => [id, outcome]),
      [
        ['h1', 'failed'],
        ['h2', 'stopped'],
        ['h3', 'ok'],
        ['h4', 'nan'],
      ],
    );
    assert.doesNotMatch(String(outcomes[0][2]), /codicon-pass/, 'a failed run has no green check');
    await assertClean(watch, page);
    await page.close();
  });

  it("forgets the model when the server changes: the next run does not send the last server's model", async () => {
    const { page, watch } = await openPage();
    const select = '[data-testid="model-select"]';
    await page.$eval(select, (el) => {
      (el as HTMLSelectElement).value = 'meta-llama/Llama-3.1-8B-Instruct';
      el.dispatchEvent(new Event('change', { bubbles: true }));
    });
    // The extension asks the panel to show another server (a click in the Servers tree).
    await send(page, { type: 'selectServer', serverId: 's2' });
    await page.waitForFunction(() => (window as unknown as TestWindow).__posted.some((m) => m.type === 'listModels' && m.serverId === 's2'), undefined, WAIT);
    await send(page, { type: 'models', serverId: 's2', models: ['healthy-model'] });
    const options = await page.$$eval(`${select} vscode-option`, (els) => els.map((e) => e.textContent));
    assert.deepEqual(options, ['(server default)', 'healthy-model'], 'no "(not listed)" model from the other server');
    await page.fill('[data-testid="prompt"] >> textarea', 'Hello');
    await page.click('[data-testid="run"]');
    const run = await page.waitForFunction(() => (window as unknown as TestWindow).__posted.find((m) => m.type === 'run'), undefined, WAIT);
    const posted = (await run.jsonValue()) as unknown as { serverId: string; params: { model?: string } };
    assert.equal(posted.serverId, 's2');
    assert.notEqual(posted.params.model, 'meta-llama/Llama-3.1-8B-Instruct');
    await assertClean(watch, page);
    await page.close();
  });

  it('shows OK, a degenerate onset in the compare pane, and keeps the form across reload', async () => {
    const { page, watch } = await openPage();
    const answer = 'The capital of France is Paris. It sits on the Seine and has been the seat of government for centuries.';
    await streamRun(page, {
      runId: 'ok',
      pane: 'main',
      deltas: splitRandomly(answer, prng(5), 6).map(encode),
      final: result(answer, OK),
      prompt: 'What is the capital of France?',
    });
    assert.equal(await page.getAttribute('[data-testid="pane-main"] [data-testid="verdict-badge"]', 'data-verdict'), 'ok');
    await page.screenshot({ path: join(RESULTS, 'webview-ok.png'), fullPage: true });

    const loop = 'Paris is the capital. ' + 'the the the the '.repeat(24);
    const onset = loop.indexOf('the the');
    const degenerate: Verdict = {
      kind: 'degenerate',
      reasons: [{ code: 'short-loop', kind: 'degenerate', message: 'The tail repeats "the " back to back 96 times.', offset: onset }],
      onset,
    };
    await streamRun(page, {
      runId: 'deg',
      pane: 'compare',
      deltas: splitRandomly(loop, prng(9), 6).map(encode),
      verdictEvent: degenerate,
      final: result(loop, degenerate, { status: 'early-stopped', finishReason: null }),
    });
    assert.equal(await page.getAttribute('[data-testid="pane-compare"] [data-testid="verdict-badge"]', 'data-verdict'), 'degenerate');
    assert.equal(await page.textContent('[data-testid="pane-compare"] mark.onset'), loop.slice(onset));
    await page.screenshot({ path: join(RESULTS, 'webview-compare.png'), fullPage: true });

    // The form is kept with setState; a reload with that state restores it.
    await page.fill('[data-testid="prompt"] >> textarea', 'restored prompt');
    await page.waitForFunction(() => (window as unknown as TestWindow).__state?.form?.params?.prompt === 'restored prompt', undefined, WAIT);
    const saved = await page.evaluate(() => (window as unknown as TestWindow).__state);
    assert.equal(saved?.compareOpen, true);
    assert.equal(saved?.shown?.main, 'h-ok');
    await assertClean(watch, page);
    await page.close();

    const { page: page2, watch: watch2 } = await openWatchedPage(rig, '/', {
      beforeLoad: (p) =>
        p.addInitScript((s) => {
          (window as unknown as TestWindow).__restoreState = s;
        }, saved),
    });
    await init(page2);
    assert.equal(await page2.evaluate(() => (document.querySelector('[data-testid="prompt"]') as HTMLElement & { value: string }).value), 'restored prompt');
    const posted = await page2.evaluate(() => (window as unknown as TestWindow).__posted);
    assert.ok(
      posted.some((m) => m.type === 'openEntry' && m.historyId === 'h-ok' && m.pane === 'main'),
      'reopens the shown entries',
    );
    assert.equal(await page2.evaluate(() => (document.querySelector('[data-testid="pane-compare"]') as HTMLElement).hidden), false);

    // Run posts a validated message with the form's params.
    await page2.click('[data-testid="run"]');
    await page2.waitForFunction(() => (window as unknown as TestWindow).__posted.some((m) => m.type === 'run'), undefined, WAIT);
    const run = (await page2.evaluate(() => (window as unknown as TestWindow).__posted.find((m) => m.type === 'run'))) as Extract<
      WebviewToHost,
      { type: 'run' }
    >;
    assert.equal(run.serverId, 's1');
    assert.equal(run.pane, 'main');
    assert.equal(run.params.prompt, 'restored prompt');
    assert.equal(run.params.endpoint, 'chat');
    // Everything the webview posts passes the host's validator (protocol and validator in sync).
    const all = await page2.evaluate(() => (window as unknown as TestWindow).__posted);
    for (const m of all) assert.ok(isWebviewMessage(m), `host accepts ${JSON.stringify(m).slice(0, 200)}`);
    assert.equal(isWebviewMessage({ ...run, params: { ...run.params, temperature: 'hot' } }), false);
    assert.equal(isWebviewMessage({ type: 'openEntry', historyId: 'x', pane: 'side' }), false);
    await assertClean(watch2, page2);
    await page2.close();
  });
});
