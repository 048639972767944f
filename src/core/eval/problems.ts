/**
 * Problem sets for the accuracy smoke test, generated from a seed (no data download): integer
 * arithmetic, templated word problems, or both. Every problem has an exact integer answer, a
 * difficulty, and a prompt that asks for a final `Answer: <integer>` line. The same seed always
 * gives the same set, and a smaller n gives a prefix of a larger one.
 */
import { seededRandom } from '../random';
import { bin, evaluate, formatExpr, num, type Expr, type Op } from './expr';
import { WORD_TEMPLATES, fillTemplate, type WordTemplate } from './words';

export type Suite = 'arithmetic' | 'word' | 'mixed';
export const SUITES: readonly Suite[] = ['arithmetic', 'word', 'mixed'];

export type Difficulty = 'easy' | 'medium' | 'hard';
export const DIFFICULTIES: readonly Difficulty[] = ['easy', 'medium', 'hard'];

export interface Problem {
  /** Stable within a set: suite, seed and index. */
  id: string;
  kind: 'arithmetic' | 'word';
  difficulty: Difficulty;
  prompt: string;
  /** The question without the answer-format instruction. */
  question: string;
  /** The computation as + - * text; for word problems the numbers come from the story. */
  expression: string;
  answer: number;
}

/** The same instruction on every prompt, so the parser knows where to look. */
export const ANSWER_INSTRUCTION = 'Work it out, then give the result on a final line of the form "Answer: <integer>".';

export function promptFor(question: string): string {
  return `${question}\n${ANSWER_INSTRUCTION}`;
}

/** The largest answer we allow: far inside the safe-integer range, and short enough to read. */
const MAX_ABS_ANSWER = 10_000_000;

type Rand = () => number;
const int = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)];

/**
 * Operand sizes and shapes per difficulty. Easy: one operation on two-digit numbers. Medium: two
 * operations, parentheses written out. Hard: three operations on up to three-digit numbers,
 * parentheses only where precedence needs them, so the model has to know that * binds first.
 */
function arithmeticExpr(rand: Rand, difficulty: Difficulty): Expr {
  const ops: Op[] = ['+', '-', '*'];
  const leaf = (max: number): Expr => num(int(rand, 2, max));
  // Products stay small on one side: a 2-digit by 1–2-digit multiplication, not 3 by 3 digits.
  const combine = (op: Op, a: Expr, b: Expr, small: number): Expr => {
    if (op !== '*') return bin(op, a, b);
    if (a.kind === 'num' && b.kind === 'num') return bin('*', a, num(Math.min(b.value, int(rand, 2, small))));
    return a.kind === 'bin' ? bin('*', a, num(int(rand, 2, small))) : bin('*', num(int(rand, 2, small)), b);
  };
  if (difficulty === 'easy') return combine(pick(rand, ops), leaf(99), leaf(99), 12);
  if (difficulty === 'medium') {
    const inner = combine(pick(rand, ops), leaf(99), leaf(99), 12);
    const outer = pick(rand, ops);
    return rand() < 0.5 ? combine(outer, inner, leaf(99), 9) : combine(outer, leaf(99), inner, 9);
  }
  const left = combine(pick(rand, ops), leaf(999), leaf(99), 30);
  const right = combine(pick(rand, ops), leaf(999), leaf(99), 30);
  return combine(pick(rand, ['+', '-'] as const), left, right, 9);
}

function arithmeticProblem(rand: Rand, difficulty: Difficulty): Omit<Problem, 'id'> {
  for (;;) {
    const e = arithmeticExpr(rand, difficulty);
    const answer = evaluate(e);
    if (Math.abs(answer) > MAX_ABS_ANSWER) continue;
    const expression = formatExpr(e, difficulty !== 'hard');
    const question = `Compute ${expression}.`;
    return { kind: 'arithmetic', difficulty, question, prompt: promptFor(question), expression, answer };
  }
}

const TEMPLATES_BY_DIFFICULTY = new Map(DIFFICULTIES.map((d) => [d, WORD_TEMPLATES.filter((t) => t.difficulty === d)]));

function wordProblem(rand: Rand, difficulty: Difficulty): Omit<Problem, 'id'> {
  const fitting = TEMPLATES_BY_DIFFICULTY.get(difficulty) ?? [];
  for (;;) {
    const template: WordTemplate = pick(rand, fitting);
    const filled = fillTemplate(template, rand);
    if (!filled) continue;
    return { kind: 'word', difficulty, question: filled.question, prompt: promptFor(filled.question), expression: filled.expression, answer: filled.answer };
  }
}

export const MAX_PROBLEMS = 5000;

/** `n` distinct problems of a suite; the same (suite, n, seed) always gives the same list. */
export function generateProblems(suite: Suite, n: number, seed: number): Problem[] {
  if (!Number.isInteger(n) || n < 1 || n > MAX_PROBLEMS) throw new RangeError(`n must be a whole number from 1 to ${MAX_PROBLEMS}`);
  // One stream per suite, so "arithmetic" and "mixed" with one seed are not the same draws.
  const rand = seededRandom((seed ^ (SUITES.indexOf(suite) * 0x9e3779b1)) >>> 0);
  const seen = new Set<string>();
  const out: Problem[] = [];
  let misses = 0;
  while (out.length < n) {
    const i = out.length;
    // Round robin over the difficulties (and, mixed, over the kinds): an even spread at any n.
    const kind = suite === 'mixed' ? (i % 2 === 0 ? 'arithmetic' : 'word') : suite;
    const difficulty = DIFFICULTIES[(suite === 'mixed' ? i >> 1 : i) % 3];
    const p = kind === 'arithmetic' ? arithmeticProblem(rand, difficulty) : wordProblem(rand, difficulty);
    if (seen.has(p.question)) {
      if (++misses > 100_000) throw new RangeError(`Cannot find ${n} distinct ${suite} problems`);
      continue;
    }
    seen.add(p.question);
    out.push({ id: `${suite}-${seed}-${i}`, ...p });
  }
  return out;
}
