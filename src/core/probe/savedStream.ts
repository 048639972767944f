/**
 * A streamed answer saved as it came (`curl -N … > answer.sse`: `data: {…}` lines, `data: [DONE]`),
 * judged the way the probe judges a live stream: the same SSE decoder and the same chunk reader
 * (chat, completions or SGLang's native /generate, cumulative or incremental), so a saved stream
 * and a probe of the same answer get the same verdict. The first choice only, as a probe asks
 * for one.
 */
import { tryParsePyJson } from '../pyjson';
import { SseDecoder } from '../sse';
import { emptyCheck, markUnreadable, markVerdict, type AnswerCheck } from '../detect/answerText';
import type { Verdict } from '../detect/types';
import { Answer, applyPayload, isObj, type Json } from './answer';
import type { Endpoint } from './types';

/** Content kept of a saved stream's answer (the detector sees all of it). */
const KEPT_CHARS = 256 * 1024;

export type SavedStreamResult =
  | {
      ok: true;
      verdict: Verdict;
      content: string;
      reasoning: string;
      finishReason: string | null;
      matchedStop: string | number | null;
      chunks: number;
      done: boolean;
    }
  | { ok: false; error: string };

/** Whether a text is a saved SSE stream: its first non-blank line is a `data:` (or `event:`/`id:`) field. */
export function looksLikeSavedStream(text: string): boolean {
  const first = /^[ \t]*\S[^\n]*/m.exec(text)?.[0].trimStart() ?? '';
  return /^(data|event|id):/.test(first);
}

/** Which API a chunk belongs to, from its shape. */
function endpointOf(obj: Json): Endpoint | null {
  if ('meta_info' in obj || (typeof obj.text === 'string' && !('choices' in obj))) return 'generate';
  const choices = obj.choices;
  if (!Array.isArray(choices)) return null;
  const first: unknown = choices[0];
  if (isObj(first) && (isObj(first.delta) || isObj(first.message))) return 'chat';
  if (isObj(first) && 'text' in first) return 'completions';
  return null;
}

/** Judges a saved stream. Never throws: a stream it cannot read gives {ok: false, error}. */
export function judgeSavedStream(text: string): SavedStreamResult {
  const answer = new Answer(
    KEPT_CHARS,
    undefined,
    undefined,
    () => 0,
    false,
    () => undefined,
  );
  let endpoint: Endpoint | null = null;
  let chunks = 0;
  let done = false;
  let error: string | null = null;
  const decoder = new SseDecoder((item) => {
    if (error !== null || done) return;
    if (item.type === 'done') {
      done = true;
      return;
    }
    if (item.type === 'overflow') {
      error = item.message;
      return;
    }
    const parsed = tryParsePyJson(item.data);
    if (!parsed.ok || !isObj(parsed.value)) {
      // A chunk cut at the end of the file is the stream being cut: judge what came before it.
      if (item.type !== 'truncated') error = `data: line ${chunks + 1} is not JSON: ${JSON.stringify(item.data.slice(0, 80))}`;
      return;
    }
    endpoint ??= endpointOf(parsed.value);
    if (endpoint === null) return; // a keep-alive or usage-only chunk before the first answer chunk
    chunks++;
    const serverError = applyPayload(endpoint, parsed.value, answer, true);
    if (serverError !== null) error = `the stream reports an error: ${serverError}`;
    answer.flush();
  });
  decoder.push(text);
  decoder.end();
  if (error !== null) return { ok: false, error };
  if (chunks === 0) return { ok: false, error: 'no chunk of a chat completion, completion or /generate answer in the stream' };
  const verdict = answer.conclude();
  return {
    ok: true,
    verdict,
    content: answer.content.value(),
    reasoning: answer.reasoning.value(),
    finishReason: answer.finishReason,
    matchedStop: answer.matchedStop,
    chunks,
    done,
  };
}

/**
 * A saved stream checked for an editor: its answer's verdict marked on the stream's first line
 * (offsets into the answer do not point into the stream's text), suspects beside it.
 */
export function checkSavedStream(text: string): AnswerCheck {
  const first = /\S[^\n]*/.exec(text);
  const span = { start: first?.index ?? 0, end: first ? first.index + first[0].length : Math.min(1, text.length) };
  const check = emptyCheck();
  const r = judgeSavedStream(text);
  if (r.ok) markVerdict(check, span, r.verdict, `The stream's answer (${r.chunks} chunks): `);
  else markUnreadable(check, span, `Saved stream not read: ${r.error}`);
  return check;
}
