/**
 * `inference-doctor supervise start|stop|restart|status|log NAME`: runs a launch script or command
 * in the background with a pid file and a log, for machines without systemd (core/fix/supervisor).
 */
import { errorMessage } from '../../core/errors';
import { defaultSupervisorDir, Supervisor, SupervisorError } from '../../core/fix/supervisor';
import { EXIT, UsageError, write, type CliIo, type Command } from '../command';

const USAGE = `Usage: inference-doctor supervise start NAME [--cwd DIR] -- COMMAND [ARG...]
       inference-doctor supervise restart NAME [-- COMMAND [ARG...]]
       inference-doctor supervise stop NAME [--timeout SECONDS]
       inference-doctor supervise status NAME [--json]
       inference-doctor supervise log NAME [--lines N]

Keeps one named command running in its own process group, with a pid file and a log, so a
server started from a launch script can be restarted after its flags change. restart runs the
saved command again (a script is read from disk again). State: --dir DIR, else
$INFERENCE_DOCTOR_STATE_DIR, else ~/.local/state/inference-doctor/supervise.

Exit status: 0 done (status: running), 1 status: not running, 3 it could not be done, 64 bad usage.`;

interface Parsed {
  action: string;
  name: string;
  dir?: string;
  cwd?: string;
  timeoutMs?: number;
  lines?: number;
  json: boolean;
  command: string[];
}

const ACTIONS = new Set(['start', 'stop', 'restart', 'status', 'log']);

function parse(argv: string[]): Parsed {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  const words: string[] = [];
  const out: Partial<Parsed> & { json: boolean } = { json: false };
  for (let i = 0; i < own.length; i++) {
    const a = own[i];
    const value = (): string => {
      const v = own[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      return v;
    };
    if (a === '--dir') out.dir = value();
    else if (a === '--cwd') out.cwd = value();
    else if (a === '--json') out.json = true;
    else if (a === '--timeout') out.timeoutMs = positive(a, value()) * 1000;
    else if (a === '--lines') out.lines = positive(a, value());
    else if (a.startsWith('-')) throw new UsageError(`Unknown option ${a}`);
    else words.push(a);
  }
  const [action, name, ...extra] = words;
  if (!action || !ACTIONS.has(action)) throw new UsageError(action ? `Unknown action ${action}` : 'Name an action: start, stop, restart, status or log');
  if (!name) throw new UsageError(`${action} needs a NAME`);
  if (extra.length) throw new UsageError(`Unexpected ${extra[0]} (put the command after --)`);
  if (action === 'start' && command.length === 0) throw new UsageError('start needs the command after --');
  if (command.length && action !== 'start' && action !== 'restart') throw new UsageError(`${action} takes no command`);
  return { ...out, action, name, command };
}

function positive(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} takes a positive number`);
  return n;
}

function stateDir(p: Parsed, io: CliIo): string {
  return p.dir ?? defaultSupervisorDir(io.env);
}

export const superviseCommand: Command = {
  name: 'supervise',
  summary: 'keep a launch script running with a pid file and a log (no systemd needed)',
  usage: USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    const p = parse(argv);
    const sup = new Supervisor(stateDir(p, io));
    try {
      switch (p.action) {
        case 'start': {
          const pid = await sup.start(p.name, p.command, p.cwd ? { cwd: p.cwd } : {});
          await write(io.stdout, `${p.name} started (pid ${pid}); log: ${sup.status(p.name).logFile}\n`);
          return EXIT.ok;
        }
        case 'restart': {
          const pid = await sup.restart(p.name, { ...(p.command.length ? { argv: p.command } : {}), ...(p.timeoutMs ? { timeoutMs: p.timeoutMs } : {}) });
          await write(io.stdout, `${p.name} restarted (pid ${pid})\n`);
          return EXIT.ok;
        }
        case 'stop': {
          const stopped = await sup.stop(p.name, p.timeoutMs ? { timeoutMs: p.timeoutMs } : {});
          await write(io.stdout, stopped ? `${p.name} stopped\n` : `${p.name} was not running\n`);
          return EXIT.ok;
        }
        case 'status': {
          const s = sup.status(p.name);
          await write(io.stdout, p.json ? `${JSON.stringify(s)}\n` : s.running ? `${p.name} running (pid ${s.pid})\n` : `${p.name} not running\n`);
          return s.running ? EXIT.ok : EXIT.notRunning;
        }
        default: {
          await write(io.stdout, sup.logTail(p.name, p.lines ?? 50));
          return EXIT.ok;
        }
      }
    } catch (e) {
      if (!(e instanceof SupervisorError)) throw e;
      await write(io.stderr, `inference-doctor supervise: ${errorMessage(e)}\n`);
      return EXIT.error;
    }
  },
};
