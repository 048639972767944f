/**
 * Apply and verify: change flags where the server is launched, restart it, wait until it answers,
 * run the Quick Health Probe, and compare with the verdict before. A server that does not come
 * back, or dies under the probe, is restored at once; one that came back worse is left for the caller to restore (the
 * extension asks, the sweep always restores at the end).
 *
 *   const target = new ScriptTarget(host, '/srv/run.sh', localSupervised(supervisor, 'sglang'));
 *   const r = await applyAndVerify(target, changes, { server, readyTimeoutMs: 600_000 });
 *   if (r.outcome === 'worse') await target.restore();
 */
import { errorMessage } from '../errors';
import type { Host } from '../hosts/types';
import { findLaunchCommands, flagValue } from '../launch/index';
import { applyTextEdits, EDITABLE_ENGINES, launchEdits, type FlagChange } from '../launch/edit';
import type { LaunchEngine } from '../launch/types';
import { launchSyntaxOfPath } from '../launch/syntax';
import { fetchHealth, fetchModels } from '../probe/server-api';
import { runQuickProbe, VERDICT_RANK, type QuickProbeResult } from '../probe/quick';
import type { ServerTarget } from '../probe/types';
import type { VerdictKind } from '../detect/types';
import type { Supervisor } from './supervisor';
import { dropInPath, planSystemdChange, writeFileArgv, type SystemdPlan } from './systemd';

/** Each engine's port when the command names none. */
const DEFAULT_PORT: Record<LaunchEngine, string> = { sglang: '30000', vllm: '8000' };

/**
 * The URL the server of a launch file answers on: its command's --host/--port, else the engine's
 * default port on this machine (0.0.0.0 listens on loopback too).
 */
export function launchServerUrl(text: string, path: string): string {
  const [cmd] = findLaunchCommands(text, launchSyntaxOfPath(path) ?? 'shellscript', { engines: EDITABLE_ENGINES });
  // The last occurrence wins, as in argparse.
  const value = (name: string): string | undefined => {
    const v = cmd ? flagValue(cmd, name) : undefined;
    return typeof v === 'string' ? v : undefined;
  };
  const host = value('--host');
  return `http://${host && host !== '0.0.0.0' ? host : '127.0.0.1'}:${value('--port') ?? DEFAULT_PORT[cmd?.engine ?? 'sglang']}`;
}

/** Where a server is launched, and how to change and restart it. */
export interface RestartTarget {
  /** "run.sh under supervise sglang", "sglang.service" */
  readonly label: string;
  /** Writes the change and restarts. Throws with a clear message when it cannot. */
  apply(changes: FlagChange[]): Promise<void>;
  /** Puts the launch back as it was before the first apply (byte for byte) and restarts. */
  restore(): Promise<void>;
  /** The last lines of the server's log, for a failed start. */
  logTail(): Promise<string>;
  /** False once the server process has exited (a crash at start needs no timeout to be seen). */
  isRunning(): Promise<boolean>;
}

export class FixError extends Error {}

async function run(host: Host, argv: string[], what: string): Promise<string> {
  const r = await host.exec(argv, { timeoutMs: 120_000, maxOutputBytes: 1024 * 1024 });
  if (r.code !== 0) throw new FixError(`${what} failed (exit ${r.code ?? r.signal}): ${(r.stderr || r.stdout).trim().slice(0, 500)}`);
  return r.stdout;
}

/**
 * The supervised process a ScriptTarget restarts: the supervisor on this machine, or the same
 * supervisor on another host reached through its CLI (`inference-doctor supervise … NAME`).
 */
export interface SupervisedProcess {
  readonly label: string;
  restart(): Promise<void>;
  running(): Promise<boolean>;
  logTail(lines: number): Promise<string>;
}

/** A name run by the in-process supervisor on this machine. */
export function localSupervised(supervisor: Supervisor, name: string): SupervisedProcess {
  return {
    label: `supervise ${name}`,
    restart: async () => void (await supervisor.restart(name)),
    running: () => Promise.resolve(supervisor.status(name).running),
    logTail: (lines) => Promise.resolve(supervisor.logTail(name, lines)),
  };
}

/**
 * A name run by `inference-doctor supervise` on `host` (a GPU box over SSH). `cli` is how that
 * host runs the CLI (`['inference-doctor']`, or `['node', '/opt/id/cli.js']`); every argument
 * travels as data.
 */
