import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runQuickProbe } from '../../src/core/probe/quick';
import { runProbe } from '../../src/core/probe/runner';
import { fetchServerStatus } from '../../src/core/probe/server-api';
import { runWatchedProbe } from '../../src/core/probe/watch';
import { runTool, type ToolContext } from '../../src/core/tools';
import type { ModelBehaviour, Scenario } from '../../src/sim/scenario';
import { fromProbe } from '../../src/core/diagnose';
import { quickProbeReport } from '../../src/core/probe/quickReport';
import { runCli, scenarioPath, SimPool } from './helpers';

const vllm = (behaviour: ModelBehaviour, extra: Partial<Scenario> = {}): Scenario => ({
  engine: 'vllm',
  seed: 3,
  models: { 'org/model': behaviour },
  ...extra,
});
const PROMPT = 'Explain what a KV cache is.';
const toolContext = (url: string): ToolContext => ({
  signal: new AbortController().signal,
  timeLimitMs: 20_000,
  maxOutputChars: 64 * 1024,
  servers: [{ name: 'box', url }],
  hosts: { known: () => [], open: () => Promise.reject(new Error('no hosts here')) },
  allowChanges: false,
  services: {},
});

describe("probe against the simulator's vLLM personality", function () {
  this.timeout(30_000);
  const pool = new SimPool();
  after(() => pool.closeAll());

  it('detects the engine from owned_by and /version, and reads the cache config', async () => {
    const sim = await pool.start(vllm({ behaviour: 'healthy' }, { maxModelLen: 8192 }));
    const r = await runWatchedProbe({ baseUrl: sim.url }, { endpoint: 'chat', model: 'org/model', prompt: PROMPT, stream: true, maxTokens: 200 });
    assert.equal(r.status, 'completed');
    assert.equal(r.verdict.kind, 'ok', JSON.stringify(r.verdict.reasons));
    assert.deepEqual(
      { engine: r.server?.engine, version: r.server?.version, maxModelLen: r.server?.maxModelLen, asked: r.server?.repetitionDetection },
      { engine: 'vllm', version: '0.17.1', maxModelLen: 8192, asked: true },
    );
    assert.equal(r.server?.cacheConfig?.block_size, '16');
    assert.equal(r.server?.corruptedRequests, undefined, 'no counter without VLLM_COMPUTE_NANS_IN_LOGITS');
  });

  it("the Servers view's status of a vLLM server: healthy, version from /version, no error for the routes vLLM lacks", async () => {
    const sim = await pool.start(vllm({ behaviour: 'healthy' }));
    const status = await fetchServerStatus({ baseUrl: sim.url });
    assert.equal(status.health, 'healthy');
    assert.equal(status.generateHealth, 'unknown');
    assert.equal(status.version, '0.17.1');
    assert.deepEqual(status.models, ['org/model']);
    assert.equal(status.lastError, undefined);
  });

  it("the scenario fixture test/fixtures/scenarios/vllm.json plays each of its models' verdicts", async () => {
    const sim = await pool.start(scenarioPath('vllm'));
    const verdicts: Record<string, string> = {};
    for (const model of ['nan-text', 'nan-behind-text', 'loop', 'healthy']) {
      const r = await runWatchedProbe({ baseUrl: sim.url }, { endpoint: 'chat', model, prompt: PROMPT, stream: true, maxTokens: 400 });
      verdicts[model] = `${r.verdict.kind}/${r.finishReason ?? ''}`;
    }
    assert.deepEqual(verdicts, { 'nan-text': 'nan/repetition', 'nan-behind-text': 'nan/stop', loop: 'degenerate/repetition', healthy: 'ok/stop' });
  });

  it('the agent server_info tool on vLLM: the version from /version, no error for the routes vLLM lacks', async () => {
    const sim = await pool.start(vllm({ behaviour: 'healthy' }));
    const r = await runTool('server_info', { server: 'box' }, toolContext(sim.url));
    assert.ok(r.ok, JSON.stringify(r));
    const data = r.data as { version?: string; generateHealth: string; errors: string[] };
    assert.equal(data.version, '0.17.1');
    assert.equal(data.generateHealth, 'unknown');
    assert.deepEqual(data.errors, []);
  });

  it('says sglang for an SGLang server and asks it for nothing vLLM-only', async () => {
    const sim = await pool.start({ seed: 3, models: { m: { behaviour: 'healthy' } } });
    const r = await runWatchedProbe({ baseUrl: sim.url }, { endpoint: 'chat', prompt: PROMPT, stream: true, maxTokens: 50 });
    assert.equal(r.server?.engine, 'sglang');
    assert.equal(r.server?.repetitionDetection, false);
    assert.equal(r.server?.version, undefined);
  });

  for (const stream of [true, false]) {
    it(`a loop ended by vLLM's repetition detection is degenerate with finish_reason "repetition" (${stream ? 'stream' : 'whole'})`, async () => {
      const sim = await pool.start(vllm({ behaviour: 'short-loop' }));
      const r = await runWatchedProbe({ baseUrl: sim.url }, { endpoint: 'chat', model: 'org/model', prompt: PROMPT, stream, maxTokens: 400 });
      assert.equal(r.finishReason, 'repetition');
      assert.equal(r.status, 'completed');
      assert.equal(r.verdict.kind, 'degenerate');
      const reason = r.verdict.reasons.find((x) => x.code === 'repetition-stop');
      assert.ok(reason, JSON.stringify(r.verdict.reasons));
      assert.match(reason.message, /^The server ended the answer with finish_reason "repetition"/);
      assert.ok(r.completionTokens < 60, `the server stopped the loop early (${r.completionTokens} tokens)`);
    });
  }

  it('does not ask a vLLM older than 0.17 for repetition detection: the loop runs to max_tokens', async () => {
    const sim = await pool.start(vllm({ behaviour: 'short-loop' }, { version: '0.16.0' }));
    const r = await runWatchedProbe({ baseUrl: sim.url }, { endpoint: 'completions', model: 'org/model', prompt: PROMPT, stream: true, maxTokens: 120 });
    assert.equal(r.server?.repetitionDetection, false);
    assert.equal(r.finishReason, 'length');
    assert.equal(r.verdict.kind, 'degenerate');
    assert.ok(!r.verdict.reasons.some((x) => x.code === 'repetition-stop'));
  });

  it('NaN logits behind healthy-looking text: the corrupted-requests counter moving makes the verdict nan', async () => {
    const env = { VLLM_COMPUTE_NANS_IN_LOGITS: '1' };
    const sim = await pool.start(vllm({ behaviour: 'healthy', logprobs: 'nan' }, { env }));
    const q = await runQuickProbe({ baseUrl: sim.url }, { model: 'org/model', maxTokens: 200 });
    assert.deepEqual(q.server?.corruptedRequests, { before: 0, after: 3 });
    assert.equal(q.summary.verdict, 'nan');
    assert.match(q.summary.message, /counted 3 corrupted requests/);
    for (const item of q.items) {
      assert.equal(item.result.verdict.kind, 'nan');
      assert.match(
        item.result.verdict.reasons.find((x) => x.code === 'nan-counter')?.message ?? '',
        /vllm:corrupted_requests counter rose by 3 during the probe \(0 → 3\)/,
      );
    }
    const report = quickProbeReport({ label: 'gpu box', baseUrl: sim.url }, q).replace(/\\(.)/g, '$1');
    assert.match(report, /^Server: vLLM 0\.17\.1 · max_model_len 32768 · repetition detection asked · corrupted requests 0 → 3 · KV cache auto$/m);
    // As diagnosis evidence: the engine and version the server reported, NaN counted, and the reason that says so.
    const ev = fromProbe(q);
    assert.equal(ev.engine?.value, 'vllm');
    assert.equal(ev.versions.vllm?.value, '0.17.1');
    assert.equal(ev.env.VLLM_COMPUTE_NANS_IN_LOGITS?.value, '1');
    assert.ok(ev.probes.every((p) => p.verdict === 'nan' && p.reasons.includes('nan-counter')));
    // A second probe starts from the new count.
    const again = await runWatchedProbe({ baseUrl: sim.url }, { endpoint: 'chat', model: 'org/model', prompt: PROMPT, stream: false, maxTokens: 50 });
    assert.deepEqual(again.server?.corruptedRequests, { before: 3, after: 4 });
    assert.equal(again.verdict.kind, 'nan');
  });

  it('inference-doctor probe --json carries the engine and the counter; the text summary names them (needs dist/cli.js)', async () => {
    const sim = await pool.start(vllm({ behaviour: 'healthy', logprobs: 'nan' }, { env: { VLLM_COMPUTE_NANS_IN_LOGITS: '1' } }));
    const json = await runCli(['probe', sim.url, '--json', '--max-tokens', '40']);
    assert.equal(json.code, 2, json.stderr);
    const out = JSON.parse(json.stdout) as { result: { server: { engine: string; corruptedRequests: unknown }; verdict: { kind: string } } };
    assert.equal(out.result.server.engine, 'vllm');
    assert.deepEqual(out.result.server.corruptedRequests, { before: 0, after: 1 });
    assert.equal(out.result.verdict.kind, 'nan');
    const text = await runCli(['probe', sim.url, '--max-tokens', '40']);
    assert.match(text.stdout, /verdict: NAN \(nan-counter\)/);
    assert.match(text.stdout, /vLLM 0\.17\.1 · max_model_len 32768 · repetition detection asked · corrupted requests 1 → 2/);
  });

  it('the same server without VLLM_COMPUTE_NANS_IN_LOGITS exports no counter, so the text alone decides', async () => {
    const sim = await pool.start(vllm({ behaviour: 'healthy', logprobs: 'nan' }));
    const q = await runQuickProbe({ baseUrl: sim.url }, { model: 'org/model', maxTokens: 200 });
    assert.equal(q.server?.engine, 'vllm');
    assert.equal(q.server?.corruptedRequests, undefined);
    assert.equal(q.summary.verdict, 'ok');
  });

  it("a '!!!!' NaN answer carries no marker on vLLM and is still nan", async () => {
    const sim = await pool.start(vllm({ behaviour: 'nan-marker' }, { version: '0.15.1' }));
    const r = await runWatchedProbe({ baseUrl: sim.url }, { endpoint: 'chat', model: 'org/model', prompt: PROMPT, stream: true, maxTokens: 100 });
    assert.equal(r.matchedStop, null);
    assert.equal(r.verdict.kind, 'nan');
    assert.ok(
      r.verdict.reasons.some((x) => x.code === 'token0-run' || x.code === 'answer-flood'),
      JSON.stringify(r.verdict.reasons),
    );
  });

  it("HTTP 500 and an unknown model come back as clear errors from vLLM's nested error shape", async () => {
    const sim = await pool.start(vllm({ behaviour: 'http-500' }));
    const r = await runProbe({ baseUrl: sim.url }, { endpoint: 'chat', model: 'org/model', prompt: PROMPT, stream: true, maxTokens: 10 });
    assert.equal(r.status, 'error');
    assert.equal(r.error?.status, 500);
    assert.match(r.error?.message ?? '', /answered 500.*CUDA error: an illegal memory access.*check its logs/);
    const missing = await runProbe({ baseUrl: sim.url }, { endpoint: 'chat', model: 'nope', prompt: PROMPT, stream: false, maxTokens: 10 });
    assert.equal(missing.error?.status, 404);
    assert.match(missing.error?.message ?? '', /The model `nope` does not exist/);
  });

  it("serves vLLM's routes only: no /generate, /health_generate or /server_info (unless dev mode)", async () => {
    const plain = await pool.start(vllm({ behaviour: 'healthy' }));
    const dev = await pool.start(vllm({ behaviour: 'healthy' }, { env: { VLLM_SERVER_DEV_MODE: '1' } }));
    const status = async (url: string, path: string, method = 'GET'): Promise<number> =>
      (await fetch(`${url}${path}`, { method, ...(method === 'POST' ? { body: '{"text":"hi"}', headers: { 'content-type': 'application/json' } } : {}) }))
        .status;
    assert.equal(await status(plain.url, '/health'), 200);
    assert.equal(await status(plain.url, '/health_generate'), 404);
    assert.equal(await status(plain.url, '/generate', 'POST'), 404);
    assert.equal(await status(plain.url, '/server_info'), 404);
    assert.equal(await status(dev.url, '/server_info'), 200);
    const metrics = await (await fetch(`${plain.url}/metrics`)).text();
    assert.match(metrics, /^vllm:request_success_total\{engine="0",model_name="org\/model",finished_reason="stop"\} \d+\.0$/m);
  });

  it('another owner with a /version route (a proxy) stays unknown and gets no vLLM-only request field', async () => {
    const bodies: string[] = [];
    const other = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const reply =
          req.url === '/v1/models'
            ? { object: 'list', data: [{ id: 'm', object: 'model', owned_by: 'organization-owner' }] }
            : req.url === '/version'
              ? { version: '1.2.3' }
              : { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Paris.' }, finish_reason: 'stop' }] };
        if (req.method === 'POST') bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply));
      });
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const r = await runWatchedProbe({ baseUrl: url }, { endpoint: 'chat', prompt: PROMPT, stream: false, maxTokens: 10 });
      assert.equal(r.server?.engine, 'unknown');
      assert.equal(r.server?.repetitionDetection, false);
      assert.equal(bodies.length, 1);
      assert.ok(!('repetition_detection' in (JSON.parse(bodies[0]) as object)));
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  describe('finish reasons vLLM gives up with', () => {
    let server: Server;
    let url = '';
    let finish = 'abort';
    before(async () => {
      server = createServer((_req, res) => {
        const body = JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: finish, stop_reason: null }],
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    for (const reason of ['abort', 'error']) {
      it(`finish_reason "${reason}" is a failed request, not a healthy answer`, async () => {
        finish = reason;
        const r = await runProbe({ baseUrl: url }, { endpoint: 'chat', prompt: PROMPT, stream: false, maxTokens: 10 });
        assert.equal(r.status, 'error');
        assert.equal(r.error?.kind, 'server');
        assert.match(r.error?.message ?? '', new RegExp(`finish_reason "${reason}"`));
        assert.equal(r.content, 'Hello');
      });
    }
  });
});
