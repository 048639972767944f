/**
 * The 'arithmetic' behaviour: answers the eval command's problems (core/eval) in a few fluent
 * sentences that show the working and end with "Answer: N". Correct by default; with `wrongRate`
 * that share of problems (drawn per prompt from the scenario seed, so always the same ones) gets a
 * slip in its last step, still well written, so only an accuracy test can tell.
 */
import { evaluate, type Step } from '../core/eval/expr';
import { solvePrompt } from '../core/eval/solve';

const OPENERS = ['Let me work through this step by step.', "Here's the calculation.", 'Sure, let me calculate that.', 'We can do this in order.'];
const WORD_OPENERS = ['The question comes down to', 'Written as a calculation, this is', 'In numbers, we need'];
const STEP_WORDS = ['First', 'Next', 'Then', 'Finally'];

/** A plausible slip: off by one, by ten, or a sign or carry error, never the right number. */
function slip(value: number, rand: () => number): number {
  const offsets = [1, -1, 10, -10, 2, -2, 100];
  const wrong = value + offsets[Math.floor(rand() * offsets.length)];
  return wrong === value ? value + 1 : wrong;
}

/** The answer text for an eval prompt, or null when the prompt is not one of those problems. */
export function arithmeticAnswer(prompt: string, wrongRate: number, rand: () => number): string | null {
  const solved = solvePrompt(prompt);
  if (!solved) return null;
  const steps: Step[] = [];
  evaluate(solved.tree, steps);
  let answer = solved.answer;
  if (wrongRate > 0 && rand() < wrongRate) {
    answer = slip(answer, rand);
    if (steps.length) steps[steps.length - 1] = { ...steps[steps.length - 1], result: answer };
  }
  const parts: string[] = [];
  if (solved.kind === 'word') parts.push(`${WORD_OPENERS[Math.floor(rand() * WORD_OPENERS.length)]} ${solved.expression}.`);
  else parts.push(OPENERS[Math.floor(rand() * OPENERS.length)]);
  const sentences = steps.map((s, i) => {
    const lead = steps.length === 1 ? 'This gives' : i === steps.length - 1 ? STEP_WORDS[3] : STEP_WORDS[Math.min(i, 2)];
    return `${lead}${steps.length === 1 ? '' : ','} ${s.left} ${s.op} ${s.right} = ${s.result}.`;
  });
  parts.push(sentences.join(' '));
  return `${parts.join('\n\n')}\n\nAnswer: ${answer}`;
}