export function hostSupervised(host: Host, cli: readonly string[], name: string): SupervisedProcess {
  const argv = (...rest: string[]): string[] => [...cli, 'supervise', ...rest];
  return {
    label: `supervise ${name} on ${host.label}`,
    restart: async () => void (await run(host, argv('restart', name), `supervise restart ${name} on ${host.label}`)),
    running: async () => {
      const r = await host.exec(argv('status', name), { timeoutMs: 30_000, maxOutputBytes: 64 * 1024 });
      // 0 running, 1 not running; anything else (no CLI there, bad state dir) is an error to show.
      if (r.code === 0 || r.code === 1) return r.code === 0;
      throw new FixError(`supervise status ${name} on ${host.label} failed (exit ${r.code ?? r.signal}): ${(r.stderr || r.stdout).trim().slice(0, 300)}`);
    },
    logTail: async (lines) => (await host.exec(argv('log', name, '--lines', String(lines)), { timeoutMs: 30_000, maxOutputBytes: 256 * 1024 })).stdout,
  };
}

/**
 * A launch script (or any file holding the launch command) on `host`, run by the project's
 * supervisor. The file is edited through the launch parser and written atomically, mode kept.
 */
export class ScriptTarget implements RestartTarget {
  private original: string | undefined;
  readonly label: string;

  constructor(
    private readonly host: Host,
    private readonly file: string,
    private readonly process: SupervisedProcess,
  ) {
    this.label = `${file} under ${process.label}`;
  }

  async apply(changes: FlagChange[]): Promise<void> {
    const text = new TextDecoder().decode(await this.host.readFile(this.file, { maxBytes: 4 * 1024 * 1024 }));
    this.original ??= text;
    const hint = launchSyntaxOfPath(this.file) ?? 'shellscript';
    const [cmd] = findLaunchCommands(text, hint, { engines: EDITABLE_ENGINES });
    if (!cmd) throw new FixError(`No SGLang or vLLM launch command in ${this.file}`);
    await run(this.host, writeFileArgv(this.file, applyTextEdits(text, launchEdits(cmd, text, changes))), `Writing ${this.file}`);
    await this.process.restart();
  }

  async restore(): Promise<void> {
    if (this.original === undefined) return;
    await run(this.host, writeFileArgv(this.file, this.original), `Restoring ${this.file}`);
    await this.process.restart();
  }

  logTail(): Promise<string> {
    return this.process.logTail(40);
  }

  isRunning(): Promise<boolean> {
    return this.process.running();
  }
}

/** A systemd unit, changed through a drop-in (core/fix/systemd.ts); works over SSH (exec only). */
export class SystemdTarget implements RestartTarget {
  /** Our drop-in as it was before the first apply (undefined: there was none); null until then. */
  private previousDropIn: string | undefined | null = null;
  /** The last plan applied: its restore puts the unit back as it was before the first apply. */
  private plan: SystemdPlan | undefined;
  readonly label: string;

  constructor(
    private readonly host: Host,
    private readonly unit: string,
  ) {
    this.label = unit;
  }

  async apply(changes: FlagChange[]): Promise<void> {
    const effective = await run(this.host, ['systemctl', 'cat', '--', this.unit], `systemctl cat ${this.unit}`);
    if (this.previousDropIn === null) this.previousDropIn = await this.readIfExists(dropInPath(this.unit));
    this.plan = planSystemdChange(this.unit, effective, changes, this.previousDropIn === undefined ? {} : { previousDropIn: this.previousDropIn });
    for (const argv of this.plan.apply) await run(this.host, argv, argv.slice(0, 2).join(' '));
  }

  async restore(): Promise<void> {
    for (const argv of this.plan?.restore ?? []) await run(this.host, argv, `Restoring ${this.unit}: ${argv.slice(0, 2).join(' ')}`);
  }

  async logTail(): Promise<string> {
    const r = await this.host.exec(['journalctl', '-u', this.unit, '-n', '40', '--no-pager', '-o', 'cat'], { timeoutMs: 15_000, maxOutputBytes: 256 * 1024 });
    return r.stdout;
  }

  async isRunning(): Promise<boolean> {
    const r = await this.host.exec(['systemctl', 'is-active', '--', this.unit], { timeoutMs: 15_000, maxOutputBytes: 4096 });
    return /^(active|activating|reloading)\b/.test(r.stdout.trim());
  }

  private async readIfExists(path: string): Promise<string | undefined> {
    try {
      return new TextDecoder().decode(await this.host.readFile(path, { maxBytes: 1024 * 1024 }));
    } catch {
      return undefined;
    }
  }
}

export interface VerifyOptions {
  server: ServerTarget;
  /** How long the restarted server may take to answer /health_generate and /v1/models. */
  readyTimeoutMs?: number;
  pollMs?: number;
  /** The verdict before the change; probed first when not given. */
  before?: VerdictKind;
  probe?: (server: ServerTarget) => Promise<QuickProbeResult>;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
}

/** `crashed`: it came up, then exited under the probe (restored at once, like a failed start). */
export type VerifyOutcome = 'healthy' | 'better' | 'same' | 'worse' | 'did-not-start' | 'crashed';

