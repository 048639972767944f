/**
 * Reads the integer a model gave as its answer. Models phrase it many ways ("Answer: 42",
 * "**Answer:** -1,234.", "The final answer is $42$"), so the reading is lenient: the last line that
 * names an answer wins, else the last number in the text. An answer with no number is invalid.
 */

export type AnswerSource = 'answer-line' | 'last-number';

export type ParsedAnswer = { value: number; source: AnswerSource } | { value: null; source: 'none' };

/** A number: thousands with commas, or plain digits; an optional sign that is not a hyphen inside a word or a range. */
const NUMBER = /(?<![\w.])([-−–]\s?)?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\d])/gu;

/** "Answer:", "Final answer =", "the answer is": the word answer then an optional is/:/=. */
const ANSWER_LINE = /\banswer\b\s*(?:\*\*|__)?\s*(?:is\b|[:=：])\s*(.*)$/i;

/** Markup models wrap numbers in: bold, italics, code, LaTeX \boxed{} and $…$. */
function plain(text: string): string {
  return text
    .replace(/\\boxed\s*\{([^{}]*)\}/g, '$1')
    .replace(/\\(?:text|mathrm|mathbf)\s*\{([^{}]*)\}/g, '$1')
    .replace(/[*_`$]|\\[()[\]]/g, ' ');
}

function numbersIn(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const digits = m[2].replace(/,/g, '');
    const fraction = m[3];
    // 42.0 is the integer 42; 42.5 is a number that no integer answer equals.
    let value = Number(fraction && /[^0]/.test(fraction) ? `${digits}.${fraction}` : digits);
    if (m[1]) value = -value;
    out.push(value === 0 ? 0 : value);
  }
  return out;
}

/** The number of an answer line: after the last "=" when it shows its working, else the first. */
function fromAnswerLine(rest: string): number | null {
  const text = plain(rest);
  const eq = text.lastIndexOf('=');
  const nums = numbersIn(eq >= 0 ? text.slice(eq + 1) : text);
  return nums.length ? nums[0] : null;
}

/** Drops a <think>…</think> block a server without a reasoning parser leaves inline. */
function withoutThinking(text: string): string {
  const close = text.lastIndexOf('</think>');
  return close >= 0 ? text.slice(close + '</think>'.length) : text;
}

export function parseAnswer(content: string): ParsedAnswer {
  const text = withoutThinking(content);
  const lines = text.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = ANSWER_LINE.exec(plain(lines[i]).replace(/\s+/g, ' '));
    if (!m) continue;
    let value = fromAnswerLine(m[1]);
    // "Answer:" alone on its line, the number on the next one.
    if (value === null && i + 1 < lines.length) value = fromAnswerLine(lines[i + 1]);
    if (value !== null) return { value, source: 'answer-line' };
  }
  const all = numbersIn(plain(text));
  if (all.length) return { value: all[all.length - 1], source: 'last-number' };
  return { value: null, source: 'none' };
}
