/**
 * `eval` and `compare`: the accuracy smoke test and the reference check as agent tools. Both only
 * generate text on the servers (read-only), bounded by the tool's time limit; results are the
 * numbers the CLI's --json gives, trimmed to what an agent needs.
 */
import { runCompare, type CompareResult } from '../compare';
import { runEval, summarise, type EvalReport, type Suite } from '../eval';
import { resolveServer } from './guards';
import { outputObject, SERVER_INPUT } from './schemaParts';
import type { ToolContext, ToolDefinition } from './types';

export interface EvalToolInput {
  server: string;
  model?: string;
  suite?: Suite;
  n?: number;
  seed?: number;
  concurrency?: number;
}

function target(ctx: ToolContext, server: string): { baseUrl: string; apiKey?: string } {
  const s = resolveServer(ctx, server);
  return { baseUrl: s.url, ...(s.apiKey ? { apiKey: s.apiKey } : {}) };
}

const pct = (x: number | null): string => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);

function evalText(r: EvalReport): string {
  const lines = [
    `${r.url} (${r.model ?? 'default model'}): ${r.suite}, ${r.n} problems, seed ${r.seed}: ${r.status}`,
    `accuracy ${pct(r.accuracy)} (95% interval ${pct(r.interval.low)}–${pct(r.interval.high)}), invalid ${pct(r.invalidRate)}`,
    ...Object.entries(r.byDifficulty).map(([d, s]) => `  ${d}: ${s.correct}/${s.graded} correct`),
  ];
  if (r.judgement) lines.push(`${r.judgement.pass ? 'PASS' : 'FAIL'} (${r.judgement.basis}): ${r.judgement.message}`);
  if (r.failure) lines.push(`stopped: ${r.failure}`);
  for (const a of r.invalidAnswers.slice(0, 3)) lines.push(`invalid (${a.why ?? 'no number'}): ${a.question.slice(0, 80)} → …${a.answerTail.slice(-80)}`);
  return lines.join('\n');
}

export const evalTool: ToolDefinition<EvalToolInput> = {
  name: 'eval',
  title: 'Run an accuracy smoke test',
  description:
    'Ask a server a seeded set of arithmetic or word problems with exact integer answers (greedy) and report accuracy with a 95% interval, ' +
    'invalid answers (NaN or degenerate ones named), accuracy per difficulty and a pass/fail against accuracy floors. ' +
    'Catches answers that read fine but are wrong (a dropped FP8 scale, a MoE routing bug), which no NaN detector sees. Read-only.',
  inputSchema: {
    type: 'object',
    properties: {
      server: SERVER_INPUT,
      model: { type: 'string', minLength: 1, maxLength: 512, description: 'Model name (default: the first one /v1/models lists)' },
      suite: { type: 'string', enum: ['arithmetic', 'word', 'mixed'], description: 'Problem set (default arithmetic)' },
      n: { type: 'integer', minimum: 1, maximum: 500, description: 'How many problems (default 60)' },
      seed: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'Seed of the problem set (default 1)' },
      concurrency: { type: 'integer', minimum: 1, maximum: 64, description: 'Requests in flight (default 8)' },
    },
    required: ['server'],
    additionalProperties: false,
  },
  outputSchema: outputObject(
    {
      url: { type: 'string' },
      status: { type: 'string', enum: ['completed', 'cancelled', 'failed'] },
      pass: { type: ['boolean', 'null'] },
      accuracy: { type: ['number', 'null'] },
      interval: { type: 'object', properties: { low: { type: 'number' }, high: { type: 'number' } } },
      invalidRate: { type: ['number', 'null'] },
      counts: { type: 'object' },
      byDifficulty: { type: 'object' },
      reasons: { type: 'array', items: { type: 'string' } },
      invalidAnswers: { type: 'array', items: { type: 'object' } },
      wrongAnswers: { type: 'array', items: { type: 'object' } },
    },
    ['url', 'status', 'pass', 'accuracy', 'counts', 'reasons'],
  ),
  touchesHost: false,
  changesServer: false,
  async run(input, ctx) {
    const suite = input.suite ?? 'arithmetic';
    const run = await runEval(target(ctx, input.server), {
      suite,
      n: input.n ?? 60,
      seed: input.seed ?? 1,
      concurrency: input.concurrency ?? 8,
      signal: ctx.signal,
      ...(input.model ? { model: input.model } : {}),
      onProgress: (p) => ctx.onProgress?.(`${p.done}/${p.total} answered, ${p.correct} correct`),
    });
    const r = summarise(run);
    const data = {
      url: r.url,
      status: r.status,
      pass: r.judgement ? r.judgement.pass : null,
      accuracy: r.accuracy,
      interval: { low: r.interval.low, high: r.interval.high },
      invalidRate: r.invalidRate,
      counts: { ...r.counts },
      byDifficulty: r.byDifficulty,
      reasons: r.judgement ? [r.judgement.message] : r.failure ? [r.failure] : [],
      invalidAnswers: r.invalidAnswers.slice(0, 5),
      wrongAnswers: r.wrongAnswers.slice(0, 5),
    };
    return { data, text: evalText(r) };
  },
};

