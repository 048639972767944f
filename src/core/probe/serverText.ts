/** One line that says what the probe saw of the server (engine, version, vLLM's counters), for every surface. */
import type { ServerWatch } from './types';

const ENGINE_LABEL: Record<ServerWatch['engine'], string> = { sglang: 'SGLang', vllm: 'vLLM', unknown: 'engine unknown' };

/** "vLLM 0.17.1 · max_model_len 32768 · repetition detection asked · corrupted requests 0 → 3" */
export function serverWatchText(watch: ServerWatch | undefined): string {
  if (!watch) return '–';
  // A history file read back may hold anything: unknown engines read as unknown.
  const engine = Object.prototype.hasOwnProperty.call(ENGINE_LABEL, watch.engine) ? ENGINE_LABEL[watch.engine] : ENGINE_LABEL.unknown;
  const bits = [`${engine}${typeof watch.version === 'string' ? ` ${watch.version}` : ''}`];
  if (watch.maxModelLen !== undefined) bits.push(`max_model_len ${watch.maxModelLen}`);
  if (watch.repetitionDetection) bits.push('repetition detection asked');
  const c = watch.corruptedRequests;
  if (c) bits.push(`corrupted requests ${c.before} → ${c.after}`);
  else if (watch.engine === 'vllm') bits.push('no NaN counter (VLLM_COMPUTE_NANS_IN_LOGITS unset)');
  if (typeof watch.cacheConfig?.cache_dtype === 'string') bits.push(`KV cache ${watch.cacheConfig.cache_dtype}`);
  return bits.join(' · ');
}
