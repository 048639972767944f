/**
 * `inference-doctor detect FILE.jsonl`: one record in, one verdict line out (one per choice of a
 * saved server response).
 *
 * Input: {"id", "text", "finish_reason"?, "matched_stop"?, "logprobs"?, "tool_calls"?, "prompt"?},
 * or a response as servers send it: an OpenAI-compatible chat completion or completion (every
 * choice; the message's reasoning too), a line of an OpenAI batch output file ({custom_id,
 * response: {body}}), or SGLang's native /generate answer ({text, meta_info}) alone or in a list.
 * logprobs may be an array of numbers/null, OpenAI's {content: [{token, logprob}]}, the legacy
 * completions {tokens: [...], token_logprobs: [...]}, or SGLang's native [[logprob, id, text?]].
 */
import { createDetector } from './detector';
import type { FinishInfo, ReasonCode, StreamDelta, TokenInfo, Verdict, VerdictKind } from './types';
import { errorMessage } from '../errors';

export interface DetectRecordOk {
  id: unknown;
  /** The choice's index, for a response with more than one choice. */
  choice?: number;
  verdict: VerdictKind;
  /** Codes of the reasons that made the verdict. */
  reasons: ReasonCode[];
  /** Codes of suspect reasons (weak evidence that left the verdict alone), when there are any. */
  suspects?: ReasonCode[];
}

export interface DetectRecordError {
  id: unknown;
  choice?: number;
  error: string;
}

export type DetectRecordResult = DetectRecordOk | DetectRecordError;

const NAN_TAG = '\u0000idoc:NaN';
const POS_INF_TAG = '\u0000idoc:+Inf';
const NEG_INF_TAG = '\u0000idoc:-Inf';

/**
 * JSON.parse that also accepts the bare NaN, Infinity and -Infinity literals Python's json module
 * writes (SGLang's logprobs), keeping them as numbers. Throws SyntaxError like JSON.parse.
 */
export function parseJsonLenient(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (first) {
    if (!/NaN|Infinity/.test(text)) throw first;
  }
  let out = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    let tag: string | null = null;
    let len = 0;
    if (text.startsWith('NaN', i)) [tag, len] = [NAN_TAG, 3];
    else if (text.startsWith('-Infinity', i)) [tag, len] = [NEG_INF_TAG, 9];
    else if (text.startsWith('+Infinity', i)) [tag, len] = [POS_INF_TAG, 9];
    else if (text.startsWith('Infinity', i)) [tag, len] = [POS_INF_TAG, 8];
    if (tag) {
      out += text.slice(last, i) + JSON.stringify(tag);
      i += len - 1;
      last = i + 1;
    }
  }
  out += text.slice(last);
  return JSON.parse(out, (_key, value: unknown) => {
    if (value === NAN_TAG) return NaN;
    if (value === POS_INF_TAG) return Infinity;
    if (value === NEG_INF_TAG) return -Infinity;
    return value;
  }) as unknown;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A logprob value as a number, NaN/Infinity strings included; null stays null; undefined = bad. */
function logprobValue(v: unknown): number | null | undefined {
  if (v === null) return null;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const t = v.trim();
    if (/^nan$/i.test(t)) return NaN;
    if (/^[+]?inf(inity)?$/i.test(t)) return Infinity;
    if (/^-inf(inity)?$/i.test(t)) return -Infinity;
    const n = Number(t);
    return t !== '' && !Number.isNaN(n) ? n : undefined;
  }
  return undefined;
}

