/**
 * Runs one probe against an OpenAI-compatible or native SGLang endpoint, streaming or not, and
 * feeds the detector as text arrives. It never throws for anything the server does: every
 * failure comes back as a ProbeResult with status 'error' and the partial answer kept.
 */
import { createDetector } from '../detect';
import { OK_VERDICT, type DetectorOptions, type FinishInfo, type TokenInfo, type Verdict } from '../detect/types';
import { tryParsePyJson } from '../pyjson';
import { SseDecoder, type SseItem } from '../sse';
import { authHeaders, connectionError, httpError, joinUrl, readTextLimited } from './http';
import { TailBuffer } from './tail';
import { post, type LightResponse } from './transport';
import type { Endpoint, ProbeError, ProbeEvent, ProbeParams, ProbeResult, ProbeStatus, ServerTarget } from './types';

export interface RunProbeOptions {
  signal?: AbortSignal;
  onEvent?: (e: ProbeEvent) => void;
  detectorOptions?: DetectorOptions;
  /** Whole-request limit. Default: 15 minutes, or timeoutMs when that is longer. */
  overallTimeoutMs?: number;
  /** Characters of content (and of reasoning) kept in memory: the tail. Default 256 Ki. */
  maxContentChars?: number;
  /** Largest non-streamed body read, in bytes. Default 128 MiB. */
  maxBodyBytes?: number;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_TOKENS = 512;
export const DEFAULT_MAX_CONTENT_CHARS = 256 * 1024;

const ROUTES: Record<Endpoint, string> = {
  chat: '/v1/chat/completions',
  completions: '/v1/completions',
  generate: '/generate',
};

/** The request body for each endpoint, in the shape SGLang expects. */
export function buildRequestBody(params: ProbeParams): Record<string, unknown> {
  const maxTokens = params.maxTokens ?? DEFAULT_MAX_TOKENS;
  if (params.endpoint === 'generate') {
    const sampling: Record<string, unknown> = { max_new_tokens: maxTokens };
    if (params.temperature !== undefined) sampling.temperature = params.temperature;
    if (params.topP !== undefined) sampling.top_p = params.topP;
    if (params.seed !== undefined) sampling.sampling_seed = params.seed;
    const body: Record<string, unknown> = {
      text: params.systemPrompt ? `${params.systemPrompt}\n\n${params.prompt}` : params.prompt,
      sampling_params: sampling,
      stream: params.stream,
    };
    if (params.logprobs) {
      body.return_logprob = true;
      body.return_text_in_logprobs = true;
    }
    return body;
  }
  const body: Record<string, unknown> = {};
  if (params.model) body.model = params.model;
  if (params.endpoint === 'chat') {
    const messages: { role: string; content: string }[] = [];
    if (params.systemPrompt) messages.push({ role: 'system', content: params.systemPrompt });
    messages.push({ role: 'user', content: params.prompt });
    body.messages = messages;
  } else {
    body.prompt = params.systemPrompt ? `${params.systemPrompt}\n\n${params.prompt}` : params.prompt;
  }
  body.max_tokens = maxTokens;
  if (params.temperature !== undefined) body.temperature = params.temperature;
  if (params.topP !== undefined) body.top_p = params.topP;
  if (params.seed !== undefined) body.seed = params.seed;
  if (params.logprobs) body.logprobs = params.endpoint === 'chat' ? true : 1;
  body.stream = params.stream;
  if (params.stream) body.stream_options = { include_usage: true };
  return body;
}

type AbortWhy = 'cancelled' | 'idle' | 'overall' | 'early';
type Detector = ReturnType<typeof createDetector>;

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function errorText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isObj(value) && typeof value.message === 'string') return value.message;
  return JSON.stringify(value);
}

/** Accumulates one answer: bounded content, detector, counters, events. */
class Answer {
  readonly content: TailBuffer;
  readonly reasoning: TailBuffer;
  readonly detector: Detector;
  verdict: Verdict = OK_VERDICT;
  finishReason: string | null = null;
  matchedStop: string | number | null = null;
  finished = false;
  usageTokens: number | null = null;
  deltaCount = 0;
  chunkCount = 0;
  firstByteAt: number | null = null;
  toolCallIds = new Set<number>();
  // native /generate cumulative text tracking
  nativeMode: 'unknown' | 'cumulative' | 'incremental' = 'unknown';
  nativeLength = 0;
  nativeTokensSeen = 0;
  private pendingText = '';
  private pendingReasoning = '';
  private pendingTokens: TokenInfo[] | null = null;

