/**
 * The one definition of what the extension host and the reference check's webview ("Compare with
 * Reference Server…") say to each other. Both sides import these types; the host validates every
 * page message with isCompareWebviewMessage (webview input is untrusted).
 */
import type { CompareResult } from '../core/compare/run';
import type { PromptComparison } from '../core/compare/types';

/** One side of the check: A is the reference (known good), B the server under suspicion. */
export interface CompareSide {
  label: string;
  url: string;
  model: string | null;
}

export interface CompareSetup {
  a: CompareSide;
  b: CompareSide;
  prompts: number;
  topLogprobs: number;
}

/** The run's conclusion: the result without its rows (they arrive one by one). */
export type CompareSummary = Omit<CompareResult, 'prompts'>;

export interface CompareViewState {
  setup: CompareSetup;
  phase: 'running' | 'stopping' | 'done';
  /** The prompts compared so far, by index (in completion order while running). */
  rows: PromptComparison[];
  summary?: CompareSummary;
  error?: string;
}

export type HostToCompareWebview =
  | { type: 'state'; state: CompareViewState }
  /** One more prompt's pair is in. */
  | { type: 'row'; row: PromptComparison };

export type CompareWebviewToHost =
  | { type: 'ready' }
  | { type: 'stop' }
  | { type: 'runAgain' }
  /** Open Diagnose Server on B (its verdict was broken). */
  | { type: 'diagnose' };

const COMPARE_MESSAGE_TYPE_SET: Record<CompareWebviewToHost['type'], true> = { ready: true, stop: true, runAgain: true, diagnose: true };
export const COMPARE_MESSAGE_TYPES = Object.keys(COMPARE_MESSAGE_TYPE_SET) as CompareWebviewToHost['type'][];

/** Every page message carries only its type: anything else is refused. */
export function isCompareWebviewMessage(value: unknown): value is CompareWebviewToHost {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  return typeof m.type === 'string' && Object.hasOwn(COMPARE_MESSAGE_TYPE_SET, m.type) && Object.keys(m).length === 1;
}
