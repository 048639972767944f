/**
 * A process that looks like `python3 -m sglang.launch_server …` in `ps` and answers like SGLang:
 * a tiny `sglang/launch_server.py` (written here, on PYTHONPATH) starts the simulator on the
 * `--port` it was given and waits for it. Its stdout and stderr go to a log file, so the remote
 * feature can find and follow the log through /proc/PID/fd. Stopping kills the whole group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const WRAPPER = `"""Stands in for SGLang's launch_server in tests: the simulator does the serving."""
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

export async function startFakeLaunchServer(opts: { simJs: string; scenario: string; port: number; flags: string[] }): Promise<FakeLaunchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'id-fake-launch-'));
  mkdirSync(join(dir, 'sglang'));
  writeFileSync(join(dir, 'sglang', '__init__.py'), '');
  writeFileSync(join(dir, 'sglang', 'launch_server.py'), WRAPPER);
  const logFile = join(dir, 'server.log');
  const fd = openSync(logFile, 'a');
  const argv = ['-m', 'sglang.launch_server', '--port', String(opts.port), ...opts.flags];
  let child: ChildProcess;
  try {
    child = spawn('python3', argv, {
      cwd: dir,
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...process.env, PYTHONPATH: dir, ID_SIM_NODE: process.execPath, ID_SIM_JS: opts.simJs, ID_SIM_SCENARIO: opts.scenario },
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

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
