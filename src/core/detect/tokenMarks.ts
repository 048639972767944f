/**
 * Tokenizer word marks left in the text: SentencePiece writes a word's leading space as "▁"
 * (U+2581), byte-level BPE (GPT-2 and its heirs) as "Ġ" (U+0120) and a newline as "Ċ" (U+010A).
 * A detokenizer that does not map them back (a wrong tokenizer file, a server that decodes
 * token strings instead of ids) shows them before every word: "▁The▁capital▁of▁France".
 * One or two in an answer that explains tokenizers are named; most words starting with one is
 * the damage. ("Ġ" is also a Maltese letter, but it starts few Maltese words, and "Ċ" fewer.)
 *
 * Bounded: reads the head text HeadText keeps (HEAD.chars units) once, at finish.
 */
import * as limits from './limits';
import type { HeadSink } from './head';
import { MARKER_MAX } from './lexical';
import { isLetterUnit, isWhitespaceUnit } from './script';

const TOKEN_MARKS = limits.TOKEN_MARKS;

const SENTENCEPIECE_SPACE = 0x2581;
const BYTE_BPE_SPACE = 0x120;
const BYTE_BPE_NEWLINE = 0x10a;

function isMarkUnit(c: number): boolean {
  return c === SENTENCEPIECE_SPACE || c === BYTE_BPE_SPACE || c === BYTE_BPE_NEWLINE;
}

/** Where the special token opened at `at` ("<|…|>", "<｜…｜>") closes, or -1: a ">" after a bar, within MARKER_MAX units. */
function markerEnd(u: Uint16Array, n: number, at: number): number {
  const last = Math.min(n, at + MARKER_MAX + 1);
  for (let i = at + 2; i < last; i++) if (u[i] === 62) return isBar(u[i - 1]) ? i : -1;
  return -1;
}

/** The bar of a special token's brackets: "|" or DeepSeek's full-width "｜". */
function isBar(c: number): boolean {
  return c === 124 || c === 0xff5c;
}

/** Judges the head's first n code units u (decoded once by HeadText): words that start right after a tokenizer mark, among all word starts. */
export function judgeTokenMarks(u: Uint16Array, n: number, sink: HeadSink): void {
  let marked = 0;
  let starts = 0;
  let first = -1;
  let firstMark = 0;
  let prev = 32;
  for (let i = 0; i < n; i++) {
    const c = u[i];
    // DeepSeek's special tokens hold the mark in their names ("<｜end▁of▁sentence｜>"): lexical.ts judges those.
    if (c === 60 && i + 1 < n && isBar(u[i + 1])) {
      const close = markerEnd(u, n, i);
      if (close > 0) {
        i = close;
        prev = 62;
        continue;
      }
    }
    // A mark is a letter to isLetterUnit ("Ġ" is Latin): a word starts after it, not at it.
    if (isLetterUnit(c) && !isMarkUnit(c) && (isWhitespaceUnit(prev) || isMarkUnit(prev))) {
      starts++;
      if (isMarkUnit(prev)) {
        if (marked++ === 0) {
          first = i - 1;
          firstMark = prev;
        }
      }
    }
    prev = c;
  }
  if (marked < TOKEN_MARKS.min || marked < TOKEN_MARKS.share * starts) return;
  const name = firstMark === SENTENCEPIECE_SPACE ? 'the SentencePiece space mark "▁"' : 'the byte-level BPE marks "Ġ" (space) and "Ċ" (newline)';
  sink(
    'detok-spacing',
    first,
    `${marked} of the answer's ${starts} words start with ${name}, from offset ${first}: the detokenizer did not turn the tokenizer's marks back into spaces`,
    'degenerate',
  );
}
