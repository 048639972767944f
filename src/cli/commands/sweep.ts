/**
 * `inference-doctor sweep`: every combination of the varied flags on a real server — change the
 * launch, restart, wait, Quick Health Probe, record — then the original launch restored byte for
 * byte (also on Ctrl-C). Reports go next to the launch file as JSON and Markdown.
 */
import { errorMessage } from '../../core/errors';
import { ComposeTarget } from '../../core/fix/compose';
import { hostSupervised, launchServerUrl, localSupervised, ScriptTarget, SystemdTarget, type RestartTarget } from '../../core/fix/loop';
import { defaultSupervisorDir, Supervisor } from '../../core/fix/supervisor';
import {
  MAX_COMBINATIONS,
  combinations,
  runSweep,
  writeSweepReports,
  type SweepAxis,
  type SweepReport,
  type SweepRestart,
  type SweepRow,
} from '../../core/fix/sweep';
import { LocalHost } from '../../core/hosts/local';
import type { Host } from '../../core/hosts/types';
import { runQuickProbe } from '../../core/probe/quick';
import type { ServerTarget } from '../../core/probe/types';
import { EXIT, UsageError, write, type CliIo, type Command } from '../command';
import { extractHostArgs, HOST_OPTIONS_HELP, openHostFromArgs } from '../hostArgs';

const USAGE = `Usage: inference-doctor sweep --launch FILE (--systemd UNIT | --supervise NAME | --compose SERVICE)
                             --vary NAME=V1,V2[,...] [--vary ...] [--url URL] [--json]
                             [--ready-timeout SECONDS] [--dir STATE_DIR] [--prompt TEXT ...]
                             [--host HOST [--remote-cli CMD] [host options]]

Runs every combination of the --vary values on the server FILE launches: change the flags (through
the launch parser; for --systemd in a drop-in, the unit is never written), restart, wait for
/health_generate and /v1/models, run the Quick Health Probe, record verdict, reasons, TTFT and
tokens/s (failed starts are rows too). At the end, and on Ctrl-C, the original launch is restored
byte for byte. NAME is a flag with or without its dashes, or its field (fp4_gemm_backend); in
capitals (VLLM_USE_FLASHINFER_MOE_FP4) it is an environment variable, set where the launch sets its
environment (an export line, compose environment:, the systemd drop-in). vLLM commands work too.
--supervise NAME: FILE is a launch script run by \`inference-doctor supervise start NAME\`.
--compose SERVICE: FILE is a compose file; SERVICE's command is changed and the service recreated
  (docker compose up -d --force-recreate --no-deps SERVICE).
--host HOST: FILE, the unit, the compose file and the supervisor are on HOST (over SSH); --remote-cli
  is how HOST runs this CLI for --supervise (default: inference-doctor; words split on spaces).
--prompt: probe each combination with these prompts (repeatable) instead of the Quick Health Probe's three.
--url: default http://127.0.0.1:PORT with the --port of the launch command (else 30000, vLLM's 8000); with --host,
  that port on HOST through an SSH tunnel.
Reports: FILE's folder, <file>.sweep-<time>.json and .md (with --host: the current folder).
${HOST_OPTIONS_HELP}

Exit status: 0 some combination is healthy, 1 none is, 3 it could not run (or restore failed),
64 bad usage, 66 FILE cannot be read, 130 interrupted (after restoring).`;

interface Parsed {
  launch: string;
  systemd?: string;
  supervise?: string;
  compose?: string;
  host?: string;
  remoteCli: string[];
  prompts: string[];
  axes: SweepAxis[];
  url?: string;
  json: boolean;
  readyTimeoutMs: number;
  dir?: string;
}

/** `fp4_gemm_backend`, `fp4-gemm-backend` and `--fp4-gemm-backend` are one flag. */
export function flagName(name: string): string {
  // VLLM_USE_FLASHINFER_MOE_FP4: an environment variable, set where the launch sets its environment.
  if (/^[A-Z][A-Z0-9]*_[A-Z0-9_]*$/.test(name)) return name;
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
    else if (a === '--compose') out.compose = value();
    else if (a === '--prompt') {
      const prompt = value();
      if (!prompt.trim()) throw new UsageError('--prompt needs some text');
      (out.prompts ??= []).push(prompt);
    } else if (a === '--host') out.host = value();
    else if (a === '--remote-cli') out.remoteCli = value().split(/\s+/).filter(Boolean);
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
  if ([out.systemd, out.supervise, out.compose].filter(Boolean).length !== 1) {
    throw new UsageError('Say how to restart, once: --systemd UNIT, --supervise NAME or --compose SERVICE');
  }
  if (out.remoteCli && !out.host) throw new UsageError('--remote-cli goes with --host');
  if (out.remoteCli?.length === 0) throw new UsageError('--remote-cli needs a command');
  if (out.axes.length === 0) throw new UsageError('Nothing to vary: add --vary NAME=V1,V2');
  if (combinations(out.axes).length > MAX_COMBINATIONS) throw new UsageError(`At most ${MAX_COMBINATIONS} combinations (each restarts the server)`);
  return { readyTimeoutMs: 600_000, remoteCli: ['inference-doctor'], prompts: [], ...out } as Parsed;
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
    const { hostArgs, rest } = extractHostArgs(argv);
    const p = parse(rest);
    // Every usage error above comes before a connection is opened.
    const host: Host = p.host ? await openHostFromArgs(p.host, hostArgs, io.signal) : new LocalHost();
    try {
      return await sweepOn(host, p, io);
    } finally {
      await host.close();
    }
  },
};

