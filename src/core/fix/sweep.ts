/**
 * Backend sweep: every combination of the varied flags, one after another — change, restart, wait,
 * probe, record — then the original launch put back byte for byte, also when the sweep is
 * cancelled or fails half way. Failed starts are rows too.
 *
 *   const { rows } = await runSweep(target, [{ flag: '--fp4-gemm-backend', values: ['flashinfer_cutlass', 'flashinfer_cudnn'] }], { server });
 */
import { writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { errorMessage } from '../errors';
import { codeSpan } from '../text/foreign';
import type { FlagChange } from '../launch/edit';
import { runQuickProbe, type QuickProbeResult } from '../probe/quick';
import type { ServerTarget } from '../probe/types';
import { restartAndWait, type RestartTarget } from './loop';

export interface SweepAxis {
  /** The flag as written on the command line (`--fp4-gemm-backend`). */
  flag: string;
  aliases?: string[];
  values: string[];
}

export interface SweepRow {
  flags: Record<string, string>;
  started: boolean;
  verdict: 'ok' | 'degenerate' | 'nan' | 'error';
  /** Reason codes of the prompts that were not ok. */
  reasons: string[];
  ttftMs: number | null;
  tokensPerSecond: number | null;
  readySeconds?: number;
  error?: string;
  /** Log lines that say what went wrong (errors, NaN, CUDA), when the server did not come up. */
  logLines?: string[];
}

export interface SweepOptions {
  server: ServerTarget;
  readyTimeoutMs?: number;
  pollMs?: number;
  probe?: (server: ServerTarget) => Promise<QuickProbeResult>;
  signal?: AbortSignal;
  /** Each row as soon as it is known (the live matrix). */
  onRow?: (row: SweepRow, index: number, total: number) => void;
  onProgress?: (message: string) => void;
}

export interface SweepResult {
  rows: SweepRow[];
  /** False when the sweep was cancelled before every combination ran. */
  complete: boolean;
  restored: boolean;
  restoreError?: string;
}

/** The sweep failed half way; `partial` says what ran and whether the launch was restored all the same. */
export class SweepError extends Error {
  constructor(
    message: string,
    readonly partial: SweepResult,
  ) {
    super(message);
  }
}

/** At most this many combinations: a sweep restarts the server for each. */
export const MAX_COMBINATIONS = 64;

/** Log lines that say why a start failed: errors and NaN, not the start-up banner (server_args= names device='cuda'). */
const TELLING = /\bnan\b|error|exception|traceback|illegal|unsupported|no kernel|failed|abort|out of memory/i;
const BANNER = /server_args=|Capture cuda graph|Load weight|KV Cache is allocated/;

/** The last log lines that say what went wrong. */
export function tellingLines(log: string): string[] {
  return log
    .split('\n')
    .filter((l) => TELLING.test(l) && !BANNER.test(l))
    .slice(-8);
}

export function combinations(axes: SweepAxis[]): Record<string, string>[] {
  let out: Record<string, string>[] = [{}];
  for (const axis of axes) out = out.flatMap((c) => axis.values.map((v) => ({ ...c, [axis.flag]: v })));
  return out;
}

export async function runSweep(target: RestartTarget, axes: SweepAxis[], opts: SweepOptions): Promise<SweepResult> {
  const combos = combinations(axes);
  if (combos.length > MAX_COMBINATIONS) throw new Error(`${combos.length} combinations: at most ${MAX_COMBINATIONS} (each restarts the server)`);
  const probe = opts.probe ?? ((s: ServerTarget) => runQuickProbe(s, {}, opts.signal ? { signal: opts.signal } : {}));
  const rows: SweepRow[] = [];
  let failure: unknown;
  try {
    for (const [i, flags] of combos.entries()) {
      if (opts.signal?.aborted) break;
      opts.onProgress?.(
        `${i + 1}/${combos.length}: ${Object.entries(flags)
          .map(([k, v]) => `${k} ${v}`)
          .join(' ')}`,
      );
      const row = await runOne(target, axes, flags, probe, opts);
      rows.push(row);
      opts.onRow?.(row, i, combos.length);
    }
  } catch (e) {
    failure = e;
  }
  // Whatever happened above, the server goes back to the launch it had.
  opts.onProgress?.('restoring the original launch');
  let restoreError: string | undefined;
  try {
    await target.restore();
  } catch (e) {
    restoreError = errorMessage(e);
  }
  const result: SweepResult = {
    rows,
    complete: rows.length === combos.length,
    restored: restoreError === undefined,
    ...(restoreError ? { restoreError } : {}),
  };
  if (failure !== undefined) throw new SweepError(errorMessage(failure), { ...result, complete: false });
  return result;
}

async function runOne(
  target: RestartTarget,
  axes: SweepAxis[],
  flags: Record<string, string>,
  probe: (s: ServerTarget) => Promise<QuickProbeResult>,
  opts: SweepOptions,
): Promise<SweepRow> {
  const changes: FlagChange[] = axes.map((a) => ({ flag: a.flag, ...(a.aliases ? { aliases: a.aliases } : {}), value: flags[a.flag] }));
  const restart = await restartAndWait(target, changes, opts);
  if (!restart.ready) {
    // A cancelled start says nothing about the backend: no log lines for it.
    const logLines = opts.signal?.aborted ? [] : tellingLines(restart.logTail);
    return {
      flags,
      started: false,
      verdict: 'error',
      reasons: [],
      ttftMs: null,
      tokensPerSecond: null,
      error: restart.error,
      ...(logLines.length ? { logLines } : {}),
    };
  }
  const result = await probe(opts.server);
  // A server that died under the probe is a row of its own: its answers say little, its log says why.
  if (!(await target.isRunning().catch(() => true))) {
    const logLines = tellingLines(await target.logTail().catch(() => ''));
    return {
      flags,
      started: true,
      verdict: 'error',
      reasons: [],
      ttftMs: null,
      tokensPerSecond: null,
      readySeconds: restart.readyMs / 1000,
      error: 'the server exited during the probe',
      ...(logLines.length ? { logLines } : {}),
    };
  }
  const items = result.items.map((i) => i.result);
  const allFailed = result.summary.errors === items.length;
  const mean = (xs: (number | null)[]): number | null => {
    const v = xs.filter((x): x is number => x !== null && Number.isFinite(x));
    return v.length ? Math.round((v.reduce((a, b) => a + b, 0) / v.length) * 10) / 10 : null;
  };
  return {
    flags,
    started: true,
    verdict: allFailed ? 'error' : result.summary.verdict,
    reasons: [...new Set(items.flatMap((r) => r.verdict.reasons.map((x) => x.code)))],
    ttftMs: mean(items.map((r) => r.ttftMs)),
    tokensPerSecond: mean(items.map((r) => r.tokensPerSecond)),
    readySeconds: restart.readyMs / 1000,
  };
}

/** The matrix as Markdown: one row per combination, failed starts included. */
export function sweepMarkdown(title: string, axes: SweepAxis[], result: SweepResult): string {
  const head = [...axes.map((a) => a.flag), 'started', 'verdict', 'reasons', 'TTFT ms', 'tok/s'];
  // Values in code spans (no markdown inside); free text escaped; a pipe never splits a cell.
  const cell = (s: string): string => s.replace(/[|\\`*_[\]<>]/g, (c) => `\\${c}`).replace(/\s+/g, ' ');
  const value = (s: string): string => codeSpan(s.replace(/\|/g, '\u00a6'));
  const lines = [`# Backend sweep: ${cell(title)}`, '', `| ${head.join(' | ')} |`, `|${head.map(() => ' --- ').join('|')}|`];
  for (const r of result.rows) {
    lines.push(
      `| ${[...axes.map((a) => value(r.flags[a.flag])), r.started ? 'yes' : 'no', r.verdict, cell(r.reasons.join(', ') || r.error || ''), String(r.ttftMs ?? ''), String(r.tokensPerSecond ?? '')].join(' | ')} |`,
    );
  }
  lines.push(
    '',
    result.restored ? 'The original launch was restored.' : `The original launch was NOT restored: ${cell(result.restoreError ?? 'unknown error')}`,
  );
  if (!result.complete) lines.push('', 'The sweep stopped before every combination ran.');
  return `${lines.join('\n')}\n`;
}

/** How the swept server was restarted, as the report names it. */
export type SweepRestart = { supervise: string } | { systemd: string } | { compose: string };

/** The saved report (the CLI's --json output): the result with what was swept and where. */
export interface SweepReport extends SweepResult {
  launch: string;
  /** The SSH host the launch file is on (absent: this machine). */
  host?: string;
  restart: SweepRestart;
  server: string;
}

/** `<folder>/<file>.sweep-<UTC time>`: the reports are this plus `.json` and `.md`; the folder is the launch file's unless given. */
export function sweepReportBase(launchPath: string, now: Date = new Date(), dir: string = dirname(launchPath)): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  return join(dir, `${basename(launchPath)}.sweep-${stamp}`);
}

/** Writes the JSON and Markdown reports next to the launch file (or in `dir`); returns their paths. */
export function writeSweepReports(report: SweepReport, axes: SweepAxis[], opts: { now?: Date; dir?: string } = {}): { json: string; md: string } {
  const base = sweepReportBase(report.launch, opts.now, opts.dir);
  const paths = { json: `${base}.json`, md: `${base}.md` };
  writeFileSync(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(paths.md, sweepMarkdown(report.launch, axes, report));
  return paths;
}
