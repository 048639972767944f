/**
 * `sim vllm serve MODEL [vLLM flags] [--sim-*]`: starts like `vllm serve`. It reads vLLM's flags by
 * shape (a positional model, `--flag value`, `--flag=value`, underscores or dashes, `--no-x`, the
 * `-tp`/`-pp`/`-dp` aliases) keyed by argparse dest, resolves the MoE and attention backends for
 * the simulated GPU in its own table (the FP4 MoE one also from VLLM_USE_FLASHINFER_MOE_FP4, the
 * variable `--moe-backend` replaced), picks a behaviour from vLLM rules (behaviours-vllm.json),
 * writes a vLLM-like log (our own wording around the facts a reader keys on: the version, the
 * non-default args, the backends chosen, NaN in the logits) and serves the simulator's vLLM
 * personality once "loaded" (vLLM opens its port only when ready). Shows in ps as `vllm serve …`.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { errorMessage } from '../../core/errors';
import { sleep } from '../http';
import type { Scenario } from '../scenario';
import { startSimulator } from '../server';
import { VLLM_DEFAULT_VERSION } from '../vllm';
import { applySim, defaultSimOptions, isFlag, SIM_FLAGS, toValue, UsageError, USAGE_EXIT, type SimOptions } from './args';
import { capability, GPUS, type SimGpu } from './gpus';
import { LaunchLog, pyRepr } from './log';
import { isFp4, modelTraits, type ModelTraits } from './resolve';
import { answerBehaviour, BehaviourFileError, loadBehaviourFile, pickRule, type BehaviourFile, type LaunchRule } from './rules';
import { takeTitle } from './title';
import { shellWord } from '../../core/hosts/quote';
import vllmRules from './behaviours-vllm.json';

const USAGE = `usage: sim vllm serve MODEL [--port N] [--host H] [any vLLM flag ...]
                      [--sim-gpu NAME] [--sim-start-seconds S] [--sim-tokens-per-second N]
                      [--sim-scenario FILE] [--sim-model-moe true|false] [--sim-version V] [--log-file FILE]

Starts a vLLM look-alike the way \`vllm serve\` does, and shows in ps as that.
  --sim-gpu NAME             simulated GPU: ${GPUS.map((g) => `${g.id} (${capability(g)})`).join(', ')}; default rtx-pro-6000
  --sim-start-seconds S      time until the port opens (default 3)
  --sim-scenario FILE        launch behaviour rules (default: src/sim/launch/behaviours-vllm.json)
  --sim-version V            the version /version reports (default ${VLLM_DEFAULT_VERSION})`;

/** vLLM's boolean flags the simulator knows, so `--enforce-eager --port 1` reads right. */
const SWITCHES = new Set([
  'enforce-eager',
  'trust-remote-code',
  'enable-prefix-caching',
  'enable-chunked-prefill',
  'enable-expert-parallel',
  'disable-log-requests',
  'disable-log-stats',
  'enable-auto-tool-choice',
  'disable-custom-all-reduce',
  'headless',
]);

/** Short spellings of vLLM (argparse dest of the long flag). */
const ALIASES: Record<string, string> = { tp: 'tensor_parallel_size', pp: 'pipeline_parallel_size', dp: 'data_parallel_size', O: 'optimization_level' };

export interface VllmLaunchArgs {
  /** vLLM flags by argparse dest (underscores), values as given (numbers parsed). */
  given: Record<string, unknown>;
  shown: string[];
  sim: SimOptions;
}

const dest = (flag: string): string => ALIASES[flag] ?? flag.replace(/-/g, '_');

