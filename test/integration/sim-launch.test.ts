/* eslint-disable @typescript-eslint/no-unsafe-return -- raw JSON shapes are asserted field by field */
/**
 * Launch mode of the simulator (`dist/sim.js serve …` and the python3 wrapper) as child processes
 * over real HTTP on 127.0.0.1: behaviours picked by GPU and flags, auto backends in /server_info,
 * the startup log, start-up phases, pacing, and what `ps` shows to host discovery.
 */
import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePs, parseSglangCommandLine } from '../../src/core/discovery';
import { classifyLogLine } from '../../src/core/remote/logWatch';
import { buildBundles, scenarioPath } from './helpers';

/** Test-only: parsed JSON whose shape the assertions check. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const parseAny = (text: string): any => JSON.parse(text);

const ROOT = join(__dirname, '..', '..');
const SIM = join(ROOT, 'dist', 'sim.js');
const SEED_MODEL = 'nvidia/Qwen3.5-397B-A17B-NVFP4';
const SEED = ['--model-path', SEED_MODEL, '--quantization', 'modelopt_fp4', '--tp', '4', '--sim-gpu', 'rtx-pro-6000'];
const FIX = ['--moe-runner-backend', 'flashinfer_cutlass', '--fp4-gemm-backend', 'flashinfer_cudnn'];
/** Fast start and no pacing unless a test says otherwise (later flags win). */
const FAST = ['--port', '0', '--sim-start-seconds', '0', '--sim-tokens-per-second', '0'];
const READY = /The server is fired up and ready to roll!/;

interface Proc {
  child: ChildProcess;
  log(): string;
  /** Resolves with the log once `re` matches it; rejects when the process exits first or time runs out. */
  waitFor(re: RegExp, ms?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts processes and stops every one of them at the end. */
class Launcher {
  private readonly procs: Proc[] = [];

  spawn(command: string, args: string[], env: Record<string, string> = {}): Proc {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    const waiters = new Set<() => void>();
    const feed = (d: Buffer): void => {
      text += d.toString();
      for (const w of waiters) w();
    };
    child.stdout?.on('data', feed);
    child.stderr?.on('data', feed);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    let done = false;
    void exited.then(() => {
      done = true;
      for (const w of waiters) w();
    });
    const proc: Proc = {
      child,
      exited,
      log: () => text,
      waitFor: (re, ms = 15_000) =>
        new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => finish(new Error(`timed out waiting for ${String(re)}; log:\n${text}`)), ms);
          const check = (): void => {
            if (re.test(text)) finish();
            else if (done) finish(new Error(`exited before ${String(re)}; log:\n${text}`));
          };
          const finish = (error?: Error): void => {
            clearTimeout(timer);
            waiters.delete(check);
            if (error) reject(error);
            else resolve(text);
          };
          waiters.add(check);
          check();
        }),
    };
    this.procs.push(proc);
    return proc;
  }

  serve(args: string[], env: Record<string, string> = {}): Proc {
    return this.spawn(process.execPath, [SIM, 'serve', ...FAST, ...args], env);
  }

  /** A served simulator, ready: its URL from the uvicorn line. */
  async ready(args: string[], env: Record<string, string> = {}): Promise<{ proc: Proc; url: string }> {
    const proc = this.serve(args, env);
    const log = await proc.waitFor(READY);
    const url = /Uvicorn running on (http:\/\/\S+)/.exec(log)?.[1];
    assert.ok(url, log);
    return { proc, url };
  }

  async stopAll(): Promise<void> {
    await Promise.all(
      this.procs.map(async (p) => {
        if (p.child.exitCode !== null || p.child.signalCode !== null) return;
        p.child.kill('SIGTERM');
        const timer = setTimeout(() => p.child.kill('SIGKILL'), 3000);
        await p.exited;
        clearTimeout(timer);
      }),
    );
  }
}

interface Streamed {
  content: string;
  finishReason: unknown;
  matchedStop: unknown;
  ms: number;
}

