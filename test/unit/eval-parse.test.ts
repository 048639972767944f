/** Reading the model's integer: fixed cases, then seeded random answers in many shapes. */
import assert from 'node:assert/strict';
import { parseAnswer } from '../../src/core/eval/parse';
import { seededRandom } from '../../src/core/random';

describe('eval answer parsing', () => {
  const cases: [string, number | null, string][] = [
    ['Answer: 42', 42, 'answer-line'],
    ['answer: -17', -17, 'answer-line'],
    ['**Answer:** 1,234', 1234, 'answer-line'],
    ['Answer: **-56**.', -56, 'answer-line'],
    ['The final answer is 399.', 399, 'answer-line'],
    ['Final Answer: $\\boxed{12}$', 12, 'answer-line'],
    ['Answer = 7', 7, 'answer-line'],
    ['Answer: 3 * 4 + 2 = 14', 14, 'answer-line'],
    ['Answer: 42.0', 42, 'answer-line'],
    ['Answer: 42.5', 42.5, 'answer-line'],
    ['Answer: −8', -8, 'answer-line'],
    ['Answer: `1,000,000`', 1000000, 'answer-line'],
    ['Answer:\n\n', null, 'none'],
    ['Answer:\n73', 73, 'answer-line'],
    ['First, 12 * 3 = 36. Then 36 + 5 = 41.\n\nAnswer: 41', 41, 'answer-line'],
    ['Answer: 5\n\nWait, let me redo that.\nAnswer: 6', 6, 'answer-line'],
    ['<think>maybe Answer: 900</think>\nThe total is 12.', 12, 'last-number'],
    ['So 10-3 leaves 7 apples.', 7, 'last-number'],
    ['The balance ends at -518 dollars.', -518, 'last-number'],
    ['The answer depends on the rows, 1,2,3', 3, 'last-number'],
    ['I cannot work this out.', null, 'none'],
    ['', null, 'none'],
    ['!!!!!!!!!!!!!!!!', null, 'none'],
  ];
  for (const [text, value, source] of cases) {
    it(`${JSON.stringify(text)} → ${String(value)} (${source})`, () => {
      const got = parseAnswer(text);
      assert.equal(got.value, value);
      assert.equal(got.source, source);
    });
  }

  it('reads back the integer of many seeded answer shapes', () => {
    const rand = seededRandom(2024);
    const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const withCommas = (v: number): string => (v < 0 ? '-' : '') + Math.abs(v).toLocaleString('en-US');
    const renderings: ((v: number) => string)[] = [
      (v) => String(v),
      (v) => withCommas(v),
      (v) => `**${v}**`,
      (v) => `${v}.`,
      (v) => `$${v}$`,
      (v) => `\\boxed{${withCommas(v)}}`,
      (v) => `${v < 0 ? '−' : ''}${Math.abs(v)}`,
      (v) => `${v}.00`,
    ];
    const lines: ((n: string) => string)[] = [
      (n) => `Answer: ${n}`,
      (n) => `**Answer:** ${n}`,
      (n) => `ANSWER: ${n}`,
      (n) => `Final answer: ${n}`,
      (n) => `The answer is ${n}`,
      (n) => `Answer = ${n}`,
      (n) => `Answer: ${int(2, 99)} + ${int(2, 99)} = ${n}`,
      (n) => `Answer:\n${n}`,
      (n) => `- **Answer**: ${n}`,
    ];
    const preambles = [
      '',
      'Let me work it out.\n\n',
      () => `First, ${int(2, 99)} * ${int(2, 9)} = ${int(10, 900)}. Then subtract ${int(2, 50)}.\n\n`,
      () => `<think>The user wants ${int(1, 1000)}; no, ${int(1, 1000)}.</think>\n`,
      () => `Step 1: ${int(100, 999)} - ${int(10, 99)}\nStep 2: multiply by ${int(2, 9)}\n`,
    ];
    const trailers = ['', '\n', '\n\nLet me know if you need the steps!', ' 🙂', '\n\n(Checked twice.)'];
    for (let i = 0; i < 3000; i++) {
      const v = pick([int(-99, 99), int(-100_000, 100_000), int(-9_999_999, 9_999_999), 0]);
      const pre = pick(preambles);
      const text = (typeof pre === 'function' ? pre() : pre) + pick(lines)(pick(renderings)(v)) + pick(trailers);
      const got = parseAnswer(text);
      assert.equal(got.value, v, `case ${i}: ${JSON.stringify(text)}`);
      assert.equal(got.source, 'answer-line', `case ${i}: ${JSON.stringify(text)}`);
    }
  });

  it('falls back to the last number when no line names the answer', () => {
    const rand = seededRandom(7);
    for (let i = 0; i < 500; i++) {
      const v = Math.floor(rand() * 20000) - 10000;
      const text = `We start from ${Math.floor(rand() * 500)} and work through it. The result is ${v.toLocaleString('en-US')}.`;
      assert.deepEqual(parseAnswer(text), { value: v, source: 'last-number' }, text);
    }
  });
});
