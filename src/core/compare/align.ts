/**
 * Lines two answers to one prompt up and measures how far apart they are: where the text first
 * differs, how many tokens agree, how much the top-K lists overlap and how far the chosen tokens'
 * logprobs are apart before the split. Pure functions over what the servers sent.
 *
 * Two servers can run different tokenizers (another checkpoint revision, another engine), so
 * tokens are first compared position by position, and when their texts stop lining up before the
 * texts themselves differ, by their span in the concatenated text instead.
 */
import type { Alignment, AnswerTokens, Divergence, NonFiniteCount, TokenLogprob } from './types';

/** How close (nats) the other side's token must be to a side's choice for the split to be a near tie. */
export const NEAR_TIE_NATS = 0.5;

/** First UTF-16 offset where the texts differ; the shorter length when one is a prefix; null when equal. */
export function firstDifference(a: string, b: string): number | null {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n && a.length === b.length) return null;
  // Never split a surrogate pair: point at the character's start.
  if (i > 0 && i < n) {
    const c = a.charCodeAt(i - 1);
    if (c >= 0xd800 && c <= 0xdbff) i--;
  }
  return i;
}

/** Start offset of each token in the concatenated text, plus the total length at the end. */
export function tokenStarts(tokens: readonly { text: string }[]): number[] {
  const starts = new Array<number>(tokens.length + 1);
  let at = 0;
  for (let i = 0; i < tokens.length; i++) {
    starts[i] = at;
    at += tokens[i].text.length;
  }
  starts[tokens.length] = at;
  return starts;
}

/** Index of the token holding character `char` (the token count when `char` is the end). */
export function tokenAt(starts: readonly number[], char: number): number {
  const n = starts.length - 1;
  if (char >= starts[n]) return n;
  let lo = 0;
  let hi = n - 1;
  // The last token starting at or before char; it cannot be empty, since the next one starts after char.
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= char) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function countNonFinite(tokens: readonly TokenLogprob[] | null): NonFiniteCount {
  const c: NonFiniteCount = { nan: 0, posInf: 0, negInf: 0, missing: 0 };
  if (!tokens) return c;
  for (const t of tokens) {
    const lp = t.logprob;
    if (lp === null) c.missing++;
    else if (Number.isNaN(lp)) c.nan++;
    else if (lp === Infinity) c.posInf++;
    else if (lp === -Infinity) c.negInf++;
  }
  return c;
}

export const nonFiniteTotal = (c: NonFiniteCount): number => c.nan + c.posInf + c.negInf + c.missing;

/** Jaccard overlap of the two top-K token sets; null when either list is empty. */
export function topKJaccard(a: readonly { text: string }[], b: readonly { text: string }[]): number | null {
  if (a.length === 0 || b.length === 0) return null;
  const setA = new Set(a.map((t) => t.text));
  const setB = new Set(b.map((t) => t.text));
  let both = 0;
  for (const t of setA) if (setB.has(t)) both++;
  return both / (setA.size + setB.size - both);
}

const finite = (x: number | null): x is number => x !== null && Number.isFinite(x);

/** Whether the other side's choice sat close behind this side's (it almost picked it). */
function closeBehind(chosen: TokenLogprob, other: string, margin: number): boolean | null {
  if (chosen.top.length === 0) return null;
  const alt = chosen.top.find((t) => t.text === other);
  if (!alt || !finite(alt.logprob) || !finite(chosen.logprob)) return false;
  return chosen.logprob - alt.logprob <= margin;
}

function nearTie(a: TokenLogprob | undefined, b: TokenLogprob | undefined, margin: number): boolean | null {
  if (!a || !b) return null; // one side ended: a length difference, not a choice between tokens
  const fromA = closeBehind(a, b.text, margin);
  const fromB = closeBehind(b, a.text, margin);
  if (fromA === null && fromB === null) return null;
  return fromA === true || fromB === true;
}

/** Token pairs (i in A, j in B) with the same start and text, all of them or only those ending by `limit`. */
function spanPairs(a: readonly TokenLogprob[], sa: readonly number[], b: readonly TokenLogprob[], sb: readonly number[], limit: number): [number, number][] {
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (sa[i] === sb[j]) {
      if (a[i].text === b[j].text && sa[i + 1] <= limit) out.push([i, j]);
      i++;
      j++;
    } else if (sa[i] < sb[j]) i++;
    else j++;
  }
  return out;
}

