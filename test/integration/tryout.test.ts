/**
 * The scenario "Try the Simulator" serves (src/sim/tryout.ts), over real HTTP: each model is what
 * its name and the walkthrough promise a new user — the probe's verdict on a streamed chat answer,
 * and the accuracy smoke test telling the fluent-but-wrong model from the healthy one.
 */
import { strict as assert } from 'node:assert';
import { runProbe } from '../../src/core/probe/runner';
import type { ProbeResult } from '../../src/core/probe/types';
import { runEval } from '../../src/core/eval/run';
import { startSimulator, type RunningSimulator } from '../../src/sim/server';
import { TRYOUT_SCENARIO } from '../../src/sim/tryout';
import { INITIAL_FORM_PARAMS } from '../../src/shared/webviewProtocol';

describe('the tryout simulator (Try the Simulator)', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;

  before(async () => {
    sim = await startSimulator({ port: 0, host: '127.0.0.1', scenario: TRYOUT_SCENARIO });
  });
  after(() => sim?.close());

  /** As the probe panel sends it with its defaults (prompt, early stop, 256 tokens): what the walkthrough's table describes. */
  function probe(model: string): Promise<ProbeResult> {
    return runProbe({ baseUrl: sim.url }, { ...INITIAL_FORM_PARAMS, model, timeoutMs: 20_000 });
  }

  it('lists the NaN model first, so the probe panel opens on it', async () => {
    const res = await fetch(`${sim.url}/v1/models`);
    const body = (await res.json()) as { data: { id: string }[] };
    assert.equal(body.data[0].id, 'broken-nan-logits');
    assert.deepEqual(body.data.map((m) => m.id).sort(), Object.keys(TRYOUT_SCENARIO.models).sort());
  });

  const expected: [model: string, verdict: 'ok' | 'nan' | 'degenerate'][] = [
    ['broken-nan-logits', 'nan'],
    ['healthy', 'ok'],
    ['broken-token-salad', 'degenerate'],
    ['broken-sentence-loop', 'degenerate'],
    ['broken-runaway-template', 'degenerate'],
    ['fluent-but-wrong', 'ok'],
  ];
  for (const [model, verdict] of expected) {
    it(`${model}: the probe says ${verdict}`, async () => {
      const r = await probe(model);
      // A broken answer is stopped early, as the panel does.
      assert.equal(r.status, verdict === 'ok' ? 'completed' : 'early-stopped', r.error?.message);
      assert.equal(r.verdict.kind, verdict, JSON.stringify(r.verdict.reasons.map((x) => x.code)));
      if (verdict === 'ok') assert.deepEqual(r.verdict.reasons, [], 'a healthy-looking model carries no reason');
    });
  }

  it("healthy answers the probe panel's default prompt with one sentence about it, and stops by itself", async () => {
    const r = await probe('healthy');
    assert.equal(r.status, 'completed', r.error?.message);
    assert.equal(r.verdict.kind, 'ok');
    assert.equal(r.finishReason, 'stop', 'not cut at max_tokens');
    assert.match(r.content, /\bsea\b/i);
    assert.equal(r.content.match(/[.!?](\s|$)/g)?.length, 1, r.content);
  });

  it("broken-symbol-flood: an answer of '+' is degenerate", async () => {
    const r = await probe('broken-symbol-flood');
    assert.equal(r.verdict.kind, 'degenerate');
    assert.match(r.content, /^\+{16,}/);
  });

  it('suspect-spliced-token: ok, with a suspect reason the panel shows', async () => {
    const r = await probe('suspect-spliced-token');
    assert.equal(r.verdict.kind, 'ok');
    assert.ok(
      r.verdict.reasons.some((x) => x.code === 'spliced-token' && x.kind === 'suspect'),
      JSON.stringify(r.verdict.reasons),
    );
  });

  it('the accuracy smoke test passes healthy and fails fluent-but-wrong', async () => {
    const opts = { suite: 'arithmetic' as const, n: 6, seed: 3, concurrency: 6 };
    const [good, bad] = await Promise.all([
      runEval({ baseUrl: sim.url }, { ...opts, model: 'healthy' }),
      runEval({ baseUrl: sim.url }, { ...opts, model: 'fluent-but-wrong' }),
    ]);
    assert.equal(good.status, 'completed');
    assert.equal(good.counts.correct, 6);
    assert.equal(bad.status, 'completed');
    assert.equal(bad.counts.correct, 0);
    assert.equal(bad.counts.wrong, 6, 'wrong, not invalid: the answers read well');
  });
});
