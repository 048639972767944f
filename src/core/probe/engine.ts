/**
 * Which engine answers at a URL, and what it says about itself beside the answers: `/v1/models`'
 * `owned_by` ("vllm", "sglang"), vLLM's `/version`, and vLLM's `/metrics` (the corrupted-requests
 * counter, which only exists when the server runs with VLLM_COMPUTE_NANS_IN_LOGITS=1, and the
 * cache config). Every call is bounded and never throws: what the server does not say stays unknown.
 */
import { compareVersions } from '../release/version';
import { readPrometheusText, type PromSample } from './prometheus';
import { fetchModels, fetchText, fetchVllmVersion, type ApiOptions } from './server-api';
import type { ServerTarget, ServerWatch } from './types';

export type EngineName = ServerWatch['engine'];

/** The first vLLM version whose OpenAI requests take `repetition_detection` (finish_reason "repetition"). */
export const VLLM_REPETITION_DETECTION_SINCE = '0.17.0.dev0';

export function vllmHasRepetitionDetection(version: string | undefined): boolean {
  return !!version && compareVersions(version, VLLM_REPETITION_DETECTION_SINCE) >= 0;
}

/**
 * What a probe asks vLLM to watch for (its RepetitionDetectionParams): a pattern of up to 12 tokens
 * said 12 times back to back. High enough that a table rule or a run of dashes in a healthy answer
 * does not end it; a loop still ends within a quick probe's 256 tokens.
 */
export const PROBE_REPETITION_DETECTION = { max_pattern_size: 12, min_pattern_size: 1, min_count: 12 } as const;

export interface EngineFacts {
  engine: EngineName;
  version?: string;
  /** The context length /v1/models reports (vLLM's max_model_len). */
  maxModelLen?: number;
}

const FACTS_TIMEOUT_MS = 5_000;

/**
 * The engine from /v1/models' owned_by; a vLLM's version from /version. Another owner (a proxy, an
 * other server) stays unknown and is asked nothing vLLM-only: a strict server could refuse the
 * request field.
 */
export async function detectEngine(target: ServerTarget, options: ApiOptions = {}): Promise<EngineFacts> {
  const opts = { timeoutMs: FACTS_TIMEOUT_MS, ...options };
  let facts: EngineFacts = { engine: 'unknown' };
  try {
    const models = await fetchModels(target, opts);
    const owner = models[0]?.ownedBy?.toLowerCase();
    if (owner === 'vllm' || owner === 'sglang') facts = { engine: owner };
    if (models[0]?.maxModelLen !== undefined) facts.maxModelLen = models[0].maxModelLen;
  } catch {
    // not an OpenAI-compatible server, or not now: the engine stays unknown
  }
  if (facts.engine !== 'vllm') return facts;
  const version = await fetchVllmVersion(target, opts);
  return version ? { ...facts, version } : facts;
}

export interface VllmMetrics {
  /** Sum of vllm:corrupted_requests(_total) over its labels; undefined when the server does not export it. */
  corruptedRequests?: number;
  /** Labels of vllm:cache_config_info (block_size, cache_dtype, …). */
  cacheConfig?: Record<string, string>;
}

const CORRUPTED = new Set(['vllm:corrupted_requests', 'vllm:corrupted_requests_total']);

/** The facts a probe reads from vLLM's /metrics. */
export function vllmMetricsOf(samples: Iterable<PromSample>): VllmMetrics {
  const out: VllmMetrics = {};
  for (const s of samples) {
    if (CORRUPTED.has(s.name) && Number.isFinite(s.value)) out.corruptedRequests = (out.corruptedRequests ?? 0) + s.value;
    else if (s.name === 'vllm:cache_config_info' && !out.cacheConfig) out.cacheConfig = { ...s.labels };
  }
  return out;
}

/** GET /metrics, read for vLLM's facts; undefined when there is no /metrics. */
export async function fetchVllmMetrics(target: ServerTarget, options: ApiOptions = {}): Promise<VllmMetrics | undefined> {
  const text = await fetchText(target, '/metrics', { timeoutMs: FACTS_TIMEOUT_MS, ...options }, 16 * 1024 * 1024);
  return text === undefined ? undefined : vllmMetricsOf(readPrometheusText(text));
}
