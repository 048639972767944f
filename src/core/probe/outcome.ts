/**
 * What one run amounts to for the person reading it. A verdict of "ok" only means "nothing bad in what
 * arrived": a request that failed or was stopped before anything arrived must not read as a healthy
 * answer (a green badge on an HTTP 404). NaN and degenerate verdicts win over the status: they are
 * what the user needs to see even when the stream then broke.
 */
import type { VerdictKind } from '../detect/types';
import type { ProbeStatus } from './types';

export type RunOutcome = VerdictKind | 'failed' | 'stopped';

/** The codicon each outcome shows with (panel badge, history rows and pick, Servers view). */
export const OUTCOME_ICON: Readonly<Record<RunOutcome, string>> = {
  ok: 'pass',
  degenerate: 'warning',
  nan: 'error',
  failed: 'circle-slash',
  stopped: 'debug-stop',
};

/** Its name where it stands alone (a badge, a tree row). */
export const OUTCOME_LABEL: Readonly<Record<RunOutcome, string>> = {
  ok: 'OK',
  degenerate: 'Degenerate',
  nan: 'NaN',
  failed: 'Request failed',
  stopped: 'Stopped',
};

export function runOutcome(verdict: VerdictKind, status: ProbeStatus): RunOutcome {
  if (verdict !== 'ok') return verdict;
  if (status === 'error') return 'failed';
  if (status === 'stopped') return 'stopped';
  return 'ok';
}
