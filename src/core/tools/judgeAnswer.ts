/**
 * `judge_answer`: the detector on an answer the agent already has (a user's paste, a log line, a
 * saved response), no server needed. The answer is data: control characters are kept, since some
 * broken answers are made of them.
 */
import { judgeRecords } from '../detect/record';
import type { Verdict } from '../detect/types';
import { outputObject, REASON, reasonsOut, VERDICT_KIND } from './schemaParts';
import { ToolError, type ToolDefinition } from './types';

export interface JudgeAnswerInput {
  text?: string;
  lines?: string;
  finishReason?: string;
  matchedStop?: string;
  prompt?: string;
}

interface JudgedOut {
  id?: unknown;
  choice?: number;
  verdict?: Verdict['kind'];
  reasons?: ReturnType<typeof reasonsOut>;
  error?: string;
}

function judgedOut(id: unknown, choice: number | undefined, verdict: Verdict): JudgedOut {
  return {
    ...(id !== null && id !== undefined ? { id } : {}),
    ...(choice !== undefined ? { choice } : {}),
    verdict: verdict.kind,
    reasons: reasonsOut(verdict),
  };
}

function line(a: JudgedOut, index: number): string {
  const id = typeof a.id === 'string' || typeof a.id === 'number' ? String(a.id) : a.id !== undefined ? JSON.stringify(a.id) : `answer ${index + 1}`;
  const who = `${id}${a.choice !== undefined ? ` choice ${a.choice}` : ''}`;
  if (a.error) return `${who}: not read: ${a.error}`;
  const strong = a.reasons!.filter((r) => r.kind !== 'suspect');
  const suspects = a.reasons!.filter((r) => r.kind === 'suspect');
  const why = strong.length ? ` — ${strong.map((r) => `${r.code} at ${r.offset}: ${r.message}`).join(' ')}` : '';
  const weak = suspects.length ? ` (suspects: ${suspects.map((r) => r.code).join(', ')})` : '';
  return `${who}: ${a.verdict}${why}${weak}`;
}

export const judgeAnswerTool: ToolDefinition<JudgeAnswerInput> = {
  name: 'judge_answer',
  title: 'Judge a model answer',
  description:
    "Judge an answer an inference server already gave (pasted by the user, from a log or a saved response) with the probe panel's detector, " +
    'no server needed: NaN (a flood of token 0 such as "!!!!", matched_stop "NaN happened"), degenerate (loops, floods, token salad, ' +
    'template markers past the end of the turn, mojibake, detokenizer damage) or ok, each reason with its code, the offset where it starts ' +
    'and what to check; weak evidence comes as suspects that leave the verdict alone. Give "text" (one answer), or "lines" (JSON Lines of ' +
    'saved responses: chat completions, completions, batch output lines, SGLang native answers). Read-only.',
  inputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', maxLength: 1024 * 1024, description: 'One answer, as the server gave it' },
      lines: {
        type: 'string',
        minLength: 1,
        maxLength: 4 * 1024 * 1024,
        description:
          'Saved responses, one JSON object per line (OpenAI-compatible chat completions or completions, batch output lines, SGLang /generate answers)',
      },
      finishReason: { type: 'string', maxLength: 64, description: 'With text: the finish_reason the server gave (stop, length, tool_calls…)' },
      matchedStop: { type: 'string', maxLength: 1024, description: 'With text: the matched_stop SGLang gave ("NaN happened" marks NaN logits)' },
      prompt: { type: 'string', maxLength: 64 * 1024, description: 'With text: the prompt, so an echoed prompt or a prompted repetition is seen' },
    },
    additionalProperties: false,
  },
  outputSchema: outputObject(
    {
      answers: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: {},
            choice: { type: 'integer' },
            verdict: VERDICT_KIND,
            reasons: { type: 'array', items: REASON },
            error: { type: 'string' },
          },
        },
      },
    },
    ['answers'],
  ),
  touchesHost: false,
  changesServer: false,
  run(input) {
    if ((input.text === undefined) === (input.lines === undefined))
      throw new ToolError('invalid-input', 'Give either "text" (one answer) or "lines" (saved responses), not both');
    let answers: JudgedOut[];
    if (input.text !== undefined) {
      const record = {
        text: input.text,
        finish_reason: input.finishReason ?? null,
        ...(input.matchedStop !== undefined ? { matched_stop: input.matchedStop } : {}),
        ...(input.prompt !== undefined ? { prompt: input.prompt } : {}),
      };
      answers = judgeRecords(record).map((j) => ('verdict' in j ? judgedOut(undefined, undefined, j.verdict) : { error: j.error }));
    } else {
      if (input.finishReason !== undefined || input.matchedStop !== undefined || input.prompt !== undefined)
        throw new ToolError('invalid-input', 'finishReason, matchedStop and prompt go with "text"; saved responses carry their own');
      answers = input
        .lines!.split('\n')
        .filter((l) => l.trim())
        .flatMap((l) => judgeRecords(l))
        .map((j) => ('verdict' in j ? judgedOut(j.id, j.choice, j.verdict) : { ...(j.id !== null ? { id: j.id } : {}), error: j.error }));
    }
    return Promise.resolve({ data: { answers }, text: answers.map(line).join('\n') || 'No answer in the lines.' });
  },
};
