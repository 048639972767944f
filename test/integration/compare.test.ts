import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import { runCompare } from '../../src/core/compare/run';
import type { RunningSimulator } from '../../src/sim/server';
import { buildBundles, type CliRun, runCli, scenarioPath, SimPool } from './helpers';

/** Test-only: parsed JSON whose shape the assertions check. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const parseAny = (text: string): any => JSON.parse(text);

function cli(args: string[], timeoutMs = 30_000): Promise<CliRun> {
  return runCli(['compare', ...args], { timeoutMs, env: { ...process.env, INFERENCE_DOCTOR_API_KEY: '' } });
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('inference-doctor compare against the simulator', function () {
  this.timeout(60_000);
  const pool = new SimPool();
  let a: RunningSimulator;
  let b: RunningSimulator;

  before(async function () {
    this.timeout(120_000);
    buildBundles('cli,sim');
    // Two servers from one scenario: the same seed, so their reference models agree token for token.
    a = await pool.start(scenarioPath('drift'));
    b = await pool.start(scenarioPath('drift'));
  });
  after(() => pool.closeAll());

  const pair = (modelB: string, ...rest: string[]): string[] => [a.url, b.url, '--model-a', 'reference', '--model-b', modelB, '--prompts', '5', ...rest];

  it('the reference against itself: identical, exit 0 (models taken from /v1/models)', async () => {
    const r = await cli([a.url, b.url, '--prompts', '4']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /verdict: IDENTICAL/);
    assert.match(r.stdout, /All 4 prompts give the same text/);
    assert.match(r.stdout, /model reference/);
    assert.equal((r.stdout.match(/^ +\d+ {2}same text/gm) ?? []).length, 4, r.stdout);
  });

  it('against the drifting model: drift, exit 0, late splits and close logprobs, the split shown side by side', async () => {
    const r = await cli(pair('drifting'));
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /verdict: DRIFT/);
    assert.match(r.stdout, /mean \|Δ\| 0\.0\d\d nats/);
    assert.match(r.stdout, /first split: prompt \d at token \d+/);
    assert.match(r.stdout, /A reference +│ B drifting/);
  });

  it('against the diverging model: broken, exit 1, early splits and far logprobs', async () => {
    const r = await cli(pair('diverging'));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /verdict: BROKEN/);
    assert.match(r.stdout, /5 of 5 prompts part before token 16/);
    assert.match(r.stdout, /far apart/);
    assert.match(r.stdout, /barely overlap/);
  });

  it('against a NaN model: broken, exit 1, the NaN logprobs counted and the detector verdict named', async () => {
    const r = await cli(pair('nan', '--prompts', '2'));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /verdict: BROKEN/);
    assert.match(r.stdout, /not numbers \(\d+ NaN\)/);
    assert.match(r.stdout, /nan-marker/);
  });

  it('--json: a top-level verdict, the numbers and thresholds, one row per prompt', async () => {
    const r = await cli(pair('drifting', '--json', '--top-logprobs', '20'));
    assert.equal(r.code, 0, r.stderr);
    const out = parseAny(r.stdout);
    assert.equal(out.verdict, 'drift');
    assert.equal(out.exitCode, 0);
    assert.equal(out.settings.topLogprobs, 20);
    assert.equal(out.settings.temperature, 0);
    assert.equal(out.thresholds.earlyTokens, 16);
    assert.equal(out.numbers.prompts, 5);
    assert.ok(out.numbers.logprobMeanAbs > 0 && out.numbers.logprobMeanAbs < 0.1);
    assert.deepEqual(out.repeat, { prompt: 0, a: 'same', b: 'same' });
    assert.equal(out.prompts.length, 5);
    for (const row of out.prompts) {
      assert.equal(typeof row.prompt, 'string');
      assert.equal(row.alignment.mode, 'tokens');
      assert.ok(row.alignment.divergence.tokenA >= 16);
      assert.ok(row.alignment.agreement > 0.9);
      assert.equal(row.alignment.topKOverlap, 1);
      assert.equal(row.b.verdict, 'ok');
      assert.equal(row.a.verdict, null); // a late split with B healthy: A is not judged
      assert.equal(typeof row.prefix, 'string');
      assert.equal(typeof row.continuationB, 'string');
      assert.equal(row.early, false);
    }
  });

  it('bad usage exits 64', async () => {
    for (const args of [[a.url], [a.url, b.url, '--top-logprobs', '21'], [a.url, b.url, '--prompts', '0'], [a.url, b.url, 'extra'], ['ftp://x', b.url]]) {
      const r = await cli(args);
      assert.equal(r.code, 64, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^Usage: inference-doctor compare/m);
    }
  });

  it('an unreachable server exits 3, with and without model names', async () => {
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const named = await cli([a.url, dead, '--model-a', 'reference', '--model-b', 'reference', '--prompts', '2', '--timeout', '5']);
    assert.equal(named.code, 3, named.stdout + named.stderr);
    assert.match(named.stdout, /verdict: ERROR/);
    assert.match(named.stdout, /Cannot reach/);
    const listed = await cli([dead, b.url, '--json']);
    assert.equal(listed.code, 3, listed.stdout + listed.stderr);
    const out = parseAny(listed.stdout);
    assert.equal(out.verdict, 'error');
    assert.match(out.reasons[0], /Could not list A's models/);
  });

  it('API keys per server', async () => {
    const keyed = await pool.start(scenarioPath('drift'), 'k3y');
    const without = await cli([a.url, keyed.url, '--model-a', 'reference', '--model-b', 'reference', '--prompts', '1']);
    assert.equal(without.code, 3, without.stdout);
    assert.match(without.stdout, /API key/);
    const withKey = await cli([a.url, keyed.url, '--model-a', 'reference', '--model-b', 'reference', '--prompts', '1', '--api-key-b', 'k3y']);
    assert.equal(withKey.code, 0, withKey.stdout + withKey.stderr);
  });

  it('runCompare: a hung server times out per request; a cancelled run stops and says so', async () => {
    const hang = await pool.single('hang');
    const timedOut = await runCompare({ a: { baseUrl: a.url, model: 'reference' }, b: { baseUrl: hang.url, model: 'hang' }, prompts: 2, timeoutMs: 300 });
    assert.equal(timedOut.verdict, 'error');
    assert.equal(timedOut.prompts[0].b.error?.kind, 'timeout');

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = performance.now();
    const cancelled = await runCompare({
      a: { baseUrl: a.url, model: 'reference' },
      b: { baseUrl: hang.url, model: 'hang' },
      prompts: 8,
      concurrency: 2,
      signal: controller.signal,
    });
    assert.ok(performance.now() - started < 5_000);
    assert.equal(cancelled.cancelled, true);
    assert.equal(cancelled.verdict, 'error');
    assert.ok(cancelled.prompts.length <= 2, `${cancelled.prompts.length} prompts ran`);
  });

  it('runCompare: another tokenizer for the same text is lined up by spans, not taken for a split', async () => {
    // A proxy to the reference model that cuts every token of three or more characters in two.
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        void (async () => {
          const upstream = await fetch(`${a.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          const json = parseAny(await upstream.text());
          const split = [];
          for (const t of json.choices[0].logprobs.content) {
            if (t.token.length < 3) split.push(t);
            else {
              const cut = Math.floor(t.token.length / 2);
              split.push({ ...t, token: t.token.slice(0, cut), top_logprobs: [] }, { ...t, token: t.token.slice(cut), logprob: -0.001, top_logprobs: [] });
            }
          }
          json.choices[0].logprobs.content = split;
          const out = JSON.stringify(json);
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
          res.end(out);
        })();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const r = await runCompare({ a: { baseUrl: a.url, model: 'reference' }, b: { baseUrl: url, model: 'reference' }, prompts: 2, repeatCheck: false });
      assert.equal(r.verdict, 'identical', r.reasons.join(' '));
      assert.equal(r.numbers.tokenizersDiffer, 2);
      assert.ok(r.reasons.some((x) => /did not line up/.test(x)));
      for (const row of r.prompts) {
        assert.equal(row.alignment?.mode, 'spans');
        assert.ok((row.alignment?.compared ?? 0) > 0);
        assert.equal(row.alignment?.logprobMeanAbs, 0); // the tokens both sides share kept their logprobs
      }
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('runCompare: a server that answers a repeat differently is named in the notes', async () => {
    let n = 0;
    const server: Server = createServer((_req, res) => {
      const content = `Answer number ${n++}.`;
      const body = JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const r = await runCompare({ a: { baseUrl: a.url, model: 'reference' }, b: { baseUrl: url, model: 'x' }, prompts: 1 });
      assert.deepEqual(r.repeat, { prompt: 0, a: 'same', b: 'different' });
      assert.ok(r.notes.some((note) => /^B answered the first prompt differently/.test(note)));
      assert.equal(r.prompts[0].alignment?.mode, 'text'); // no logprobs from this one
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('runCompare with keepLogprobs (the panel plot) against the simulator', function () {
  this.timeout(60_000);
  const pool = new SimPool();
  let a: RunningSimulator;
  let b: RunningSimulator;

  before(async () => {
    a = await pool.start(scenarioPath('drift'));
    b = await pool.start(scenarioPath('drift'));
  });
  after(() => pool.closeAll());

  it("each row carries both sides' chosen-token logprobs: numbers for a drifting model, NaN spelled for a NaN model", async () => {
    const drift = await runCompare({
      a: { baseUrl: a.url, model: 'reference' },
      b: { baseUrl: b.url, model: 'drifting' },
      prompts: 2,
      keepLogprobs: true,
      repeatCheck: false,
    });
    assert.equal(drift.verdict, 'drift');
    for (const row of drift.prompts) {
      assert.ok(row.logprobs, 'a series per row');
      assert.ok(row.logprobs.a.length > 16 && row.logprobs.b.length > 16);
      assert.ok(
        [...row.logprobs.a, ...row.logprobs.b].every((v) => typeof v === 'number' && v <= 0),
        'finite logprobs',
      );
      // Before the split the two stay close: drift.
      const split = row.alignment?.divergence?.tokenA ?? 0;
      for (let i = 0; i < split; i++) assert.ok(Math.abs((row.logprobs.a[i] as number) - (row.logprobs.b[i] as number)) < 0.1);
    }
    const nan = await runCompare({
      a: { baseUrl: a.url, model: 'reference' },
      b: { baseUrl: b.url, model: 'nan' },
      prompts: 1,
      keepLogprobs: true,
      repeatCheck: false,
    });
    assert.ok(nan.prompts[0].logprobs?.b.includes('NaN'), 'NaN survives JSON as a string');
    assert.equal(
      JSON.parse(JSON.stringify(nan.prompts[0].logprobs)).b.filter((v: unknown) => v === 'NaN').length,
      nan.prompts[0].logprobs?.b.filter((v) => v === 'NaN').length,
    );
    const plain = await runCompare({ a: { baseUrl: a.url, model: 'reference' }, b: { baseUrl: b.url, model: 'drifting' }, prompts: 1, repeatCheck: false });
    assert.equal(plain.prompts[0].logprobs, undefined, 'the CLI leaves them out');
  });
});
