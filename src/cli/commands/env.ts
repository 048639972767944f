/**
 * `inference-doctor env HOST [--json] [--python PATH]... [--no-torch] [--cuobjdump]`: what is
 * installed on the host and whether its CUDA libraries carry code for its GPUs.
 */
import { discoverEnv, formatEnvReport, type DiscoverOptions } from '../../core/discovery';
import { errorMessage } from '../../core/errors';
import type { HostLike } from '../../core/gpu/hostLike';
import { EXIT, UsageError, wantsHelp, type Command } from '../command';
import { extractHostArgs, openHostFromArgs, HOST_OPTIONS_HELP } from '../hostArgs';

export const ENV_USAGE = `Usage: inference-doctor env HOST [options]

Inspect GPUs, CUDA, running SGLang servers and Python environments (sglang, sgl-kernel,
FlashInfer, torch, triton, transformers, vllm), and check that the CUDA libraries were built
for this GPU.

Options:
  --json              print the report as JSON
  --python PATH       also inspect this interpreter (repeatable)
  --no-torch          do not import torch (faster; no CUDA runtime details)
  --cuobjdump         also run cuobjdump and merge its targets (the built-in reader's names win)
  --no-check-env      skip \`python -m sglang.check_env\` and \`python -m vllm.collect_env\` (they import
                      torch and touch the GPU)
  --max-lib-mb N      read at most N MiB of each shared library (default 256)
  -h, --help          show this help

Exit status: 0 nothing wrong found, 1 error-level findings, 3 the host cannot be inspected,
64 bad usage.
`;

interface EnvArgs {
  opts: DiscoverOptions;
  json: boolean;
  /** Arguments that are not options: the HOST. */
  operands: string[];
}

/** The report options; throws UsageError for an unknown option or a missing value. */
function parse(argv: readonly string[]): EnvArgs {
  // A report asked for by hand includes SGLang's own check_env (where it exists).
  const opts: DiscoverOptions = { pythonPaths: [], checkEnv: true };
  const operands: string[] = [];
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    const value = (): string | undefined => (eq > 0 ? a.slice(eq + 1) : argv[++i]);
    switch (name) {
      case '--json':
        json = true;
        break;
      case '--no-torch':
        opts.torch = 'no';
        break;
      case '--cuobjdump':
        opts.cuobjdump = 'prefer';
        break;
      case '--no-check-env':
        opts.checkEnv = false;
        break;
      case '--python': {
        const v = value();
        if (!v) throw new UsageError('--python needs a path');
        opts.pythonPaths!.push(v);
        break;
      }
      case '--max-lib-mb': {
        const v = Number(value());
        if (!Number.isFinite(v) || v <= 0) throw new UsageError('--max-lib-mb needs a positive number');
        opts.libraryMaxBytes = Math.floor(v * 1024 * 1024);
        break;
      }
      default:
        if (a.startsWith('-')) throw new UsageError(`Unknown option ${JSON.stringify(a)}`);
        operands.push(a);
    }
  }
  return { opts, json, operands };
}

export interface EnvCommandIo {
  out?: (s: string) => void;
  err?: (s: string) => void;
  signal?: AbortSignal;
}

async function report(host: HostLike, { opts, json }: EnvArgs, io: EnvCommandIo): Promise<number> {
  const out =
    io.out ??
    ((s: string) => {
      process.stdout.write(s);
    });
  const r = await discoverEnv(host, { ...opts, ...(io.signal ? { signal: io.signal } : {}) });
  out(json ? `${JSON.stringify(r, null, 2)}\n` : formatEnvReport(r));
  return r.warnings.some((w) => w.severity === 'error') ? EXIT.findings : EXIT.ok;
}

/**
 * The env report on a host the caller already holds (tests, other tools). argv has no HOST; usage
 * errors and help are answered here as main.ts answers them.
 */
export async function runEnvOnHost(argv: string[], host: HostLike, io: EnvCommandIo = {}): Promise<number> {
  const err =
    io.err ??
    ((s: string) => {
      process.stderr.write(s);
    });
  if (wantsHelp(argv)) {
    (
      io.out ??
      ((s: string) => {
        process.stdout.write(s);
      })
    )(ENV_USAGE);
    return EXIT.ok;
  }
  let args: EnvArgs;
  try {
    args = parse(argv);
    if (args.operands.length) throw new UsageError(`Unexpected argument ${JSON.stringify(args.operands[0])}`);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`${errorMessage(e)}\n${ENV_USAGE}`);
    return EXIT.usage;
  }
  return report(host, args, io);
}

export const envCommand: Command = {
  name: 'env',
  summary: 'report Python, SGLang, sgl-kernel, FlashInfer, torch, the GPU and missing sm_XX kernels on a host',
  usage: `${ENV_USAGE}\n${HOST_OPTIONS_HELP}`,
  async run(argv, io) {
    const { hostArgs, rest } = extractHostArgs(argv);
    // Every usage error before the host is opened: no SSH connection just to report a typo.
    const args = parse(rest);
    const [hostInput, extra] = args.operands;
    if (!hostInput) throw new UsageError('Name a HOST (an ~/.ssh/config alias, ssh://user@host:port, or local)');
    if (extra !== undefined) throw new UsageError(`Unexpected argument ${JSON.stringify(extra)}`);
    const host = await openHostFromArgs(hostInput, hostArgs, io.signal);
    try {
      return await report(host, args, {
        out: (s) => {
          io.stdout.write(s);
        },
        signal: io.signal,
      });
    } finally {
      await host.close();
    }
  },
};
