/**
 * Real loops with small changes between their copies: the tune split's loop outputs (shapes
 * below), with one word in `every` (a word of three letters or more) swapped for another word of
 * the same output, seeded. A sampled model stuck in a loop changes a word here and there; this
 * asks whether a loop rule still sees the loop then. The validation split is never used.
 */
import { seededRandom } from '../../src/core/random';
import { loadRealCases } from './real/realCase';

/** Shapes whose outputs are loops of words (not floods of one unit, which the changes would not touch). */
export const LOOP_SHAPES: ReadonlySet<string> = new Set(['sentence-loop', 'paragraph-loop', 'list-cycling', 'short-loop', 'chunk-duplication', 'structural-loop']);

const WORD = /\p{L}{3,}/u;

/** `variants` changed copies of each tune loop output with enough words to change. */
export function nearCopyLoops(every: number, variants = 3, seed = 7): string[] {
  const rand = seededRandom(seed);
  const out: string[] = [];
  for (const c of loadRealCases()) {
    if (c.split !== 'tune' || c.scope || c.label === 'healthy' || !LOOP_SHAPES.has(c.shape)) continue;
    const parts = c.text.split(/(\s+)/);
    const pool = parts.filter((w) => WORD.test(w));
    if (pool.length < 10) continue;
    for (let v = 0; v < variants; v++) out.push(parts.map((w) => (WORD.test(w) && rand() < 1 / every ? pool[Math.floor(rand() * pool.length)] : w)).join(''));
  }
  return out;
}

/**
 * The tune split's healthy answers of 150 to 1500 characters, each said twice (a blank line, or a
 * space, between the copies): what a model that repeats its whole answer, or a client that joins a
 * stream twice, shows. Each single answer is healthy, so the copy alone makes the failure.
 */
export function doubledAnswers(): { single: string; doubled: string }[] {
  const out: { single: string; doubled: string }[] = [];
  for (const c of loadRealCases()) {
    if (c.split !== 'tune' || c.scope || c.label !== 'healthy' || c.text.length < 150 || c.text.length > 1500) continue;
    const single = c.text.trim();
    out.push({ single, doubled: `${single}\n\n${single}` }, { single, doubled: `${single} ${single}` });
  }
  return out;
}