/** Normalise the accepted logprobs shapes into TokenInfo[]; a string is an error message. */
export function tokensFromLogprobs(lp: unknown): TokenInfo[] | string {
  if (lp === null || lp === undefined) return [];
  if (Array.isArray(lp)) {
    const out: TokenInfo[] = [];
    for (let i = 0; i < lp.length; i++) {
      const item: unknown = lp[i];
      if (Array.isArray(item)) {
        // SGLang native: [logprob, token_id, token_text?]
        const value = logprobValue(item[0]);
        if (value === undefined) return `logprobs[${i}][0] is not a number`;
        const t: TokenInfo = { logprob: value };
        if (typeof item[1] === 'number') t.id = item[1];
        if (typeof item[2] === 'string') t.text = item[2];
        out.push(t);
      } else if (isRecord(item)) {
        const value = logprobValue(item.logprob);
        if (value === undefined) return `logprobs[${i}].logprob is not a number`;
        const t: TokenInfo = { logprob: value };
        if (typeof item.token === 'string') t.text = item.token;
        if (typeof item.id === 'number') t.id = item.id;
        out.push(t);
      } else {
        const value = logprobValue(item);
        if (value === undefined) return `logprobs[${i}] is ${JSON.stringify(item) ?? typeof item}, not a number or null`;
        out.push({ logprob: value });
      }
    }
    return out;
  }
  if (isRecord(lp)) {
    if ('content' in lp) {
      if (lp.content === null) return [];
      if (!Array.isArray(lp.content)) return 'logprobs.content is not an array';
      return tokensFromLogprobs(lp.content);
    }
    if (Array.isArray(lp.token_logprobs)) {
      const values = tokensFromLogprobs(lp.token_logprobs);
      if (typeof values === 'string') return values.replace(/^logprobs/, 'logprobs.token_logprobs');
      const texts: unknown = lp.tokens;
      if (Array.isArray(texts) && texts.length === values.length && texts.every((t) => typeof t === 'string')) {
        values.forEach((v, i) => (v.text = texts[i]));
      }
      return values;
    }
    return 'logprobs is an object without "content" or "token_logprobs"';
  }
  return `logprobs is a ${typeof lp}, expected an array or {content: [...]}`;
}

/** One answer to judge, in the detect record's own field names. */
type Answer = Record<string, unknown> & { choice?: number };
/** What a line holds: answers to judge, or what is wrong with a part of it. */
type Found = { answer: Answer } | { failure: DetectRecordError };

/** SGLang's native finish_reason ({type, matched}) as the record's finish_reason and matched_stop. */
function fromNative(rec: Record<string, unknown>, meta: Record<string, unknown>): Answer {
  const out: Answer = { ...rec, id: rec.id ?? meta.id ?? null, logprobs: rec.logprobs ?? meta.output_token_logprobs };
  // The record's own fields, where it has them, win.
  const fr = meta.finish_reason;
  if (isRecord(fr)) {
    if (fr.type !== undefined) out.finish_reason ??= fr.type;
    if (fr.matched !== undefined) out.matched_stop ??= fr.matched;
  } else if (fr !== undefined) out.finish_reason ??= fr;
  return out;
}

/** One OpenAI-compatible choice (chat message, completion text or stream delta) as a record. */
function fromChoice(id: unknown, choice: unknown, index: number, many: boolean): Found {
  const at = many ? { choice: index } : {};
  if (!isRecord(choice)) return { failure: { id, ...at, error: `choices[${index}] is not an object` } };
  const message = isRecord(choice.message) ? choice.message : isRecord(choice.delta) ? choice.delta : undefined;
  const text = message ? (message.content ?? '') : choice.text;
  const out: Answer = { id, ...at, text, finish_reason: choice.finish_reason, logprobs: choice.logprobs };
  const reasoning = message?.reasoning_content ?? message?.reasoning;
  if (typeof reasoning === 'string') out.reasoning = reasoning;
  // SGLang names the stop it matched matched_stop; vLLM, stop_reason.
  const matched = choice.matched_stop ?? choice.stop_reason;
  if (matched !== undefined) out.matched_stop = matched;
  if (message && Array.isArray(message.tool_calls)) out.tool_calls = message.tool_calls;
  return { answer: out };
}

/** The answers a parsed line holds: the record itself, a response's choices, a list's items. */
function answersOf(rec: unknown): Found[] {
  if (Array.isArray(rec) && rec.length > 0 && rec.every(isRecord)) return rec.flatMap((item) => answersOf(item));
  if (!isRecord(rec)) {
    return [{ failure: { id: null, error: `a record must be a JSON object, got ${rec === null ? 'null' : Array.isArray(rec) ? 'an array' : typeof rec}` } }];
  }
  // A line of an OpenAI batch output file: the response's body, under the request's custom_id.
  if ('custom_id' in rec && 'response' in rec) {
    const id = rec.custom_id ?? rec.id ?? null;
    const body = isRecord(rec.response) ? rec.response.body : undefined;
    if (!isRecord(body)) {
      const why = isRecord(rec.error) && typeof rec.error.message === 'string' ? `: ${rec.error.message}` : '';
      return [{ failure: { id, error: `the batch line has no response body${why}` } }];
    }
    return answersOf({ ...body, id });
  }
  if (typeof rec.text !== 'string' && Array.isArray(rec.choices)) {
    const id = rec.id ?? null;
    if (rec.choices.length === 0) return [{ failure: { id, error: 'the response has no choices' } }];
    const many = rec.choices.length > 1;
    const prompt = typeof rec.prompt === 'string' ? { prompt: rec.prompt } : {};
    return rec.choices.map((c: unknown, i) => {
      const found = fromChoice(id, c, isRecord(c) && typeof c.index === 'number' ? c.index : i, many);
      return 'answer' in found ? { answer: { ...found.answer, ...prompt } } : found;
    });
  }
  if (isRecord(rec.meta_info)) return [{ answer: fromNative(rec, rec.meta_info) }];
  return [{ answer: rec }];
}