  constructor(
    limit: number,
    detectorOptions: DetectorOptions | undefined,
    private readonly emit: ((e: ProbeEvent) => void) | undefined,
    private readonly now: () => number,
    private readonly earlyStop: boolean,
    private readonly onDegenerate: () => void,
  ) {
    this.content = new TailBuffer(limit);
    this.reasoning = new TailBuffer(limit);
    this.detector = createDetector(detectorOptions);
  }

  add(text: string | undefined | null, reasoning: string | undefined | null, tokens: TokenInfo[] | undefined): void {
    const hasText = typeof text === 'string' && text.length > 0;
    const hasReasoning = typeof reasoning === 'string' && reasoning.length > 0;
    if (!hasText && !hasReasoning && !tokens?.length) return;
    if ((hasText || hasReasoning) && this.firstByteAt === null) this.firstByteAt = this.now();
    if (hasText || hasReasoning) this.deltaCount++;
    if (hasText) this.content.append(text);
    if (hasReasoning) this.reasoning.append(reasoning);
    if (this.emit && (hasText || hasReasoning)) {
      this.emit({ type: 'delta', ...(hasText ? { content: text } : {}), ...(hasReasoning ? { reasoning } : {}), at: this.now() });
    }
    // The detector gets one batch per network read (see flush): same verdicts, fewer calls.
    if (hasText) this.pendingText = this.pendingText ? this.pendingText + text : text;
    if (hasReasoning) this.pendingReasoning = this.pendingReasoning ? this.pendingReasoning + reasoning : reasoning;
    if (tokens?.length) {
      if (this.pendingTokens) for (const t of tokens) this.pendingTokens.push(t);
      else this.pendingTokens = tokens.slice();
    }
  }

  /** Hands what arrived since the last flush to the detector; may trigger the early stop. */
  flush(): void {
    if (!this.pendingText && !this.pendingReasoning && !this.pendingTokens) return;
    const delta: { text?: string; reasoning?: string; tokens?: TokenInfo[] } = {};
    if (this.pendingText) delta.text = this.pendingText;
    if (this.pendingReasoning) delta.reasoning = this.pendingReasoning;
    if (this.pendingTokens) delta.tokens = this.pendingTokens;
    this.pendingText = '';
    this.pendingReasoning = '';
    this.pendingTokens = null;
    this.setVerdict(this.detector.push(delta));
    if (this.earlyStop && this.verdict.kind !== 'ok') this.onDegenerate();
  }

  finish(info: FinishInfo): void {
    this.finishReason = info.finishReason ?? null;
    this.matchedStop = info.matchedStop ?? null;
    this.finished = true;
  }

  /** Final verdict: with finish info when the server sent it. */
  conclude(): Verdict {
    this.flush();
    if (this.finished) {
      this.setVerdict(
        this.detector.finish({
          finishReason: this.finishReason,
          matchedStop: this.matchedStop,
          ...(this.finishReason === 'tool_calls' ? { toolCallCount: this.toolCallIds.size } : {}),
        }),
      );
    }
    return this.verdict;
  }

  private setVerdict(v: Verdict): void {
    const changed = v.kind !== this.verdict.kind || v.reasons.length !== this.verdict.reasons.length;
    this.verdict = v;
    if (changed && this.emit) this.emit({ type: 'verdict', verdict: v, at: this.now() });
  }
}

function chatTokens(logprobs: unknown): TokenInfo[] | undefined {
  if (!isObj(logprobs) || !Array.isArray(logprobs.content)) return undefined;
  const out: TokenInfo[] = [];
  for (const entry of logprobs.content as unknown[]) {
    if (!isObj(entry)) continue;
    const t: TokenInfo = { logprob: typeof entry.logprob === 'number' ? entry.logprob : null };
    if (typeof entry.token === 'string') t.text = entry.token;
    if (typeof entry.token_id === 'number') t.id = entry.token_id;
    out.push(t);
  }
  return out;
}

function completionTokens(logprobs: unknown): TokenInfo[] | undefined {
  if (!isObj(logprobs) || !Array.isArray(logprobs.token_logprobs)) return undefined;
  const lps = logprobs.token_logprobs as unknown[];
  const texts = Array.isArray(logprobs.tokens) ? (logprobs.tokens as unknown[]) : [];
  return lps.map((lp, i) => {
    const t: TokenInfo = { logprob: typeof lp === 'number' ? lp : null };
    const text = texts[i];
    if (typeof text === 'string') t.text = text;
    return t;
  });
}

