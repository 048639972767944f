/**
 * `sim serve`: starts like `python -m sglang.launch_server`. It reads SGLang's flags, resolves the
 * auto backends for the simulated GPU, picks a launch behaviour from the rule file, writes an
 * SGLang-like startup log, is not listening while "loading weights", answers 503 on the health
 * routes while "warming up", then serves paced answers (or crashes or hangs at start, as the rule
 * says).
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { errorMessage } from '../../core/errors';
import { sleep } from '../http';
import type { Scenario } from '../scenario';
import { startSimulator, type RunningSimulator } from '../server';
import { defaultArgs } from '../serverInfo';
import { parseLaunchArgs, UsageError, USAGE_EXIT, type LaunchArgs } from './args';
import { capability, GPUS, smNumber, type SimGpu } from './gpus';
import { LaunchLog, serverArgsLine } from './log';
import { isFp4, isFp8, modelTraits, resolveBackends, resolvedServerArgs, type ModelTraits, type Resolution } from './resolve';
import { answerBehaviour, BehaviourFileError, loadBehaviourFile, pickRule, type LaunchRule } from './rules';
import { processTitle, takeTitle } from './title';

const SERVE_USAGE = `usage: sim serve --model-path MODEL [--quantization Q] [--port N] [--host H] [any SGLang flag ...]
                 [--sim-gpu NAME] [--sim-start-seconds S] [--sim-tokens-per-second N]
                 [--sim-sgl-kernel-archs 90,100,...] [--sim-scenario FILE] [--sim-model-moe true|false]
                 [--sim-version V] [--log-file FILE]

Starts an SGLang look-alike the way \`python -m sglang.launch_server\` does, and shows in ps as that.
  --sim-gpu NAME             simulated GPU: ${GPUS.map((g) => `${g.id} (${capability(g)})`).join(', ')}; default rtx-pro-6000
  --sim-start-seconds S      time to ready (default 3): ~70% loading (port closed), then warm-up (health 503)
  --sim-tokens-per-second N  streaming pace (default 40; 0: unpaced)
  --sim-sgl-kernel-archs L   sm_XX codes the simulated sgl-kernel build carries (default: all)
  --sim-scenario FILE        launch behaviour rules (default: the built-in ones, src/sim/launch/behaviours.json)
  --sim-model-moe B          override the mixture-of-experts guess made from the model path
  --log-file FILE            append the log there instead of stderr`;

const GENERATION = new Set(['/v1/chat/completions', '/v1/completions', '/generate']);

/** Extra start-up fields the simulator's /server_info defaults lack. */
const LAUNCH_DEFAULTS: Record<string, unknown> = { nnodes: 1, node_rank: 0, dist_init_addr: null, skip_server_warmup: false };

interface Plan {
  args: Record<string, unknown>;
  resolutions: Resolution[];
  traits: ModelTraits;
  rule: LaunchRule;
  gpu: SimGpu;
}

function plan(launch: LaunchArgs): Plan {
  const { given, sim } = launch;
  const traits = modelTraits(given, sim.moe);
  const resolutions = resolveBackends(sim.gpu, given, traits);
  const args = resolvedServerArgs({ ...defaultArgs(String(given.model_path)), ...LAUNCH_DEFAULTS, port: 30000, host: '127.0.0.1' }, given, resolutions);
  const file = loadBehaviourFile(sim.scenario);
  const rule = pickRule(file, { gpu: sim.gpu, args, traits, env: process.env, sglKernelArchs: sim.sglKernelArchs });
  return { args, resolutions, traits, rule, gpu: sim.gpu };
}

const fill = (text: string, gpu: SimGpu): string => text.replace(/\{sm\}/g, String(smNumber(gpu))).replace(/\{gpu\}/g, gpu.name);

const BACKEND_WORDS: Record<string, string> = {
  attention_backend: 'Attention backend',
  moe_runner_backend: 'MoE runner backend',
  fp4_gemm_runner_backend: 'FP4 GEMM runner backend',
  fp8_gemm_runner_backend: 'FP8 GEMM runner backend',
};

/** Rough memory figures for the log: weights from the parameter count in the model name. */
function memory(p: Plan): { avail: number; weights: number; tokens: number } {
  const avail = Math.round(p.gpu.memoryGiB * 0.97 * 100) / 100;
  const billions = Number(/(\d+(?:\.\d+)?)B(?![a-z])/i.exec(String(p.args.model_path))?.[1] ?? 8);
  const bytes = isFp4(p.traits.quantization) ? 0.56 : isFp8(p.traits.quantization) ? 1.05 : 2;
  const tp = Number(p.args.tp_size) || 1;
  const weights = Math.round(Math.min(avail * 0.8, (billions * bytes) / tp) * 100) / 100;
  const fraction = Number(p.args.mem_fraction_static) || 0.85;
  const tokens = Math.max(4096, Math.floor(((avail * fraction - weights) * 1e9) / 98_304));
  return { avail, weights, tokens };
}

