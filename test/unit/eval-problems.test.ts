/**
 * The eval problem sets: every answer recomputed by an evaluator written here (BigInt, its own
 * tokenizer and precedence), the story numbers checked against the prompt, determinism per seed,
 * no duplicates and an even spread of difficulties.
 */
import assert from 'node:assert/strict';
import { generateProblems, MAX_PROBLEMS, SUITES, type Problem } from '../../src/core/eval/problems';
import { solvePrompt } from '../../src/core/eval/solve';

/** Shunting-yard over BigInt: independent of src/core/eval/expr.ts. */
function independentValue(expression: string): bigint {
  const tokens = expression.match(/\d+|[-+*()]/g) ?? [];
  assert.equal(tokens.join(''), expression.replace(/\s+/g, ''), `unexpected characters in ${expression}`);
  const out: bigint[] = [];
  const ops: string[] = [];
  const prec = (op: string): number => (op === '*' ? 2 : op === '(' ? 0 : 1);
  const reduce = (): void => {
    const op = ops.pop()!;
    const b = out.pop()!;
    const a = out.pop()!;
    out.push(op === '+' ? a + b : op === '-' ? a - b : a * b);
  };
  for (const t of tokens) {
    if (/^\d+$/.test(t)) out.push(BigInt(t));
    else if (t === '(') ops.push(t);
    else if (t === ')') {
      while (ops[ops.length - 1] !== '(') reduce();
      ops.pop();
    } else {
      while (ops.length && prec(ops[ops.length - 1]) >= prec(t)) reduce();
      ops.push(t);
    }
  }
  while (ops.length) reduce();
  assert.equal(out.length, 1);
  return out[0];
}

const operatorCount = (expression: string): number => (expression.match(/[-+*]/g) ?? []).length;
const sortedNumbers = (text: string): string[] => (text.match(/\d+/g) ?? []).sort();

describe('eval problem sets', () => {
  for (const suite of SUITES) {
    describe(suite, () => {
      const problems = generateProblems(suite, 1500, 7);

      it('every answer is the exact value of its expression, recomputed independently', () => {
        for (const p of problems) {
          assert.ok(Number.isSafeInteger(p.answer), p.id);
          assert.equal(independentValue(p.expression), BigInt(p.answer), `${p.id}: ${p.expression}`);
        }
      });

      it('the prompt carries the computation and asks for an "Answer: <integer>" line', () => {
        for (const p of problems) {
          assert.match(p.prompt, /"Answer: <integer>"/);
          assert.ok(p.prompt.startsWith(p.question));
          if (p.kind === 'arithmetic') {
            assert.equal(p.question, `Compute ${p.expression}.`);
            assert.match(p.prompt, /^[\x20-\x7e\n]+$/, 'ASCII digits and operators only');
          } else {
            // The story states exactly the numbers the computation uses.
            assert.deepEqual(sortedNumbers(p.question), sortedNumbers(p.expression), p.question);
          }
        }
      });

      it('reads back from the prompt (what the simulator answers through)', () => {
        for (const p of problems) assert.equal(solvePrompt(p.prompt)?.answer, p.answer, p.id);
      });

      it('has no duplicates', () => {
        assert.equal(new Set(problems.map((p) => p.question)).size, problems.length);
      });

      it('spreads difficulties evenly, harder ones doing more operations on larger numbers', () => {
        const by = { easy: [] as Problem[], medium: [] as Problem[], hard: [] as Problem[] };
        for (const p of problems) by[p.difficulty].push(p);
        for (const list of Object.values(by)) assert.ok(Math.abs(list.length - problems.length / 3) <= 1, `${list.length} of ${problems.length}`);
        const ops = (list: Problem[]): number[] => [...new Set(list.map((p) => operatorCount(p.expression)))].sort();
        assert.deepEqual(ops(by.easy), [1]);
        assert.deepEqual(ops(by.medium), [2]);
        assert.deepEqual(ops(by.hard), [3]);
        const largest = (list: Problem[]): number => Math.max(...list.map((p) => Math.abs(p.answer)));
        assert.ok(largest(by.easy) < largest(by.medium) && largest(by.medium) < largest(by.hard));
      });

      it('has negative answers too (the parser must keep the sign)', () => {
        assert.ok(problems.some((p) => p.answer < 0));
      });
    });
  }

  it('is deterministic per seed, and a smaller n is a prefix of a larger one', () => {
    for (const suite of SUITES) {
      const set = generateProblems(suite, 200, 3);
      assert.deepEqual(generateProblems(suite, 200, 3), set);
      assert.deepEqual(generateProblems(suite, 50, 3), set.slice(0, 50));
      const other = generateProblems(suite, 200, 4);
      assert.ok(other.filter((p, i) => p.question === set[i].question).length < 20, 'another seed, other problems');
    }
  });

  it('mixes kinds half and half in the mixed suite', () => {
    const kinds = generateProblems('mixed', 300, 1).map((p) => p.kind);
    assert.equal(kinds.filter((k) => k === 'word').length, 150);
  });

  it('uses hard arithmetic with precedence and no redundant parentheses on the easy levels', () => {
    const hard = generateProblems('arithmetic', 600, 2).filter((p) => p.difficulty === 'hard');
    // Some hard problems need * to bind before + or - with no parentheses to say so.
    assert.ok(hard.some((p) => /\d \* \d+ [-+]|[-+] \d+ \* \d/.test(p.expression)));
    const medium = generateProblems('arithmetic', 600, 2).filter((p) => p.difficulty === 'medium');
    assert.ok(medium.every((p) => p.expression.includes('(')));
  });

  it('refuses n out of range', () => {
    assert.throws(() => generateProblems('mixed', 0, 1), RangeError);
    assert.throws(() => generateProblems('mixed', MAX_PROBLEMS + 1, 1), RangeError);
    assert.throws(() => generateProblems('mixed', 2.5, 1), RangeError);
  });

  it('can make the largest set without running out of distinct problems', () => {
    for (const suite of SUITES) assert.equal(generateProblems(suite, MAX_PROBLEMS, 11).length, MAX_PROBLEMS);
  });
});
