/**
 * `inference-doctor sweep`: every combination of the varied flags on a real server — change the
 * launch, restart, wait, Quick Health Probe, record — then the original launch restored byte for
 * byte (also on Ctrl-C). Reports go next to the launch file as JSON and Markdown.
 */
import { readFileSync } from 'node:fs';
import { errorMessage } from '../../core/errors';
import { launchServerUrl, ScriptTarget, SystemdTarget, type RestartTarget } from '../../core/fix/loop';
import { defaultSupervisorDir, Supervisor } from '../../core/fix/supervisor';
import { MAX_COMBINATIONS, combinations, runSweep, writeSweepReports, type SweepAxis, type SweepReport, type SweepRow } from '../../core/fix/sweep';
import { LocalHost } from '../../core/hosts/local';
import { EXIT, UsageError, write, type CliIo, type Command } from '../command';

const USAGE = `Usage: inference-doctor sweep --launch FILE (--systemd UNIT | --supervise NAME)
                             --vary NAME=V1,V2[,...] [--vary ...] [--url URL] [--json]
                             [--ready-timeout SECONDS] [--dir STATE_DIR]

Runs every combination of the --vary values on the server FILE launches: change the flags (through
the launch parser; for --systemd in a drop-in, the unit is never written), restart, wait for
/health_generate and /v1/models, run the Quick Health Probe, record verdict, reasons, TTFT and
tokens/s (failed starts are rows too). At the end, and on Ctrl-C, the original launch is restored
byte for byte. NAME is a flag with or without its dashes, or its field (fp4_gemm_backend).
--supervise NAME: FILE is a launch script run by \`inference-doctor supervise start NAME\`.
--url: default http://127.0.0.1:PORT with the --port of the launch command (else 30000).
Reports: FILE's folder, <file>.sweep-<time>.json and .md.

Exit status: 0 some combination is healthy, 1 none is, 3 it could not run (or restore failed),
64 bad usage, 66 FILE cannot be read, 130 interrupted (after restoring).`;

interface Parsed {
  launch: string;
  systemd?: string;
  supervise?: string;
  axes: SweepAxis[];
  url?: string;
  json: boolean;
  readyTimeoutMs: number;
  dir?: string;
}

/** `fp4_gemm_backend`, `fp4-gemm-backend` and `--fp4-gemm-backend` are one flag. */
export function flagName(name: string): string {
  const bare = name.replace(/^-+/, '').replace(/_/g, '-');
  if (!/^[a-z0-9][a-z0-9-]*$/i.test(bare)) throw new UsageError(`Not a flag name: ${name}`);
  return `--${bare}`;
}

function parse(argv: string[]): Parsed {
  const out: Partial<Parsed> & { axes: SweepAxis[]; json: boolean } = { axes: [], json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      return v;
    };
    if (a === '--launch') out.launch = value();
    else if (a === '--systemd') out.systemd = value();
    else if (a === '--supervise') out.supervise = value();
    else if (a === '--url') out.url = value();
    else if (a === '--dir') out.dir = value();
    else if (a === '--json') out.json = true;
    else if (a === '--ready-timeout') {
      const s = Number(value());
      if (!Number.isFinite(s) || s <= 0) throw new UsageError('--ready-timeout takes a number of seconds');
      out.readyTimeoutMs = s * 1000;
    } else if (a === '--vary') {
      const spec = value();
      const eq = spec.indexOf('=');
      const values =
        eq > 0
          ? spec
              .slice(eq + 1)
              .split(',')
              .map((v) => v.trim())
              .filter(Boolean)
          : [];
      if (eq <= 0 || values.length === 0) throw new UsageError(`--vary takes NAME=V1,V2 (got ${spec})`);
      const flag = flagName(spec.slice(0, eq));
      if (out.axes.some((x) => x.flag === flag)) throw new UsageError(`${flag} is varied twice`);
      out.axes.push({ flag, values: [...new Set(values)] });
    } else throw new UsageError(a.startsWith('-') ? `Unknown option ${a}` : `Unexpected ${a}`);
  }
  if (!out.launch) throw new UsageError('Name the launch file with --launch FILE');
  if (!!out.systemd === !!out.supervise) throw new UsageError('Say how to restart: --systemd UNIT or --supervise NAME');
  if (out.axes.length === 0) throw new UsageError('Nothing to vary: add --vary NAME=V1,V2');
  if (combinations(out.axes).length > MAX_COMBINATIONS) throw new UsageError(`At most ${MAX_COMBINATIONS} combinations (each restarts the server)`);
  return { readyTimeoutMs: 600_000, ...out } as Parsed;
}

function rowLine(r: SweepRow): string {
  const flags = Object.entries(r.flags)
    .map(([k, v]) => `${k} ${v}`)
    .join(' ');
  const tail = r.started
    ? `${r.verdict}${r.reasons.length ? ` (${r.reasons.join(', ')})` : ''}${r.ttftMs !== null ? `, TTFT ${r.ttftMs} ms` : ''}`
    : `did not start: ${r.error ?? ''}`;
  return `${flags}: ${tail}\n`;
}

export const sweepCommand: Command = {
  name: 'sweep',
  summary: 'try backend flag combinations on a real server, then restore its launch',
  usage: USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    const p = parse(argv);
    let text: string;
    try {
      text = readFileSync(p.launch, 'utf8');
    } catch (e) {
      await write(io.stderr, `Cannot read ${p.launch}: ${errorMessage(e)}\n`);
      return EXIT.noInput;
    }
    const host = new LocalHost();
    const stateDir = p.dir ?? defaultSupervisorDir(io.env);
    const target: RestartTarget = p.supervise
      ? new ScriptTarget(host, p.launch, new Supervisor(stateDir), p.supervise)
      : new SystemdTarget(host, p.systemd ?? '');
    const server = { baseUrl: p.url ?? launchServerUrl(text, p.launch) };
    const result = await runSweep(target, p.axes, {
      server,
      readyTimeoutMs: p.readyTimeoutMs,
      signal: io.signal,
      onRow: (row) => {
        if (!p.json) void write(io.stdout, rowLine(row));
      },
      onProgress: (m) => void write(io.stderr, `${m}\n`),
    }).catch(async (e: unknown) => {
      await write(io.stderr, `inference-doctor sweep: ${errorMessage(e)}\n`);
      return undefined;
    });
    if (!result) return EXIT.error;
    const json: SweepReport = {
      launch: p.launch,
      restart: p.supervise ? { supervise: p.supervise } : { systemd: p.systemd ?? '' },
      server: server.baseUrl,
      ...result,
    };
    try {
      writeSweepReports(json, p.axes);
    } catch (e) {
      await write(io.stderr, `Could not write the report next to ${p.launch}: ${errorMessage(e)}\n`);
    }
    if (p.json) await write(io.stdout, `${JSON.stringify(json)}\n`);
    if (!result.restored) {
      await write(io.stderr, `inference-doctor sweep: the original launch was NOT restored: ${result.restoreError ?? ''}\n`);
      return EXIT.error;
    }
    if (io.signal.aborted) return EXIT.interrupted;
    return result.rows.some((r) => r.verdict === 'ok') ? EXIT.ok : EXIT.noMatch;
  },
};
