/**
 * A turn that closes and goes on: the answer offers help the way a chat turn ends ("How can I
 * help you today?", "请随时问我！") and then keeps writing, many words more, with no template
 * marker in sight: the model missed its end-of-turn token and plays on (an invented reply, new
 * unrelated content). A healthy answer stops there or adds a line or a few options.
 *
 * A suspect, not a verdict: written from the tune split (two runaway turns caught), it gave a false
 * alarm on a healthy reasoning output added to the validation split later, where the offer sits in
 * the middle of the text. Without a chat marker the evidence stays weak.
 *
 * Bounded: one regular-expression search over the head, at finish.
 */
import * as limits from './limits';
import type { HeadSink } from './head';
import { isQuoteUnit } from './script';

/** A module-level copy: imported bindings are getter calls under some loaders. */
const CLOSING = limits.CLOSING;

// The offers chat models close a greeting or an answer with, in English and Chinese.
const OFFER =
  /(?:\b(?:how (?:can|may) i (?:help|assist) you(?: today)?|what can i do for you(?: today)?|is there anything else i can (?:help|assist) you with)\?|(?:有什么(?:我)?可以帮(?:助)?(?:你|您)的(?:吗)?[？?])|请随时(?:问我|告诉我)[！!。])/i;

/** Latin, Cyrillic and digit words; Han, kana and Hangul count one word per two characters. */
const WORD = /[A-Za-z0-9\u00C0-\u024F\u0400-\u04FF]+/g;
const CJK = /[\u3040-\u30FF\u3400-\u9FFF\uAC00-\uD7AF]/g;

function wordsIn(s: string): number {
  return (s.match(WORD)?.length ?? 0) + Math.floor((s.match(CJK)?.length ?? 0) / 2);
}

/** Judges the head t (the answer's start, all of a short one) for an offer followed by many words. */
export function judgeClosingOffer(t: string, sink: HeadSink): void {
  const m = OFFER.exec(t);
  if (m === null) return;
  const at = m.index;
  const end = at + m[0].length;
  // Quotes show the offer is named, not said: 'The bot greets with "How can I help you?"'.
  if ((at > 0 && isQuoteUnit(t.charCodeAt(at - 1))) || (end < t.length && isQuoteUnit(t.charCodeAt(end)))) return;
  // A chat template or transcript shown in code is quoted too.
  if (t.lastIndexOf('```', at) >= 0) return;
  const after = wordsIn(t.slice(end));
  if (after < CLOSING.wordsAfter) return;
  sink(
    'template-leak',
    end,
    `the answer closes its turn with ${JSON.stringify(m[0])} at offset ${at} and goes on for ${after} more words: the model may have missed the end of its turn`,
    'suspect',
  );
}
