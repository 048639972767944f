/**
 * The run's verdict: `identical`, `drift` (the servers part late and their logprobs stay close:
 * numerics, not a bug) or `broken` (B leaves A early on many prompts, its logprobs are far off or
 * not numbers, or its answers are NaN or degenerate on their own).
 */
import { NEAR_TIE_NATS, nonFiniteTotal } from './align';
import type { CompareVerdict, NonFiniteCount, PromptComparison, RunNumbers, SideReport } from './types';

/**
 * Why these numbers:
 * - earlyTokens 16: greedy decoding on prompts with one obvious answer starts with confident
 *   tokens; kernel noise (another attention backend, reduction order, TF32 vs BF16 accumulation)
 *   moves logprobs by hundredths of a nat and only flips a choice at a near tie, which in such
 *   answers comes after dozens of tokens. A wrong path (bad weights or scales, wrong RoPE, a
 *   kernel that miscomputes) disagrees within the first few tokens.
 * - earlyShare 0.3: one early split can be an honest near tie on the opening word ("Sure" /
 *   "Certainly"); when three prompts in ten split early and none of those is a near tie, the paths
 *   differ. With fewer than four prompts one early split is enough.
 * - nearTieNats 0.5 (align.ts): the other side's token is within a factor e^0.5 ≈ 1.6 of the
 *   chosen one's probability: a coin a small numerical shift can turn.
 * - closeNats 0.1 and farNats 0.5 (mean |Δ logprob| of the shared tokens): drift between healthy
 *   kernels stays around 0.01–0.05 nats; a broken path puts probability elsewhere and the chosen
 *   token's logprob moves by whole nats. Between the two the verdict stays drift, with a note.
 * - lowTopKOverlap 0.5: kernel noise swaps the tail of the top-K list now and then (Jaccard stays
 *   near 0.8–1); below one half the two servers rank different candidates.
 * - minPairs 8: a mean over fewer tokens says little; below it the logprob rules stay quiet.
 */
export const THRESHOLDS = {
  earlyTokens: 16,
  earlyShare: 0.3,
  nearTieNats: NEAR_TIE_NATS,
  closeNats: 0.1,
  farNats: 0.5,
  lowTopKOverlap: 0.5,
  minPairs: 8,
} as const;

/** Characters per token, to place a split when a side sent no tokens. */
const CHARS_PER_TOKEN = 4;

/** Judged NaN or degenerate (an unjudged or failed side is not). */
const bad = (s: SideReport): boolean => s.verdict === 'nan' || s.verdict === 'degenerate';

const zero = (): NonFiniteCount => ({ nan: 0, posInf: 0, negInf: 0, missing: 0 });

function add(into: NonFiniteCount, c: NonFiniteCount): void {
  into.nan += c.nan;
  into.posInf += c.posInf;
  into.negInf += c.negInf;
  into.missing += c.missing;
}

/** Where a prompt's answers part, in A's tokens (estimated from characters without tokens). */
export function divergenceToken(row: PromptComparison): number | null {
  const d = row.alignment?.divergence;
  if (!d) return null;
  return d.tokenA ?? Math.floor(d.char / CHARS_PER_TOKEN);
}

/** True when the row's split is early and no near tie. */
export function isEarly(row: PromptComparison): boolean {
  const at = divergenceToken(row);
  return at !== null && at < THRESHOLDS.earlyTokens && row.alignment?.divergence?.nearTie !== true;
}

const fmt = (x: number, digits = 3): string => x.toFixed(digits);
const describe = (c: NonFiniteCount): string =>
  [c.nan && `${c.nan} NaN`, c.posInf && `${c.posInf} +Infinity`, c.negInf && `${c.negInf} -Infinity`, c.missing && `${c.missing} null`]
    .filter(Boolean)
    .join(', ');

/** The figures of a run. */
export function runNumbers(rows: readonly PromptComparison[]): RunNumbers {
  const n: RunNumbers = {
    prompts: rows.length,
    compared: 0,
    failed: 0,
    identical: 0,
    diverged: 0,
    early: 0,
    earlyNearTie: 0,
    earlyShare: 0,
    firstDivergenceToken: null,
    medianDivergenceToken: null,
    logprobPairs: 0,
    logprobMeanAbs: null,
    logprobMax: null,
    topKOverlap: null,
    topKPositions: 0,
    nonFiniteA: zero(),
    nonFiniteB: zero(),
    badA: 0,
    badB: 0,
    tokenizersDiffer: 0,
    textOnly: 0,
  };
  let sum = 0;
  let overlap = 0;
  const splits: number[] = [];
  for (const row of rows) {
    if (bad(row.a)) n.badA++;
    if (bad(row.b)) n.badB++;
    const al = row.alignment;
    if (!al) {
      n.failed++;
      continue;
    }
    n.compared++;
    add(n.nonFiniteA, al.nonFiniteA);
    add(n.nonFiniteB, al.nonFiniteB);
    if (al.mode === 'spans') n.tokenizersDiffer++;
    if (al.mode === 'text') n.textOnly++;
    n.logprobPairs += al.logprobPairs;
    sum += al.logprobSumAbs;
    if (al.logprobMax !== null) n.logprobMax = Math.max(n.logprobMax ?? 0, al.logprobMax);
    if (al.topKOverlap !== null) {
      overlap += al.topKOverlap * al.topKPositions;
      n.topKPositions += al.topKPositions;
    }
    if (al.identical) {
      n.identical++;
      continue;
    }
    n.diverged++;
    const at = divergenceToken(row);
    if (at !== null) splits.push(at);
    if (at !== null && at < THRESHOLDS.earlyTokens) {
      if (al.divergence?.nearTie === true) n.earlyNearTie++;
      else n.early++;
    }
  }
  if (n.logprobPairs) n.logprobMeanAbs = sum / n.logprobPairs;
  if (n.topKPositions) n.topKOverlap = overlap / n.topKPositions;
  if (n.compared) n.earlyShare = n.early / n.compared;
  if (splits.length) {
    splits.sort((x, y) => x - y);
    n.firstDivergenceToken = splits[0];
    n.medianDivergenceToken = splits[Math.floor((splits.length - 1) / 2)];
  }
  return n;
}

