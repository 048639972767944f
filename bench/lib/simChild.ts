/**
 * A simulator in a child process for the HTTP benches: its CPU is not the bench's, so a client's
 * process CPU time measures the client alone. Resolves with the URL it prints once it listens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** `extra`: more simulator options (`--engine vllm`). */
export async function startSimChild(scenario: string, extra: readonly string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sim/main.ts', '--port', '0', '--scenario', scenario, ...extra], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('simulator did not start in 20 s')), 20_000);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /http:\/\/\S+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  return { url, child };
}