class Launch {
  private ready = false;
  private markReady!: () => void;
  private readonly readyPromise = new Promise<void>((resolve) => (this.markReady = resolve));
  private server: RunningSimulator | undefined;
  private stopping = false;

  constructor(
    private readonly launch: LaunchArgs,
    private readonly p: Plan,
    private readonly log: LaunchLog,
  ) {}

  private get startMs(): number {
    const extra = this.p.rule.behaviour === 'slow-start' ? (this.p.rule.extraStartSeconds ?? 20) : 0;
    return (this.launch.sim.startSeconds + extra) * 1000;
  }

  async run(): Promise<void> {
    const { p, log } = this;
    const loading = this.startMs * 0.7;
    const step = (): Promise<void> => sleep(loading / 5);
    log.info(serverArgsLine(p.args));
    for (const r of p.resolutions) {
      const words = BACKEND_WORDS[r.field];
      if (words && (r.given === undefined || r.given === 'auto') && r.value !== 'auto') {
        log.info(`${words} not set explicitly: using ${String(r.value)} on ${p.gpu.name} (compute capability ${capability(p.gpu)}).`);
      }
    }
    for (const line of p.rule.log ?? []) log.info(fill(line, p.gpu));
    const mem = memory(p);
    log.rank('Init torch distributed begin.');
    if (p.rule.behaviour === 'hang-at-start') {
      // Waits for peers that never come; SIGTERM ends it.
      setInterval(() => undefined, 1 << 30);
      return;
    }
    await step();
    log.rank('Init torch distributed ends. mem usage=0.21 GB');
    log.rank(`Load weight begin. avail mem=${mem.avail.toFixed(2)} GB`);
    await step();
    if (p.rule.behaviour === 'crash-at-start') return this.crash();
    log.rank(
      `Load weight end. type=${p.traits.moe ? 'Qwen3MoeForCausalLM' : 'Qwen3ForCausalLM'}, dtype=torch.bfloat16, avail mem=${(mem.avail - mem.weights).toFixed(2)} GB, mem usage=${mem.weights.toFixed(2)} GB.`,
    );
    await step();
    log.rank(
      `KV Cache is allocated. #tokens: ${mem.tokens}, K size: ${((mem.tokens * 49_152) / 1e9).toFixed(2)} GB, V size: ${((mem.tokens * 49_152) / 1e9).toFixed(2)} GB`,
    );
    if (!p.args.disable_cuda_graph) {
      log.rank('Capture cuda graph begin. This can take up to several minutes.');
      await step();
      log.rank(`Capture cuda graph end. Time elapsed: ${(loading / 5000).toFixed(2)} s. mem usage=0.84 GB.`);
    }
    log.rank(
      `max_total_num_tokens=${mem.tokens}, chunked_prefill_size=${String(p.args.chunked_prefill_size)}, max_prefill_tokens=${String(p.args.max_prefill_tokens)}, max_running_requests=${Math.min(4096, Math.floor(mem.tokens / 64))}, context_len=32768`,
    );
    await step();
    if (this.stopping) return;
    await this.listen();
    if (!p.args.skip_server_warmup) {
      await sleep(this.startMs * 0.3);
      log.uvicorn('127.0.0.1:40112 - "GET /model_info HTTP/1.1" 200 OK');
      log.rank('Prefill batch. #new-seq: 1, #new-token: 6, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0');
      log.uvicorn('127.0.0.1:40114 - "POST /generate HTTP/1.1" 200 OK');
    }
    this.ready = true;
    this.markReady();
    log.info('The server is fired up and ready to roll!');
  }

  private crash(): never {
    return this.die(
      ['  File "sglang/srt/managers/scheduler.py", in run_scheduler_process', '  File "sglang/srt/model_executor/model_runner.py", in initialize'],
      'RuntimeError: the simulated server failed to start',
    );
  }

