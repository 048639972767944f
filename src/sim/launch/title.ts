/**
 * How the launched simulator shows in `ps`: as `python3 -m sglang.launch_server <its flags>`, so
 * host discovery finds it like a real server. Node's process.title writes over the process's
 * argv area, which only holds as many bytes as the original command line; when the title would
 * not fit, the simulator runs itself once more as a child with room to spare.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { shellWord } from '../../core/hosts/quote';

export function processTitle(argv0: string | undefined, shown: readonly string[]): string {
  return [argv0 ?? 'python3', '-m', 'sglang.launch_server', ...shown].map(shellWord).join(' ');
}

/** Bytes of this process's argv area (Linux); undefined elsewhere. */
function argvArea(): number | undefined {
  try {
    return readFileSync('/proc/self/cmdline').length;
  } catch {
    return undefined;
  }
}

const RESPAWNED = 'INFERENCE_DOCTOR_SIM_TITLED';

/**
 * Sets the title, or (once) re-runs this command with padding so that it fits and supervises that
 * child: forwards SIGINT/SIGTERM and exits with its status. Returns false when the caller should
 * not go on (the child does the work).
 */
export function takeTitle(title: string, serveArgs: readonly string[], command: readonly string[] = ['serve']): boolean {
  const room = argvArea();
  const need = Buffer.byteLength(title) + 1;
  if (room === undefined || room >= need || process.env[RESPAWNED]) {
    process.title = title;
    return true;
  }
  const script = process.argv[1];
  const child = spawn(process.execPath, [...process.execArgv, script, ...command, ...serveArgs, '--sim-title-pad', 'x'.repeat(need - room + 8)], {
    stdio: 'inherit',
    env: { ...process.env, [RESPAWNED]: '1' },
  });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + 15 : 1)));
  return false;
}

/**
 * Writes DIR/python3: `python3 -m sglang.launch_server …` runs this simulator (showing the
 * wrapper's path as its interpreter); any other use runs the next python3 on PATH. `machine`: the
 * simulated machine's `--sim-*` options (GPU, start time, pace), given before the launch's own flags
 * so that a launch line stays a real SGLang command and can still override them.
 */
export function writePythonWrapper(dir: string, machine: readonly string[] = [], simScript = process.argv[1], node = process.execPath): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'python3');
  const text = `#!/bin/sh
# Written by the Inference Doctor SGLang simulator. Put this folder first in PATH:
# \`python3 -m sglang.launch_server ...\` then starts the simulator; anything else runs the next python3.
if [ "$1" = "-m" ] && [ "$2" = "sglang.launch_server" ]; then
  shift 2
  exec ${shellWord(node)} ${shellWord(simScript)} serve -m sglang.launch_server ${machine.map(shellWord).join(' ')} "$@" --sim-argv0 "$0"
fi
self=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
IFS=:
for d in $PATH; do
  [ -n "$d" ] || continue
  there=$(CDPATH= cd -- "$d" 2>/dev/null && pwd) || continue
  [ "$there" = "$self" ] && continue
  [ -x "$there/python3" ] && exec "$there/python3" "$@"
done
echo "python3: this is the SGLang simulator's stand-in and there is no other python3 on PATH" >&2
exit 127
`;
  writeFileSync(file, text);
  chmodSync(file, 0o755);
  return file;
}

/**
 * Writes DIR/vllm: `vllm serve …` runs this simulator's vLLM launch mode (showing the wrapper's
 * path as the program); anything else is refused, as there is no vLLM here to hand it to.
 */
export function writeVllmWrapper(dir: string, machine: readonly string[] = [], simScript = process.argv[1], node = process.execPath): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'vllm');
  const text = `#!/bin/sh
# Written by the Inference Doctor simulator. Put this folder first in PATH: \`vllm serve ...\` then starts the simulator.
if [ "$1" = "serve" ]; then
  shift
  exec ${shellWord(node)} ${shellWord(simScript)} vllm serve ${machine.map(shellWord).join(' ')} "$@" --sim-argv0 "$0"
fi
echo "vllm: this is the simulator's stand-in; only vllm serve is simulated" >&2
exit 127
`;
  writeFileSync(file, text);
  chmodSync(file, 0o755);
  return file;
}