/** One answer of a line with its whole verdict (messages and offsets), or what is wrong with it. */
export type JudgedAnswer = { id: unknown; choice?: number; verdict: Verdict } | DetectRecordError;

/**
 * The answers of one JSONL line, judged: one per answer it holds (a response's choices, a list's
 * items). Never throws: a malformed record yields {id, error}. A string is parsed first (Python's
 * NaN/Infinity literals accepted).
 */
export function judgeRecords(record: unknown): JudgedAnswer[] {
  let rec = record;
  if (typeof rec === 'string') {
    try {
      rec = parseJsonLenient(rec);
    } catch (e) {
      return [{ id: null, error: `not valid JSON: ${errorMessage(e)}` }];
    }
  }
  try {
    return answersOf(rec).map((found) => ('answer' in found ? judgeAnswer(found.answer) : found.failure));
  } catch (e) {
    return [{ id: isRecord(rec) ? (rec.id ?? null) : null, error: `internal error: ${errorMessage(e)}` }];
  }
}

/** A verdict as a `detect` output line: the codes of the reasons that made it, suspects apart. */
export function recordResult(id: unknown, choice: number | undefined, v: Verdict): DetectRecordOk {
  const out: DetectRecordOk = {
    id,
    ...(choice !== undefined ? { choice } : {}),
    verdict: v.kind,
    reasons: v.reasons.filter((r) => r.kind !== 'suspect').map((r) => r.code),
  };
  const suspects = v.reasons.filter((r) => r.kind === 'suspect').map((r) => r.code);
  if (suspects.length) out.suspects = suspects;
  return out;
}

/** Verdict lines for one JSONL line (`inference-doctor detect`). */
export function detectRecords(record: unknown): DetectRecordResult[] {
  return judgeRecords(record).map((j) => ('verdict' in j ? recordResult(j.id, j.choice, j.verdict) : j));
}

/** Verdict for one JSONL record: its first answer (see detectRecords). */
export function detectRecord(record: unknown): DetectRecordResult {
  return detectRecords(record)[0];
}

function judgeAnswer(rec: Answer): JudgedAnswer {
  const id = rec.id ?? null;
  const at = rec.choice !== undefined ? { choice: rec.choice } : {};
  const text = rec.text;
  if (typeof text !== 'string') {
    return { id, ...at, error: `"text" must be a string, got ${text === undefined ? 'nothing' : text === null ? 'null' : typeof text}` };
  }
  const finish: FinishInfo = {};
  const fr = rec.finish_reason;
  if (fr !== undefined && fr !== null && typeof fr !== 'string') {
    return { id, ...at, error: `"finish_reason" must be a string or null, got ${typeof fr}` };
  }
  if (typeof fr === 'string') finish.finishReason = fr;
  const ms = rec.matched_stop;
  if (ms !== undefined && ms !== null && typeof ms !== 'string' && typeof ms !== 'number') {
    return { id, ...at, error: `"matched_stop" must be a string, a number or null, got ${typeof ms}` };
  }
  if (ms !== undefined) finish.matchedStop = ms;
  const tc = rec.tool_calls;
  if (Array.isArray(tc)) finish.toolCallCount = tc.length;
  else if (typeof tc === 'number' && Number.isFinite(tc)) finish.toolCallCount = tc;
  const tokens = tokensFromLogprobs(rec.logprobs);
  if (typeof tokens === 'string') return { id, ...at, error: tokens };
  const opts: { token0Text?: string; token0Id?: number; prompt?: string } = {};
  if (typeof rec.token0_text === 'string') opts.token0Text = rec.token0_text;
  if (typeof rec.token0_id === 'number') opts.token0Id = rec.token0_id;
  if (typeof rec.prompt === 'string') opts.prompt = rec.prompt;
  const d = createDetector(opts);
  const delta: StreamDelta = { text };
  if (typeof rec.reasoning === 'string') delta.reasoning = rec.reasoning;
  if (tokens.length) delta.tokens = tokens;
  d.push(delta);
  return { id, ...at, verdict: d.finish(finish) };
}
