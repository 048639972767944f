/**
 * `inference-doctor eval` over real HTTP against the simulator's accuracy scenario: the healthy
 * model passes, the model that slips on 40% of problems fails against the floors and against a
 * baseline saved from the healthy one, NaN answers are invalid and named; then the runner itself
 * (concurrency bound, cancellation, per-request timeout) in process.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accuracyProbe } from '../../src/core/eval/asProbe';
import { runEval } from '../../src/core/eval/run';
import { runProbe } from '../../src/core/probe/runner';
import { startSimulator, type RunningSimulator } from '../../src/sim/server';
import { buildBundles, type CliRun, runCli, scenarioPath, SimPool } from './helpers';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const parseAny = (text: string): any => JSON.parse(text);

const ROOT = join(__dirname, '..', '..');
const WRONG = 'Qwen/Qwen3-8B-kv-fp8-no-scale';
const NAN = 'Qwen/Qwen3-8B-nan';

function cli(args: string[], timeoutMs = 60_000): Promise<CliRun> {
  return runCli(['eval', ...args], { timeoutMs, env: { ...process.env, INFERENCE_DOCTOR_API_KEY: '' } });
}

describe('inference-doctor eval (dist/cli.js against the simulator)', function () {
  this.timeout(90_000);
  const pool = new SimPool();
  let sim: RunningSimulator;
  const dir = mkdtempSync(join(tmpdir(), 'id-eval-'));

  before(async function () {
    this.timeout(150_000);
    buildBundles('cli,sim', 140_000);
    sim = await pool.start(scenarioPath('accuracy'));
  });
  after(async () => {
    await pool.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes the healthy model on the floors (exit 0), the model taken from /v1/models', async () => {
    const r = await cli([sim.url, '--n', '90']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /model Qwen\/Qwen3-8B /);
    assert.match(r.stdout, /accuracy: 100\.0% \(90\/90\), 95% CI 95\.\d%–100\.0%/);
    assert.match(r.stdout, /^ {2}easy +100\.0% \(30\/30\)/m);
    assert.match(r.stdout, /latency: p50 \d+ ms · p95 \d+ ms/);
    assert.match(r.stdout, /verdict: PASS.*floors used/);
    assert.match(r.stderr, /\reval: 90\/90 · 90 correct/, 'the progress line');
  });

  it('fails the fluent-but-wrong model against the floors (exit 1) and names wrong answers', async () => {
    const r = await cli([sim.url, '--model', WRONG, '--n', '100']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /verdict: FAIL: accuracy below the floor: easy/);
    assert.match(r.stdout, /invalid: 0\.0%/, 'wrong, not invalid: the detector passes every answer');
    assert.match(r.stdout, /wrong answers \(first 5 of \d+\):\n {2}mixed-1-\d+ \[\w+\] got -?\d+/);
  });

  it('saves a baseline from the healthy model and fails the wrong one against it', async () => {
    const file = join(dir, 'baseline.json');
    const saved = await cli([sim.url, '--suite', 'arithmetic', '--n', '120', '--seed', '5', '--save-baseline', file]);
    assert.equal(saved.code, 0, saved.stdout + saved.stderr);
    assert.match(saved.stdout, /baseline saved to/);
    const b = parseAny(readFileSync(file, 'utf8'));
    assert.equal(b.format, 'inference-doctor-eval-baseline');
    assert.deepEqual([b.suite, b.seed, b.n, b.model, b.accuracy], ['arithmetic', 5, 120, 'Qwen/Qwen3-8B', 1]);
    assert.deepEqual(b.counts, { correct: 120, wrong: 0, invalid: 0, errors: 0 });
    assert.match(b.date, /^\d{4}-\d\d-\d\dT/);
    assert.match(b.toolVersion, /^\d+\.\d+\.\d+/);

    // Suite, n and seed come from the baseline.
    const same = await cli([sim.url, '--baseline', file]);
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.match(same.stdout, /eval arithmetic · seed 5 · 120 problems/);
    assert.match(same.stdout, /verdict: PASS: accuracy not significantly below the baseline/);
    assert.doesNotMatch(same.stdout, /floors used/);

    const worse = await cli([sim.url, '--model', WRONG, '--baseline', file]);
    assert.equal(worse.code, 1, worse.stdout + worse.stderr);
    assert.match(worse.stdout, /verdict: FAIL: accuracy significantly below the baseline: \d+\.\d% vs baseline 100\.0% \(z = -\d+\.\d\d, one-sided p = /);
    assert.match(worse.stdout, /warning: the baseline was measured on model Qwen\/Qwen3-8B, this run on Qwen\/Qwen3-8B-kv-fp8-no-scale/);

    const other = await cli([sim.url, '--baseline', file, '--suite', 'word']);
    assert.equal(other.code, 64, 'a baseline of another suite is a usage error');
    assert.match(other.stderr, /is for suite arithmetic, not word/);
  });

  it('counts NaN answers as invalid and names them (exit 1)', async () => {
    const r = await cli([sim.url, '--model', NAN, '--n', '12']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /accuracy: 0\.0% \(0\/12\)/);
    assert.match(r.stdout, /invalid: 100\.0% \(12: 12 NaN, 0 degenerate, 0 with no number, 0 cut at max tokens\)/);
    assert.match(r.stdout, /invalid answers \(first 5 of 12\):\n {2}mixed-1-0 \[easy\] NaN \([\w-]+(, [\w-]+)*\): "Compute /);
    assert.match(r.stdout, /answer "!!!!/);
  });

  it('--json: the report, a row per problem, no progress line', async () => {
    const r = await cli([sim.url, '--model', WRONG, '--suite', 'word', '--n', '30', '--concurrency', '4', '--json']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, '');
    const j = parseAny(r.stdout);
    assert.equal(j.exitCode, 1);
    assert.deepEqual([j.suite, j.n, j.seed, j.model, j.status], ['word', 30, 1, WRONG, 'completed']);
    assert.equal(j.counts.correct + j.counts.wrong + j.counts.invalid + j.counts.errors, 30);
    assert.equal(j.accuracy, j.counts.correct / 30);
    assert.ok(j.interval.low < j.accuracy && j.accuracy < j.interval.high);
    for (const d of ['easy', 'medium', 'hard']) assert.equal(j.byDifficulty[d].graded, 10);
    assert.equal(typeof j.latencyMs.p50, 'number');
    assert.equal(typeof j.latencyMs.p95, 'number');
    assert.equal(j.judgement.basis, 'floors');
    assert.equal(j.judgement.pass, false);
    assert.equal(j.problems.length, 30);
    assert.deepEqual(Object.keys(j.problems[0]).sort(), ['difficulty', 'durationMs', 'expected', 'given', 'id', 'kind', 'outcome', 'verdict']);
    assert.equal(j.wrongAnswers.length, j.counts.wrong);
  });

  it('bad usage exits 64, a missing baseline 66', async () => {
    for (const args of [
      [],
      ['--n', '5'],
      [sim.url, '--suite', 'gsm8k'],
      [sim.url, '--n', '0'],
      [sim.url, '--n', '1e3'],
      [sim.url, '--concurrency', 'x'],
      [sim.url, '--bogus'],
    ]) {
      const r = await cli(args);
      assert.equal(r.code, 64, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /Usage: inference-doctor eval URL/);
    }
    const missing = await cli([sim.url, '--baseline', join(dir, 'nope.json')]);
    assert.equal(missing.code, 66);
    assert.match(missing.stderr, /Cannot read the baseline/);
    const junk = join(dir, 'junk.json');
    writeFileSync(junk, '{"format":"x"}');
    const bad = await cli([sim.url, '--baseline', junk]);
    assert.equal(bad.code, 3);
    assert.match(bad.stderr, /not a usable baseline: not an eval baseline/);
  });

  it('an unreachable server exits 3, with and without --model', async () => {
    const a = await cli(['http://127.0.0.1:9', '--model', 'x', '--n', '50', '--timeout', '2']);
    assert.equal(a.code, 3, a.stdout + a.stderr);
    assert.match(a.stdout, /failed: .*Cannot reach/);
    assert.match(a.stdout, /verdict: none/);
    const b = await cli(['http://127.0.0.1:9', '--n', '5']);
    assert.equal(b.code, 3);
    assert.match(b.stderr, /Could not list the models/);
  });

  it('Ctrl-C cancels the run (exit 130) and reports what came back', async function () {
    const slow = await pool.start({ seed: 1, models: { slow: { behaviour: 'arithmetic', tokenDelayMs: 20 } } });
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'eval', slow.url, '--n', '200', '--concurrency', '2'], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      // One Ctrl-C: a second one, while the report is written, would kill the process outright.
      if (!interrupted && /eval: [1-9]/.test(stderr)) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('close', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    assert.equal(code, 130, stdout + stderr);
    assert.match(stdout, /cancelled: the figures below cover the answers that came back/);
    assert.match(stdout, /verdict: none \(the run was cancelled\)/);
  });
});

describe('runEval (in process, against the simulator)', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let inFlight = 0;
  let maxInFlight = 0;

  before(async () => {
    sim = await startSimulator({
      port: 0,
      scenario: { seed: 3, models: { slow: { behaviour: 'arithmetic', tokenDelayMs: 2 }, hang: 'hang' } },
      gate: async (req, res, next) => {
        if (req.method === 'POST') {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          res.on('close', () => inFlight--);
        }
        await next();
      },
    });
  });
  after(() => sim.close());

  it('never has more than `concurrency` requests in flight, and reports progress', async () => {
    maxInFlight = 0;
    const progress: number[] = [];
    const run = await runEval(
      { baseUrl: sim.url },
      { suite: 'mixed', n: 40, seed: 2, concurrency: 5, model: 'slow', onProgress: (p) => progress.push(p.done) },
    );
    assert.equal(run.status, 'completed');
    assert.equal(run.counts.correct, 40);
    assert.equal(maxInFlight, 5);
    assert.deepEqual(
      progress,
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
  });

  it('stops on abort: no new requests, the finished ones kept', async () => {
    const controller = new AbortController();
    const run = await runEval(
      { baseUrl: sim.url },
      {
        suite: 'arithmetic',
        n: 200,
        seed: 2,
        concurrency: 3,
        model: 'slow',
        signal: controller.signal,
        onProgress: (p) => p.done === 10 && controller.abort(),
      },
    );
    assert.equal(run.status, 'cancelled');
    assert.ok(run.results.length >= 10 && run.results.length < 20, String(run.results.length));
    assert.ok(run.results.every((r) => r.outcome === 'correct'));
  });

  it('an answer cut by the token limit before its Answer line is invalid (truncated), not graded on a stray number', async () => {
    const run = await runEval({ baseUrl: sim.url }, { suite: 'arithmetic', n: 9, seed: 4, concurrency: 3, model: 'slow', maxTokens: 12 });
    assert.equal(run.status, 'completed');
    assert.equal(run.counts.invalid, 9);
    assert.ok(run.results.every((r) => r.invalid === 'truncated'));
  });

  it('probes reuse one kept-alive connection after [DONE] (the runner drains the end of the body)', async () => {
    const sockets = new Set<unknown>();
    const counting = await startSimulator({
      port: 0,
      scenario: { seed: 1, models: { m: 'arithmetic' } },
      gate: async (req, _res, next) => {
        sockets.add(req.socket);
        await next();
      },
    });
    try {
      for (let i = 0; i < 8; i++) {
        const r = await runProbe({ baseUrl: counting.url }, { endpoint: 'chat', model: 'm', prompt: 'Compute 2 + 3.', stream: true });
        assert.equal(r.status, 'completed');
        // Let the background drain hand the socket back before the next request.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.equal(sockets.size, 1);
    } finally {
      await counting.close();
    }
  });

  it('gives up on a server that never answers, each request bounded by the timeout', async () => {
    const t0 = performance.now();
    const run = await runEval({ baseUrl: sim.url }, { suite: 'word', n: 20, seed: 1, concurrency: 4, model: 'hang', timeoutMs: 300 });
    assert.equal(run.status, 'failed');
    assert.match(run.failure ?? '', /requests failed.*took longer than|requests failed.*sent nothing/);
    assert.ok(run.counts.errors >= 3);
    assert.ok(performance.now() - t0 < 5000);
  });
});

describe('the accuracy smoke test as the fix loop probe (core/eval/asProbe) against the simulator', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;

  before(async () => {
    sim = await startSimulator({ port: 0, scenario: scenarioPath('accuracy') });
  });
  after(() => sim?.close());

  const probe = (model?: string) => accuracyProbe({ baseUrl: sim.url }, { suite: 'mixed', n: 45, seed: 1, concurrency: 8, ...(model ? { model } : {}) });

  it('the healthy model (the first one listed) is OK, one item per answer with its timings', async () => {
    const r = await probe();
    assert.equal(r.summary.verdict, 'ok', r.summary.message);
    assert.equal(r.items.length, 45);
    assert.ok(r.items.every((i) => i.result.verdict.kind === 'ok' && i.result.ttftMs !== null));
    assert.match(r.summary.message, /accuracy 100\.0% \(45\/45\)\. PASS/);
  });

  it('the fluent-but-wrong model is degenerate although the detector passes every answer, and the message says why', async () => {
    const r = await probe(WRONG);
    assert.ok(
      r.items.every((i) => i.result.verdict.kind === 'ok'),
      'every answer reads fine',
    );
    assert.equal(r.summary.verdict, 'degenerate');
    assert.match(r.summary.message, /FAIL: accuracy below the floor/);
  });

  it('NaN answers make it NaN, as the Quick Health Probe would', async () => {
    const r = await probe(NAN);
    assert.equal(r.summary.verdict, 'nan');
  });
});
