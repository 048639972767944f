/**
 * A process that looks like `python3 -m sglang.launch_server …` (or, with `engine: 'vllm'`,
 * `python3 -m vllm.entrypoints.openai.api_server …`) in `ps` and answers like SGLang: a tiny
 * module (written here, on PYTHONPATH) starts the simulator on the `--port` it was given and waits for it. Its stdout and stderr go to a log file, so the remote
 * feature can find and follow the log through /proc/PID/fd. Stopping kills the whole group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listening } from './wait';

const WRAPPER = `"""Stands in for the engine's server module in tests: the simulator does the serving."""
import os
import subprocess
import sys

args = sys.argv[1:]
port = args[args.index("--port") + 1]
print("launch_server (test stand-in) starting the simulator on port", port, flush=True)
child = subprocess.Popen([os.environ["ID_SIM_NODE"], os.environ["ID_SIM_JS"], "--port", port,
                          "--host", "127.0.0.1", "--scenario", os.environ["ID_SIM_SCENARIO"]])
sys.exit(child.wait())
`;

export interface FakeLaunchServer {
  pid: number;
  port: number;
  logFile: string;
  argv: string[];
  stop(): Promise<void>;
}

/** The module each engine's server runs as. */
const SERVER_MODULE = { sglang: 'sglang.launch_server', vllm: 'vllm.entrypoints.openai.api_server' } as const;

export async function startFakeLaunchServer(opts: {
  simJs: string;
  scenario: string;
  port: number;
  flags: string[];
  engine?: keyof typeof SERVER_MODULE;
  /** Extra environment of the server process (what discovery reads from /proc/PID/environ). */
  env?: Record<string, string>;
}): Promise<FakeLaunchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'id-fake-launch-'));
  const module = SERVER_MODULE[opts.engine ?? 'sglang'];
  const parts = module.split('.');
  for (let i = 1; i < parts.length; i++) {
    mkdirSync(join(dir, ...parts.slice(0, i)), { recursive: true });
    writeFileSync(join(dir, ...parts.slice(0, i), '__init__.py'), '');
  }
  writeFileSync(join(dir, ...parts.slice(0, -1), `${parts[parts.length - 1]}.py`), WRAPPER);
  const logFile = join(dir, 'server.log');
  const fd = openSync(logFile, 'a');
  const argv = ['-m', module, '--port', String(opts.port), ...opts.flags];
  let child: ChildProcess;
  try {
    child = spawn('python3', argv, {
      cwd: dir,
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...process.env, ...opts.env, PYTHONPATH: dir, ID_SIM_NODE: process.execPath, ID_SIM_JS: opts.simJs, ID_SIM_SCENARIO: opts.scenario },
    });
  } finally {
    closeSync(fd);
  }
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, 3000);
        child.once('exit', () => {
          clearTimeout(t);
          r();
        });
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  while (!(await listening(opts.port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the fake launch_server did not listen on ${opts.port} (exit ${String(child.exitCode)})`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { pid: child.pid!, port: opts.port, logFile, argv, stop };
}
