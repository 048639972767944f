/**
 * `sim vllm serve`: the simulator's vLLM launch mode as a process — usage errors like argparse's,
 * a crash at start with the rule's error, a running server whose log our own vLLM log reader reads
 * (version, non-default args, the backends chosen, NaN lines), `vllm serve …` in ps through the
 * `vllm` stand-in, and vLLM's routes over HTTP.
 */
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/codeServer';
import { fromVllmLog } from '../../src/core/diagnose';
import { waitUntilReady } from '../../src/core/fix/loop';
import { runWatchedProbe } from '../../src/core/probe/watch';
import { buildBundles } from './helpers';

const ROOT = join(__dirname, '..', '..');
const SIM = join(ROOT, 'dist', 'sim.js');
const MODEL = 'nvidia/Qwen3-30B-A3B-NVFP4';
const FAST = ['--sim-start-seconds', '0', '--sim-tokens-per-second', '0'];

describe('simulator: vLLM launch mode (sim vllm serve)', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    buildBundles('sim', 55_000);
    dir = mkdtempSync(join(tmpdir(), 'sim-vllm-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a command line without a model, or with two, as argparse does (exit 2)', () => {
    const none = spawnSync(process.execPath, [SIM, 'vllm', 'serve', '--port', '1'], { encoding: 'utf8', timeout: 10_000 });
    assert.equal(none.status, 2);
    assert.match(none.stderr, /vllm serve: error: the following arguments are required: model_tag/);
    const two = spawnSync(process.execPath, [SIM, 'vllm', 'serve', 'a', 'b'], { encoding: 'utf8', timeout: 10_000 });
    assert.equal(two.status, 2);
    assert.match(two.stderr, /unrecognized arguments: b/);
  });

  it('crashes at start with DeepGEMM MoE on SM 12.0, the error last in the log', () => {
    const r = spawnSync(process.execPath, [SIM, 'vllm', 'serve', MODEL, '--moe-backend', 'deep_gemm', '--port', '0', ...FAST], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(r.status, 1);
    assert.match(r.stderr.trim().split('\n').pop() ?? '', /^RuntimeError: DeepGEMM has no kernels for sm_120$/);
  });

  it('through the vllm stand-in: vllm serve in ps, a log our reader reads, NaN counted, vLLM routes', async () => {
    const wrapper = spawnSync(process.execPath, [SIM, 'vllm', 'wrapper', join(dir, 'bin'), ...FAST], { encoding: 'utf8' });
    assert.equal(wrapper.status, 0, wrapper.stderr);
    const vllm = wrapper.stdout.trim();
    assert.equal(vllm, join(dir, 'bin', 'vllm'));
    const port = await freePort();
    const logFile = join(dir, 'server.log');
    const child = spawn(vllm, ['serve', MODEL, '--port', String(port), '-tp', '2', '--kv_cache_dtype', 'fp8', '--log-file', logFile], {
      env: { ...process.env, VLLM_COMPUTE_NANS_IN_LOGITS: '1' },
      stdio: 'ignore',
    });
    try {
      const server = { baseUrl: `http://127.0.0.1:${port}` };
      assert.ok((await waitUntilReady(server, 20_000, 100)) !== undefined, 'ready on /health alone');
      const ps = spawnSync('ps', ['-o', 'args=', '-p', String(child.pid)], { encoding: 'utf8' }).stdout.trim();
      assert.equal(ps, `${vllm} serve ${MODEL} --port ${port} -tp 2 --kv_cache_dtype fp8`, 'the vLLM command alone, not the simulated machine');

      const r = await runWatchedProbe(server, { endpoint: 'chat', model: MODEL, prompt: 'Hello!', stream: true, maxTokens: 64 });
      assert.equal(r.verdict.kind, 'nan');
      assert.equal(r.server?.engine, 'vllm');
      assert.equal(r.server?.cacheConfig?.cache_dtype, 'fp8');
      assert.deepEqual(r.server?.corruptedRequests, { before: 0, after: 1 });
      for (const path of ['/generate', '/health_generate', '/server_info']) assert.equal((await fetch(`${server.baseUrl}${path}`)).status, 404, path);

      const ev = await fromVllmLog(readFileSync(logFile, 'utf8').split('\n'));
      assert.equal(ev.engine?.value, 'vllm');
      assert.equal(ev.versions.vllm?.value, '0.17.1');
      assert.equal(ev.flags.written.tensor_parallel_size?.value, 2);
      assert.equal(ev.flags.written.kv_cache_dtype?.value, 'fp8');
      assert.equal(ev.flags.resolved.attention_backend?.value, 'FLASHINFER');
      assert.equal(ev.flags.resolved.moe_backend?.value, 'FLASHINFER_CUTLASS');
      assert.ok(ev.signatures['nan-detected'], 'the NaN warning is a log signature');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
