/** A generation request as the simulator reads it: validated like SGLang's, with the answer's length and shape. */
import { tokenize } from './answers';
import type { ModelBehaviour } from './scenario';
import { HttpError, type Route } from './http';
import type { SimState } from './state';

export interface SimRequest {
  route: Route;
  body: Record<string, unknown>;
  model: string;
  behaviour: ModelBehaviour;
  prompt: string;
  /** The prompt's length in simulated tokens (counted once: usage and every native chunk report it). */
  promptTokens: number;
  stream: boolean;
  includeUsage: boolean;
  logprobs: boolean;
  maxTokens: number;
  id: string;
  created: number;
}

/** Text of the last user turn (string content or the text parts of an array). */
function lastUserText(messages: unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown } | null;
    if (!m || m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      return m.content.map((p: unknown) => (p && typeof p === 'object' && 'text' in p && typeof p.text === 'string' ? p.text : '')).join(' ');
    }
  }
  return '';
}

/** Prompt, token limit and logprobs as each route spells them; SGLang's validation errors otherwise. */
function routeFields(route: Route, body: Record<string, unknown>): { prompt: string; maxTokens: unknown; logprobs: boolean } {
  if (route === 'chat') {
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      throw new HttpError(
        400,
        "1 validation error:\n  {'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required'}",
        'BadRequestError',
        'messages',
      );
    }
    return { prompt: lastUserText(body.messages), maxTokens: body.max_completion_tokens ?? body.max_tokens, logprobs: body.logprobs === true };
  }
  if (route === 'completions') {
    const p = body.prompt;
    if (typeof p !== 'string' && !Array.isArray(p)) {
      throw new HttpError(400, "1 validation error:\n  {'type': 'missing', 'loc': ('body', 'prompt'), 'msg': 'Field required'}", 'BadRequestError', 'prompt');
    }
    return {
      prompt: typeof p === 'string' ? p : String(p[0] ?? ''),
      maxTokens: body.max_tokens ?? 16,
      logprobs: typeof body.logprobs === 'number' || body.logprobs === true,
    };
  }
  if (typeof body.text !== 'string' && !Array.isArray(body.input_ids)) {
    throw new HttpError(400, 'Either text, input_ids or input_embeds should be provided.', 'BadRequestError');
  }
  const sp = (body.sampling_params ?? {}) as Record<string, unknown>;
  return { prompt: typeof body.text === 'string' ? body.text : '', maxTokens: sp.max_new_tokens ?? 128, logprobs: body.return_logprob === true };
}

export function parseRequest(sim: SimState, route: Route, body: Record<string, unknown>): SimRequest {
  const { prompt, maxTokens, logprobs } = routeFields(route, body);
  if (maxTokens !== undefined && maxTokens !== null && (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 0)) {
    throw new HttpError(400, 'max_tokens must be a non-negative integer', 'BadRequestError', 'max_tokens');
  }
  // Native requests carry no model field in SGLang; the simulator honours one if present.
  const { model, behaviour } = sim.resolveModel(body.model);
  const so = body.stream_options as { include_usage?: unknown } | null | undefined;
  return {
    route,
    body,
    model,
    behaviour,
    prompt,
    promptTokens: tokenize(prompt).length,
    logprobs,
    stream: body.stream === true,
    includeUsage: so?.include_usage === true,
    maxTokens: typeof maxTokens === 'number' ? maxTokens : (behaviour.defaultMaxTokens ?? 256),
    id: sim.nextId(prompt),
    created: Math.floor(Date.now() / 1000),
  };
}
