/**
 * Integer expressions with + - * and parentheses: the tree the generators build, its text, and a
 * parser for that text. The simulator reads prompts back through parseExpression, so the text
 * format here is the one contract between the problem sets and anything that answers them.
 */

export type Op = '+' | '-' | '*';

export type Expr = { kind: 'num'; value: number } | { kind: 'bin'; op: Op; left: Expr; right: Expr };

export const num = (value: number): Expr => ({ kind: 'num', value });
export const bin = (op: Op, left: Expr, right: Expr): Expr => ({ kind: 'bin', op, left, right });

const PRECEDENCE: Record<Op, number> = { '+': 1, '-': 1, '*': 2 };

/** One operation in evaluation order, for answers that show their working. */
export interface Step {
  left: number;
  op: Op;
  right: number;
  result: number;
}

function apply(op: Op, a: number, b: number): number {
  return op === '+' ? a + b : op === '-' ? a - b : a * b;
}

export function evaluate(e: Expr, steps?: Step[]): number {
  if (e.kind === 'num') return e.value;
  const left = evaluate(e.left, steps);
  const right = evaluate(e.right, steps);
  const result = apply(e.op, left, right);
  steps?.push({ left, op: e.op, right, result });
  return result;
}

/** Operator count (a problem's depth of work). */
export function operations(e: Expr): number {
  return e.kind === 'num' ? 0 : 1 + operations(e.left) + operations(e.right);
}

export function operands(e: Expr): number[] {
  return e.kind === 'num' ? [e.value] : [...operands(e.left), ...operands(e.right)];
}

/**
 * The expression as ASCII text. `full` puts every inner operation in parentheses (easy to read);
 * otherwise only where precedence or the left-to-right reading needs them.
 */
export function formatExpr(e: Expr, full = true): string {
  if (e.kind === 'num') return e.value < 0 ? `(${e.value})` : String(e.value);
  const side = (child: Expr, right: boolean): string => {
    const text = formatExpr(child, full);
    if (child.kind === 'num') return text;
    if (full) return `(${text})`;
    const pc = PRECEDENCE[child.op];
    const pe = PRECEDENCE[e.op];
    // a - (b + c) and a - (b - c) need them; a + (b + c) would read the same without, but keep the tree's shape.
    const needs = pc < pe || (right && pc === pe);
    return needs ? `(${text})` : text;
  };
  return `${side(e.left, false)} ${e.op} ${side(e.right, true)}`;
}

export class ExprSyntaxError extends Error {}

/** Parses the text formatExpr writes (and any well-formed + - * expression over integers). */
export function parseExpression(text: string): Expr {
  let i = 0;
  const skip = (): void => {
    while (i < text.length && text[i] === ' ') i++;
  };
  const fail = (what: string): never => {
    throw new ExprSyntaxError(`${what} at ${i} in ${JSON.stringify(text)}`);
  };
  const primary = (): Expr => {
    skip();
    if (text[i] === '(') {
      i++;
      const inner = sum();
      skip();
      if (text[i] !== ')') fail('expected )');
      i++;
      return inner;
    }
    const m = /^-?\d+/.exec(text.slice(i));
    if (!m) return fail('expected a number');
    i += m[0].length;
    return num(Number(m[0]));
  };
  const product = (): Expr => {
    let left = primary();
    for (;;) {
      skip();
      if (text[i] !== '*') return left;
      i++;
      left = bin('*', left, primary());
    }
  };
  const sum = (): Expr => {
    let left = product();
    for (;;) {
      skip();
      const op = text[i];
      if (op !== '+' && op !== '-') return left;
      i++;
      left = bin(op, left, product());
    }
  };
  const e = sum();
  skip();
  if (i !== text.length) fail('unexpected text');
  return e;
}
