/** The simulator's 'arithmetic' behaviour: right by default, wrong at wrongRate, fluent either way. */
import assert from 'node:assert/strict';
import { createDetector } from '../../src/core/detect';
import { parseAnswer } from '../../src/core/eval/parse';
import { generateProblems } from '../../src/core/eval/problems';
import { planAnswer } from '../../src/sim/answers';

function answer(prompt: string, wrongRate?: number, seed = 5): string {
  const plan = planAnswer({ behaviour: { behaviour: 'arithmetic', ...(wrongRate !== undefined ? { wrongRate } : {}) }, prompt, maxTokens: 512, seed });
  assert.equal(plan.finishReason, 'stop');
  return [...plan.content].map((t) => t.text).join('');
}

describe("simulator 'arithmetic' behaviour", () => {
  const problems = generateProblems('mixed', 600, 3);

  it('answers every problem right, ending with an Answer line the detector passes', () => {
    for (const p of problems) {
      const text = answer(p.prompt);
      assert.match(text, /\n\nAnswer: -?\d+$/);
      assert.deepEqual(parseAnswer(text), { value: p.answer, source: 'answer-line' });
      const detector = createDetector({ prompt: p.prompt });
      detector.push({ text });
      const verdict = detector.finish({ finishReason: 'stop', matchedStop: 151645 });
      assert.equal(verdict.kind, 'ok', `${text}\n${JSON.stringify(verdict.reasons)}`);
    }
  });

  it('answers wrong at about wrongRate, the same problems every time, still fluent', () => {
    const wrong = problems.filter((p) => parseAnswer(answer(p.prompt, 0.4)).value !== p.answer);
    assert.ok(wrong.length > 0.33 * problems.length && wrong.length < 0.47 * problems.length, `${wrong.length} of ${problems.length}`);
    assert.deepEqual(
      problems.filter((p) => parseAnswer(answer(p.prompt, 0.4)).value !== p.answer),
      wrong,
    );
    for (const p of wrong.slice(0, 100)) {
      const text = answer(p.prompt, 0.4);
      const detector = createDetector({ prompt: p.prompt });
      detector.push({ text });
      assert.equal(detector.finish({ finishReason: 'stop' }).kind, 'ok', text);
    }
    assert.equal(problems.filter((p) => parseAnswer(answer(p.prompt, 1)).value === p.answer).length, 0);
  });

  it('answers other prompts like the healthy behaviour', () => {
    assert.match(answer('Count from 1 to 20.'), /19, 20/);
  });
});