export function parseVllmArgs(argv: readonly string[]): VllmLaunchArgs {
  const sim = defaultSimOptions(VLLM_DEFAULT_VERSION);
  const given: Record<string, unknown> = {};
  const shown: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '-h' || word === '--help') {
      sim.help = true;
      continue;
    }
    if (!isFlag(word)) {
      if (given.model !== undefined) throw new UsageError(`unrecognized arguments: ${word}`);
      given.model = word;
      shown.push(word);
      continue;
    }
    const eq = word.indexOf('=');
    const flag = word.slice(word.startsWith('--') ? 2 : 1, eq > 0 ? eq : undefined).replace(/_/g, '-');
    let value: string | undefined = eq > 0 ? word.slice(eq + 1) : undefined;
    const next = argv[i + 1];
    const key = flag.replace(/-/g, '_');
    if (value === undefined && (SIM_FLAGS.has(flag) || !SWITCHES.has(flag)) && next !== undefined && !isFlag(next)) {
      value = next;
      i++;
    }
    // ps shows the vLLM command alone: the simulator's options describe the machine, not the launch.
    if (!SIM_FLAGS.has(flag)) shown.push(word, ...(eq < 0 && value !== undefined ? [value] : []));
    if (SIM_FLAGS.has(flag)) {
      if (value === undefined) throw new UsageError(`argument --${flag}: expected one argument`);
      applySim(sim, flag, value);
    } else if (value !== undefined) given[dest(flag)] = toValue(value);
    else if (flag.startsWith('no-') && !SWITCHES.has(flag)) given[dest(flag.slice(3))] = false;
    else given[key] = true;
  }
  return { given, shown, sim };
}

export interface VllmResolved {
  args: Record<string, unknown>;
  /** Backends that were auto, as the log names them. */
  attention: string;
  moe: string | undefined;
}

/** The simulator's own pick per architecture: attention by major, the FP4 MoE backend from the flag, else the env var, else the GPU. */
export function resolveVllm(gpu: SimGpu, given: Record<string, unknown>, traits: ModelTraits, env: Record<string, string | undefined>): VllmResolved {
  const attention = typeof given.attention_backend === 'string' ? given.attention_backend : gpu.major >= 10 ? 'FLASHINFER' : 'FLASH_ATTN';
  let moe: string | undefined;
  if (traits.moe) {
    const flag = typeof given.moe_backend === 'string' && given.moe_backend !== 'auto' ? given.moe_backend : undefined;
    const fp4 = isFp4(traits.quantization);
    const envFlashinfer = env.VLLM_USE_FLASHINFER_MOE_FP4;
    const byEnv = fp4 && envFlashinfer !== undefined ? (['1', 'true'].includes(envFlashinfer.toLowerCase()) ? 'flashinfer_cutlass' : 'cutlass') : undefined;
    const byGpu = !fp4 ? 'triton' : gpu.major === 10 ? 'flashinfer_trtllm' : gpu.major === 12 ? 'flashinfer_cutlass' : 'marlin';
    moe = flag ?? byEnv ?? byGpu;
  }
  const args: Record<string, unknown> = {
    port: 8000,
    host: '0.0.0.0',
    served_model_name: given.model,
    kv_cache_dtype: 'auto',
    quantization: traits.quantization,
    ...given,
    attention_backend: attention,
    ...(moe ? { moe_backend: moe } : {}),
  };
  return { args, attention, moe };
}

function stamp(d = new Date()): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

class VllmLaunch {
  private readonly log: LaunchLog;

  constructor(
    private readonly launch: VllmLaunchArgs,
    private readonly resolved: VllmResolved,
    private readonly rule: LaunchRule,
  ) {
    this.log = new LaunchLog(launch.sim.logFile);
  }

  private line(level: 'INFO' | 'WARNING' | 'ERROR', where: string, message: string): void {
    this.log.raw(`(APIServer pid=${process.pid}) ${level} ${stamp()} [${where}] ${message}`);
  }

  async run(): Promise<void> {
    const { launch, resolved, rule } = this;
    const gpu = launch.sim.gpu;
    this.line('INFO', 'api_server.py:1', `vLLM API server version ${launch.sim.version}`);
    this.line('INFO', 'utils.py:1', `non-default args: ${pyRepr(launch.given)}`);
    this.line('INFO', 'cuda.py:1', `Using ${resolved.attention} attention backend out of potential backends: ['FLASHINFER', 'FLASH_ATTN', 'TRITON_ATTN']`);
    if (resolved.moe)
      this.line(
        'INFO',
        'fused_moe.py:1',
        `Using '${resolved.moe.toUpperCase()}' ${isFp4(String(resolved.args.quantization)) ? 'NvFp4' : 'Fp8'} MoE backend (simulated choice for ${gpu.name}, ${capability(gpu)})`,
      );
    for (const l of rule.log ?? []) this.line('INFO', 'sim', l.replace(/\{sm\}/g, `${gpu.major}${gpu.minor}`).replace(/\{gpu\}/g, gpu.name));
    if (rule.behaviour === 'hang-at-start') {
      setInterval(() => undefined, 1 << 30);
      return;
    }
    await sleep(launch.sim.startSeconds * 500);
    if (rule.behaviour === 'crash-at-start') {
      this.line('ERROR', 'core.py:1', 'EngineCore failed to start.');
      this.log.raw((rule.error ?? 'RuntimeError: the simulated engine failed to start').replace(/\{sm\}/g, `${gpu.major}${gpu.minor}`));
      this.log.close();
      process.exit(rule.exitCode ?? 1);
    }
    this.line('INFO', 'kv_cache_utils.py:1', `GPU KV cache size: ${(393216).toLocaleString('en-US')} tokens`);
    await sleep(launch.sim.startSeconds * 500);
    await this.listen();
  }

