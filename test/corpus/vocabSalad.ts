/**
 * BPE salad sampled from real tokenizer vocabularies (cl100k, gpt2 and o200k, as js-tiktoken ships
 * them): what a model whose logits carry no information emits, token by token. Lower ranks (earlier
 * merges, more frequent pieces) are drawn more often, as a broken model's skewed logits tend to.
 * A distribution nobody wrote by hand, for the detector's salad recall in the tests and the bench.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import gpt2 from 'js-tiktoken/ranks/gpt2';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { seededRandom } from '../../src/core/random';

export const VOCABULARIES = { cl100k, gpt2, o200k } as const;
export type VocabularyName = keyof typeof VOCABULARIES;

const pieceCache = new Map<VocabularyName, string[]>();

/** Every token of the vocabulary that decodes to whole characters, in rank order. */
export function vocabularyPieces(name: VocabularyName): string[] {
  const cached = pieceCache.get(name);
  if (cached) return cached;
  const ranks = VOCABULARIES[name];
  const encoder = new Tiktoken(ranks);
  const pieces: string[] = [];
  // Ids past the vocabulary decode to nothing (or throw): stop after a long run of them.
  for (let id = 0, misses = 0; misses < 1024; id++) {
    let piece = '';
    try {
      piece = encoder.decode([id]);
    } catch {
      // not a token id
    }
    misses = piece ? 0 : misses + 1;
    if (piece && !piece.includes('\ufffd')) pieces.push(piece);
  }
  pieceCache.set(name, pieces);
  return pieces;
}

/** `count` salads of `tokens` tokens each, seeded, with the token streamed as one delta each. */
export function vocabularySalads(name: VocabularyName, tokens: number, count: number, seed = 9): string[][] {
  const pieces = vocabularyPieces(name);
  const rand = seededRandom(seed);
  return Array.from({ length: count }, () => Array.from({ length: tokens }, () => pieces[Math.floor(pieces.length * rand() ** 2)]));
}