function nativeTokens(list: unknown[], from: number): TokenInfo[] {
  const out: TokenInfo[] = [];
  for (let i = from; i < list.length; i++) {
    const entry = list[i];
    if (!Array.isArray(entry)) continue;
    const [lp, id, text] = entry as unknown[];
    const t: TokenInfo = { logprob: typeof lp === 'number' ? lp : null };
    if (typeof id === 'number') t.id = id;
    if (typeof text === 'string') t.text = text;
    out.push(t);
  }
  return out;
}

/** Applies one parsed chunk (stream) or whole body (non-stream). Returns an error text for {"error":...}. */
function applyPayload(endpoint: Endpoint, obj: Json, answer: Answer, stream: boolean): string | null {
  if ('error' in obj && obj.error !== null && obj.error !== undefined) return errorText(obj.error);
  if (obj.object === 'error' && typeof obj.message === 'string') return obj.message;
  if (endpoint === 'generate') {
    const text = typeof obj.text === 'string' ? obj.text : '';
    const meta = isObj(obj.meta_info) ? obj.meta_info : {};
    let delta = text;
    if (stream) {
      if (answer.nativeMode === 'unknown' && answer.nativeLength > 0) {
        answer.nativeMode = text.length >= answer.nativeLength && answer.content.endsWith(text.slice(Math.max(0, answer.nativeLength - 64), answer.nativeLength)) ? 'cumulative' : 'incremental';
      }
      if (answer.nativeMode !== 'incremental') {
        delta = text.length >= answer.nativeLength ? text.slice(answer.nativeLength) : '';
        answer.nativeLength = Math.max(answer.nativeLength, text.length);
      } else {
        answer.nativeLength += text.length;
      }
    }
    let tokens: TokenInfo[] | undefined;
    if (Array.isArray(meta.output_token_logprobs)) {
      const list = meta.output_token_logprobs as unknown[];
      const from = stream && answer.nativeMode !== 'incremental' ? Math.min(answer.nativeTokensSeen, list.length) : 0;
      tokens = nativeTokens(list, from);
      answer.nativeTokensSeen = answer.nativeMode === 'incremental' ? answer.nativeTokensSeen + list.length : list.length;
    }
    answer.add(delta, undefined, tokens);
    if (typeof meta.completion_tokens === 'number') answer.usageTokens = meta.completion_tokens;
    const fr = meta.finish_reason;
    if (isObj(fr)) {
      const matched = fr.matched;
      answer.finish({
        finishReason: typeof fr.type === 'string' ? fr.type : null,
        matchedStop: typeof matched === 'string' || typeof matched === 'number' ? matched : null,
      });
    } else if (typeof fr === 'string') {
      answer.finish({ finishReason: fr, matchedStop: null });
    }
    return null;
  }
  if (isObj(obj.usage) && typeof obj.usage.completion_tokens === 'number') answer.usageTokens = obj.usage.completion_tokens;
  const choices = obj.choices;
  if (!Array.isArray(choices)) return null;
  const choice = (choices as unknown[]).find((c) => isObj(c) && (c.index === 0 || c.index === undefined)) as Json | undefined;
  if (!choice) return null;
  if (endpoint === 'chat') {
    const part = stream ? choice.delta : choice.message;
    if (isObj(part)) {
      const tools = part.tool_calls;
      if (Array.isArray(tools)) {
        (tools as unknown[]).forEach((t, i) => answer.toolCallIds.add(isObj(t) && typeof t.index === 'number' ? t.index : i));
      }
      answer.add(part.content as string | null, part.reasoning_content as string | null, chatTokens(choice.logprobs));
    }
  } else {
    answer.add(choice.text as string | null, undefined, completionTokens(choice.logprobs));
  }
  if (typeof choice.finish_reason === 'string') {
    const ms = choice.matched_stop;
    answer.finish({ finishReason: choice.finish_reason, matchedStop: typeof ms === 'string' || typeof ms === 'number' ? ms : null });
  }
  return null;
}

function looksLikeAnswer(endpoint: Endpoint, obj: Json): boolean {
  if (endpoint === 'generate') return 'text' in obj || 'meta_info' in obj;
  return Array.isArray(obj.choices);
}

