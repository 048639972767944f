/**
 * One answer as it arrives: the bounded content and reasoning, the detector fed once per network
 * read, finish info and counters, and how each endpoint's JSON (chunk or whole body) adds to it.
 */
import { createDetector } from '../detect';
import { OK_VERDICT, type DetectorOptions, type FinishInfo, type TokenInfo, type Verdict } from '../detect/types';
import { TailBuffer } from './tail';
import type { Endpoint, ProbeEvent } from './types';

type Detector = ReturnType<typeof createDetector>;

export type Json = Record<string, unknown>;
export const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function errorText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isObj(value) && typeof value.message === 'string') return value.message;
  return JSON.stringify(value);
}

/** Accumulates one answer: bounded content, detector, counters, events. */
export class Answer {
  readonly content: TailBuffer;
  readonly reasoning: TailBuffer;
  readonly detector: Detector;
  verdict: Verdict = OK_VERDICT;
  finishReason: string | null = null;
  matchedStop: string | number | null = null;
  finished = false;
  usageTokens: number | null = null;
  deltaCount = 0;
  chunkCount = 0;
  firstByteAt: number | null = null;
  toolCallIds = new Set<number>();
  // native /generate cumulative text tracking
  nativeMode: 'unknown' | 'cumulative' | 'incremental' = 'unknown';
  nativeLength = 0;
  nativeTokensSeen = 0;
  private pendingText = '';
  private pendingReasoning = '';
  private pendingTokens: TokenInfo[] | null = null;

  constructor(
    limit: number,
    detectorOptions: DetectorOptions | undefined,
    private readonly emit: ((e: ProbeEvent) => void) | undefined,
    private readonly now: () => number,
    private readonly earlyStop: boolean,
    private readonly onDegenerate: () => void,
  ) {
    this.content = new TailBuffer(limit);
    this.reasoning = new TailBuffer(limit);
    this.detector = createDetector(detectorOptions);
  }

  add(text: string | undefined | null, reasoning: string | undefined | null, tokens: TokenInfo[] | undefined): void {
    const hasText = typeof text === 'string' && text.length > 0;
    const hasReasoning = typeof reasoning === 'string' && reasoning.length > 0;
    if (!hasText && !hasReasoning && !tokens?.length) return;
    if ((hasText || hasReasoning) && this.firstByteAt === null) this.firstByteAt = this.now();
    if (hasText || hasReasoning) this.deltaCount++;
    if (hasText) this.content.append(text);
    if (hasReasoning) this.reasoning.append(reasoning);
    if (this.emit && (hasText || hasReasoning)) {
      this.emit({ type: 'delta', ...(hasText ? { content: text } : {}), ...(hasReasoning ? { reasoning } : {}), at: this.now() });
    }
    // The detector gets one batch per network read (see flush): same verdicts, fewer calls.
    if (hasText) this.pendingText = this.pendingText ? this.pendingText + text : text;
    if (hasReasoning) this.pendingReasoning = this.pendingReasoning ? this.pendingReasoning + reasoning : reasoning;
    if (tokens?.length) {
      if (this.pendingTokens) for (const t of tokens) this.pendingTokens.push(t);
      else this.pendingTokens = tokens.slice();
    }
  }

  /** Hands what arrived since the last flush to the detector; may trigger the early stop. */
  flush(): void {
    if (!this.pendingText && !this.pendingReasoning && !this.pendingTokens) return;
    const delta: { text?: string; reasoning?: string; tokens?: TokenInfo[] } = {};
    if (this.pendingText) delta.text = this.pendingText;
    if (this.pendingReasoning) delta.reasoning = this.pendingReasoning;
    if (this.pendingTokens) delta.tokens = this.pendingTokens;
    this.pendingText = '';
    this.pendingReasoning = '';
    this.pendingTokens = null;
    this.setVerdict(this.detector.push(delta));
    if (this.earlyStop && this.verdict.kind !== 'ok') this.onDegenerate();
  }

  finish(info: FinishInfo): void {
    this.finishReason = info.finishReason ?? null;
    this.matchedStop = info.matchedStop ?? null;
    this.finished = true;
  }

  /** Final verdict: with finish info when the server sent it. */
  conclude(): Verdict {
    this.flush();
    if (this.finished) {
      this.setVerdict(
        this.detector.finish({
          finishReason: this.finishReason,
          matchedStop: this.matchedStop,
          ...(this.finishReason === 'tool_calls' ? { toolCallCount: this.toolCallIds.size } : {}),
        }),
      );
    }
    return this.verdict;
  }

  private setVerdict(v: Verdict): void {
    const changed = v.kind !== this.verdict.kind || v.reasons.length !== this.verdict.reasons.length;
    this.verdict = v;
    if (changed && this.emit) this.emit({ type: 'verdict', verdict: v, at: this.now() });
  }
}

