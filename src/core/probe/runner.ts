/**
 * Runs one probe against an OpenAI-compatible or native SGLang endpoint, streaming or not, and
 * feeds the detector as text arrives. It never throws for anything the server does: every
 * failure comes back as a ProbeResult with status 'error' and the partial answer kept.
 *
 * The run is a row of phases (send, open the body, read it as a stream or whole); each returns a
 * Phase, so a failure is a value that ends the row, never an exception.
 */
import type { DetectorOptions } from '../detect/types';
import { errorMessage } from '../errors';
import { tryParsePyJson } from '../pyjson';
import { SseDecoder, type SseItem } from '../sse';
import { PROBE_REPETITION_DETECTION } from './engine';
import { Answer, applyPayload, isObj, looksLikeAnswer } from './answer';
import { authHeaders, connectionError, httpError, joinUrl, readTextLimited } from './http';
import { post, type BodyReader, type LightResponse } from './transport';
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
  if (params.repetitionDetection) body.repetition_detection = { ...PROBE_REPETITION_DETECTION };
  body.stream = params.stream;
  if (params.stream) body.stream_options = { include_usage: true };
  return body;
}

type AbortWhy = 'cancelled' | 'idle' | 'overall' | 'early';

/**
 * How one phase ended: with its value, or failed. A failure without an error is an abort (user,
 * timeout, early stop): the run's abort reason says what happened.
 */
type Phase<T = undefined> = { ok: true; value: T } | { ok: false; error?: ProbeError };

const DONE: Phase = { ok: true, value: undefined };
const failed = (error: ProbeError | undefined): { ok: false; error?: ProbeError } => (error ? { ok: false, error } : { ok: false });

/** The clock, the timers and the abort reason of one run. */
class ProbeRun {
  why: AbortWhy | null = null;
  readonly controller = new AbortController();
  /** Time of the last byte; the idle timer reads it lazily, so per-chunk cost is one store. */
  lastActivity = performance.now();
  private readonly started = performance.now();
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly overallTimer: ReturnType<typeof setTimeout>;
  private readonly onUserAbort = (): void => this.abort('cancelled');

  constructor(
    readonly timeoutMs: number,
    readonly overallMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.idleTimer = setTimeout(() => this.checkIdle(), timeoutMs);
    this.overallTimer = setTimeout(() => this.abort('overall'), overallMs);
    if (signal?.aborted) this.abort('cancelled');
    else signal?.addEventListener('abort', this.onUserAbort, { once: true });
  }

  /** Milliseconds since the run started (the `at` of events). */
  now(): number {
    return performance.now() - this.started;
  }

  abort(reason: AbortWhy): void {
    if (this.why) return;
    this.why = reason;
    this.controller.abort();
  }

  touch(): void {
    this.lastActivity = performance.now();
  }

  private checkIdle(): void {
    const quiet = performance.now() - this.lastActivity;
    if (quiet >= this.timeoutMs) this.abort('idle');
    else this.idleTimer = setTimeout(() => this.checkIdle(), this.timeoutMs - quiet + 1);
  }

  /** The error an abort stands for; undefined for an early stop or no abort. */
  abortError(): ProbeError | undefined {
    const { timeoutMs, overallMs } = this;
    switch (this.why) {
      case 'cancelled':
        return { kind: 'cancelled', message: 'Stopped by the user.' };
      case 'idle':
        return {
          kind: 'timeout',
          message: `The server sent nothing for ${(timeoutMs / 1000).toFixed(timeoutMs < 10_000 ? 1 : 0)} s (timeout). It may be hung, overloaded or still loading: check its logs.`,
        };
      case 'overall':
        return {
          kind: 'timeout',
          message: `The request took longer than ${Math.round(overallMs / 1000)} s in all and was stopped. Lower max tokens or raise the time limit.`,
        };
      default:
        return undefined; // early stop or a normal end: not an error
    }
  }

  dispose(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.overallTimer);
    this.signal?.removeEventListener('abort', this.onUserAbort);
  }
}

/** What the phases share. */
interface ProbeContext {
  run: ProbeRun;
  answer: Answer;
  target: ServerTarget;
  params: ProbeParams;
  opts: RunProbeOptions;
  emit: ((e: ProbeEvent) => void) | undefined;
  /** Set once the status line arrives. */
  httpStatus?: number;
}

/** Phase 1: the request, up to the status line and headers. */
async function send(x: ProbeContext, url: string, body: Record<string, unknown>): Promise<Phase<LightResponse>> {
  const { run, params, target } = x;
  x.emit?.({ type: 'request', url, body, at: run.now() });
  try {
    const headers = { 'content-type': 'application/json', accept: params.stream ? 'text/event-stream' : 'application/json', ...authHeaders(target) };
    return { ok: true, value: await post(url, headers, JSON.stringify(body), run.controller.signal) };
  } catch (e) {
    return failed(run.why ? undefined : connectionError(e, url));
  }
}

