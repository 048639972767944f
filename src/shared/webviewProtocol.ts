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

/** The probe form before the user or settings change it. */
export const INITIAL_FORM_PARAMS: Readonly<ProbeParams> = Object.freeze({
  endpoint: 'chat',
  prompt: 'Write one sentence about the sea.',
  temperature: 0,
  maxTokens: 256,
  stream: true,
  earlyStop: true,
  logprobs: false,
});

/** Form state the webview keeps with setState so the panel restores after reload. */
export interface ProbeFormState {
  serverId?: string;
  params: ProbeParams;
}

export type HostToWebview =
  | { type: 'init'; servers: ServerChoice[]; history: HistorySummary[]; form?: ProbeFormState }
  | { type: 'servers'; servers: ServerChoice[] }
  /** Preselect a server in the form (e.g. "Open Probe Panel" on a server in the Servers view). */
  | { type: 'selectServer'; serverId: string }
  | { type: 'models'; serverId: string; models: string[]; error?: string }
  | { type: 'runStarted'; runId: string; pane: Pane; serverLabel: string; params: ProbeParams }
  | { type: 'runEvent'; runId: string; event: ProbeEvent }
  /** Several events of one run in arrival order; the host batches deltas and chunks this way. */
  | { type: 'runEvents'; runId: string; events: ProbeEvent[] }
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
  /** Diagnose the server of this stored run (its verdict was not OK). */
  | { type: 'diagnose'; historyId: string }
  | { type: 'addServer' };

const ENDPOINTS: readonly string[] = ['chat', 'completions', 'generate'];
const PANES: readonly string[] = ['main', 'compare'];
/** Longest prompt or system prompt the host accepts from the webview (UTF-16 units). */
export const MAX_PROMPT_CHARS = 1_000_000;

const isStr = (v: unknown, max = 256): v is string => typeof v === 'string' && v.length <= max;
const isOptNum = (v: unknown): boolean => v === undefined || (typeof v === 'number' && Number.isFinite(v));
const isOptBool = (v: unknown): boolean => v === undefined || typeof v === 'boolean';

/** Checks every field of ProbeParams a run request may carry. */
export function isProbeParams(value: unknown): value is ProbeParams {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  return (
    typeof p.endpoint === 'string' &&
    ENDPOINTS.includes(p.endpoint) &&
    isStr(p.prompt, MAX_PROMPT_CHARS) &&
    (p.model === undefined || isStr(p.model, 1024)) &&
    (p.systemPrompt === undefined || isStr(p.systemPrompt, MAX_PROMPT_CHARS)) &&
    isOptNum(p.temperature) &&
    isOptNum(p.topP) &&
    isOptNum(p.maxTokens) &&
    isOptNum(p.seed) &&
    isOptNum(p.timeoutMs) &&
    typeof p.stream === 'boolean' &&
    isOptBool(p.logprobs) &&
    isOptBool(p.earlyStop)
  );
}

/** Every webview message type; a new WebviewToHost variant fails to compile until listed here. */
const WEBVIEW_MESSAGE_TYPE_SET: Record<WebviewToHost['type'], true> = {
  ready: true,
  listModels: true,
  run: true,
  stop: true,
  rerun: true,
  openEntry: true,
  deleteEntry: true,
  diagnose: true,
  addServer: true,
};
export const WEBVIEW_MESSAGE_TYPES = Object.keys(WEBVIEW_MESSAGE_TYPE_SET) as WebviewToHost['type'][];

/** Narrowing helper for the host: webview messages are untrusted input. Checks every field. */
export function isWebviewMessage(value: unknown): value is WebviewToHost {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  const pane = (v: unknown) => typeof v === 'string' && PANES.includes(v);
  switch (m.type) {
    case 'ready':
    case 'addServer':
      return true;
    case 'listModels':
      return isStr(m.serverId);
    case 'run':
      return isStr(m.serverId) && pane(m.pane) && isProbeParams(m.params);
    case 'stop':
      return isStr(m.runId);
    case 'rerun':
    case 'openEntry':
      return isStr(m.historyId) && pane(m.pane);
    case 'deleteEntry':
    case 'diagnose':
      return isStr(m.historyId);
    default:
      return false;
  }
}