function restartTarget(host: Host, p: Parsed, env: NodeJS.ProcessEnv): RestartTarget {
  if (p.compose) return new ComposeTarget(host, p.launch, p.compose);
  if (p.systemd) return new SystemdTarget(host, p.systemd);
  const name = p.supervise ?? '';
  if (p.host)
    return new ScriptTarget(host, p.launch, hostSupervised(host, p.dir ? ['env', `INFERENCE_DOCTOR_STATE_DIR=${p.dir}`, ...p.remoteCli] : p.remoteCli, name));
  return new ScriptTarget(host, p.launch, localSupervised(new Supervisor(p.dir ?? defaultSupervisorDir(env)), name));
}

/** The server's URL as seen from here: given, or the launch's port (through a tunnel for a remote host). */
async function serverUrl(host: Host, p: Parsed, text: string): Promise<{ url: string; close?: () => Promise<void> }> {
  const url = p.url ?? launchServerUrl(text, p.launch);
  if (p.url || !p.host) return { url };
  const u = new URL(url);
  const tunnel = await host.forwardPort(Number(u.port), u.hostname);
  return { url: `http://127.0.0.1:${tunnel.localPort}`, close: () => tunnel.close() };
}

async function sweepOn(host: Host, p: Parsed, io: CliIo): Promise<number> {
  let text: string;
  try {
    text = new TextDecoder().decode(await host.readFile(p.launch, { maxBytes: 4 * 1024 * 1024 }));
  } catch (e) {
    await write(io.stderr, `Cannot read ${p.launch}${p.host ? ` on ${p.host}` : ''}: ${errorMessage(e)}\n`);
    return EXIT.noInput;
  }
  let target: RestartTarget;
  try {
    target = restartTarget(host, p, io.env);
  } catch (e) {
    await write(io.stderr, `inference-doctor sweep: ${errorMessage(e)}\n`);
    return EXIT.error;
  }
  const { url, close } = await serverUrl(host, p, text);
  const prompts = p.prompts.map((prompt, i) => ({ id: `prompt-${i + 1}`, label: `Prompt ${i + 1}`, prompt }));
  const result = await runSweep(target, p.axes, {
    server: { baseUrl: url },
    ...(prompts.length ? { probe: (s: ServerTarget) => runQuickProbe(s, { prompts }, io.signal ? { signal: io.signal } : {}) } : {}),
    readyTimeoutMs: p.readyTimeoutMs,
    signal: io.signal,
    onRow: (row) => {
      if (!p.json) void write(io.stdout, rowLine(row));
    },
    onProgress: (m) => void write(io.stderr, `${m}\n`),
  })
    .catch(async (e: unknown) => {
      await write(io.stderr, `inference-doctor sweep: ${errorMessage(e)}\n`);
      return undefined;
    })
    .finally(() => close?.());
  if (!result) return EXIT.error;
  const restart: SweepRestart = p.supervise ? { supervise: p.supervise } : p.compose ? { compose: p.compose } : { systemd: p.systemd ?? '' };
  const json: SweepReport = { launch: p.launch, ...(p.host ? { host: p.host } : {}), restart, server: url, ...result };
  try {
    // A remote launch file's report is written here: the host is only changed where the sweep must.
    writeSweepReports(json, p.axes, p.host ? { dir: '.' } : {});
  } catch (e) {
    await write(io.stderr, `Could not write the sweep report: ${errorMessage(e)}\n`);
  }
  if (p.json) await write(io.stdout, `${JSON.stringify(json)}\n`);
  if (!result.restored) {
    await write(io.stderr, `inference-doctor sweep: the original launch was NOT restored: ${result.restoreError ?? ''}\n`);
    return EXIT.error;
  }
  if (io.signal.aborted) return EXIT.interrupted;
  return result.rows.some((r) => r.verdict === 'ok') ? EXIT.ok : EXIT.noMatch;
}
