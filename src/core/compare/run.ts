/**
 * The reference check: the same greedy prompts to a known-good server (A) and a suspect one (B),
 * a few at a time, each pair lined up (align.ts) and the run judged (verdict.ts). Cancellable;
 * every request has its own time limit; a server that fails is part of the result, never a throw.
 */
import { errorMessage } from '../errors';
import { fetchModels } from '../probe/server-api';
import { alignAnswers } from './align';
import { COMPARE_PROMPTS, promptSet } from './prompts';
import { nonFiniteTotal } from './align';
import { askGreedy, judgeAnswer, type Greedy, type GreedyAnswer, type GreedyParams } from './request';
import type { CompareTarget, CompareVerdict, LogprobSeries, PlotLogprob, PromptComparison, RepeatCheck, RunNumbers, SideReport } from './types';
import { divergenceToken, isEarly, judgeRun, THRESHOLDS } from './verdict';

export interface CompareOptions {
  a: CompareTarget;
  b: CompareTarget;
  /** How many built-in prompts (default: the whole set), or the prompts themselves. */
  prompts?: number | readonly string[];
  /** Alternatives per token (default 5; OpenAI-compatible servers allow up to 20). */
  topLogprobs?: number;
  maxTokens?: number;
  seed?: number;
  /** Prompts in flight at once; each sends to both servers (default 4). */
  concurrency?: number;
  /** Per request (default 120 s). */
  timeoutMs?: number;
  /** Send the first prompt to each server a second time to see whether it repeats itself (default true). */
  repeatCheck?: boolean;
  signal?: AbortSignal;
  /** Keep each side's chosen-token logprobs on the rows (for a plot; the CLI leaves them out). */
  keepLogprobs?: boolean;
  /** Called as each prompt's pair is in (in completion order). */
  onPrompt?: (row: PromptComparison) => void;
}

export interface CompareResult {
  verdict: CompareVerdict;
  reasons: string[];
  /** Remarks that do not change the verdict (a server that does not repeat itself, ...). */
  notes: string[];
  numbers: RunNumbers;
  thresholds: typeof THRESHOLDS;
  a: { url: string; model: string | null };
  b: { url: string; model: string | null };
  settings: { prompts: number; topLogprobs: number; maxTokens: number; seed: number; temperature: 0 };
  repeat: RepeatCheck | null;
  cancelled: boolean;
  prompts: PromptComparison[];
}

export const COMPARE_DEFAULTS = { topLogprobs: 5, maxTokens: 128, seed: 1234, concurrency: 4, timeoutMs: 120_000 } as const;

/** Characters of each continuation kept in a row. */
const CONTINUATION_CHARS = 240;

/** Tokens of each side kept for a plot. */
export const SERIES_TOKENS = 512;

const plotValue = (lp: number | null): PlotLogprob =>
  lp === null ? null : Number.isNaN(lp) ? 'NaN' : lp === Infinity ? 'Infinity' : lp === -Infinity ? '-Infinity' : lp;

/** Each side's chosen-token logprobs (the first SERIES_TOKENS), or undefined when neither sent any. */
export function logprobSeries(a: GreedyAnswer, b: GreedyAnswer): LogprobSeries | undefined {
  if (!a.tokens && !b.tokens) return undefined;
  const of = (x: GreedyAnswer): PlotLogprob[] => (x.tokens ?? []).slice(0, SERIES_TOKENS).map((t) => plotValue(t.logprob));
  return { a: of(a), b: of(b) };
}

function side(g: Greedy): SideReport {
  if (!g.ok) {
    const error: SideReport['error'] = { kind: g.error.kind, message: g.error.message };
    if (g.error.status !== undefined) error.status = g.error.status;
    return { text: '', tokens: null, finishReason: null, verdict: null, reasons: [], durationMs: g.durationMs, error };
  }
  const a = g.answer;
  return { text: a.content, tokens: a.tokens?.length ?? null, finishReason: a.finishReason, verdict: null, reasons: [], durationMs: a.durationMs };
}

function judge(report: SideReport, answer: GreedyAnswer, prompt: string): void {
  const v = judgeAnswer(answer, prompt);
  report.verdict = v.kind;
  report.reasons = v.reasons.filter((r) => r.kind !== 'suspect').map((r) => r.code);
}

/** The text each side's tokens spell (what alignment used), else the message content. */
const spelled = (g: Greedy & { ok: true }): string => (g.answer.tokens ? g.answer.tokens.map((t) => t.text).join('') : g.answer.content);

export function comparePair(index: number, prompt: string, ga: Greedy, gb: Greedy): PromptComparison {
  const row: PromptComparison = { index, prompt, a: side(ga), b: side(gb), alignment: null };
  if (!ga.ok || !gb.ok) return row;
  // With tokens on both sides the alignment reads the text they spell; otherwise the message texts.
  const al = alignAnswers({ text: ga.answer.content, tokens: ga.answer.tokens }, { text: gb.answer.content, tokens: gb.answer.tokens });
  const both = al.mode !== 'text';
  row.alignment = al;
  judge(row.b, gb.answer, prompt);
  const at = divergenceToken(row);
  if (row.b.verdict !== 'ok' || (at !== null && at < THRESHOLDS.earlyTokens) || nonFiniteTotal(al.nonFiniteA) > 0) judge(row.a, ga.answer, prompt);
  if (al.divergence) {
    const ta = both ? spelled(ga) : ga.answer.content;
    const tb = both ? spelled(gb) : gb.answer.content;
    const at = al.divergence.char;
    row.prefix = ta.slice(0, at);
    row.continuationA = ta.slice(at, at + CONTINUATION_CHARS);
    row.continuationB = tb.slice(at, at + CONTINUATION_CHARS);
    row.early = isEarly(row);
  }
  return row;
}

