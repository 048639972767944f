/**
 * Read-only calls to an SGLang server: models, health, server and model info. Each call has a
 * timeout and fails with a ServerApiError whose message says what to do.
 */
import type { HealthState, ServerStatus } from '../servers';
import { tryParsePyJson } from '../pyjson';
import { authHeaders, connectionError, httpError, joinUrl, readTextLimited } from './http';
import type { ProbeError, ServerTarget } from './types';

export const DEFAULT_API_TIMEOUT_MS = 10_000;

export class ServerApiError extends Error {
  readonly kind: ProbeError['kind'];
  readonly status?: number;
  readonly bodySnippet?: string;
  constructor(error: ProbeError) {
    super(error.message);
    this.name = 'ServerApiError';
    this.kind = error.kind;
    if (error.status !== undefined) this.status = error.status;
    if (error.bodySnippet !== undefined) this.bodySnippet = error.bodySnippet;
  }
}

export interface ApiOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface RawResponse {
  status: number;
  text: string;
  contentType: string;
}

/** GET a route; resolves for any HTTP status, throws ServerApiError for network trouble. */
async function get(target: ServerTarget, path: string, options: ApiOptions = {}, limit = 8 * 1024 * 1024): Promise<RawResponse> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_API_TIMEOUT_MS;
  const url = joinUrl(target.baseUrl, path);
  const signals = [AbortSignal.timeout(timeoutMs)];
  if (options.signal) signals.push(options.signal);
  const signal = AbortSignal.any(signals);
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...authHeaders(target) }, signal });
    const text = await readTextLimited(response, limit);
    if (signal.aborted) throw signal.reason;
    return { status: response.status, text, contentType: response.headers.get('content-type') ?? '' };
  } catch (error) {
    if (options.signal?.aborted) throw new ServerApiError({ kind: 'cancelled', message: 'Cancelled.' });
    if (signal.aborted) {
      throw new ServerApiError({
        kind: 'timeout',
        message: `${url} did not answer within ${Math.round(timeoutMs / 100) / 10} s. The server may be busy, hung or still loading.`,
      });
    }
    throw new ServerApiError(connectionError(error, url));
  }
}

/** A route's body as text when it answers 2xx; undefined for anything else (missing route, network, timeout). */
export async function fetchText(target: ServerTarget, path: string, options?: ApiOptions, limit?: number): Promise<string | undefined> {
  try {
    const r = await get(target, path, options, limit);
    return r.status >= 200 && r.status < 300 ? r.text : undefined;
  } catch {
    return undefined;
  }
}

async function getJson(target: ServerTarget, path: string, options?: ApiOptions): Promise<unknown> {
  const r = await get(target, path, options);
  if (r.status < 200 || r.status >= 300) throw new ServerApiError(httpError(r.status, '', r.text, r.contentType, !!target.apiKey));
  const parsed = tryParsePyJson(r.text);
  if (!parsed.ok) {
    throw new ServerApiError({
      kind: 'protocol',
      status: r.status,
      message: `${path} did not return JSON. Is this an SGLang server?`,
      bodySnippet: r.text.slice(0, 500),
    });
  }
  return parsed.value;
}

/** vLLM's GET /version: `{"version": "0.11.0"}`; undefined when the route is missing or says something else. */
export async function fetchVllmVersion(target: ServerTarget, options?: ApiOptions): Promise<string | undefined> {
  const text = await fetchText(target, '/version', options);
  if (text === undefined) return undefined;
  const parsed = tryParsePyJson(text);
  const v = parsed.ok && parsed.value && typeof parsed.value === 'object' ? (parsed.value as { version?: unknown }).version : undefined;
  return typeof v === 'string' && v.length <= 100 ? v : undefined;
}

export interface ModelEntry {
  id: string;
  ownedBy?: string;
  root?: string;
  maxModelLen?: number;
}

/** GET /v1/models: the served model names, in the server's order. */
export async function fetchModels(target: ServerTarget, options?: ApiOptions): Promise<ModelEntry[]> {
  const body = await getJson(target, '/v1/models', options);
  const data = body && typeof body === 'object' ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) {
    throw new ServerApiError({ kind: 'protocol', message: '/v1/models did not return {"data": [...]}. Is this an OpenAI-compatible server?' });
  }
  const out: ModelEntry[] = [];
  for (const m of data as unknown[]) {
    if (!m || typeof m !== 'object' || typeof (m as { id?: unknown }).id !== 'string') continue;
    const e = m as Record<string, unknown>;
    const entry: ModelEntry = { id: e.id as string };
    if (typeof e.owned_by === 'string') entry.ownedBy = e.owned_by;
    if (typeof e.root === 'string') entry.root = e.root;
    if (typeof e.max_model_len === 'number') entry.maxModelLen = e.max_model_len;
    out.push(entry);
  }
  return out;
}

export interface HealthResult {
  /** GET /health */
  health: HealthState;
  /** GET /health_generate: runs a one-token generation. A NaN server still passes it. `unknown` where the route is missing (vLLM). */
  generateHealth: HealthState;
  /** Why a state is not healthy. */
  error?: string;
}

async function healthOf(target: ServerTarget, path: string, options?: ApiOptions): Promise<{ state: HealthState; error?: string; missing?: boolean }> {
  try {
    const r = await get(target, path, options);
    if (r.status >= 200 && r.status < 300) return { state: 'healthy' };
    const e = httpError(r.status, '', r.text, r.contentType, !!target.apiKey);
    return { state: 'unhealthy', error: `${path}: ${e.message}`, ...(r.status === 404 ? { missing: true } : {}) };
  } catch (error) {
    const e = error as ServerApiError;
    return { state: e.kind === 'timeout' ? 'unhealthy' : 'unreachable', error: `${path}: ${e.message}` };
  }
}