export interface CompareToolInput {
  reference: string;
  suspect: string;
  modelReference?: string;
  modelSuspect?: string;
  prompts?: number;
  topLogprobs?: number;
}

function compareText(r: CompareResult): string {
  return [
    `reference ${r.a.url} (${r.a.model ?? 'default'}) vs suspect ${r.b.url} (${r.b.model ?? 'default'}): ${r.verdict.toUpperCase()}`,
    ...r.reasons.map((x) => `- ${x}`),
    ...r.notes.map((x) => `note: ${x}`),
  ].join('\n');
}

export const compareTool: ToolDefinition<CompareToolInput> = {
  name: 'compare',
  title: 'Compare a server with a known-good one',
  description:
    'Send the same greedy prompts with top-K logprobs to a known-good reference server and a suspect one, and say whether the suspect is ' +
    '`identical`, drifts numerically (`drift`: late divergence, close logprobs) or computes something else (`broken`: early divergence, ' +
    "far or NaN logprobs), with the numbers and each prompt's first divergence. Read-only.",
  inputSchema: {
    type: 'object',
    properties: {
      reference: { ...SERVER_INPUT, description: 'The known-good server: a known server name or its URL' },
      suspect: { ...SERVER_INPUT, description: 'The server under suspicion: a known server name or its URL' },
      modelReference: { type: 'string', minLength: 1, maxLength: 512 },
      modelSuspect: { type: 'string', minLength: 1, maxLength: 512 },
      prompts: { type: 'integer', minimum: 1, maximum: 50, description: 'How many built-in prompts (default 8)' },
      topLogprobs: { type: 'integer', minimum: 0, maximum: 20, description: 'Alternatives per token (default 5)' },
    },
    required: ['reference', 'suspect'],
    additionalProperties: false,
  },
  outputSchema: outputObject(
    {
      verdict: { type: 'string', enum: ['identical', 'drift', 'broken', 'error'] },
      reasons: { type: 'array', items: { type: 'string' } },
      notes: { type: 'array', items: { type: 'string' } },
      numbers: { type: 'object' },
      prompts: { type: 'array', items: { type: 'object' } },
      cancelled: { type: 'boolean' },
    },
    ['verdict', 'reasons', 'numbers', 'prompts'],
  ),
  touchesHost: false,
  changesServer: false,
  async run(input, ctx) {
    const a = target(ctx, input.reference);
    const b = target(ctx, input.suspect);
    const r = await runCompare({
      a: { ...a, ...(input.modelReference ? { model: input.modelReference } : {}) },
      b: { ...b, ...(input.modelSuspect ? { model: input.modelSuspect } : {}) },
      prompts: input.prompts ?? 8,
      ...(input.topLogprobs !== undefined ? { topLogprobs: input.topLogprobs } : {}),
      signal: ctx.signal,
      onPrompt: (row) => ctx.onProgress?.(`prompt ${row.index + 1} compared`),
    });
    const prompts = r.prompts.map((p) => ({
      index: p.index,
      prompt: p.prompt.slice(0, 200),
      identical: p.alignment?.identical ?? false,
      early: p.early ?? false,
      divergence: p.alignment?.divergence ?? null,
      agreement: p.alignment?.agreement ?? null,
      logprobMeanAbs: p.alignment?.logprobMeanAbs ?? null,
      topKOverlap: p.alignment?.topKOverlap ?? null,
    }));
    return {
      data: {
        verdict: r.verdict,
        reasons: r.reasons,
        notes: r.notes,
        numbers: r.numbers,
        prompts,
        cancelled: r.cancelled,
      },
      text: compareText(r),
    };
  },
};