function chatTokens(logprobs: unknown): TokenInfo[] | undefined {
  if (!isObj(logprobs) || !Array.isArray(logprobs.content)) return undefined;
  const out: TokenInfo[] = [];
  for (const entry of logprobs.content as unknown[]) {
    if (!isObj(entry)) continue;
    const t: TokenInfo = { logprob: typeof entry.logprob === 'number' ? entry.logprob : null };
    if (typeof entry.token === 'string') t.text = entry.token;
    if (typeof entry.token_id === 'number') t.id = entry.token_id;
    out.push(t);
  }
  return out;
}

function completionTokens(logprobs: unknown): TokenInfo[] | undefined {
  if (!isObj(logprobs) || !Array.isArray(logprobs.token_logprobs)) return undefined;
  const lps = logprobs.token_logprobs as unknown[];
  const texts = Array.isArray(logprobs.tokens) ? (logprobs.tokens as unknown[]) : [];
  return lps.map((lp, i) => {
    const t: TokenInfo = { logprob: typeof lp === 'number' ? lp : null };
    const text = texts[i];
    if (typeof text === 'string') t.text = text;
    return t;
  });
}

function nativeTokens(list: unknown[], from: number): TokenInfo[] {
  const out: TokenInfo[] = [];
  for (let i = from; i < list.length; i++) {
    const entry = list[i];
    if (!Array.isArray(entry)) continue;
    const [lp, id, text] = entry as unknown[];
    const t: TokenInfo = { logprob: typeof lp === 'number' ? lp : null };
    if (typeof id === 'number') t.id = id;
    if (typeof text === 'string') t.text = text;
    out.push(t);
  }
  return out;
}

/** Applies one parsed chunk (stream) or whole body (non-stream). Returns an error text for {"error":...}. */
export function applyPayload(endpoint: Endpoint, obj: Json, answer: Answer, stream: boolean): string | null {
  if ('error' in obj && obj.error !== null && obj.error !== undefined) return errorText(obj.error);
  if (obj.object === 'error' && typeof obj.message === 'string') return obj.message;
  if (endpoint === 'generate') {
    const text = typeof obj.text === 'string' ? obj.text : '';
    const meta = isObj(obj.meta_info) ? obj.meta_info : {};
    let delta = text;
    if (stream) {
      if (answer.nativeMode === 'unknown' && answer.nativeLength > 0) {
        answer.nativeMode =
          text.length >= answer.nativeLength && answer.content.endsWith(text.slice(Math.max(0, answer.nativeLength - 64), answer.nativeLength))
            ? 'cumulative'
            : 'incremental';
      }
      if (answer.nativeMode !== 'incremental') {
        delta = text.length >= answer.nativeLength ? text.slice(answer.nativeLength) : '';
        answer.nativeLength = Math.max(answer.nativeLength, text.length);
      } else {
        answer.nativeLength += text.length;
      }
    }
    let tokens: TokenInfo[] | undefined;
    if (Array.isArray(meta.output_token_logprobs)) {
      const list = meta.output_token_logprobs as unknown[];
      const from = stream && answer.nativeMode !== 'incremental' ? Math.min(answer.nativeTokensSeen, list.length) : 0;
      tokens = nativeTokens(list, from);
      answer.nativeTokensSeen = answer.nativeMode === 'incremental' ? answer.nativeTokensSeen + list.length : list.length;
    }
    answer.add(delta, undefined, tokens);
    if (typeof meta.completion_tokens === 'number') answer.usageTokens = meta.completion_tokens;
    const fr = meta.finish_reason;
    if (isObj(fr)) {
      const matched = fr.matched;
      answer.finish({
        finishReason: typeof fr.type === 'string' ? fr.type : null,
        matchedStop: typeof matched === 'string' || typeof matched === 'number' ? matched : null,
      });
    } else if (typeof fr === 'string') {
      answer.finish({ finishReason: fr, matchedStop: null });
    }
    return null;
  }
  if (isObj(obj.usage) && typeof obj.usage.completion_tokens === 'number') answer.usageTokens = obj.usage.completion_tokens;
  const choices = obj.choices;
  if (!Array.isArray(choices)) return null;
  const choice = (choices as unknown[]).find((c) => isObj(c) && (c.index === 0 || c.index === undefined)) as Json | undefined;
  if (!choice) return null;
  if (endpoint === 'chat') {
    const part = stream ? choice.delta : choice.message;
    if (isObj(part)) {
      const tools = part.tool_calls;
      if (Array.isArray(tools)) {
        (tools as unknown[]).forEach((t, i) => answer.toolCallIds.add(isObj(t) && typeof t.index === 'number' ? t.index : i));
      }
      answer.add(part.content as string | null, part.reasoning_content as string | null, chatTokens(choice.logprobs));
    }
  } else {
    answer.add(choice.text as string | null, undefined, completionTokens(choice.logprobs));
  }
  if (typeof choice.finish_reason === 'string') {
    const ms = choice.matched_stop;
    answer.finish({ finishReason: choice.finish_reason, matchedStop: typeof ms === 'string' || typeof ms === 'number' ? ms : null });
  }
  return null;
}

export function looksLikeAnswer(endpoint: Endpoint, obj: Json): boolean {
  if (endpoint === 'generate') return 'text' in obj || 'meta_info' in obj;
  return Array.isArray(obj.choices);
}