  /** A scheduler traceback ending in the rule's error (or `fallback`), then the exit SGLang makes. */
  private die(frames: string[], fallback: string): never {
    const { log, p } = this;
    log.rank('Scheduler hit an exception: Traceback (most recent call last):');
    for (const f of frames) log.raw(f);
    log.raw(fill(p.rule.error ?? fallback, p.gpu));
    log.info('Received sigquit from a child process. It usually means the child failed.');
    log.close();
    process.exit(p.rule.exitCode ?? 1);
  }

  private async listen(): Promise<void> {
    const { p, log } = this;
    const model = String(p.args.served_model_name);
    const behaviour = answerBehaviour(p.rule)!;
    const tps = this.launch.sim.tokensPerSecond;
    const paced = { ...behaviour, ...(tps > 0 ? { tokenDelayMs: 1000 / tps } : {}) };
    const serverArgs = p.args;
    const scenario: Scenario = {
      name: `launch:${p.rule.name}`,
      seed: 1,
      version: this.launch.sim.version,
      reasoningParser: typeof p.args.reasoning_parser === 'string' ? p.args.reasoning_parser : null,
      serverArgs,
      models: { [model]: paced },
      // SGLang serves whatever model name a request carries.
      default: paced,
    };
    const apiKey = typeof p.args.api_key === 'string' ? p.args.api_key : undefined;
    this.server = await startSimulator({
      port: Number(p.args.port),
      host: String(p.args.host),
      scenario,
      ...(apiKey ? { apiKey } : {}),
      gate: (req, res, next) => this.gate(req, res, next),
    });
    log.uvicorn(`Started server process [${process.pid}]`);
    log.uvicorn('Waiting for application startup.');
    log.uvicorn('Application startup complete.');
    log.uvicorn(`Uvicorn running on ${this.server.url} (Press CTRL+C to quit)`);
  }

  private async gate(req: IncomingMessage, res: ServerResponse, next: () => Promise<void>): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const peer = `${req.socket.remoteAddress ?? '127.0.0.1'}:${req.socket.remotePort ?? 0}`;
    res.on('finish', () =>
      this.log.uvicorn(`${peer} - "${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}" ${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''}`),
    );
    if (!this.ready) {
      if (path === '/health' || path === '/health_generate') {
        res.writeHead(503, { 'content-length': 0 });
        res.end();
        return;
      }
      // Requests sent during warm-up wait for the scheduler, as they do on a real server.
      if (GENERATION.has(path)) await this.readyPromise;
    }
    if (this.p.rule.behaviour === 'crash-mid-answer' && GENERATION.has(path)) this.dieWhileAnswering(res);
    await next();
  }

  /** The answer starts, then the process dies after a few chunks (or instead of a whole answer). */
  private dieWhileAnswering(res: ServerResponse): void {
    const after = this.p.rule.crashAfterChunks ?? 6;
    let chunks = 0;
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]): boolean => (++chunks > after ? this.dieServing() : write(chunk, ...rest))) as typeof res.write;
    res.end = ((): ServerResponse => {
      this.dieServing();
      return res;
    }) as typeof res.end;
  }

  private dieServing(): never {
    return this.die(['  File "sglang/srt/managers/scheduler.py", in event_loop_overlap'], 'RuntimeError: CUDA error: an illegal memory access was encountered');
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.server?.close();
    this.log.close();
  }
}

/** Runs `sim serve ARGS…` until a signal; exits the process on usage errors and start-up crashes. */
export async function serve(argv: readonly string[]): Promise<void> {
  let launch: LaunchArgs;
  let p: Plan;
  try {
    launch = parseLaunchArgs(argv);
    if (launch.sim.help) {
      process.stdout.write(`${SERVE_USAGE}\n`);
      return;
    }
    if (launch.given.model_path === undefined || launch.given.model_path === true) {
      throw new UsageError('the following arguments are required: --model-path/--model');
    }
    p = plan(launch);
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof BehaviourFileError)) throw error;
    process.stderr.write(`${SERVE_USAGE.split('\n\n')[0]}\nlaunch_server.py: error: ${errorMessage(error)}\n`);
    process.exit(USAGE_EXIT);
  }
  if (!takeTitle(processTitle(launch.sim.argv0, launch.shown), argv)) return;
  let log: LaunchLog;
  try {
    log = new LaunchLog(launch.sim.logFile);
  } catch (error) {
    process.stderr.write(`Cannot open the log file: ${errorMessage(error)}\n`);
    process.exit(1);
  }
  const server = new Launch(launch, p, log);
  const stop = (): void => {
    void server.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    await server.run();
  } catch (error) {
    log.info(`Cannot start the simulated server: ${errorMessage(error)}`);
    log.close();
    process.exit(1);
  }
}
