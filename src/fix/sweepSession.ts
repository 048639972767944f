/**
 * One backend sweep as the panel sees it, without VS Code: runs core's runSweep, keeps the state
 * the page shows (and posts each change), cancels through the sweep's AbortSignal, writes the JSON
 * and Markdown reports next to the launch file, and says which rows may be applied. The panel and
 * the command (./sweepPanel.ts, ./sweepCommand.ts) are its VS Code glue.
 */
import { errorMessage } from '../core/errors';
import type { FlagChange } from '../core/launch/edit';
import type { RestartTarget } from '../core/fix/loop';
import type { ServerTarget } from '../core/probe/types';
import {
  runSweep,
  SweepError,
  writeSweepReports,
  type SweepAxis,
  type SweepOptions,
  type SweepRestart,
  type SweepResult,
  type SweepRow,
} from '../core/fix/sweep';
import type { HostToSweepWebview, SweepEnd, SweepSetup, SweepViewState } from '../shared/sweepProtocol';
import { rowChanges } from './sweepPlan';

export interface SweepSessionOptions {
  target: RestartTarget;
  axes: SweepAxis[];
  setup: SweepSetup;
  server: ServerTarget;
  /** The launch file on this machine: the reports go next to it. */
  launchPath: string;
  restart: SweepRestart;
  readyTimeoutMs?: number;
  pollMs?: number;
  probe?: SweepOptions['probe'];
  /** Each change of the state, for the page. */
  post: (message: HostToSweepWebview) => void;
  now?: () => Date;
}

/** Why a row cannot be applied, or its flags as changes. */
export type RowToApply = { changes: FlagChange[]; row: SweepRow } | { refused: string };

export class SweepSession {
  private readonly abort = new AbortController();
  private readonly state: SweepViewState;
  private running: Promise<SweepEnd> | undefined;

  constructor(private readonly opts: SweepSessionOptions) {
    this.state = { setup: opts.setup, rows: [], progress: 'starting', phase: 'running' };
  }

  /** Everything the page shows now (sent whole when it loads). */
  snapshot(): SweepViewState {
    return structuredClone(this.state);
  }

  get finished(): boolean {
    return this.state.phase === 'finished';
  }

  /** Runs the sweep once; later calls get the same outcome. */
  run(): Promise<SweepEnd> {
    this.running ??= this.sweep();
    return this.running;
  }

  /** Stops after the combination under way; the original launch is restored all the same. */
  cancel(): void {
    if (this.state.phase !== 'running') return;
    this.state.phase = 'cancelling';
    this.abort.abort();
    this.opts.post({ type: 'cancelling' });
  }

  /** A healthy row's flags, once the sweep has ended and the launch is back as it was. */
  rowToApply(index: number): RowToApply {
    const row = this.state.rows[index];
    if (!row) return { refused: 'There is no such row.' };
    if (!this.finished) return { refused: 'The sweep is still running: apply a row once the original launch is restored.' };
    if (!this.state.end?.restored) return { refused: 'The original launch was not restored: put it back first, then apply a row.' };
    if (row.verdict !== 'ok') return { refused: 'Only a healthy row can be applied.' };
    return { changes: rowChanges(this.opts.axes, row), row };
  }

  private async sweep(): Promise<SweepEnd> {
    const { opts } = this;
    let result: SweepResult;
    let error: string | undefined;
    try {
      result = await runSweep(opts.target, opts.axes, {
        server: opts.server,
        signal: this.abort.signal,
        ...(opts.readyTimeoutMs !== undefined ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
        ...(opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {}),
        ...(opts.probe ? { probe: opts.probe } : {}),
        onRow: (row, index) => this.addRow(row, index),
        onProgress: (message) => this.progress(message),
      });
    } catch (e) {
      error = errorMessage(e);
      // Anything but a SweepError is thrown before the launch is changed (too many combinations).
      result = e instanceof SweepError ? e.partial : { rows: [], complete: false, restored: true };
    }
    const end = this.writeReports(this.endOf(result, error));
    this.state.phase = 'finished';
    this.state.end = end;
    this.state.progress = end.restored ? 'done: the original launch is restored' : 'done: the original launch was NOT restored';
    opts.post({ type: 'finished', end });
    return end;
  }

  /** A row that finished after Cancel was cut short: it is no measurement, whatever it says. */
  private addRow(row: SweepRow, index: number): void {
    const cut = this.abort.signal.aborted && row.verdict === 'ok';
    const shown: SweepRow = cut ? { ...row, verdict: 'error', error: row.error ?? 'cancelled during the probe' } : row;
    this.state.rows[index] = shown;
    this.opts.post({ type: 'row', index, row: shown });
  }

  private progress(message: string): void {
    this.state.progress = message;
    this.opts.post({ type: 'progress', message });
  }

  private endOf(result: SweepResult, error: string | undefined): SweepEnd {
    return {
      complete: result.complete && error === undefined,
      cancelled: this.abort.signal.aborted,
      restored: result.restored,
      ...(result.restoreError ? { restoreError: result.restoreError } : {}),
      ...(error !== undefined ? { error } : {}),
    };
  }

  /** The reports hold the rows the page shows (a cut row included as such). */
  private writeReports(end: SweepEnd): SweepEnd {
    const { opts } = this;
    const rows = this.state.rows.filter((r): r is SweepRow => r !== undefined);
    try {
      const reports = writeSweepReports(
        {
          launch: opts.launchPath,
          restart: opts.restart,
          server: opts.server.baseUrl,
          rows,
          complete: end.complete,
          restored: end.restored,
          ...(end.restoreError ? { restoreError: end.restoreError } : {}),
        },
        opts.axes,
        { now: opts.now?.() ?? new Date() },
      );
      return { ...end, reports };
    } catch (e) {
      return { ...end, reportError: errorMessage(e) };
    }
  }
}