async function streamChat(url: string, prompt: string, maxTokens: number): Promise<Streamed> {
  const started = performance.now();
  const r = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: SEED_MODEL, messages: [{ role: 'user', content: prompt }], max_tokens: maxTokens, stream: true }),
    signal: AbortSignal.timeout(15_000),
  });
  assert.equal(r.status, 200);
  const text = await r.text();
  const ms = performance.now() - started;
  const events = text
    .split('\n\n')
    .filter((b) => b.startsWith('data: ') && b !== 'data: [DONE]')
    .map((b) => parseAny(b.slice(6)));
  assert.ok(text.trimEnd().endsWith('data: [DONE]'), text.slice(-200));
  const content = events.map((e) => (e.choices[0]?.delta?.content as string | null) ?? '').join('');
  const last = events.at(-1).choices[0];
  return { content, finishReason: last.finish_reason, matchedStop: last.matched_stop, ms };
}

async function getJson(url: string): Promise<{ status: number; body: ReturnType<typeof parseAny> }> {
  const r = await fetch(url, { signal: AbortSignal.timeout(5000) });
  const text = await r.text();
  return { status: r.status, body: text ? parseAny(text) : undefined };
}

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** 'refused' when nothing listens, else the HTTP status. */
async function healthStatus(url: string): Promise<number | 'refused'> {
  try {
    const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
    await r.arrayBuffer();
    return r.status;
  } catch {
    return 'refused';
  }
}

const psRow = (pid: number): string | undefined => {
  const ps = spawnSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8', timeout: 5000 });
  return parsePs(ps.stdout).find((r) => r.pid === pid)?.args;
};

