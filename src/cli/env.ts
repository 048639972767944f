/**
 * `inference-doctor env [--json] [--python PATH]... [--no-torch] [--cuobjdump]`: what is installed
 * on the host and whether its CUDA libraries carry code for its GPUs.
 * Exit codes: 0 nothing wrong found, 1 error-level findings, 2 usage error.
 */
import { discoverEnv, formatEnvReport, type DiscoverOptions } from '../core/discovery';
import { EXIT } from './command';
import type { HostLike } from '../core/gpu/hostLike';

export const ENV_USAGE = `Usage: inference-doctor env HOST [options]

Inspect GPUs, CUDA, running SGLang servers and Python environments (sglang, sgl-kernel,
FlashInfer, torch, triton, transformers, vllm), and check that the CUDA libraries were built
for this GPU.

Options:
  --json              print the report as JSON
  --python PATH       also inspect this interpreter (repeatable)
  --no-torch          do not import torch (faster; no CUDA runtime details)
  --cuobjdump         prefer cuobjdump over the built-in fatbin reader
  --no-check-env      skip \`python -m sglang.check_env\` (it imports torch and touches the GPU)
  --max-lib-mb N      read at most N MiB of each shared library (default 256)
  -h, --help          show this help
`;

export interface EnvCommandIo {
  out?: (s: string) => void;
  err?: (s: string) => void;
  signal?: AbortSignal;
}

export async function envCommand(argv: string[], host: HostLike, io: EnvCommandIo = {}): Promise<number> {
  const out = io.out ?? ((s: string) => { process.stdout.write(s); });
  const err = io.err ?? ((s: string) => { process.stderr.write(s); });
  // A report asked for by hand includes SGLang's own check_env (where it exists).
  const opts: DiscoverOptions = { pythonPaths: [], signal: io.signal, checkEnv: true };
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string | undefined => {
      const eq = a.indexOf('=');
      if (eq > 0) return a.slice(eq + 1);
      return argv[++i];
    };
    const name = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    switch (name) {
      case '--json': json = true; break;
      case '--no-torch': opts.torch = 'no'; break;
      case '--cuobjdump': opts.cuobjdump = 'prefer'; break;
      case '--no-check-env': opts.checkEnv = false; break;
      case '--python': {
        const v = value();
        if (!v) { err(`--python needs a path\n${ENV_USAGE}`); return EXIT.usage; }
        opts.pythonPaths!.push(v);
        break;
      }
      case '--max-lib-mb': {
        const v = Number(value());
        if (!Number.isFinite(v) || v <= 0) { err(`--max-lib-mb needs a positive number\n${ENV_USAGE}`); return EXIT.usage; }
        opts.libraryMaxBytes = Math.floor(v * 1024 * 1024);
        break;
      }
      case '-h': case '--help': out(ENV_USAGE); return 0;
      default: err(`Unknown option ${JSON.stringify(a)}\n${ENV_USAGE}`); return EXIT.usage;
    }
  }
  const report = await discoverEnv(host, opts);
  out(json ? `${JSON.stringify(report, null, 2)}\n` : formatEnvReport(report));
  return report.warnings.some((w) => w.severity === 'error') ? 1 : 0;
}