export async function runProbe(target: ServerTarget, params: ProbeParams, opts: RunProbeOptions = {}): Promise<ProbeResult> {
  const started = performance.now();
  const now = (): number => performance.now() - started;
  const emit = opts.onEvent;
  const timeoutMs = params.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const overallMs = opts.overallTimeoutMs ?? Math.max(15 * 60_000, timeoutMs);
  const controller = new AbortController();
  let why: AbortWhy | null = null;
  const abort = (reason: AbortWhy): void => {
    if (why) return;
    why = reason;
    controller.abort();
  };

  const answer = new Answer(
    opts.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS,
    // The detector knows the prompt, so it can tell when the answer repeats it.
    { prompt: params.prompt, ...opts.detectorOptions },
    emit,
    now,
    params.earlyStop === true,
    () => abort('early'),
  );
  let error: ProbeError | undefined;
  let httpStatus: number | undefined;
  let sawDone = false;

  // Idle timer: re-armed lazily from the time of the last byte, so per-chunk cost is one store.
  let lastActivity = performance.now();
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const checkIdle = (): void => {
    const quiet = performance.now() - lastActivity;
    if (quiet >= timeoutMs) abort('idle');
    else idleTimer = setTimeout(checkIdle, timeoutMs - quiet + 1);
  };
  idleTimer = setTimeout(checkIdle, timeoutMs);
  const overallTimer = setTimeout(() => abort('overall'), overallMs);
  const onUserAbort = (): void => abort('cancelled');
  if (opts.signal?.aborted) abort('cancelled');
  else opts.signal?.addEventListener('abort', onUserAbort, { once: true });

  const url = joinUrl(target.baseUrl, ROUTES[params.endpoint]);
  const body = buildRequestBody(params);

  const abortError = (): ProbeError | undefined => {
    switch (why) {
      case 'cancelled':
        return { kind: 'cancelled', message: 'Stopped by the user.' };
      case 'idle':
        return { kind: 'timeout', message: `The server sent nothing for ${(timeoutMs / 1000).toFixed(timeoutMs < 10_000 ? 1 : 0)} s (timeout). It may be hung, overloaded or still loading: check its logs.` };
      case 'overall':
        return { kind: 'timeout', message: `The request took longer than ${Math.round(overallMs / 1000)} s in all and was stopped. Lower max tokens or raise the time limit.` };
      default:
        return undefined; // early stop or a normal end: not an error
    }
  };

  try {
    if (why) throw new Error('aborted before start');
    emit?.({ type: 'request', url, body, at: now() });
    let response: LightResponse;
    try {
      response = await post(
        url,
        { 'content-type': 'application/json', accept: params.stream ? 'text/event-stream' : 'application/json', ...authHeaders(target) },
        JSON.stringify(body),
        controller.signal,
      );
    } catch (e) {
      if (!why) error = connectionError(e, url);
      throw e;
    }
    lastActivity = performance.now();
    httpStatus = response.status;
    emit?.({ type: 'response', status: response.status, at: now() });
    const contentType = response.headers.get('content-type') ?? '';

    if (!response.ok) {
      const text = await readTextLimited(response);
      error = httpError(response.status, response.statusText, text, contentType, !!target.apiKey);
      throw new Error('http');
    }
    if (!response.body) {
      error = { kind: 'protocol', message: 'The server answered with an empty body.' };
      throw new Error('protocol');
    }

    const reader = response.body.getReader();
    const streamBody = params.stream && !/application\/json/i.test(contentType);
    if (streamBody) {
      let stop = false;
      const onItem = (item: SseItem): void => {
        if (stop) return;
        if (item.type === 'done') {
          sawDone = true;
          stop = true;
          return;
        }
        if (item.type === 'overflow') {
          error = { kind: 'protocol', message: item.message };
          stop = true;
          return;
        }
        answer.chunkCount++;
        if (emit) emit({ type: 'chunk', raw: item.data, at: now() });
        const parsed = tryParsePyJson(item.data);
        if (!parsed.ok || !isObj(parsed.value)) {
          const snippet = item.data.slice(0, 200);
          error = item.type === 'truncated'
            ? { kind: 'cut', message: 'The stream was cut in the middle of a chunk: the connection dropped before the answer finished. Check the server logs for a crash.', bodySnippet: snippet }
            : { kind: 'protocol', message: `The server sent a data: line that is not JSON: "${snippet}". A proxy may be rewriting the stream.`, bodySnippet: snippet };
          stop = true;
          return;
        }
        const serverError = applyPayload(params.endpoint, parsed.value, answer, true);
        if (serverError !== null) {
          error = { kind: 'server', message: `The server reported an error in the middle of the answer: ${serverError}`, bodySnippet: item.data.slice(0, 500) };
          stop = true;
        }
      };
      const decoder = new SseDecoder(onItem);
      let ended = false;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            ended = true;
            break;
          }
          lastActivity = performance.now();
          decoder.push(value);
          answer.flush();
          if (stop || why) break;
        }
      } catch (e) {
        if (!why && !stop) {
          // A half-received event shows up as truncated (and sets a mid-chunk cut error).
          decoder.end();
          error ??= { kind: 'cut', message: `The connection dropped in the middle of the answer (${(e as Error).message || 'terminated'}). The server or a proxy closed it: check the server logs for a crash.` };
        }
      }
      if (ended) decoder.end();
      if (!ended || stop || why) reader.cancel().catch(() => undefined);
      if (!error && !why && !sawDone) {
        error = answer.finished
          ? { kind: 'cut', message: 'The stream ended without data: [DONE] after the finish chunk. The answer looks complete, but the server or a proxy closed the stream early.' }
          : { kind: 'cut', message: 'The stream ended before the answer finished (no finish chunk and no data: [DONE]). The server or a proxy closed the connection.' };
      }
    } else {
      const limit = opts.maxBodyBytes ?? 128 * 1024 * 1024;
      const decoder = new TextDecoder();
      const parts: string[] = [];
      let size = 0;
      let complete = false;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            complete = true;
            break;
          }
          lastActivity = performance.now();
          size += value.byteLength;
          if (size > limit) {
            error = { kind: 'protocol', message: `The answer is larger than ${Math.round(limit / 1048576)} MiB; use streaming to probe answers this long.` };
            reader.cancel().catch(() => undefined);
            break;
          }
          parts.push(decoder.decode(value, { stream: true }));
        }
      } catch (e) {
        if (!why) error = { kind: 'cut', message: `The connection dropped while the answer was being sent (${(e as Error).message || 'terminated'}).` };
      }
      if (complete && !error) {
        parts.push(decoder.decode());
        const text = parts.join('');
        parts.length = 0;
        answer.chunkCount = 1;
        emit?.({ type: 'chunk', raw: text.length > 65536 ? `${text.slice(0, 65536)}…` : text, at: now() });
        const parsed = tryParsePyJson(text);
        if (!parsed.ok || !isObj(parsed.value)) {
          error = { kind: 'protocol', message: `The server answered ${response.status} but the body is not JSON: "${text.slice(0, 200)}".`, bodySnippet: text.slice(0, 500) };
        } else {
          const serverError = applyPayload(params.endpoint, parsed.value, answer, false);
          if (serverError !== null) error = { kind: 'server', message: `The server reported an error: ${serverError}`, bodySnippet: text.slice(0, 500) };
          else if (!looksLikeAnswer(params.endpoint, parsed.value)) {
            error = { kind: 'protocol', message: `The server answered ${response.status} with JSON that is not a ${params.endpoint} response. Is the endpoint right?`, bodySnippet: text.slice(0, 500) };
          }
        }
      }
    }
  } catch {
    // error (or why) already says what happened
  } finally {
    clearTimeout(idleTimer);
    clearTimeout(overallTimer);
    opts.signal?.removeEventListener('abort', onUserAbort);
  }

  const durationMs = now();
  let status: ProbeStatus;
  const aborted = abortError();
  if (why === 'early') {
    status = 'early-stopped';
    error = undefined;
  } else if (why === 'cancelled') {
    status = 'stopped';
    error = aborted;
  } else if (aborted) {
    status = 'error';
    error = aborted;
  } else if (error) {
    status = 'error';
  } else {
    status = 'completed';
  }
  const verdict = why === 'early' ? answer.verdict : answer.conclude();
  const ttftMs = answer.firstByteAt;
  const completionTokens = answer.usageTokens ?? answer.deltaCount;
  const genMs = ttftMs !== null && params.stream ? durationMs - ttftMs : durationMs;
  const result: ProbeResult = {
    status,
    content: answer.content.value(),
    reasoning: answer.reasoning.value(),
    contentDroppedChars: answer.content.dropped,
    totalChars: answer.content.total,
    finishReason: answer.finishReason,
    matchedStop: answer.matchedStop,
    verdict,
    ttftMs,
    durationMs,
    completionTokens,
    tokensPerSecond: completionTokens > 0 && genMs > 0 ? (completionTokens * 1000) / genMs : null,
    chunkCount: answer.chunkCount,
  };
  if (error) result.error = error;
  if (httpStatus !== undefined) result.httpStatus = httpStatus;
  return result;
}
