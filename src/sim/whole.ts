/** A non-streamed answer: the whole body after the plan's delay, in each route's shape (or broken, as the behaviour says). */
import type { ServerResponse } from 'node:http';
import { stringifyPyJson } from '../core/pyjson';
import type { AnswerPlan, SimToken } from './answers';
import { sleep } from './http';
import type { SimRequest } from './request';
import { chatFinish, chatLogprobs, stopField, completionLogprobs, nativeFinish, nativeMeta, sequence, usage, useParser } from './shapes';
import type { SimState } from './state';

function body(
  sim: SimState,
  r: SimRequest,
  plan: AnswerPlan,
  text: { content: string; reasoning: string },
  tokens: SimToken[],
  n: number,
  started: number,
): unknown {
  if (r.route === 'chat') {
    return {
      id: r.id,
      object: 'chat.completion',
      created: r.created,
      model: r.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text.content, reasoning_content: useParser(sim, r) ? text.reasoning || null : null, tool_calls: null },
          logprobs: r.logprobs ? chatLogprobs(tokens, r.body.top_logprobs) : null,
          ...chatFinish(sim, plan),
        },
      ],
      usage: usage(r, n),
      metadata: { weight_version: 'default' },
    };
  }
  if (r.route === 'completions') {
    return {
      id: r.id,
      object: 'text_completion',
      created: r.created,
      model: r.model,
      choices: [
        {
          index: 0,
          text: text.content,
          logprobs: r.logprobs ? completionLogprobs(tokens, 0) : null,
          finish_reason: plan.finishReason,
          ...stopField(sim, plan.matchedStop),
        },
      ],
      usage: usage(r, n),
      metadata: { weight_version: 'default' },
    };
  }
  return { text: text.content, meta_info: nativeMeta(r, n, nativeFinish(plan, n), r.logprobs ? tokens : null, started) };
}

export async function answerWhole(sim: SimState, res: ServerResponse, r: SimRequest, plan: AnswerPlan): Promise<void> {
  const started = performance.now();
  const b = r.behaviour;
  const text = { content: '', reasoning: '' };
  const tokens: SimToken[] = [];
  let n = 0;
  for (const { token, reasoning } of sequence(useParser(sim, r), plan)) {
    if (reasoning) text.reasoning += token.text;
    else text.content += token.text;
    if (r.logprobs) tokens.push(token);
    n++;
  }
  const delay = (b.firstTokenDelayMs ?? 0) + n * (b.tokenDelayMs ?? (b.behaviour === 'slow' ? 200 : 0));
  if (delay > 0) await sleep(delay);
  const out = b.behaviour === 'bad-json' ? 'Internal Server Error (upstream returned no JSON)' : stringifyPyJson(body(sim, r, plan, text, tokens, n, started));
  if (b.behaviour === 'cut') {
    const bytes = Buffer.from(out);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
  res.end(out);
}