  private async listen(): Promise<void> {
    const { launch, resolved, rule } = this;
    const model = String(resolved.args.served_model_name);
    const behaviour = answerBehaviour(rule)!;
    const tps = launch.sim.tokensPerSecond;
    const paced = { ...behaviour, ...(tps > 0 ? { tokenDelayMs: 1000 / tps } : {}) };
    const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('VLLM_') && e[1] !== undefined));
    const scenario: Scenario = {
      engine: 'vllm',
      name: `launch:${rule.name}`,
      seed: 1,
      version: launch.sim.version,
      env,
      serverArgs: resolved.args,
      models: { [model]: paced },
    };
    const apiKey = typeof resolved.args.api_key === 'string' ? resolved.args.api_key : undefined;
    const server = await startSimulator({
      port: Number(resolved.args.port),
      host: String(resolved.args.host),
      scenario,
      ...(apiKey ? { apiKey } : {}),
      gate: (req, res, next) => this.gate(req, res, next, behaviour.logprobs === 'nan' || behaviour.behaviour === 'nan-marker'),
    });
    this.line('INFO', 'api_server.py:1', `Starting vLLM API server on ${server.url}`);
    this.log.uvicorn('Application startup complete.');
    const stop = (): void => {
      void server.close().then(() => {
        this.log.close();
        process.exit(0);
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  }

  private async gate(req: IncomingMessage, res: ServerResponse, next: () => Promise<void>, nan: boolean): Promise<void> {
    const peer = `${req.socket.remoteAddress ?? '127.0.0.1'}:${req.socket.remotePort ?? 0}`;
    res.on('finish', () =>
      this.log.uvicorn(`${peer} - "${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}" ${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''}`),
    );
    const generation = req.method === 'POST' && /^\/v1\/(chat\/)?completions$/.test((req.url ?? '').split('?')[0]);
    await next();
    if (generation && nan && process.env.VLLM_COMPUTE_NANS_IN_LOGITS === '1') {
      this.line('WARNING', 'scheduler.py:1', 'A request ended with NaN in the logits (counted in vllm:corrupted_requests).');
    }
  }
}

/** Runs `sim vllm serve ARGS…` until a signal; exits the process on usage errors and start-up crashes. */
export async function serveVllm(argv: readonly string[]): Promise<void> {
  let launch: VllmLaunchArgs;
  let resolved: VllmResolved;
  let rule: LaunchRule;
  try {
    launch = parseVllmArgs(argv);
    if (launch.sim.help) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    if (typeof launch.given.model !== 'string') throw new UsageError('the following arguments are required: model_tag');
    const traits = modelTraits({ model_path: launch.given.model, quantization: launch.given.quantization }, launch.sim.moe);
    resolved = resolveVllm(launch.sim.gpu, launch.given, traits, process.env);
    const file = loadBehaviourFile(launch.sim.scenario ?? (vllmRules as BehaviourFile));
    rule = pickRule(file, { gpu: launch.sim.gpu, args: resolved.args, traits, env: process.env, sglKernelArchs: launch.sim.sglKernelArchs });
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof BehaviourFileError)) throw error;
    process.stderr.write(`${USAGE.split('\n\n')[0]}\nvllm serve: error: ${errorMessage(error)}\n`);
    process.exit(USAGE_EXIT);
  }
  const title = [launch.sim.argv0 ?? 'vllm', 'serve', ...launch.shown].map(shellWord).join(' ');
  if (!takeTitle(title, argv, ['vllm', 'serve'])) return;
  await new VllmLaunch(launch, resolved, rule).run();
}