export interface HealthOptions extends ApiOptions {
  /** Also call /health_generate (a real one-token generation). Default true. */
  checkGenerate?: boolean;
}

/** /health and, unless turned off, /health_generate. Never throws. */
export async function fetchHealth(target: ServerTarget, options?: HealthOptions): Promise<HealthResult> {
  const health = await healthOf(target, '/health', options);
  if (health.state === 'unreachable') return { health: 'unreachable', generateHealth: 'unreachable', ...(health.error ? { error: health.error } : {}) };
  if (options?.checkGenerate === false) return { health: health.state, generateHealth: 'unknown', ...(health.error ? { error: health.error } : {}) };
  // /health_generate runs a real generation: give it longer.
  const gen = await healthOf(target, '/health_generate', { ...options, timeoutMs: Math.max(options?.timeoutMs ?? DEFAULT_API_TIMEOUT_MS, 30_000) });
  // vLLM has no such route: that says nothing about its health.
  if (gen.missing) return { health: health.state, generateHealth: 'unknown', ...(health.error ? { error: health.error } : {}) };
  const error = health.error ?? gen.error;
  return { health: health.state, generateHealth: gen.state, ...(error ? { error } : {}) };
}

/** /server_info, falling back to /get_server_info on older servers. NaN/Infinity kept. */
export async function fetchServerInfo(target: ServerTarget, options?: ApiOptions): Promise<Record<string, unknown>> {
  return fetchWithFallback(target, ['/server_info', '/get_server_info'], options);
}

/** /model_info, falling back to /get_model_info. */
export async function fetchModelInfo(target: ServerTarget, options?: ApiOptions): Promise<Record<string, unknown>> {
  return fetchWithFallback(target, ['/model_info', '/get_model_info'], options);
}

async function fetchWithFallback(target: ServerTarget, paths: string[], options?: ApiOptions): Promise<Record<string, unknown>> {
  let last: ServerApiError | undefined;
  for (const path of paths) {
    try {
      const body = await getJson(target, path, options);
      if (!body || typeof body !== 'object' || Array.isArray(body)) {
        throw new ServerApiError({ kind: 'protocol', message: `${path} did not return a JSON object.` });
      }
      return body as Record<string, unknown>;
    } catch (error) {
      if (!(error instanceof ServerApiError)) throw error;
      last = error;
      // Only a missing route is worth the fallback; auth and network trouble are final.
      if (!(error.kind === 'http' && (error.status === 404 || error.status === 405))) throw error;
    }
  }
  throw last ?? new ServerApiError({ kind: 'protocol', message: 'No server info route answered.' });
}

/** Fields of /server_info worth showing beside a verdict, by dataclass field name. */
export const BACKEND_FIELDS = [
  'attention_backend',
  'decode_attention_backend',
  'prefill_attention_backend',
  'moe_runner_backend',
  'moe_a2a_backend',
  'fp4_gemm_runner_backend',
  'fp8_gemm_runner_backend',
  'sampling_backend',
  'grammar_backend',
  'kv_cache_dtype',
  'quantization',
  'dtype',
  'speculative_algorithm',
  'disable_cuda_graph',
  'tp_size',
  'dp_size',
  'ep_size',
] as const;

export interface ServerInfoSummary {
  version?: string;
  modelPath?: string;
  /** Field name -> value as text, only for fields the server reported (null left out). */
  backends: Record<string, string>;
  /** The attention backend rank 0 reports it is actually running, when present. */
  resolvedAttentionBackend?: string;
}

/** Picks version and key backend fields from a /server_info body for display. */
export function summariseServerInfo(info: Record<string, unknown>): ServerInfoSummary {
  const summary: ServerInfoSummary = { backends: {} };
  if (typeof info.version === 'string') summary.version = info.version;
  if (typeof info.model_path === 'string') summary.modelPath = info.model_path;
  for (const field of BACKEND_FIELDS) {
    const v = info[field];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') summary.backends[field] = String(v);
  }
  const states = info.internal_states;
  if (Array.isArray(states) && states[0] && typeof states[0] === 'object') {
    const ab = (states[0] as Record<string, unknown>).attention_backend;
    if (typeof ab === 'string') summary.resolvedAttentionBackend = ab;
  }
  return summary;
}

/** Everything the Servers view shows, gathered in parallel. Never throws. */
export async function fetchServerStatus(target: ServerTarget, options?: HealthOptions): Promise<ServerStatus> {
  const health = await fetchHealth(target, options);
  const status: ServerStatus = { health: health.health, generateHealth: health.generateHealth, checkedAt: Date.now() };
  if (health.error) status.lastError = health.error;
  if (health.health === 'unreachable') return status;
  const [models, info] = await Promise.allSettled([fetchModels(target, options), fetchServerInfo(target, options)]);
  if (models.status === 'fulfilled') status.models = models.value.map((m) => m.id);
  else status.lastError ??= (models.reason as Error).message;
  if (info.status === 'fulfilled') {
    const s = summariseServerInfo(info.value);
    if (s.version) status.version = s.version;
    status.backends = s.backends;
  } else if (models.status === 'fulfilled' && models.value[0]?.ownedBy === 'vllm') {
    // vLLM has /server_info only in dev mode; its version is at /version.
    const version = await fetchVllmVersion(target, options);
    if (version) status.version = version;
  } else status.lastError ??= (info.reason as Error).message;
  return status;
}