/** Phase 2: a 2xx answer with a body, else the error the status (and its body) says. */
async function openBody(x: ProbeContext, response: LightResponse, contentType: string): Promise<Phase<BodyReader>> {
  if (!response.ok) {
    const text = await readTextLimited(response);
    return failed(httpError(response.status, response.statusText, text, contentType, !!x.target.apiKey));
  }
  if (!response.body) return failed({ kind: 'protocol', message: 'The server answered with an empty body.' });
  return { ok: true, value: response.body.getReader() };
}

/** What one SSE item does to a stream: go on, end it ([DONE]), or fail it. */
type StreamStep = { kind: 'more' } | { kind: 'done' } | { kind: 'failed'; error: ProbeError };
const MORE: StreamStep = { kind: 'more' };

function streamItem(x: ProbeContext, item: SseItem): StreamStep {
  if (item.type === 'done') return { kind: 'done' };
  if (item.type === 'overflow') return { kind: 'failed', error: { kind: 'protocol', message: item.message } };
  const { answer, emit } = x;
  answer.chunkCount++;
  if (emit) emit({ type: 'chunk', raw: item.data, at: x.run.now() });
  const parsed = tryParsePyJson(item.data);
  if (!parsed.ok || !isObj(parsed.value)) {
    const snippet = item.data.slice(0, 200);
    return {
      kind: 'failed',
      error:
        item.type === 'truncated'
          ? {
              kind: 'cut',
              message: 'The stream was cut in the middle of a chunk: the connection dropped before the answer finished. Check the server logs for a crash.',
              bodySnippet: snippet,
            }
          : {
              kind: 'protocol',
              message: `The server sent a data: line that is not JSON: "${snippet}". A proxy may be rewriting the stream.`,
              bodySnippet: snippet,
            },
    };
  }
  const serverError = applyPayload(x.params.endpoint, parsed.value, answer, true);
  if (serverError === null) return MORE;
  return {
    kind: 'failed',
    error: { kind: 'server', message: `The server reported an error in the middle of the answer: ${serverError}`, bodySnippet: item.data.slice(0, 500) },
  };
}

/** Phase 3a: an SSE stream, item by item, until [DONE], an error, an abort or the end of the body. */
async function readStream(x: ProbeContext, reader: BodyReader): Promise<Phase> {
  const { run, answer } = x;
  let error: ProbeError | undefined;
  let sawDone = false;
  let stop = false;
  const decoder = new SseDecoder((item) => {
    if (stop) return;
    const step = streamItem(x, item);
    if (step.kind === 'more') return;
    stop = true;
    if (step.kind === 'done') sawDone = true;
    else error = step.error;
  });
  let ended = false;
  try {
    for (;;) {
      const { done: end, value } = await reader.read();
      if (end) {
        ended = true;
        break;
      }
      run.touch();
      decoder.push(value);
      answer.flush();
      if (stop || run.why) break;
    }
  } catch (e) {
    if (!run.why && !stop) {
      // A half-received event shows up as truncated (and sets a mid-chunk cut error).
      decoder.end();
      error ??= {
        kind: 'cut',
        message: `The connection dropped in the middle of the answer (${errorMessage(e) || 'terminated'}). The server or a proxy closed it: check the server logs for a crash.`,
      };
    }
  }
  if (ended) decoder.end();
  // After [DONE] only the end of the body is left: reading it keeps the connection for the next
  // request (a new TCP connection per probe costs more CPU than the probe itself). Anything else
  // that stops early, or a reader without release, closes the connection.
  if (sawDone && !ended && !run.why && reader.release) reader.release();
  else if (!ended || stop || run.why) reader.cancel().catch(() => undefined);
  if (!error && !run.why && !sawDone) {
    error = answer.finished
      ? {
          kind: 'cut',
          message:
            'The stream ended without data: [DONE] after the finish chunk. The answer looks complete, but the server or a proxy closed the stream early.',
        }
      : {
          kind: 'cut',
          message: 'The stream ended before the answer finished (no finish chunk and no data: [DONE]). The server or a proxy closed the connection.',
        };
  }
  return error ? failed(error) : DONE;
}

/** Phase 3b, first half: the whole body as text, within the size limit. */
async function collectBody(x: ProbeContext, reader: BodyReader): Promise<Phase<string>> {
  const { run } = x;
  const limit = x.opts.maxBodyBytes ?? 128 * 1024 * 1024;
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done: end, value } = await reader.read();
      if (end) break;
      run.touch();
      size += value.byteLength;
      if (size > limit) {
        reader.cancel().catch(() => undefined);
        return failed({ kind: 'protocol', message: `The answer is larger than ${Math.round(limit / 1048576)} MiB; use streaming to probe answers this long.` });
      }
      parts.push(decoder.decode(value, { stream: true }));
    }
  } catch (e) {
    return failed(
      run.why ? undefined : { kind: 'cut', message: `The connection dropped while the answer was being sent (${errorMessage(e) || 'terminated'}).` },
    );
  }
  parts.push(decoder.decode());
  return { ok: true, value: parts.join('') };
}

