/**
 * The built-in prompts of the reference check: short tasks whose greedy answer a healthy model
 * gives the same way every time (definitions, lists, small code, counting), so a difference
 * between two servers says something about the servers rather than about the prompt.
 */
export const COMPARE_PROMPTS: readonly string[] = [
  'Count from 1 to 20, separated by commas.',
  'Explain in three sentences what a KV cache is in a transformer model.',
  'Write a Python function that checks whether a number is prime.',
  'List the seven days of the week, one per line.',
  'Explain why the sky looks blue during the day, in two sentences.',
  'Write a SQL query that returns the ten most recent rows of a table called events, ordered by created_at.',
  'Name the planets of the solar system in order from the Sun.',
  'What causes the tides on Earth? Answer briefly.',
  'Write a bash one-liner that counts the lines of every .txt file in the current directory.',
  'Give the first ten square numbers.',
  'Explain the difference between a process and a thread in a short paragraph.',
  'Hello! Introduce yourself in two sentences.',
];

/** Suffixes that make a repeated prompt a new one, for runs longer than the set. */
const VARIANTS = ['', ' Keep the answer short.', ' Answer in plain text.', ' Be precise.', ' Use simple words.'];

/**
 * The first `n` prompts of `base` (the built-in set by default); past its end the set comes
 * round again with a suffix, so every prompt of a run is different.
 */
export function promptSet(n: number, base: readonly string[] = COMPARE_PROMPTS): string[] {
  const out: string[] = [];
  if (base.length === 0) return out;
  for (let i = 0; i < n; i++) {
    const round = Math.floor(i / base.length);
    const variant = VARIANTS[round % VARIANTS.length] + (round >= VARIANTS.length ? ` (${round + 1})` : '');
    out.push(base[i % base.length] + variant);
  }
  return out;
}