/** Runs `work` over 0..count-1 with at most `limit` at once; stops taking new items once `stopped()`. */
async function pool(count: number, limit: number, stopped: () => boolean, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count && !stopped()) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, count)) }, worker));
}

async function resolveModel(target: CompareTarget, signal: AbortSignal | undefined): Promise<string | null | Error> {
  if (target.model) return target.model;
  try {
    const models = await fetchModels(target, signal ? { signal } : {});
    return models[0]?.id ?? null;
  } catch (error) {
    return error instanceof Error ? error : new Error(errorMessage(error));
  }
}

export async function runCompare(opts: CompareOptions): Promise<CompareResult> {
  const prompts = typeof opts.prompts === 'object' ? [...opts.prompts] : promptSet(opts.prompts ?? COMPARE_PROMPTS.length);
  const topLogprobs = opts.topLogprobs ?? COMPARE_DEFAULTS.topLogprobs;
  const maxTokens = opts.maxTokens ?? COMPARE_DEFAULTS.maxTokens;
  const seed = opts.seed ?? COMPARE_DEFAULTS.seed;
  const timeoutMs = opts.timeoutMs ?? COMPARE_DEFAULTS.timeoutMs;
  const signal = opts.signal;
  const result = (fields: Partial<CompareResult> & Pick<CompareResult, 'verdict' | 'reasons' | 'numbers' | 'prompts'>): CompareResult => ({
    notes: [],
    thresholds: THRESHOLDS,
    a: { url: opts.a.baseUrl, model: opts.a.model ?? null },
    b: { url: opts.b.baseUrl, model: opts.b.model ?? null },
    settings: { prompts: prompts.length, topLogprobs, maxTokens, seed, temperature: 0 },
    repeat: null,
    cancelled: !!signal?.aborted,
    ...fields,
  });

  const [modelA, modelB] = await Promise.all([resolveModel(opts.a, signal), resolveModel(opts.b, signal)]);
  if (modelA instanceof Error || modelB instanceof Error) {
    const reasons = [modelA, modelB].flatMap((m, i) =>
      m instanceof Error ? [`Could not list ${i ? 'B' : 'A'}'s models (pass --model-${i ? 'b' : 'a'} to skip this): ${m.message}`] : [],
    );
    return result({ verdict: 'error', reasons, numbers: judgeRun([]).numbers, prompts: [] });
  }
  const a = { ...opts.a, ...(modelA ? { model: modelA } : {}) };
  const b = { ...opts.b, ...(modelB ? { model: modelB } : {}) };
  const params = (target: CompareTarget, prompt: string): GreedyParams => ({
    prompt,
    ...(target.model ? { model: target.model } : {}),
    maxTokens,
    topLogprobs,
    seed,
    timeoutMs,
  });

  const rows: PromptComparison[] = new Array<PromptComparison>(prompts.length);
  const first: { a?: Greedy; b?: Greedy } = {};
  await pool(
    prompts.length,
    opts.concurrency ?? COMPARE_DEFAULTS.concurrency,
    () => !!signal?.aborted,
    async (i) => {
      const [ga, gb] = await Promise.all([askGreedy(a, params(a, prompts[i]), signal), askGreedy(b, params(b, prompts[i]), signal)]);
      if (i === 0) Object.assign(first, { a: ga, b: gb });
      rows[i] = comparePair(i, prompts[i], ga, gb);
      if (opts.keepLogprobs && ga.ok && gb.ok) {
        const series = logprobSeries(ga.answer, gb.answer);
        if (series) rows[i].logprobs = series;
      }
      opts.onPrompt?.(rows[i]);
    },
  );
  const done = rows.filter(Boolean);

  let repeat: RepeatCheck | null = null;
  const notes: string[] = [];
  if (opts.repeatCheck !== false && !signal?.aborted && first.a && first.b && prompts.length) {
    const [ra, rb] = await Promise.all([askGreedy(a, params(a, prompts[0]), signal), askGreedy(b, params(b, prompts[0]), signal)]);
    const same = (x: Greedy | undefined, y: Greedy): RepeatCheck['a'] =>
      !x?.ok || !y.ok ? 'failed' : x.answer.content === y.answer.content ? 'same' : 'different';
    repeat = { prompt: 0, a: same(first.a, ra), b: same(first.b, rb) };
    for (const [name, said] of [
      ['A', repeat.a],
      ['B', repeat.b],
    ] as const) {
      if (said === 'different') {
        notes.push(
          `${name} answered the first prompt differently when asked again at temperature 0 with the same seed: it ignores the seed or is not deterministic (batching, non-deterministic kernels), so some splits may be its own noise.`,
        );
      }
    }
  }

  const judged = judgeRun(done);
  if (signal?.aborted) {
    return result({
      verdict: judged.verdict === 'broken' ? 'broken' : 'error',
      reasons: [`Stopped after ${done.length} of ${prompts.length} prompts.`, ...(judged.verdict === 'broken' ? judged.reasons : [])],
      numbers: judged.numbers,
      prompts: done,
      a: { url: a.baseUrl, model: a.model ?? null },
      b: { url: b.baseUrl, model: b.model ?? null },
      notes,
      repeat,
      cancelled: true,
    });
  }
  return result({
    ...judged,
    notes,
    repeat,
    prompts: done,
    a: { url: a.baseUrl, model: a.model ?? null },
    b: { url: b.baseUrl, model: b.model ?? null },
  });
}
