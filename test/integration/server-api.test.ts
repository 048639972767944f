import { strict as assert } from 'node:assert';
import {
  fetchHealth,
  fetchModelInfo,
  fetchModels,
  fetchServerInfo,
  fetchServerStatus,
  ServerApiError,
  summariseServerInfo,
} from '../../src/core/probe/server-api';
import type { RunningSimulator } from '../../src/sim/server';
import { SimPool, scenarioPath } from './helpers';

describe('server API against the simulator', function () {
  this.timeout(20_000);
  const pool = new SimPool();
  let all: RunningSimulator;
  let nan: RunningSimulator;
  let legacy: RunningSimulator;
  let keyed: RunningSimulator;

  before(async () => {
    all = await pool.start(scenarioPath('all'));
    nan = await pool.start(scenarioPath('nan'));
    legacy = await pool.start(scenarioPath('legacy'));
    keyed = await pool.start(scenarioPath('healthy'), 'k3y');
  });
  after(() => pool.closeAll());

  it('fetchModels lists ids in server order', async () => {
    const models = await fetchModels({ baseUrl: all.url });
    assert.equal(models[0].id, 'healthy');
    assert.equal(models[0].ownedBy, 'sglang');
    assert.equal(models[0].maxModelLen, 32768);
    assert.ok(models.length > 10);
  });

  it('fetchHealth: healthy on a NaN server (health endpoints cannot see NaN)', async () => {
    assert.deepEqual(await fetchHealth({ baseUrl: nan.url }), { health: 'healthy', generateHealth: 'healthy' });
  });

  it('fetchHealth: unhealthy /health_generate (503)', async () => {
    const sim = await pool.start({ healthGenerateStatus: 503, models: { m: 'healthy' } });
    const h = await fetchHealth({ baseUrl: sim.url });
    assert.equal(h.health, 'healthy');
    assert.equal(h.generateHealth, 'unhealthy');
    assert.match(h.error ?? '', /503/);
  });

  it('fetchHealth: unreachable never throws', async () => {
    const h = await fetchHealth({ baseUrl: 'http://127.0.0.1:9' }, { timeoutMs: 2000 });
    assert.equal(h.health, 'unreachable');
    assert.match(h.error ?? '', /Cannot reach/);
  });

  it('fetchServerInfo keeps NaN/Infinity from Python JSON', async () => {
    const info = await fetchServerInfo({ baseUrl: nan.url });
    const state = (info.internal_states as Record<string, unknown>[])[0];
    assert.ok(Number.isNaN(state.last_gen_throughput));
    assert.equal(state.avg_spec_accept_length, Infinity);
    const s = summariseServerInfo(info);
    assert.equal(s.version, '0.5.9');
    assert.equal(s.backends.fp4_gemm_runner_backend, 'flashinfer_cutlass');
    assert.equal(s.backends.moe_runner_backend, 'flashinfer_cutlass');
    assert.equal(s.backends.kv_cache_dtype, 'fp8_e4m3');
    assert.equal(s.backends.quantization, 'modelopt_fp4');
    assert.equal(s.backends.attention_backend, 'flashinfer');
    assert.equal(s.backends.tp_size, '4');
    assert.ok(!('speculative_algorithm' in s.backends), 'null fields left out');
    assert.equal(s.resolvedAttentionBackend, 'flashinfer');
  });

  it('fetchServerInfo / fetchModelInfo fall back to the /get_ routes', async () => {
    const info = await fetchServerInfo({ baseUrl: legacy.url });
    assert.equal(info.version, '0.4.3.post2');
    const model = await fetchModelInfo({ baseUrl: legacy.url });
    assert.equal(model.model_path, 'meta-llama/Llama-3.1-8B-Instruct');
  });

  it('API key: 401 says to set the key; the right key works; health is exempt', async () => {
    await assert.rejects(fetchModels({ baseUrl: keyed.url }), (e: unknown) => {
      assert.ok(e instanceof ServerApiError);
      assert.equal(e.kind, 'auth');
      assert.equal(e.status, 401);
      assert.match(e.message, /set the API key/);
      return true;
    });
    await assert.rejects(fetchServerInfo({ baseUrl: keyed.url }), /API key/);
    assert.equal((await fetchModels({ baseUrl: keyed.url, apiKey: 'k3y' }))[0].id, 'Qwen/Qwen3-8B');
    assert.equal((await fetchHealth({ baseUrl: keyed.url })).health, 'healthy');
  });

  it('timeouts: a server that never answers', async () => {
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      await assert.rejects(fetchModels({ baseUrl: `http://127.0.0.1:${port}` }, { timeoutMs: 200 }), (e: unknown) => {
        assert.ok(e instanceof ServerApiError);
        assert.equal(e.kind, 'timeout');
        assert.match(e.message, /did not answer within 0.2 s/);
        return true;
      });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('not an SGLang server: clear protocol error', async () => {
    const { createServer } = await import('node:http');
    const other = createServer((_q, s) => s.end('<html>hello</html>'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const port = (other.address() as { port: number }).port;
    try {
      await assert.rejects(fetchModels({ baseUrl: `http://127.0.0.1:${port}` }), /did not return JSON/);
    } finally {
      other.closeAllConnections();
      other.close();
    }
  });

  it('fetchServerStatus gathers health, models, version and backends', async () => {
    const s = await fetchServerStatus({ baseUrl: nan.url });
    assert.equal(s.health, 'healthy');
    assert.deepEqual(s.models, ['nvidia/Qwen3.5-397B-A17B-NVFP4']);
    assert.equal(s.version, '0.5.9');
    assert.equal(s.backends?.fp4_gemm_runner_backend, 'flashinfer_cutlass');
    const down = await fetchServerStatus({ baseUrl: 'http://127.0.0.1:9' }, { timeoutMs: 1000 });
    assert.equal(down.health, 'unreachable');
  });
});
