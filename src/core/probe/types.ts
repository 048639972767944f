import type { Verdict } from '../detect/types';

/** Which HTTP route a probe uses. */
export type Endpoint = 'chat' | 'completions' | 'generate';

/** Where to send a probe. The API key travels here, never in persisted state. */
export interface ServerTarget {
  baseUrl: string;
  apiKey?: string;
}

export interface ProbeParams {
  endpoint: Endpoint;
  model?: string;
  systemPrompt?: string;
  prompt: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  /** Ask for per-token logprobs (lets the detector see NaN logprobs and token ids). */
  logprobs?: boolean;
  stream: boolean;
  /** Abort the request as soon as the verdict turns degenerate or nan (saves GPU time). */
  earlyStop?: boolean;
  /** Whole-request limit; also the idle limit between chunks. Default 120 s. */
  timeoutMs?: number;
  /** Ask the server to end a repeating answer itself (vLLM 0.17+: `repetition_detection`, finish_reason "repetition"). */
  repetitionDetection?: boolean;
}

/** What the server said about itself around a probe (engine.ts, watch.ts). */
export interface ServerWatch {
  engine: 'sglang' | 'vllm' | 'unknown';
  version?: string;
  /** The context length /v1/models reports. */
  maxModelLen?: number;
  /** The probe asked the server to detect repetition (vLLM 0.17+). */
  repetitionDetection: boolean;
  /** vLLM's vllm:corrupted_requests before and after the probe; absent unless the server runs with VLLM_COMPUTE_NANS_IN_LOGITS=1. */
  corruptedRequests?: { before: number; after: number };
  /** vLLM's vllm:cache_config_info labels (block_size, cache_dtype, …). */
  cacheConfig?: Record<string, string>;
}

export type ProbeErrorKind =
  | 'unreachable' // connection refused, DNS, reset before a response
  | 'tls' // certificate or handshake problem
  | 'auth' // 401/403
  | 'http' // any other non-2xx
  | 'timeout' // no byte for timeoutMs
  | 'protocol' // 2xx with a body that is not what the route returns
  | 'cut' // stream ended without [DONE] / finish chunk, or mid-chunk
  | 'server' // an {"error":...} object inside a 2xx stream
  | 'cancelled'; // user pressed stop

export interface ProbeError {
  kind: ProbeErrorKind;
  /** Says what happened and what to do. */
  message: string;
  status?: number;
  /** First bytes of the error body, as text (HTML error pages included). */
  bodySnippet?: string;
}

export type ProbeStatus = 'completed' | 'stopped' | 'early-stopped' | 'error';

export interface ProbeResult {
  status: ProbeStatus;
  error?: ProbeError;
  /** The answer, or its tail when it outgrew the memory bound (see contentDroppedChars). */
  content: string;
  reasoning: string;
  /** Characters dropped from the start of content to stay within the memory bound. */
  contentDroppedChars: number;
  totalChars: number;
  finishReason: string | null;
  matchedStop: string | number | null;
  verdict: Verdict;
  httpStatus?: number;
  /** Milliseconds from request start to the first content or reasoning byte. */
  ttftMs: number | null;
  durationMs: number;
  /** From usage when the server sent it, else the number of content deltas. */
  completionTokens: number;
  tokensPerSecond: number | null;
  chunkCount: number;
  /** The engine and its counters, when the probe watched the server (watch.ts). */
  server?: ServerWatch;
}

/** Streamed to observers while a probe runs. `at` is ms since the request started. */
export type ProbeEvent =
  | { type: 'request'; url: string; body: unknown; at: number }
  | { type: 'response'; status: number; at: number }
  | { type: 'chunk'; raw: string; at: number }
  | { type: 'delta'; content?: string; reasoning?: string; at: number }
  | { type: 'verdict'; verdict: Verdict; at: number };
