/**
 * The command line of `sim serve`: SGLang's own flags (any of them, read by shape: `--flag value`,
 * `--flag=value`, a bare `--flag` is true, `--no-flag` false) keyed by dataclass field, and the
 * simulator's `--sim-*` options, which never reach the server args.
 */
import { fieldOfFlag } from '../../core/remote/compare';
import { ALL_ARCHS, DEFAULT_GPU, GPUS, findGpu, type SimGpu } from './gpus';

/** Exit status of a bad command line: argparse's. */
export const USAGE_EXIT = 2;

export class UsageError extends Error {}

/** store_true flags the simulator knows, so `--trust-remote-code --port 1` reads right (others: a flag before a flag is true). */
const SWITCHES = new Set([
  'trust-remote-code',
  'disable-cuda-graph',
  'enable-torch-compile',
  'disable-radix-cache',
  'enable-mixed-chunk',
  'enable-metrics',
  'stream-output',
  'incremental-streaming-output',
  'enable-dp-attention',
  'skip-server-warmup',
  'skip-tokenizer-init',
  'enable-expert-parallel',
  'disable-overlap-schedule',
  'enable-ep-moe',
  'enable-nan-detection',
  'disable-nan-detection',
  'enable-p2p-check',
  'disable-custom-all-reduce',
]);

/** The dataclass field a flag (without its dashes) sets: SGLang's own flag → dest facts, as the launch-file comparison reads them. */
export const fieldOf = (flag: string): string => fieldOfFlag(`--${flag}`) ?? flag.replace(/-/g, '_');

export interface SimOptions {
  gpu: SimGpu;
  /** Seconds from launch until the server is ready (before a slow-start rule adds its own). */
  startSeconds: number;
  /** Streaming pace; 0: as fast as the client reads. */
  tokensPerSecond: number;
  /** sm_XX numbers the simulated sgl-kernel build carries. */
  sglKernelArchs: number[];
  /** Behaviour file; undefined: the built-in one. */
  scenario?: string;
  /** Where the log goes instead of stderr. */
  logFile?: string;
  /** Overrides the MoE guess from the model path. */
  moe?: boolean;
  version: string;
  /** argv[0] the process shows (the wrapper passes its own path). */
  argv0?: string;
  help: boolean;
}

export interface LaunchArgs {
  /** SGLang flags by dataclass field, values as given (numbers parsed). */
  given: Record<string, unknown>;
  /** The command line after `serve`, without the simulator's internal options: what the process title shows. */
  shown: string[];
  sim: SimOptions;
}

function number(flag: string, text: string, min: number): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < min) throw new UsageError(`argument --${flag}: expected a number >= ${min}, got '${text}'`);
  return n;
}

export function toValue(text: string): unknown {
  return /^-?\d+(\.\d+)?(e-?\d+)?$/i.test(text) ? Number(text) : text;
}

export const SIM_FLAGS = new Set([
  'sim-gpu',
  'sim-start-seconds',
  'sim-tokens-per-second',
  'sim-sgl-kernel-archs',
  'sim-scenario',
  'sim-model-moe',
  'sim-version',
  'sim-argv0',
  'sim-title-pad',
  'log-file',
  'sim-log-file',
]);

export function applySim(sim: SimOptions, flag: string, value: string): void {
  switch (flag) {
    case 'sim-gpu': {
      const gpu = findGpu(value);
      if (!gpu) throw new UsageError(`argument --sim-gpu: invalid choice: '${value}' (choose from ${GPUS.map((g) => g.id).join(', ')})`);
      sim.gpu = gpu;
      return;
    }
    case 'sim-start-seconds':
      sim.startSeconds = number(flag, value, 0);
      return;
    case 'sim-tokens-per-second':
      sim.tokensPerSecond = number(flag, value, 0);
      return;
    case 'sim-sgl-kernel-archs':
      sim.sglKernelArchs = value
        .split(',')
        .map((s) => s.trim().replace(/^sm_?/i, ''))
        .filter(Boolean)
        .map((s) => number(flag, s, 0));
      return;
    case 'sim-scenario':
      sim.scenario = value;
      return;
    case 'log-file':
    case 'sim-log-file':
      sim.logFile = value;
      return;
    case 'sim-model-moe':
      if (value !== 'true' && value !== 'false') throw new UsageError(`argument --sim-model-moe: expected true or false, got '${value}'`);
      sim.moe = value === 'true';
      return;
    case 'sim-version':
      sim.version = value;
      return;
    case 'sim-argv0':
      sim.argv0 = value;
      return;
    default:
      return; // sim-title-pad: room for the process title, nothing else
  }
}

/** A word that is a flag rather than a value (negative numbers are values). */
export const isFlag = (word: string): boolean => word.startsWith('--') || (word.startsWith('-') && word.length > 1 && !/^-\d/.test(word));

/** The simulated machine before any --sim-* option. */
export function defaultSimOptions(version: string): SimOptions {
  return { gpu: findGpu(DEFAULT_GPU)!, startSeconds: 3, tokensPerSecond: 40, sglKernelArchs: [...ALL_ARCHS], version, help: false };
}

export function parseLaunchArgs(argv: readonly string[]): LaunchArgs {
  const sim = defaultSimOptions('0.5.9');
  const given: Record<string, unknown> = {};
  const shown: string[] = [];
  let i = 0;
  // The wrapper passes `python3 -m sglang.launch_server …` through as is.
  if (argv[0] === '-m' && argv[1] === 'sglang.launch_server') i = 2;
  for (; i < argv.length; i++) {
    const word = argv[i];
    if (word === '-h' || word === '--help') {
      sim.help = true;
      continue;
    }
    if (!word.startsWith('--') || word === '--') throw new UsageError(`unrecognized arguments: ${word}`);
    const eq = word.indexOf('=');
    const flag = word.slice(2, eq > 0 ? eq : undefined);
    let value: string | undefined = eq > 0 ? word.slice(eq + 1) : undefined;
    const next = argv[i + 1];
    const takesValue = SIM_FLAGS.has(flag) || !SWITCHES.has(flag);
    if (value === undefined && takesValue && next !== undefined && !isFlag(next)) {
      value = next;
      i++;
    }
    const internal = flag === 'sim-argv0' || flag === 'sim-title-pad';
    if (!internal) shown.push(word, ...(eq < 0 && value !== undefined ? [value] : []));
    if (SIM_FLAGS.has(flag)) {
      if (value === undefined) throw new UsageError(`argument --${flag}: expected one argument`);
      applySim(sim, flag, value);
    } else if (value !== undefined) given[fieldOf(flag)] = toValue(value);
    else if (flag.startsWith('no-') && !SWITCHES.has(flag)) given[fieldOf(flag.slice(3))] = false;
    else given[fieldOf(flag)] = true;
  }
  return { given, shown, sim };
}
