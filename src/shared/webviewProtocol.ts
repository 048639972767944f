/**
 * The one definition of what the extension host and the probe webview say to each other.
 * Both sides import these types; nothing else crosses the postMessage boundary.
 */
import type { ProbeEvent, ProbeParams, ProbeResult } from '../core/probe/types';

export interface ServerChoice {
  id: string;
  label: string;
  baseUrl: string;
}

/** One finished probe as kept in history (content bounded like ProbeResult). */
export interface HistoryEntry {
  id: string;
  serverId: string;
  serverLabel: string;
  baseUrl: string;
  params: ProbeParams;
  result: ProbeResult;
  startedAt: number;
}

export type HistorySummary = Pick<HistoryEntry, 'id' | 'serverLabel' | 'startedAt'> & {
  prompt: string;
  verdict: ProbeResult['verdict']['kind'];
  status: ProbeResult['status'];
};

/** Which of the two side-by-side panes a run is shown in. */
export type Pane = 'main' | 'compare';

/** Form state the webview keeps with setState so the panel restores after reload. */
export interface ProbeFormState {
  serverId?: string;
  params: ProbeParams;
}

export type HostToWebview =
  | { type: 'init'; servers: ServerChoice[]; history: HistorySummary[]; form?: ProbeFormState }
  | { type: 'servers'; servers: ServerChoice[] }
  | { type: 'models'; serverId: string; models: string[]; error?: string }
  | { type: 'runStarted'; runId: string; pane: Pane; serverLabel: string; params: ProbeParams }
  | { type: 'runEvent'; runId: string; event: ProbeEvent }
  | { type: 'runFinished'; runId: string; result: ProbeResult; historyId?: string }
  | { type: 'history'; entries: HistorySummary[] }
  | { type: 'showEntry'; pane: Pane; entry: HistoryEntry }
  | { type: 'error'; message: string };

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'listModels'; serverId: string }
  | { type: 'run'; serverId: string; params: ProbeParams; pane: Pane }
  | { type: 'stop'; runId: string }
  | { type: 'rerun'; historyId: string; pane: Pane }
  | { type: 'openEntry'; historyId: string; pane: Pane }
  | { type: 'deleteEntry'; historyId: string }
  | { type: 'addServer' };

/** Narrowing helper for the host: webview messages are untrusted input. */
export function isWebviewMessage(value: unknown): value is WebviewToHost {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return (
    type === 'ready' || type === 'listModels' || type === 'run' || type === 'stop' || type === 'rerun' ||
    type === 'openEntry' || type === 'deleteEntry' || type === 'addServer'
  );
}
