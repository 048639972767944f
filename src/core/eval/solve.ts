/**
 * Reads a prompt of these problem sets back into its computation. The simulator answers eval
 * prompts through it; it imports neither the probe runner nor the detector, so the simulator
 * bundle stays free of both.
 */
import { evaluate, ExprSyntaxError, parseExpression, type Expr } from './expr';
import { readWordProblem } from './words';

export interface SolvedPrompt {
  kind: 'arithmetic' | 'word';
  expression: string;
  tree: Expr;
  answer: number;
}

const ARITHMETIC = /Compute ([-\d+*() ]+)\./;

/** The problem a prompt asks, or null when it is not one of ours. */
export function solvePrompt(prompt: string): SolvedPrompt | null {
  const m = ARITHMETIC.exec(prompt);
  if (m) {
    try {
      const tree = parseExpression(m[1].trim());
      return { kind: 'arithmetic', expression: m[1].trim(), tree, answer: evaluate(tree) };
    } catch (error) {
      if (!(error instanceof ExprSyntaxError)) throw error;
    }
  }
  const w = readWordProblem(prompt);
  if (!w) return null;
  const tree = parseExpression(w.expression);
  return { kind: 'word', expression: w.expression, tree, answer: w.answer };
}