const emptyCount = (): NonFiniteCount => ({ nan: 0, posInf: 0, negInf: 0, missing: 0 });

/** Compares two answers to one prompt. */
export function alignAnswers(a: AnswerTokens, b: AnswerTokens, margin = NEAR_TIE_NATS): Alignment {
  if (!a.tokens || !b.tokens) {
    const char = firstDifference(a.text, b.text);
    return {
      mode: 'text',
      identical: char === null,
      divergence: char === null ? null : { char, tokenA: null, tokenB: null, nearTie: null },
      tokensA: a.tokens?.length ?? null,
      tokensB: b.tokens?.length ?? null,
      common: null,
      agreement: null,
      compared: 0,
      logprobPairs: 0,
      logprobSumAbs: 0,
      logprobMeanAbs: null,
      logprobMax: null,
      topKOverlap: null,
      topKPositions: 0,
      nonFiniteA: a.tokens ? countNonFinite(a.tokens) : emptyCount(),
      nonFiniteB: b.tokens ? countNonFinite(b.tokens) : emptyCount(),
    };
  }
  const ta = a.tokens;
  const tb = b.tokens;
  const sa = tokenStarts(ta);
  const sb = tokenStarts(tb);
  // The texts the tokens spell: what the model produced, whatever the message field held.
  const textA = ta.map((t) => t.text).join('');
  const textB = tb.map((t) => t.text).join('');
  const char = firstDifference(textA, textB);
  const common = Math.min(ta.length, tb.length);
  let positional = 0;
  while (positional < common && ta[positional].text === tb[positional].text) positional++;
  // Same tokenization up to the split: the first differing token is the one holding the first differing character.
  const lined = char === null ? positional === ta.length && positional === tb.length : tokenAt(sa, char) === positional && tokenAt(sb, char) === positional;

  let pairs: [number, number][];
  let agreeing: number;
  let divergence: Divergence | null = null;
  if (lined) {
    pairs = Array.from({ length: positional }, (_, i): [number, number] => [i, i]);
    agreeing = positional;
    for (let i = positional; i < common; i++) if (ta[i].text === tb[i].text) agreeing++;
    if (char !== null) divergence = { char, tokenA: positional, tokenB: positional, nearTie: nearTie(ta[positional], tb[positional], margin) };
  } else {
    pairs = spanPairs(ta, sa, tb, sb, char ?? Infinity);
    agreeing = char === null ? pairs.length : spanPairs(ta, sa, tb, sb, Infinity).length;
    if (char !== null) {
      const ia = tokenAt(sa, char);
      const ib = tokenAt(sb, char);
      // A near tie only means something between tokens that start at the same place.
      const tie = sa[ia] === sb[ib] ? nearTie(ta[ia], tb[ib], margin) : null;
      divergence = { char, tokenA: ia, tokenB: ib, nearTie: tie };
    }
  }

  let logprobPairs = 0;
  let sum = 0;
  let max = 0;
  let compared = 0;
  let overlapSum = 0;
  let topKPositions = 0;
  for (const [i, j] of pairs) {
    const x = ta[i];
    const y = tb[j];
    compared++;
    if (finite(x.logprob) && finite(y.logprob)) {
      const d = Math.abs(x.logprob - y.logprob);
      logprobPairs++;
      sum += d;
      if (d > max) max = d;
    }
    const overlap = topKJaccard(x.top, y.top);
    if (overlap !== null) {
      overlapSum += overlap;
      topKPositions++;
    }
  }
  return {
    mode: lined ? 'tokens' : 'spans',
    identical: char === null,
    divergence,
    tokensA: ta.length,
    tokensB: tb.length,
    common,
    agreement: common === 0 ? (ta.length === tb.length ? 1 : 0) : Math.min(1, agreeing / common),
    compared,
    logprobPairs,
    logprobSumAbs: sum,
    logprobMeanAbs: logprobPairs ? sum / logprobPairs : null,
    logprobMax: logprobPairs ? max : null,
    topKOverlap: topKPositions ? overlapSum / topKPositions : null,
    topKPositions,
    nonFiniteA: countNonFinite(ta),
    nonFiniteB: countNonFinite(tb),
  };
}
