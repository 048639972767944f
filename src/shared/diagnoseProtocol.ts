/**
 * The one definition of what the extension host and the Diagnose Server webview say to each other.
 * Both sides import these types; nothing else crosses the postMessage boundary. The host validates
 * every message from the page with isDiagnoseWebviewMessage (webview input is untrusted), and both
 * sides decide what may be a link with githubLink.
 */
import type { Finding } from '../core/diagnose/rules/engine';
import type { ObservedSymptom } from '../core/diagnose/rules/symptoms';
import { BIDI_AND_INVISIBLE } from '../core/text/foreign';

/** Whitespace, C0/C1 controls, and the invisible and reordering characters: never in a link. */
const UNSHOWABLE = new RegExp(`[\\s\\p{Cc}]|${BIDI_AND_INVISIBLE.source}`, 'u');

/** Every cause shown at most: the page offers per-cause actions by index. */
export const MAX_FINDINGS = 20;

/** One piece of evidence the diagnosis read, as the page lists it ("launch file", "deploy/run.sh"). */
export interface GatheredSource {
  kind: 'server' | 'launch' | 'log' | 'discovery' | 'probe';
  label: string;
}

/** Everything the page shows; sent whole. */
export interface DiagnoseViewState {
  serverLabel: string;
  /** `running` while evidence is gathered (the page shows `progress`), then `done`. */
  phase: 'running' | 'done';
  progress?: string;
  /** When the diagnosis was made (ms since the epoch). */
  at?: number;
  sources: GatheredSource[];
  /** What could not be read, in the user's words. */
  notes: string[];
  symptoms: ObservedSymptom[];
  findings: Finding[];
  nextCheck?: string;
  rulesJudged: number;
  /** The launch file Apply and Verify and Sweep change; absent: none is known for this server. */
  launchLabel?: string;
  /** The diagnosis failed as a whole (not one input). */
  error?: string;
}

export type HostToDiagnoseWebview = { type: 'state'; state: DiagnoseViewState };

export type DiagnoseWebviewToHost =
  | { type: 'ready' }
  /** Run Apply and Verify with this cause's first fix step. */
  | { type: 'applyAndVerify'; index: number }
  /** Open the backend sweep on the launch file, for this cause. */
  | { type: 'sweep'; index: number }
  /** Open one of a cause's sources (only https://github.com/… ones are ever sent). */
  | { type: 'openSource'; url: string }
  /** Gather the evidence again and diagnose again. */
  | { type: 'rediagnose' };

/** Every page message type; a new variant fails to compile until listed here. */
const DIAGNOSE_MESSAGE_TYPE_SET: Record<DiagnoseWebviewToHost['type'], true> = {
  ready: true,
  applyAndVerify: true,
  sweep: true,
  openSource: true,
  rediagnose: true,
};
export const DIAGNOSE_MESSAGE_TYPES = Object.keys(DIAGNOSE_MESSAGE_TYPE_SET) as DiagnoseWebviewToHost['type'][];

/**
 * The URL as a link target when it is an `https://github.com/…` address (no credentials, no port,
 * no other host, not even a subdomain, nothing invisible in it), else undefined: every other string
 * is shown as text.
 */
export function githubLink(url: unknown): string | undefined {
  if (typeof url !== 'string' || url.length > 2048 || !url.startsWith('https://github.com/') || UNSHOWABLE.test(url)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' || parsed.hostname !== 'github.com' || parsed.port !== '' || parsed.username !== '' || parsed.password !== '')
    return undefined;
  if (parsed.pathname === '/' || parsed.pathname === '') return undefined;
  return parsed.href;
}

const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < MAX_FINDINGS;

/** Narrowing helper for the host: checks every field, and nothing more than the type carries. */
export function isDiagnoseWebviewMessage(value: unknown): value is DiagnoseWebviewToHost {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
    case 'rediagnose':
      return true;
    case 'applyAndVerify':
    case 'sweep':
      return isIndex(m.index);
    case 'openSource':
      return githubLink(m.url) !== undefined;
    default:
      return false;
  }
}
