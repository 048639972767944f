/** `probe`: one prompt, or the Quick Health Probe's three, sent to a server and judged. */
import { runQuickProbe, worstVerdict } from '../probe/quick';
import { serverWatchText } from '../probe/serverText';
import { runWatchedProbe } from '../probe/watch';
import { fetchModels } from '../probe/server-api';
import type { Endpoint, ProbeResult, ServerTarget, ServerWatch } from '../probe/types';
import { errorMessage } from '../errors';
import { checkText, resolveServer } from './guards';
import { outputObject, REASON, reasonsOut, SERVER_INPUT, VERDICT_KIND } from './schemaParts';
import { ToolError, type ToolDefinition } from './types';

export interface ProbeInput {
  server: string;
  prompt?: string;
  model?: string;
  endpoint?: Endpoint;
  maxTokens?: number;
}

/** How much of each answer comes back: the verdict matters, not the whole text. */
const ANSWER_CHARS = 600;

function item(label: string, prompt: string, r: ProbeResult): Record<string, unknown> {
  const answer = r.content.length > ANSWER_CHARS ? `${r.content.slice(0, ANSWER_CHARS)}…` : r.content;
  return {
    label,
    prompt,
    verdict: r.verdict.kind,
    reasons: reasonsOut(r.verdict),
    onset: r.verdict.onset,
    status: r.status,
    finishReason: r.finishReason,
    matchedStop: r.matchedStop,
    completionTokens: r.completionTokens,
    ttftMs: r.ttftMs === null ? null : Math.round(r.ttftMs),
    answer,
    ...(r.error ? { error: `${r.error.kind}: ${r.error.message}` } : {}),
  };
}

export const probeTool: ToolDefinition<ProbeInput> = {
  name: 'probe',
  title: 'Probe an inference server',
  description:
    'Send a prompt to an SGLang or OpenAI-compatible server and judge the answer: ok, degenerate or nan, with the reasons, ' +
    'the offset where the answer goes wrong and how it finished. Without a prompt it runs the Quick Health Probe ' +
    '(a greeting, a small coding task and counting). Read-only: it only generates text.',
  inputSchema: {
    type: 'object',
    properties: {
      server: SERVER_INPUT,
      prompt: { type: 'string', minLength: 1, maxLength: 8000, description: 'The prompt; leave it out for the quick set' },
      model: { type: 'string', minLength: 1, maxLength: 512, description: 'Model name (default: the first one /v1/models lists)' },
      endpoint: { type: 'string', enum: ['chat', 'completions', 'generate'], description: 'Route to use (default chat)' },
      maxTokens: { type: 'integer', minimum: 1, maximum: 4096, description: 'Answer length limit (default 256)' },
    },
    required: ['server'],
    additionalProperties: false,
  },
  outputSchema: outputObject(
    {
      server: { type: 'string' },
      model: { type: ['string', 'null'] },
      mode: { type: 'string', enum: ['prompt', 'quick'] },
      verdict: VERDICT_KIND,
      summary: { type: 'string' },
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            label: { type: 'string' },
            prompt: { type: 'string' },
            verdict: VERDICT_KIND,
            reasons: { type: 'array', items: REASON },
            onset: { type: ['integer', 'null'] },
            status: { type: 'string' },
            finishReason: { type: ['string', 'null'] },
            matchedStop: { type: ['string', 'integer', 'null'] },
            completionTokens: { type: 'integer' },
            ttftMs: { type: ['integer', 'null'] },
            answer: { type: 'string' },
            error: { type: 'string' },
          },
          required: ['label', 'verdict', 'reasons', 'onset', 'status', 'finishReason', 'matchedStop', 'completionTokens', 'answer'],
        },
      },
    },
    ['server', 'model', 'mode', 'verdict', 'summary', 'items'],
  ),
  touchesHost: false,
  changesServer: false,
  async run(input, ctx) {
    const server = resolveServer(ctx, input.server);
    if (input.prompt !== undefined) checkText('The prompt', input.prompt);
    const target: ServerTarget = { baseUrl: server.url, ...(server.apiKey ? { apiKey: server.apiKey } : {}) };
    const endpoint = input.endpoint ?? 'chat';
    let model = input.model;
    if (!model && endpoint !== 'generate') {
      try {
        model = (await fetchModels(target, { signal: ctx.signal }))[0]?.id;
      } catch (error) {
        throw new ToolError('failed', `Could not list the models of ${server.url}: ${errorMessage(error)}`);
      }
    }
    const timeoutMs = Math.max(1000, Math.min(ctx.timeLimitMs, 120_000));
    const maxTokens = input.maxTokens ?? 256;
    const opts = { signal: ctx.signal };
    let items: Record<string, unknown>[];
    let summary: string;
    let verdict;
    let seen: ServerWatch | undefined;
    if (input.prompt !== undefined) {
      ctx.onProgress?.(`probing ${server.url}`);
      const r = await runWatchedProbe(
        target,
        { endpoint, prompt: input.prompt, stream: true, maxTokens, earlyStop: true, timeoutMs, ...(model ? { model } : {}) },
        opts,
      );
      items = [item('Prompt', input.prompt, r)];
      verdict = r.verdict.kind;
      seen = r.server;
      summary =
        r.status === 'error' && verdict === 'ok'
          ? `The probe failed: ${r.error?.message ?? 'error'}`
          : `Verdict ${verdict.toUpperCase()}${r.verdict.reasons.length ? `: ${r.verdict.reasons[0].message}` : ''}`;
    } else {
      ctx.onProgress?.(`running the Quick Health Probe on ${server.url}`);
      const q = await runQuickProbe(target, { endpoint, maxTokens, timeoutMs, ...(model ? { model } : {}) }, opts);
      items = q.items.map((i) => item(i.label, i.prompt, i.result));
      verdict = worstVerdict(q.items.map((i) => i.result.verdict.kind));
      summary = q.summary.message;
      seen = q.server;
    }
    const data = { server: server.url, model: model ?? null, mode: input.prompt !== undefined ? 'prompt' : 'quick', verdict, summary, items };
    const lines = [`${server.name === server.url ? server.url : `${server.name} (${server.url})`}: ${summary}`];
    if (seen) lines.push(`Server: ${serverWatchText(seen)}`);
    for (const i of items) {
      const reasons = (i.reasons as { code: string; kind: string }[]).filter((r) => r.kind !== 'suspect').map((r) => r.code);
      lines.push(
        `- ${String(i.label)}: ${String(i.verdict)}${reasons.length ? ` (${reasons.join(', ')})` : ''}, finish ${String(i.finishReason)}, matched_stop ${JSON.stringify(i.matchedStop)}`,
      );
    }
    return { data, text: lines.join('\n') };
  },
};
