/**
 * Reference-check modes: a model that answers like the healthy one but with its logprobs nudged
 * (numerical kernel drift, optionally flipping the text late), or one whose text leaves the
 * healthy answer early with far-off logprobs (a broken path). Also the top-K alternatives every
 * chat logprob entry carries when the request asks for `top_logprobs`.
 *
 * Everything here is a function of the prompt, the scenario seed and the token texts, so two
 * simulators with the same scenario agree token for token wherever the mode leaves them alone.
 */
import { seededRandom } from '../core/random';
import { EOS_TOKEN_ID, HEALTHY_ANSWERS, hashString, healthyAnswerFor, tokenize, tokenId, type AnswerPlan, type SimToken } from './answers';
import type { ModelBehaviour } from './scenario';

export interface DriftSpec {
  /** perturb: same text, logprobs shifted from token `from`; diverge: other text from token `from`, far logprobs before it. */
  mode: 'perturb' | 'diverge';
  /** First token the mode touches (0-based). */
  from: number;
  /** perturb: the largest shift of a logprob in nats (default 0.03: what another attention kernel gives). */
  amount?: number;
  /** perturb: a near tie flips at this token (plus a seeded 0–15 per prompt): one other token, then the answer goes on. */
  textFrom?: number;
}

/** What is wrong with a scenario's drift spec, or null when nothing is. */
export function driftProblem(value: unknown, where: string): string | null {
  if (value === undefined) return null;
  const count = (n: unknown): boolean => typeof n === 'number' && Number.isInteger(n) && n >= 0;
  const d: { mode?: unknown; from?: unknown; amount?: unknown; textFrom?: unknown } = value !== null && typeof value === 'object' ? value : {};
  if ((d.mode !== 'perturb' && d.mode !== 'diverge') || !count(d.from)) {
    return `${where}.drift needs "mode" (perturb or diverge) and "from" (a token index)`;
  }
  if (d.amount !== undefined && (typeof d.amount !== 'number' || !(d.amount >= 0))) return `${where}.drift.amount must be a number ≥ 0`;
  if (d.textFrom !== undefined && !count(d.textFrom)) return `${where}.drift.textFrom must be a token index`;
  return null;
}

/** Tokens of another healthy answer, from its first token that differs from `avoid`. */
function otherText(prompt: string, seed: number, avoid: string | undefined): string[] {
  const right = HEALTHY_ANSWERS.indexOf(healthyAnswerFor(prompt, seed));
  const other = tokenize(HEALTHY_ANSWERS[(right + 1) % HEALTHY_ANSWERS.length]);
  const start = other.findIndex((t) => t !== avoid);
  return other.slice(Math.max(0, start));
}

/** The plan with the behaviour's drift applied; the plan itself when the behaviour has none. */
export function withDrift(plan: AnswerPlan, behaviour: ModelBehaviour, prompt: string, seed: number, maxTokens: number): AnswerPlan {
  const d = behaviour.drift;
  if (!d) return plan;
  // The same stream for the same prompt, apart from the one the answer itself drew from.
  const rand = seededRandom(hashString(prompt, seed ^ 0x5eed));
  const tokens = [...plan.content];
  const textFrom = d.mode === 'diverge' ? d.from : d.textFrom === undefined ? undefined : d.textFrom + Math.floor(rand() * 16);
  const keep = textFrom !== undefined && textFrom < tokens.length ? textFrom : tokens.length;
  const amount = d.amount ?? 0.03;
  const out: SimToken[] = tokens.slice(0, keep).map((t, i) => {
    if (i < d.from && d.mode === 'perturb') return t;
    if (!Number.isFinite(t.logprob)) return t;
    // perturb: a small shift either way; diverge: a broken path is far off from the first token.
    if (d.mode === 'perturb') return { ...t, logprob: Math.min(-1e-6, t.logprob + (rand() * 2 - 1) * amount) };
    // ... and ranks other candidates behind the same token.
    return { ...t, logprob: t.logprob - 0.6 - rand() * 1.8, altSeed: 1 + i };
  });
  if (keep === tokens.length) return { ...plan, content: out };
  if (d.mode === 'perturb') {
    // A near tie flips: the runner-up is taken, a hair behind where the chosen token was; then the answer goes on.
    const t = tokens[keep];
    const flipped = topAlternatives(t, 2)[1] ?? { token: ' the', logprob: t.logprob };
    out.push({ text: flipped.token, id: tokenId(flipped.token), logprob: Number.isFinite(t.logprob) ? t.logprob - 0.05 : t.logprob });
    for (let i = keep + 1; i < tokens.length; i++) out.push(tokens[i]);
    return { ...plan, content: out };
  }
  // The text leaves the answer here and goes on with another one, up to the token limit.
  const lp = behaviour.logprobs;
  for (const text of otherText(prompt, seed, tokens[keep]?.text)) {
    if (out.length >= maxTokens) break;
    out.push({ text, id: tokenId(text), logprob: lp === 'nan' ? NaN : lp === '-inf' ? -Infinity : -0.8 - rand() * 2.5 });
  }
  const full = out.length >= maxTokens;
  return { ...plan, content: out, completionTokens: out.length, finishReason: full ? 'length' : 'stop', matchedStop: full ? null : EOS_TOKEN_ID };
}

/** Short common tokens the alternatives are drawn from. */
const ALTERNATIVES = [
  ' the',
  ' a',
  ',',
  '.',
  ' and',
  '\n',
  ' is',
  ' to',
  ' of',
  ' in',
  ' that',
  ' it',
  ' for',
  ' with',
  ' on',
  ' as',
  ' this',
  ' are',
  ' or',
  ':',
  ' can',
  ' by',
  ' an',
  ' be',
  ' from',
  ' at',
  ' not',
  ' which',
  ' we',
  ' you',
  ' more',
  ' each',
  '-',
  ' one',
  ' its',
  ' also',
  ' when',
  ' so',
  ' if',
  ' all',
  ' than',
  ' but',
];

export interface TopEntry {
  token: string;
  logprob: number;
}

/**
 * The K most likely tokens at one position, the chosen one first (greedy picks the argmax).
 * The others trail it by seeded gaps and never hold more than the probability mass the chosen
 * token leaves. Non-finite logprobs (NaN logits) make every alternative the same value.
 */
export function topAlternatives(token: SimToken, k: number): TopEntry[] {
  if (k <= 0) return [];
  const out: TopEntry[] = [{ token: token.text, logprob: token.logprob }];
  const lp = token.logprob;
  const rand = seededRandom(hashString(token.text, token.altSeed ?? 0x7f4a));
  // log(1 - p): the mass left for the alternatives; -Infinity when the chosen token has it all.
  const rest = Number.isFinite(lp) ? Math.log1p(-Math.exp(lp)) : lp;
  let at = Math.floor(rand() * ALTERNATIVES.length);
  let gap = 0;
  for (let i = 1; i < k && i <= ALTERNATIVES.length - 1; i++) {
    let text = ALTERNATIVES[at++ % ALTERNATIVES.length];
    if (text === token.text) text = ALTERNATIVES[at++ % ALTERNATIVES.length];
    gap += 0.3 + rand() * 1.5;
    // Halving shares of the rest sum below it, so the distribution stays one.
    out.push({ token: text, logprob: Number.isFinite(lp) ? Math.min(lp - gap, rest - i * Math.LN2) : lp });
  }
  return out;
}