describe('simulator launch mode (dist/sim.js serve)', function () {
  this.timeout(30_000);
  const launcher = new Launcher();

  before(function () {
    this.timeout(120_000);
    buildBundles('sim');
  });
  after(() => launcher.stopAll());

  describe('the seed incident on rtx-pro-6000 (SM 12.0)', () => {
    let seed: { proc: Proc; url: string };
    before(async () => {
      seed = await launcher.ready(SEED);
    });

    it('the seed flags stream "!!!!" and stop with matched_stop "NaN happened"', async () => {
      const r = await streamChat(seed.url, 'Hello, how are you?', 64);
      assert.match(r.content, /^!{4,}$/);
      assert.equal(r.finishReason, 'stop');
      assert.equal(r.matchedStop, 'NaN happened');
    });

    it('the startup log has the server_args= line with the resolved backends, then the ready lines', () => {
      const log = seed.proc.log();
      const args = log.split('\n').find((l) => l.includes('server_args=ServerArgs('));
      assert.ok(args, log);
      assert.match(args, /\] server_args=ServerArgs\(model_path='nvidia\/Qwen3\.5-397B-A17B-NVFP4', /);
      assert.match(args, /fp4_gemm_runner_backend='flashinfer_cutlass'/);
      assert.match(args, /moe_runner_backend='cutlass'/);
      assert.match(args, /tp_size=4/);
      assert.doesNotMatch(args, /sim_gpu|sim-gpu/);
      assert.match(log, /FP4 GEMM runner backend not set explicitly: using flashinfer_cutlass on NVIDIA RTX PRO 6000/);
      assert.match(log, /\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d TP0\] Load weight begin\./);
      assert.match(log, /^INFO: {5}Uvicorn running on http:\/\/127\.0\.0\.1:\d+ \(Press CTRL\+C to quit\)$/m);
      assert.ok(log.indexOf('server_args=') < log.indexOf('Uvicorn running') && log.indexOf('Uvicorn running') < log.indexOf('fired up'));
    });

    it('/v1/models lists the model path; /health and /health_generate answer 200 once ready', async () => {
      const models = await getJson(`${seed.url}/v1/models`);
      assert.deepEqual(
        models.body.data.map((m: { id: string }) => m.id),
        [SEED_MODEL],
      );
      assert.equal(await healthStatus(seed.url), 200);
      const hg = await fetch(`${seed.url}/health_generate`, { signal: AbortSignal.timeout(5000) });
      assert.equal(hg.status, 200);
    });

    it('ps shows it as python3 -m sglang.launch_server with its flags, and discovery parses it', () => {
      const args = psRow(seed.proc.child.pid!);
      assert.ok(args, 'no ps row for the simulator');
      assert.match(args, /^python3 -m sglang\.launch_server --port 0 .*--model-path nvidia\/Qwen3\.5-397B-A17B-NVFP4 --quantization modelopt_fp4 --tp 4/);
      const cmd = parseSglangCommandLine(args);
      assert.ok(cmd);
      assert.equal(cmd.kind, 'launch_server');
      assert.equal(cmd.modelPath, SEED_MODEL);
      assert.equal(cmd.interpreter, 'python3');
      const cmdline = readFileSync(`/proc/${seed.proc.child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      assert.match(cmdline, /^python3 -m sglang\.launch_server .*--quantization modelopt_fp4/);
    });
  });

  it('the fix flags (--moe-runner-backend flashinfer_cutlass --fp4-gemm-backend flashinfer_cudnn) answer fluently', async () => {
    const { url } = await launcher.ready([...SEED, ...FIX]);
    const r = await streamChat(url, 'Count from 1 to 20', 300);
    assert.match(r.content, /19, 20/);
    assert.doesNotMatch(r.content, /!!/);
    assert.equal(r.finishReason, 'stop');
    assert.equal(r.matchedStop, 151645);
    const info = await getJson(`${url}/server_info`);
    assert.equal(info.body.fp4_gemm_runner_backend, 'flashinfer_cudnn');
    assert.equal(info.body.moe_runner_backend, 'flashinfer_cutlass');
  });

  it('the older flag name --fp4-gemm-runner-backend is the same field', async () => {
    const { url } = await launcher.ready([...SEED, '--moe-runner-backend', 'flashinfer_cutlass', '--fp4-gemm-runner-backend=flashinfer_cudnn']);
    assert.equal((await getJson(`${url}/server_info`)).body.fp4_gemm_runner_backend, 'flashinfer_cudnn');
    assert.match((await streamChat(url, 'Hello there', 200)).content, /Hello!/);
  });

  it('an sgl-kernel build without sm_120 stays broken with the fix flags, and works once "rebuilt"', async () => {
    const [broken, rebuilt] = await Promise.all([
      launcher.ready([...SEED, ...FIX, '--sim-sgl-kernel-archs', '90,100']),
      launcher.ready([...SEED, ...FIX, '--sim-sgl-kernel-archs', '90,100,120']),
    ]);
    const bad = await streamChat(broken.url, 'Hello, how are you?', 64);
    assert.match(bad.content, /^!+$/);
    assert.equal(bad.matchedStop, 'NaN happened');
    const good = await streamChat(rebuilt.url, 'Hello, how are you?', 200);
    assert.match(good.content, /Hello!/);
  });

  it('SGLANG_SANITIZE_NAN_LOGITS=1 turns the NaN run into token salad that never reaches EOS', async () => {
    const { url } = await launcher.ready(SEED, { SGLANG_SANITIZE_NAN_LOGITS: '1' });
    const r = await streamChat(url, 'Hello, how are you?', 40);
    assert.doesNotMatch(r.content, /!!/);
    assert.ok(r.content.length > 40);
    assert.equal(r.finishReason, 'length');
  });

  it('/server_info shows what auto became on each GPU (h100 vs rtx-pro-6000)', async () => {
    const model = ['--model-path', 'Qwen/Qwen3-30B-A3B'];
    const [hopper, blackwell] = await Promise.all([
      launcher.ready([...model, '--sim-gpu', 'h100']),
      launcher.ready([...model, '--sim-gpu', 'rtx-pro-6000', '--fp8-gemm-backend', 'auto']),
    ]);
    const h = (await getJson(`${hopper.url}/server_info`)).body;
    const b = (await getJson(`${blackwell.url}/server_info`)).body;
    assert.equal(h.attention_backend, 'fa3');
    assert.equal(b.attention_backend, 'flashinfer');
    assert.equal(h.fp4_gemm_runner_backend, 'marlin');
    assert.equal(b.fp4_gemm_runner_backend, 'flashinfer_cutlass');
    assert.equal(h.fp8_gemm_runner_backend, 'deep_gemm');
    assert.equal(b.fp8_gemm_runner_backend, 'cutlass');
    assert.equal(h.moe_runner_backend, 'triton');
    assert.equal(h.internal_states[0].attention_backend, 'fa3');
    assert.equal(h.model_path, 'Qwen/Qwen3-30B-A3B');
    assert.equal(h.port, Number(new URL(hopper.url).port));
  });

  it('an explicit backend is kept as given, other flags become fields (dashes to underscores, numbers parsed)', async () => {
    const { url } = await launcher.ready([
      '--model-path',
      'Qwen/Qwen3-8B',
      '--sim-gpu',
      'b200',
      '--attention-backend',
      'triton',
      '--mem-fraction-static',
      '0.7',
      '--trust-remote-code',
      '--api-key',
      'k3y',
    ]);
    const r = await fetch(`${url}/server_info`, { headers: { authorization: 'Bearer k3y' }, signal: AbortSignal.timeout(5000) });
    const info = parseAny(await r.text());
    assert.equal(info.attention_backend, 'triton');
    assert.equal(info.fp4_gemm_runner_backend, 'flashinfer_cutedsl');
    assert.equal(info.mem_fraction_static, 0.7);
    assert.equal(info.trust_remote_code, true);
    assert.equal(info.api_key, '***');
    const denied = await fetch(`${url}/v1/models`, { signal: AbortSignal.timeout(5000) });
    assert.equal(denied.status, 401);
  });

  it('crash-at-start writes its error line and exits non-zero', async () => {
    const proc = launcher.serve(['--model-path', 'Qwen/Qwen3-8B', '--sim-gpu', 'h100', '--attention-backend', 'trtllm_mha']);
    const { code } = await proc.exited;
    assert.equal(code, 1);
    const lines = proc.log().trimEnd().split('\n');
    const error = lines.find((l) => l.startsWith('RuntimeError:'));
    assert.ok(error, proc.log());
    assert.match(error, /Unsupported architecture: this device is SM90/);
    assert.equal(classifyLogLine(error)?.kind, 'unsupported-arch');
    assert.match(proc.log(), /server_args=ServerArgs\(/);
    assert.doesNotMatch(proc.log(), /Uvicorn running/);
  });

  it('start-up: port closed while loading, 503 on /health and /health_generate while warming up, /v1/models already there, then 200', async function () {
    this.timeout(20_000);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const proc = launcher.serve(['--model-path', 'Qwen/Qwen3-8B', '--sim-gpu', 'h100', '--sim-start-seconds', '2', '--port', String(port)]);
    const seen: (number | 'refused')[] = [];
    let modelsWhileStarting: ReturnType<typeof parseAny>;
    let generateWhileStarting: number | undefined;
    const deadline = Date.now() + 12_000;
    while (Date.now() < deadline) {
      const s = await healthStatus(url);
      if (seen.at(-1) !== s) seen.push(s);
      if (s === 503 && modelsWhileStarting === undefined) {
        modelsWhileStarting = (await getJson(`${url}/v1/models`)).body;
        generateWhileStarting = (await fetch(`${url}/health_generate`, { signal: AbortSignal.timeout(2000) })).status;
      }
      if (s === 200) break;
      await new Promise((r) => setTimeout(r, 40));
    }
    assert.deepEqual(seen, ['refused', 503, 200], proc.log());
    assert.equal(modelsWhileStarting.data[0].id, 'Qwen/Qwen3-8B');
    assert.equal(generateWhileStarting, 503);
    assert.match(proc.log(), READY);
  });

  it('hang-at-start (--nnodes 2): never listens, stays alive, the log stops at torch distributed init', async () => {
    const port = await freePort();
    const proc = launcher.serve(['--model-path', 'Qwen/Qwen3-8B', '--nnodes', '2', '--dist-init-addr', '10.0.0.1:5000', '--port', String(port)]);
    await proc.waitFor(/Init torch distributed begin\./);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(await healthStatus(`http://127.0.0.1:${port}`), 'refused');
    assert.equal(proc.child.exitCode, null);
    assert.doesNotMatch(proc.log(), /Init torch distributed ends/);
  });

  it('streaming is paced: 40 tokens/s makes a 20-token answer take about half a second', async () => {
    const { url } = await launcher.ready(['--model-path', 'Qwen/Qwen3-8B', '--sim-gpu', 'h100', '--sim-tokens-per-second', '40']);
    const r = await streamChat(url, 'Explain the KV cache', 20);
    assert.equal(r.finishReason, 'length');
    assert.ok(r.ms > 350 && r.ms < 2000, `took ${r.ms} ms`);
  });

  it('--sim-scenario: a behaviour file of its own (env, numeric range, gpu, slow start, custom crash)', async function () {
    this.timeout(20_000);
    const file = ['--sim-scenario', scenarioPath('launch-custom')];
    const model = ['--model-path', 'Qwen/Qwen3-8B'];
    const loop = await launcher.ready([...file, ...model], { SIM_TEST_BEHAVIOUR: 'loop' });
    assert.match((await streamChat(loop.url, 'Why?', 40)).content, /( claus){5}/);

    const wrong = await launcher.ready([...file, ...model, '--sim-gpu', 'l40s']);
    assert.match(wrong.proc.log(), /WARNING: this line comes from the behaviour file/);
    const answer = await streamChat(wrong.url, 'Count from 1 to 20', 300);
    assert.doesNotMatch(answer.content, /19, 20/);
    assert.equal(answer.matchedStop, 151645);

    const crash = launcher.serve([...file, ...model, '--tp-size', '16', '--sim-gpu', 'b200']);
    assert.equal((await crash.exited).code, 3);
    assert.match(crash.log(), /^RuntimeError: tp_size 16 needs more GPUs than this SM100 box has$/m);

    const started = Date.now();
    const slow = await launcher.ready([...file, ...model, '--served-model-name', 'slow-model']);
    assert.ok(Date.now() - started >= 1400, `ready after ${Date.now() - started} ms`);
    assert.equal((await getJson(`${slow.url}/v1/models`)).body.data[0].id, 'slow-model');
  });

  it('bad command lines exit 2 like argparse', async () => {
    const unknownGpu = launcher.serve(['--model-path', 'm', '--sim-gpu', 'z80']);
    assert.equal((await unknownGpu.exited).code, 2);
    assert.match(unknownGpu.log(), /launch_server\.py: error: argument --sim-gpu: invalid choice: 'z80'/);
    const noModel = launcher.serve(['--sim-gpu', 'h100']);
    assert.equal((await noModel.exited).code, 2);
    assert.match(noModel.log(), /required: --model-path/);
  });

  it('a short command line (node dist/sim.js serve) re-runs itself with room for the title; SIGTERM to it stops both', async () => {
    const marker = `respawn-${process.pid}`;
    const proc = launcher.spawn('node', ['dist/sim.js', 'serve', ...FAST, '--model-path', 'm', '--served-model-name', marker]);
    await proc.waitFor(READY);
    const ps = spawnSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8', timeout: 5000 });
    const rows = parsePs(ps.stdout).filter((r) => r.args.includes(marker));
    const titled = rows.filter((r) => r.args.startsWith('python3 -m sglang.launch_server '));
    assert.equal(titled.length, 1, JSON.stringify(rows));
    assert.notEqual(titled[0].pid, proc.child.pid);
    assert.ok(titled[0].args.endsWith(`--served-model-name ${marker}`), titled[0].args);
    assert.equal(rows.filter((r) => parseSglangCommandLine(r.args)).length, 1, 'only the titled child looks like a server');
    proc.child.kill('SIGTERM');
    assert.equal((await proc.exited).code, 0);
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && psRow(titled[0].pid)) await new Promise((r) => setTimeout(r, 50));
    assert.equal(psRow(titled[0].pid), undefined, 'the child outlived its parent');
  });

  describe('the python3 wrapper', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'sim-wrapper-'));
      const r = spawnSync(process.execPath, [SIM, 'wrapper', dir], { encoding: 'utf8', timeout: 10_000 });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim(), join(dir, 'python3'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('python3 -m sglang.launch_server … runs the simulator; ps and discovery see the wrapper as the interpreter', async () => {
      const python = join(dir, 'python3');
      const proc = launcher.spawn(python, ['-m', 'sglang.launch_server', ...SEED, ...FAST, '--fp4-gemm-backend', 'flashinfer_cutlass']);
      const log = await proc.waitFor(READY);
      const url = /Uvicorn running on (http:\/\/\S+)/.exec(log)![1];
      const args = psRow(proc.child.pid!);
      assert.ok(args);
      assert.ok(args.startsWith(`${python} -m sglang.launch_server --model-path ${SEED_MODEL} `), args);
      assert.doesNotMatch(args, /sim-argv0|dist\/sim\.js/);
      const cmd = parseSglangCommandLine(args);
      assert.ok(cmd);
      assert.equal(cmd.kind, 'launch_server');
      assert.equal(cmd.interpreter, python);
      assert.equal(cmd.modelPath, SEED_MODEL);
      assert.ok(cmd.argv.includes('--fp4-gemm-backend'));
      assert.equal((await streamChat(url, 'Hello', 32)).matchedStop, 'NaN happened');
    });
  });
});