/** Phase 3b, second half: the body as one JSON answer of the endpoint. */
function judgeBody(x: ProbeContext, text: string, status: number): Phase {
  const { answer, params } = x;
  answer.chunkCount = 1;
  x.emit?.({ type: 'chunk', raw: text.length > 65536 ? `${text.slice(0, 65536)}…` : text, at: x.run.now() });
  const parsed = tryParsePyJson(text);
  if (!parsed.ok || !isObj(parsed.value)) {
    return failed({
      kind: 'protocol',
      message: `The server answered ${status} but the body is not JSON: "${text.slice(0, 200)}".`,
      bodySnippet: text.slice(0, 500),
    });
  }
  const serverError = applyPayload(params.endpoint, parsed.value, answer, false);
  if (serverError !== null) return failed({ kind: 'server', message: `The server reported an error: ${serverError}`, bodySnippet: text.slice(0, 500) });
  if (!looksLikeAnswer(params.endpoint, parsed.value)) {
    return failed({
      kind: 'protocol',
      message: `The server answered ${status} with JSON that is not a ${params.endpoint} response. Is the endpoint right?`,
      bodySnippet: text.slice(0, 500),
    });
  }
  return DONE;
}

async function readWhole(x: ProbeContext, reader: BodyReader, status: number): Promise<Phase> {
  const body = await collectBody(x, reader);
  return body.ok ? judgeBody(x, body.value, status) : body;
}

/** The phases in order; the first failure ends the row. */
async function exchange(x: ProbeContext): Promise<Phase> {
  const { run, params } = x;
  if (run.why) return failed(undefined); // aborted before the start: no request at all
  const url = joinUrl(x.target.baseUrl, ROUTES[params.endpoint]);
  const sent = await send(x, url, buildRequestBody(params));
  if (!sent.ok) return sent;
  const response = sent.value;
  run.touch();
  x.httpStatus = response.status;
  x.emit?.({ type: 'response', status: response.status, at: run.now() });
  const contentType = response.headers.get('content-type') ?? '';
  const opened = await openBody(x, response, contentType);
  if (!opened.ok) return opened;
  if (params.stream && !/application\/json/i.test(contentType)) return readStream(x, opened.value);
  return readWhole(x, opened.value, response.status);
}

/** vLLM's finish reasons for an answer the engine gave up on: the request failed, whatever arrived. */
const FAILED_FINISH: Readonly<Record<string, string>> = {
  abort: 'The server aborted the request (finish_reason "abort"): the engine stopped it, e.g. while shutting down or after a client timeout. Check its log.',
  error: 'The server failed while generating (finish_reason "error"): check its log for the exception.',
};

/** Status and error from how the exchange ended: an abort outranks what the phases said. */
function outcome(run: ProbeRun, error: ProbeError | undefined, finishReason: string | null): { status: ProbeStatus; error?: ProbeError } {
  if (run.why === 'early') return { status: 'early-stopped' };
  const aborted = run.abortError();
  if (run.why === 'cancelled') return { status: 'stopped', ...(aborted ? { error: aborted } : {}) };
  if (aborted) return { status: 'error', error: aborted };
  if (!error && finishReason && Object.prototype.hasOwnProperty.call(FAILED_FINISH, finishReason)) {
    return { status: 'error', error: { kind: 'server', message: FAILED_FINISH[finishReason] } };
  }
  return error ? { status: 'error', error } : { status: 'completed' };
}

export async function runProbe(target: ServerTarget, params: ProbeParams, opts: RunProbeOptions = {}): Promise<ProbeResult> {
  const timeoutMs = params.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const run = new ProbeRun(timeoutMs, opts.overallTimeoutMs ?? Math.max(15 * 60_000, timeoutMs), opts.signal);
  const emit = opts.onEvent;
  const answer = new Answer(
    opts.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS,
    // The detector knows the prompt, so it can tell when the answer repeats it.
    { prompt: params.prompt, ...opts.detectorOptions },
    emit,
    () => run.now(),
    params.earlyStop === true,
    () => run.abort('early'),
  );
  const x: ProbeContext = { run, answer, target, params, opts, emit };
  let ended: Phase = DONE;
  try {
    ended = await exchange(x);
  } catch {
    // Not the server: an observer's onEvent threw. What arrived is kept, as for any other end.
  } finally {
    run.dispose();
  }

  const durationMs = run.now();
  const { status, error } = outcome(run, ended.ok ? undefined : ended.error, answer.finishReason);
  const verdict = run.why === 'early' ? answer.verdict : answer.conclude();
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
  if (x.httpStatus !== undefined) result.httpStatus = x.httpStatus;
  return result;
}