export interface VerifyResult {
  outcome: VerifyOutcome;
  before: VerdictKind;
  after?: VerdictKind;
  /** The probe after the change (when the server came up). */
  probe?: QuickProbeResult;
  /** Seconds from restart to ready. */
  readySeconds?: number;
  /** When the server did not come up: why, and its log. */
  error?: string;
  logTail?: string;
  /** True when the original launch was put back (automatic after a failed start). */
  restored: boolean;
}

/**
 * Waits until /health_generate and /v1/models both answer; resolves the wait in ms, or undefined on
 * timeout, on abort, or as soon as `running` says the server process is gone.
 */
export async function waitUntilReady(
  server: ServerTarget,
  timeoutMs: number,
  pollMs = 500,
  signal?: AbortSignal,
  running?: () => Promise<boolean>,
): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (signal?.aborted) return undefined;
    if (running && !(await running().catch(() => true))) return undefined;
    const h = await fetchHealth(server, { timeoutMs: Math.min(10_000, timeoutMs) });
    // vLLM has no /health_generate (unknown): its port only opens once the engine is ready.
    if (h.health === 'healthy' && (h.generateHealth === 'healthy' || h.generateHealth === 'unknown')) {
      try {
        await fetchModels(server, { timeoutMs: 10_000 });
        return Date.now() - started;
      } catch {
        /* not yet */
      }
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return undefined;
}

/** What a restart came to: ready after `readyMs`, or why not (with the server's log tail). */
export type RestartResult = { ready: true; readyMs: number } | { ready: false; error: string; logTail: string };

export const DEFAULT_READY_TIMEOUT_MS = 600_000;

/**
 * Writes `changes` through the target, restarts, and waits for the server: shared by apply-and-
 * verify and the sweep. A process that exits during start-up is reported at once.
 */
export async function restartAndWait(
  target: RestartTarget,
  changes: FlagChange[],
  opts: Pick<VerifyOptions, 'server' | 'readyTimeoutMs' | 'pollMs' | 'signal' | 'onProgress'>,
): Promise<RestartResult> {
  const failed = async (error: string): Promise<RestartResult> => ({ ready: false, error, logTail: await target.logTail().catch(() => '') });
  try {
    await target.apply(changes);
  } catch (e) {
    return failed(errorMessage(e));
  }
  opts.onProgress?.('waiting for the server to answer');
  const timeoutMs = opts.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const readyMs = await waitUntilReady(opts.server, timeoutMs, opts.pollMs, opts.signal, () => target.isRunning());
  if (readyMs !== undefined) return { ready: true, readyMs };
  if (opts.signal?.aborted) return failed('cancelled');
  const exited = !(await target.isRunning().catch(() => true));
  return failed(exited ? 'exited during start-up' : `not ready within ${Math.round(timeoutMs / 1000)} s`);
}

export async function applyAndVerify(target: RestartTarget, changes: FlagChange[], opts: VerifyOptions): Promise<VerifyResult> {
  const probe = opts.probe ?? ((s: ServerTarget) => runQuickProbe(s, {}, opts.signal ? { signal: opts.signal } : {}));
  const say = opts.onProgress ?? (() => undefined);
  const before = opts.before ?? (say('probing before the change'), (await probe(opts.server)).summary.verdict);
  say(`changing ${target.label} and restarting`);
  const restart = await restartAndWait(target, changes, { ...opts, onProgress: say });
  if (!restart.ready) {
    say('the server did not come back: restoring the launch');
    await target.restore().catch(() => undefined);
    return { outcome: 'did-not-start', before, error: restart.error, logTail: restart.logTail, restored: true };
  }
  say('probing after the change');
  const after = await probe(opts.server);
  if (!(await target.isRunning().catch(() => true))) {
    say('the server exited during the probe: restoring the launch');
    const logTail = await target.logTail().catch(() => '');
    await target.restore().catch(() => undefined);
    return { outcome: 'crashed', before, after: after.summary.verdict, probe: after, error: 'exited during the probe', logTail, restored: true };
  }
  const verdict = after.summary.verdict;
  // Every prompt failing after a good /health_generate is no improvement, whatever the verdict says.
  const allFailed = after.summary.errors === after.items.length;
  const outcome: VerifyOutcome = allFailed
    ? 'worse'
    : verdict === 'ok'
      ? 'healthy'
      : VERDICT_RANK[verdict] < VERDICT_RANK[before]
        ? 'better'
        : VERDICT_RANK[verdict] > VERDICT_RANK[before]
          ? 'worse'
          : 'same';
  return { outcome, before, after: verdict, probe: after, readySeconds: restart.readyMs / 1000, restored: false };
}
