/** The reference check's vocabulary: what one answer holds, how two line up, and what a run concludes. */
import type { ReasonCode, VerdictKind } from '../detect/types';
import type { ProbeErrorKind, ServerTarget } from '../probe/types';

/** One of the K most likely tokens at a position, as the server reported it. */
export interface TopToken {
  text: string;
  /** NaN and ±Infinity stay numbers (the lenient parser keeps them); null when the server sent null. */
  logprob: number | null;
}

/** A generated token with its logprob and the alternatives the server listed (chosen one usually first). */
export interface TokenLogprob {
  text: string;
  logprob: number | null;
  top: TopToken[];
}

/** What is compared of one answer: its text and, when the server sent logprobs, its tokens. */
export interface AnswerTokens {
  text: string;
  tokens: TokenLogprob[] | null;
}

/** Chosen-token logprobs that are not finite numbers, counted apart from the distances. */
export interface NonFiniteCount {
  nan: number;
  posInf: number;
  negInf: number;
  /** null where a number belongs */
  missing: number;
}

export interface Divergence {
  /** UTF-16 offset of the first character where the two texts differ (the shorter text's length when one is a prefix). */
  char: number;
  /** A's token that holds that character (A's token count when A ends there); null without tokens. */
  tokenA: number | null;
  tokenB: number | null;
  /**
   * Each side's token at the split was among the other's top-K and close to its choice: a near
   * tie flipped, which numerical noise does. null when there were no top-K lists to tell.
   */
  nearTie: boolean | null;
}

/**
 * How two answers line up. `tokens`: the same token texts position by position up to the split;
 * `spans`: the tokenizations differ, so tokens are paired by their place in the text (same start,
 * same text); `text`: a side sent no logprobs, only the texts are compared.
 */
export type AlignmentMode = 'tokens' | 'spans' | 'text';

export interface Alignment {
  mode: AlignmentMode;
  identical: boolean;
  divergence: Divergence | null;
  tokensA: number | null;
  tokensB: number | null;
  /** The shorter answer's token count: the length agreement is measured over. */
  common: number | null;
  /** Share of the common length where the two sides have the same token (by position, or by span). */
  agreement: number | null;
  /** Token pairs before the split, each with a logprob on both sides (what the distances use). */
  compared: number;
  /** Pairs whose logprobs are both finite: the distance's population. */
  logprobPairs: number;
  /** Sum of |logprob A − logprob B| over those pairs (so a run can weigh prompts by tokens). */
  logprobSumAbs: number;
  logprobMeanAbs: number | null;
  logprobMax: number | null;
  /** Mean Jaccard overlap of the two top-K token sets over the pairs that carry both lists. */
  topKOverlap: number | null;
  topKPositions: number;
  nonFiniteA: NonFiniteCount;
  nonFiniteB: NonFiniteCount;
}

/** A side of one prompt as reported: the answer, or the request's failure. */
export interface SideReport {
  text: string;
  tokens: number | null;
  finishReason: string | null;
  /**
   * The detector's verdict on this answer alone, and the codes of the reasons that made it. B is
   * always judged; A only where it could be the broken one (B judged bad, an early split, A's own
   * logprobs not numbers), else null: it saves a sixth of the run's CPU. null too for a failed request.
   */
  verdict: VerdictKind | null;
  reasons: ReasonCode[];
  durationMs: number;
  error?: { kind: ProbeErrorKind; message: string; status?: number };
}

export interface PromptComparison {
  index: number;
  prompt: string;
  a: SideReport;
  b: SideReport;
  /** null when a side failed. */
  alignment: Alignment | null;
  /** The text both answers share up to the split, and each one's continuation from it (bounded). */
  prefix?: string;
  continuationA?: string;
  continuationB?: string;
  /** The divergence counts as early (see THRESHOLDS.earlyTokens) and is no near tie. */
  early?: boolean;
  /** Only with CompareOptions.keepLogprobs, and only when a side sent logprobs. */
  logprobs?: LogprobSeries;
}

/** A chosen token's logprob as it survives JSON: non-finite values spelled, null where the server sent none. */
export type PlotLogprob = number | 'NaN' | 'Infinity' | '-Infinity' | null;

/** Each side's chosen-token logprobs from the start (bounded), for a plot. */
export interface LogprobSeries {
  a: PlotLogprob[];
  b: PlotLogprob[];
}

export type CompareVerdict = 'identical' | 'drift' | 'broken' | 'error';

/** The figures the verdict was reached from; all of them land in the result. */
export interface RunNumbers {
  prompts: number;
  /** Prompts both sides answered. */
  compared: number;
  failed: number;
  identical: number;
  diverged: number;
  /** Divergences before THRESHOLDS.earlyTokens that were no near tie. */
  early: number;
  earlyNearTie: number;
  earlyShare: number;
  /** The earliest and the median token index where prompts diverge (A's tokens; estimated from characters without tokens). */
  firstDivergenceToken: number | null;
  medianDivergenceToken: number | null;
  logprobPairs: number;
  logprobMeanAbs: number | null;
  logprobMax: number | null;
  topKOverlap: number | null;
  topKPositions: number;
  nonFiniteA: NonFiniteCount;
  nonFiniteB: NonFiniteCount;
  /** Prompts whose answers were judged nan or degenerate by the detector, per side. */
  badA: number;
  badB: number;
  /** Prompts whose token texts did not line up (compared by text spans). */
  tokenizersDiffer: number;
  /** Prompts where a side sent no logprobs. */
  textOnly: number;
}

export interface RepeatCheck {
  /** The prompt sent twice to each server. */
  prompt: number;
  a: 'same' | 'different' | 'failed';
  b: 'same' | 'different' | 'failed';
}

export interface CompareTarget extends ServerTarget {
  model?: string;
}
