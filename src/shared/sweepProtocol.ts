/**
 * The one definition of what the extension host and the sweep webview say to each other. Both
 * sides import these types; nothing else crosses the postMessage boundary. The host validates
 * every message from the page with isSweepWebviewMessage (webview input is untrusted).
 */
import { MAX_COMBINATIONS, type SweepRow } from '../core/fix/sweep';

/** One varied flag as the matrix heads it. */
export interface SweepAxisView {
  flag: string;
  values: string[];
  /** The value in the launch file before the sweep (absent: the flag is not written). */
  current?: string;
}

/** What the panel says at the top: what is swept, where, and how it is restarted. */
export interface SweepSetup {
  launchLabel: string;
  targetLabel: string;
  serverLabel: string;
  axes: SweepAxisView[];
  total: number;
}

/** How a sweep ended. */
export interface SweepEnd {
  /** Every combination ran. */
  complete: boolean;
  cancelled: boolean;
  restored: boolean;
  restoreError?: string;
  /** The sweep itself failed (not one combination: the loop). */
  error?: string;
  /** Where the JSON and Markdown reports were written. */
  reports?: { json: string; md: string };
  reportError?: string;
}

export type SweepPhase = 'running' | 'cancelling' | 'finished';

/** Everything the page shows; sent whole when the page (re)loads. */
export interface SweepViewState {
  setup: SweepSetup;
  rows: SweepRow[];
  progress: string;
  phase: SweepPhase;
  end?: SweepEnd;
}

export type HostToSweepWebview =
  | { type: 'state'; state: SweepViewState }
  | { type: 'progress'; message: string }
  | { type: 'row'; index: number; row: SweepRow }
  | { type: 'cancelling' }
  | { type: 'finished'; end: SweepEnd };

export type SweepWebviewToHost =
  | { type: 'ready' }
  | { type: 'cancel' }
  /** Apply this row's flags to the launch file as a reviewed edit. */
  | { type: 'applyRow'; index: number }
  | { type: 'openReport'; kind: 'json' | 'md' };

/** Every page message type; a new variant fails to compile until listed here. */
const SWEEP_MESSAGE_TYPE_SET: Record<SweepWebviewToHost['type'], true> = { ready: true, cancel: true, applyRow: true, openReport: true };
export const SWEEP_MESSAGE_TYPES = Object.keys(SWEEP_MESSAGE_TYPE_SET) as SweepWebviewToHost['type'][];

const isRowIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < MAX_COMBINATIONS;

/** Narrowing helper for the host: checks every field, and nothing more than the type carries. */
export function isSweepWebviewMessage(value: unknown): value is SweepWebviewToHost {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
    case 'cancel':
      return true;
    case 'applyRow':
      return isRowIndex(m.index);
    case 'openReport':
      return m.kind === 'json' || m.kind === 'md';
    default:
      return false;
  }
}
