/**
 * One greedy chat completion with logprobs and top-K alternatives, read whole. Uses the probe's
 * transport and error wording; the body goes through the lenient parser because SGLang writes
 * bare NaN and Infinity into logprobs. Never throws for anything the server does.
 */
import { detect } from '../detect';
import type { TokenInfo, Verdict } from '../detect/types';
import { errorMessage } from '../errors';
import { isObj } from '../probe/answer';
import { authHeaders, connectionError, httpError, joinUrl, readTextLimited } from '../probe/http';
import { post } from '../probe/transport';
import type { ProbeError, ServerTarget } from '../probe/types';
import { tryParsePyJson } from '../pyjson';
import type { TokenLogprob, TopToken } from './types';

export interface GreedyParams {
  prompt: string;
  model?: string;
  maxTokens: number;
  /** Alternatives per token (0: none asked for). */
  topLogprobs: number;
  seed: number;
  timeoutMs: number;
}

export interface GreedyAnswer {
  content: string;
  /** null when the server sent no logprobs. */
  tokens: TokenLogprob[] | null;
  finishReason: string | null;
  matchedStop: string | number | null;
  durationMs: number;
}

export type Greedy = { ok: true; answer: GreedyAnswer } | { ok: false; error: ProbeError; durationMs: number };

/**
 * The UTF-8 `bytes` arrays of every token and alternative: a third of a top-20 body, never read
 * here. Dropped before parsing, which saves that much of the parse. Only structure matches: a
 * quote inside a JSON string is always escaped, so `,"bytes":[` cannot come from a token's text.
 */
const BYTES_FIELD = /,\s*"bytes":\s*\[[\d,\s]*\]/g;

/** Largest body read: top-20 logprobs of a long answer run to a few MiB. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** The request body: temperature 0 and a fixed seed, so a healthy server answers the same way twice. */
export function greedyBody(p: GreedyParams): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (p.model) body.model = p.model;
  body.messages = [{ role: 'user', content: p.prompt }];
  body.max_tokens = p.maxTokens;
  body.temperature = 0;
  body.seed = p.seed;
  body.logprobs = true;
  if (p.topLogprobs > 0) body.top_logprobs = p.topLogprobs;
  body.stream = false;
  return body;
}

const numberOrNull = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/** choices[0].logprobs.content as tokens; null when it is not there. */
export function readTokens(logprobs: unknown): TokenLogprob[] | null {
  if (!isObj(logprobs) || !Array.isArray(logprobs.content)) return null;
  const out: TokenLogprob[] = [];
  for (const entry of logprobs.content as unknown[]) {
    if (!isObj(entry)) continue;
    const top: TopToken[] = [];
    if (Array.isArray(entry.top_logprobs)) {
      for (const t of entry.top_logprobs as unknown[]) {
        if (isObj(t) && typeof t.token === 'string') top.push({ text: t.token, logprob: numberOrNull(t.logprob) });
      }
    }
    out.push({ text: typeof entry.token === 'string' ? entry.token : '', logprob: numberOrNull(entry.logprob), top });
  }
  return out;
}

/** The answer in a parsed body, or what is wrong with the body. */
export function readAnswer(value: unknown, durationMs: number): GreedyAnswer | ProbeError {
  if (!isObj(value)) return { kind: 'protocol', message: 'The server answered with JSON that is not an object.' };
  if (value.error !== undefined && value.error !== null) {
    const e = value.error;
    return { kind: 'server', message: `The server reported an error: ${isObj(e) && typeof e.message === 'string' ? e.message : JSON.stringify(e)}` };
  }
  const choice = Array.isArray(value.choices) ? (value.choices as unknown[]).find(isObj) : undefined;
  if (!choice) return { kind: 'protocol', message: 'The server answered without choices: is this an OpenAI-compatible chat endpoint?' };
  const message = isObj(choice.message) ? choice.message : {};
  const content = typeof message.content === 'string' ? message.content : '';
  const tokens = readTokens(choice.logprobs);
  const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  const ms = choice.matched_stop;
  const matchedStop = typeof ms === 'string' || typeof ms === 'number' ? ms : null;
  return { content, tokens, finishReason, matchedStop, durationMs };
}

/** The detector's verdict on one answer alone: NaN logits and loops show even where the other side is no help. */
export function judgeAnswer(answer: GreedyAnswer, prompt: string): Verdict {
  const tokens: TokenInfo[] | undefined = answer.tokens ?? undefined;
  return detect(answer.content, { finishReason: answer.finishReason, matchedStop: answer.matchedStop }, tokens, { prompt });
}

/** Sends one greedy request; `signal` cancels it, `timeoutMs` bounds it. */
export async function askGreedy(target: ServerTarget, params: GreedyParams, signal?: AbortSignal): Promise<Greedy> {
  const started = performance.now();
  const elapsed = (): number => performance.now() - started;
  const controller = new AbortController();
  let why: 'timeout' | 'cancelled' | null = null;
  const stop = (reason: 'timeout' | 'cancelled'): void => {
    why ??= reason;
    controller.abort();
  };
  const onAbort = (): void => stop('cancelled');
  const timer = setTimeout(() => stop('timeout'), params.timeoutMs);
  if (signal?.aborted) stop('cancelled');
  else signal?.addEventListener('abort', onAbort, { once: true });
  const url = joinUrl(target.baseUrl, '/v1/chat/completions');
  const aborted = (): ProbeError =>
    why === 'timeout'
      ? { kind: 'timeout', message: `No whole answer within ${Math.round(params.timeoutMs / 1000)} s: the server may be hung or overloaded.` }
      : { kind: 'cancelled', message: 'Stopped by the user.' };
  try {
    let response;
    try {
      const headers = { 'content-type': 'application/json', accept: 'application/json', ...authHeaders(target) };
      response = await post(url, headers, JSON.stringify(greedyBody(params)), controller.signal);
    } catch (e) {
      return { ok: false, error: why ? aborted() : connectionError(e, url), durationMs: elapsed() };
    }
    const contentType = response.headers.get('content-type') ?? '';
    if (!response.ok) {
      const text = await readTextLimited(response);
      return { ok: false, error: httpError(response.status, response.statusText, text, contentType, !!target.apiKey), durationMs: elapsed() };
    }
    if (!response.body) return { ok: false, error: { kind: 'protocol', message: 'The server answered with an empty body.' }, durationMs: elapsed() };
    const reader = response.body.getReader();
    const parts: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > MAX_BODY_BYTES) {
          await reader.cancel();
          return { ok: false, error: { kind: 'protocol', message: `The answer is larger than ${MAX_BODY_BYTES / 1048576} MiB.` }, durationMs: elapsed() };
        }
        parts.push(value);
      }
    } catch (e) {
      const error: ProbeError = why
        ? aborted()
        : { kind: 'cut', message: `The connection dropped before the answer was whole (${errorMessage(e) || 'terminated'}).` };
      return { ok: false, error, durationMs: elapsed() };
    }
    const text = Buffer.concat(parts).toString('utf8');
    const parsed = tryParsePyJson(text.replace(BYTES_FIELD, ''));
    if (!parsed.ok) {
      return {
        ok: false,
        error: {
          kind: 'protocol',
          message: `The server answered ${response.status} but the body is not JSON: "${text.slice(0, 200)}".`,
          bodySnippet: text.slice(0, 500),
        },
        durationMs: elapsed(),
      };
    }
    const answer = readAnswer(parsed.value, elapsed());
    return 'kind' in answer ? { ok: false, error: answer, durationMs: elapsed() } : { ok: true, answer };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
