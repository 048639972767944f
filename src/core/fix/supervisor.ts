/**
 * A small supervisor for machines without systemd: keeps one named command running in the
 * background with a pid file and a log file, so the fix loop can restart a server started from a
 * launch script. State lives in `<dir>/<name>/`: `command.json` (argv, cwd), `pid`, `server.log`.
 *
 *   const sup = new Supervisor(stateDir);
 *   await sup.start('sglang', ['bash', 'run.sh'], { cwd: '/srv' });
 *   await sup.restart('sglang');            // same command (the script re-read from disk)
 *   await sup.stop('sglang');
 *
 * The command runs in its own process group (detached), so stopping reaches what a launch script
 * started. The pid file holds the pid and, on Linux, the process's start time: it is only believed
 * while a process with that pid and that start time lives (a reused pid is not someone else's
 * server to kill; a script that `exec`s the server keeps both).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../errors';

export interface SupervisedCommand {
  argv: string[];
  cwd?: string;
  startedAt: string;
}

export interface SupervisorStatus {
  name: string;
  running: boolean;
  pid?: number;
  command?: SupervisedCommand;
  logFile: string;
}

export class SupervisorError extends Error {}

/** Where `supervise` keeps its state unless told: $INFERENCE_DOCTOR_STATE_DIR, else the XDG state home. */
export function defaultSupervisorDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.INFERENCE_DOCTOR_STATE_DIR || join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'inference-doctor', 'supervise');
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export class Supervisor {
  constructor(private readonly dir: string) {}

  /** Starts `argv` under `name`; refuses when it is running already. Resolves the new pid. */
  async start(name: string, argv: string[], opts: { cwd?: string } = {}): Promise<number> {
    const paths = this.paths(name);
    if (argv.length === 0) throw new SupervisorError('Give the command to run after --');
    const current = this.status(name);
    if (current.running) throw new SupervisorError(`${name} is already running (pid ${current.pid}); use restart`);
    mkdirSync(paths.home, { recursive: true });
    const command: SupervisedCommand = { argv, ...(opts.cwd ? { cwd: opts.cwd } : {}), startedAt: new Date().toISOString() };
    writeAtomic(paths.command, `${JSON.stringify(command, null, 2)}\n`);
    const log = openSync(paths.log, 'a');
    try {
      const child = spawn(argv[0], argv.slice(1), { cwd: opts.cwd, detached: true, stdio: ['ignore', log, log] });
      const pid = await new Promise<number>((resolve, reject) => {
        child.once('error', (e) => reject(new SupervisorError(`Cannot start ${argv[0]}: ${errorMessage(e)}`)));
        child.once('spawn', () => resolve(child.pid ?? -1));
      });
      child.unref();
      writeAtomic(paths.pid, `${pid} ${startTime(pid) ?? ''}\n`.replace(' \n', '\n'));
      return pid;
    } finally {
      closeSync(log);
    }
  }

  /**
   * Stops the process group: SIGTERM, then SIGKILL after `timeoutMs`. Resolves false when nothing
   * was running. The pid file goes; the command and the log stay (for restart and reading).
   */
  async stop(name: string, opts: { timeoutMs?: number } = {}): Promise<boolean> {
    const paths = this.paths(name);
    const status = this.status(name);
    rmSync(paths.pid, { force: true });
    if (!status.running || status.pid === undefined) return false;
    const pid = status.pid;
    signalGroup(pid, 'SIGTERM');
    if (!(await waitForExit(pid, opts.timeoutMs ?? 10_000))) {
      signalGroup(pid, 'SIGKILL');
      await waitForExit(pid, 5_000);
    }
    return true;
  }

  /** Stop (if running), then start the saved command again, or `argv` when given. */
  async restart(name: string, opts: { argv?: string[]; timeoutMs?: number } = {}): Promise<number> {
    const saved = this.status(name).command;
    const argv = opts.argv ?? saved?.argv;
    if (!argv) throw new SupervisorError(`${name} was never started here: use start NAME -- COMMAND`);
    await this.stop(name, opts);
    return this.start(name, argv, saved?.cwd ? { cwd: saved.cwd } : {});
  }

  status(name: string): SupervisorStatus {
    const paths = this.paths(name);
    const command = readJson<SupervisedCommand>(paths.command);
    const recorded = readPid(paths.pid);
    const running = recorded !== undefined && isAlive(recorded.pid) && sameProcess(recorded);
    const pid = recorded?.pid;
    return { name, running, ...(running ? { pid } : {}), ...(command ? { command } : {}), logFile: paths.log };
  }

  /** The last `lines` lines of the log (bounded read: the last 1 MiB at most). */
  logTail(name: string, lines = 50): string {
    const file = this.paths(name).log;
    if (!existsSync(file)) return '';
    const size = statSync(file).size;
    const fd = openSync(file, 'r');
    try {
      const length = Math.min(size, 1024 * 1024);
      const buf = Buffer.alloc(length);
      let read = 0;
      while (read < length) {
        const n = readSync(fd, buf, read, length - read, size - length + read);
        if (n <= 0) break;
        read += n;
      }
      return buf
        .subarray(0, read)
        .toString('utf8')
        .split('\n')
        .slice(-lines - 1)
        .join('\n');
    } finally {
      closeSync(fd);
    }
  }

  private paths(name: string): { home: string; command: string; pid: string; log: string } {
    if (!NAME.test(name)) throw new SupervisorError(`A name is letters, digits, ".", "_" or "-" (got ${JSON.stringify(name)})`);
    const home = join(this.dir, name);
    return { home, command: join(home, 'command.json'), pid: join(home, 'pid'), log: join(home, 'server.log') };
  }
}

function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

interface PidRecord {
  pid: number;
  /** /proc/PID/stat's start time (clock ticks since boot); absent where there is no /proc. */
  startTime?: string;
}

function readPid(file: string): PidRecord | undefined {
  try {
    const [pidText, startTime] = readFileSync(file, 'utf8').trim().split(/\s+/);
    const pid = Number(pidText);
    if (!Number.isInteger(pid) || pid <= 1) return undefined;
    return startTime ? { pid, startTime } : { pid };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** State and start time from /proc/PID/stat (the fields after the parenthesised name). */
function procStat(pid: number): { state: string; startTime: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], startTime: fields[19] };
  } catch {
    return undefined;
  }
}

function startTime(pid: number): string | undefined {
  return procStat(pid)?.startTime;
}

/** The recorded process itself: same start time, not a zombie. Without /proc the signal check is all there is. */
function sameProcess(r: PidRecord): boolean {
  if (!existsSync('/proc/self/stat')) return true;
  const now = procStat(r.pid);
  return !!now && now.state !== 'Z' && r.startTime !== undefined && now.startTime === r.startTime;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* gone already */
    }
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid) || procStat(pid)?.state === 'Z') return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isAlive(pid);
}
