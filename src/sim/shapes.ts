/** The pieces of SGLang's response bodies: logprobs, usage, native meta_info and finish reasons, token order. */
import type { AnswerPlan, SimToken } from './answers';
import { topAlternatives } from './drift';
import type { SimRequest } from './request';
import type { SimState } from './state';

export interface SeqItem {
  token: SimToken;
  reasoning: boolean;
}

/** True when the server splits reasoning out (reasoning_content) instead of sending <think> inline. */
export const useParser = (sim: SimState, r: SimRequest): boolean => r.route === 'chat' && !!sim.scenario.reasoningParser;

/** Chat logprobs; `topLogprobs` is the request's field: that many alternatives per token (drift.ts), the chosen one first. */
export function chatLogprobs(tokens: SimToken[], topLogprobs?: unknown): unknown {
  const k = typeof topLogprobs === 'number' && Number.isInteger(topLogprobs) ? Math.min(Math.max(topLogprobs, 0), 20) : 0;
  const entry = (t: SimToken): unknown => ({
    token: t.text,
    bytes: [...Buffer.from(t.text)],
    logprob: t.logprob,
    top_logprobs: topAlternatives(t, k).map((a) => ({ token: a.token, bytes: [...Buffer.from(a.token)], logprob: a.logprob })),
  });
  return { content: tokens.map(entry) };
}

export function completionLogprobs(tokens: SimToken[], offset: number): unknown {
  const text_offset: number[] = [];
  let at = offset;
  for (const t of tokens) {
    text_offset.push(at);
    at += t.text.length;
  }
  return { text_offset, token_logprobs: tokens.map((t) => t.logprob), tokens: tokens.map((t) => t.text), top_logprobs: tokens.map(() => null) };
}

export function usage(r: SimRequest, completion: number): Record<string, unknown> {
  const prompt = r.promptTokens + (r.route === 'chat' ? 12 : 0);
  return { prompt_tokens: prompt, total_tokens: prompt + completion, completion_tokens: completion, prompt_tokens_details: null, reasoning_tokens: 0 };
}

export function nativeFinish(plan: AnswerPlan, n: number): unknown {
  return plan.finishReason === 'length' ? { type: 'length', length: n } : { type: 'stop', matched: plan.matchedStop };
}

export function nativeMeta(r: SimRequest, completion: number, finish: unknown, tokens: SimToken[] | null, started: number): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    id: r.id,
    finish_reason: finish,
    prompt_tokens: r.promptTokens,
    weight_version: 'default',
    completion_tokens: completion,
    cached_tokens: 0,
    e2e_latency: (performance.now() - started) / 1000,
  };
  if (tokens) {
    meta.input_token_logprobs = [];
    meta.output_token_logprobs = tokens.map((t) => [t.logprob, t.id, r.body.return_text_in_logprobs === true ? t.text : null]);
  }
  return meta;
}

/** Which stop a choice matched, as each engine names the field: SGLang's matched_stop, vLLM's stop_reason. */
export function stopField(sim: SimState, value: string | number | null): Record<string, string | number | null> {
  return sim.scenario.engine === 'vllm' ? { stop_reason: value } : { matched_stop: value };
}

/** finish_reason + the matched stop as the OpenAI chat layer reports them (tool-call stops lose the marker). */
export function chatFinish(sim: SimState, plan: AnswerPlan): Record<string, string | number | null> {
  if (plan.toolCallStop && plan.finishReason === 'stop') return { finish_reason: 'tool_calls', ...stopField(sim, null) };
  return { finish_reason: plan.finishReason, ...stopField(sim, plan.matchedStop) };
}

/** All tokens of a plan in order: reasoning first (wrapped in <think> unless parsed). */
export function* sequence(parsed: boolean, plan: AnswerPlan): Generator<SeqItem> {
  if (plan.reasoning.length) {
    if (!parsed) yield { token: { text: '<think>\n', id: 151667, logprob: -0.001 }, reasoning: false };
    for (const t of plan.reasoning) yield { token: t, reasoning: parsed };
    if (!parsed) yield { token: { text: '\n</think>\n\n', id: 151668, logprob: -0.001 }, reasoning: false };
  }
  for (const t of plan.content) yield { token: t, reasoning: false };
}