export interface RunVerdict {
  verdict: CompareVerdict;
  /** Sentences that say why, the deciding ones first. */
  reasons: string[];
  numbers: RunNumbers;
}

/** Prompts needed to call early splits a pattern. */
export function earlyNeeded(compared: number): number {
  return compared < 4 ? 1 : Math.ceil(THRESHOLDS.earlyShare * compared);
}

export function judgeRun(rows: readonly PromptComparison[]): RunVerdict {
  const n = runNumbers(rows);
  const t = THRESHOLDS;
  const broken: string[] = [];
  const nonA = nonFiniteTotal(n.nonFiniteA);
  const nonB = nonFiniteTotal(n.nonFiniteB);
  if (nonB) broken.push(`B's logprobs hold values that are not numbers (${describe(n.nonFiniteB)}): its logits are NaN or overflow.`);
  if (nonA) broken.push(`A (the reference) has logprobs that are not numbers too (${describe(n.nonFiniteA)}): check the reference first.`);
  if (n.badB) {
    const kinds = [...new Set(rows.filter((r) => bad(r.b)).flatMap((r) => r.b.reasons))];
    broken.push(`The detector judges B's answer NaN or degenerate on ${n.badB} of ${n.prompts} prompts (${kinds.join(', ')}).`);
  }
  if (n.badA) broken.push(`The detector judges A's (the reference's) answer NaN or degenerate on ${n.badA} of ${n.prompts} prompts.`);
  if (n.compared && n.early >= earlyNeeded(n.compared)) {
    broken.push(
      `${n.early} of ${n.compared} prompts part before token ${t.earlyTokens} without a near tie (first at token ${n.firstDivergenceToken}): the two servers compute different things.`,
    );
  }
  if (n.logprobMeanAbs !== null && n.logprobPairs >= t.minPairs && n.logprobMeanAbs >= t.farNats) {
    broken.push(
      `The shared tokens' logprobs are far apart: mean |Δ| ${fmt(n.logprobMeanAbs)} nats over ${n.logprobPairs} tokens (drift stays under ${t.closeNats}, broken from ${t.farNats}).`,
    );
  }
  if (n.topKOverlap !== null && n.topKPositions >= t.minPairs && n.topKOverlap < t.lowTopKOverlap) {
    broken.push(`The top-K lists barely overlap: mean Jaccard ${fmt(n.topKOverlap, 2)} over ${n.topKPositions} positions (below ${t.lowTopKOverlap}).`);
  }
  if (broken.length) return { verdict: 'broken', reasons: broken, numbers: n };

  if (n.failed || n.compared === 0) {
    const failures = rows.filter((r) => !r.alignment).map((r) => `prompt ${r.index + 1}: ${(r.a.error ?? r.b.error)?.message ?? 'no answer'}`);
    return { verdict: 'error', reasons: [`${n.failed} of ${n.prompts} prompts got no answer from both servers.`, ...failures.slice(0, 3)], numbers: n };
  }

  const reasons: string[] = [];
  const lp =
    n.logprobMeanAbs === null
      ? 'No logprobs to compare (a server sent none).'
      : `Logprobs of the shared tokens: mean |Δ| ${fmt(n.logprobMeanAbs)} nats, max ${fmt(n.logprobMax ?? 0)}, over ${n.logprobPairs} tokens.`;
  if (n.identical === n.compared) {
    reasons.push(`All ${n.compared} prompts give the same text.`, lp);
  } else {
    const ties = n.earlyNearTie ? `; ${n.earlyNearTie} part early at a near tie` : '';
    const lone = n.early ? `; ${n.early} parts early, too few to call a pattern` : '';
    reasons.push(
      `${n.diverged} of ${n.compared} prompts part, the first at token ${n.firstDivergenceToken} (median ${n.medianDivergenceToken})${ties}${lone}: numerical drift, not a different computation.`,
      lp,
    );
  }
  if (n.logprobMeanAbs !== null && n.logprobMeanAbs >= t.closeNats) {
    reasons.push(`That is more than kernel drift usually gives (under ${t.closeNats} nats): worth a second look at the backends.`);
  }
  if (n.tokenizersDiffer) reasons.push(`On ${n.tokenizersDiffer} prompts the token texts did not line up (another tokenizer?): compared by text spans.`);
  return { verdict: n.identical === n.compared ? 'identical' : 'drift', reasons, numbers: n };
}
