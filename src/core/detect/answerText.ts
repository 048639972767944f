/**
 * Answers a user already has, judged where they are: an answer pasted into an editor (or the
 * selection of one), or a file of saved answers, one JSON record or server response per line (what
 * `inference-doctor detect` reads). The result is marks with offsets into the text, for an editor to
 * show as diagnostics, and counts for a summary.
 */
import { detect } from './detector';
import { judgeRecords } from './record';
import type { ReasonCode, Verdict } from './types';

export type AnswerMarkKind = 'nan' | 'degenerate' | 'suspect' | 'unreadable';

export interface AnswerMark {
  /** Offsets into the text checked (UTF-16 code units), end exclusive. */
  start: number;
  end: number;
  kind: AnswerMarkKind;
  code?: ReasonCode;
  message: string;
}

export interface AnswerCheck {
  answers: number;
  ok: number;
  degenerate: number;
  nan: number;
  /** Lines that hold no answer the detector can read (bad JSON, a response without choices). */
  unreadable: number;
  marks: AnswerMark[];
}

export function emptyCheck(): AnswerCheck {
  return { answers: 0, ok: 0, degenerate: 0, nan: 0, unreadable: 0, marks: [] };
}

function count(check: AnswerCheck, verdict: Verdict): void {
  check.answers++;
  check[verdict.kind]++;
}

/**
 * One answer judged as a whole, marked over `span` (its line, or the stream it came in): counted,
 * the verdict marked when not ok, each suspect beside it, every message after `label`.
 */
export function markVerdict(check: AnswerCheck, span: { start: number; end: number }, verdict: Verdict, label: string): void {
  count(check, verdict);
  if (verdict.kind !== 'ok') {
    const first = verdict.reasons.find((r) => r.kind === verdict.kind);
    check.marks.push({ ...span, kind: verdict.kind, ...(first ? { code: first.code } : {}), message: `${label}${verdictSummary(verdict)}` });
  }
  for (const r of verdict.reasons) if (r.kind === 'suspect') check.marks.push({ ...span, kind: 'suspect', code: r.code, message: `${label}${r.message}` });
}

/** Something that holds no answer the detector can read, marked over `span`. */
export function markUnreadable(check: AnswerCheck, span: { start: number; end: number }, message: string): void {
  check.unreadable++;
  check.marks.push({ ...span, kind: 'unreadable', message });
}

/** The end of the line `offset` is on (or the text's end). */
function lineEnd(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset);
  return nl < 0 ? text.length : nl;
}

/** One answer as plain text (pasted, copied from a log): its end is unknown, so no finish reason is assumed. */
export function judgeAnswerText(answer: string): Verdict {
  return detect(answer, { finishReason: null });
}

/**
 * One answer: each reason marked from where it starts to the end of that line, `base` added to the
 * offsets (where the answer starts in a larger text).
 */
export function checkAnswer(answer: string, base = 0): AnswerCheck {
  const check = emptyCheck();
  const verdict = judgeAnswerText(answer);
  count(check, verdict);
  for (const r of verdict.reasons) {
    const at = Math.min(Math.max(0, r.offset), answer.length);
    // A mark needs a character: at the very end, the last one.
    const start = at < answer.length ? at : Math.max(0, answer.length - 1);
    check.marks.push({ start: base + start, end: base + Math.max(start + 1, lineEnd(answer, start)), kind: r.kind, code: r.code, message: r.message });
  }
  return check;
}

/** Whether the text reads as JSON Lines: each non-blank line starts an object or a list. */
export function looksLikeJsonLines(text: string): boolean {
  let lines = 0;
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t) continue;
    if (t[0] !== '{' && t[0] !== '[') return false;
    lines++;
  }
  return lines > 0;
}

/** A record's id for a message: strings and numbers as they are, anything else as JSON. */
function idText(id: unknown): string {
  if (id === null || id === undefined) return '';
  const text = typeof id === 'string' ? id : (JSON.stringify(id) ?? typeof id);
  return `${text.length > 80 ? `${text.slice(0, 80)}…` : text} `;
}

/**
 * A verdict that is not ok in one line: the reason that made it first (NaN before degenerate) with
 * its message, the others by code.
 */
export function verdictSummary(verdict: Verdict): string {
  const strong = verdict.reasons.filter((r) => r.kind !== 'suspect').sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'nan' ? -1 : 1));
  const what = verdict.kind === 'nan' ? 'NaN' : 'Degenerate';
  const also = strong.slice(1).map((r) => r.code);
  return `${what}: ${strong[0]?.message ?? ''}${also.length ? ` (also ${also.join(', ')})` : ''}`;
}

/**
 * A file of saved answers, one JSON record or server response per line: each line marked with the
 * verdicts of the answers it holds (NaN, degenerate, suspects alone, unreadable), ok lines not at all.
 */
export function checkAnswerLines(text: string): AnswerCheck {
  const check = emptyCheck();
  let start = 0;
  while (start <= text.length) {
    const end = lineEnd(text, start);
    const line = text.slice(start, end);
    if (line.trim()) {
      const judged = judgeRecords(line);
      for (const j of judged) {
        const label = `${idText(j.id)}${j.choice !== undefined ? `choice ${j.choice} ` : ''}`;
        const span = { start, end: Math.max(end, start + 1) };
        if ('verdict' in j) markVerdict(check, span, j.verdict, label);
        else markUnreadable(check, span, `${label}not read: ${j.error}`);
      }
    }
    start = end + 1;
  }
  return check;
}

/** One line for a notification: how many answers, and how they fell. */
export function summariseCheck(check: AnswerCheck): string {
  const parts: string[] = [];
  if (check.nan) parts.push(`${check.nan} NaN`);
  if (check.degenerate) parts.push(`${check.degenerate} degenerate`);
  if (check.ok) parts.push(`${check.ok} ok`);
  const suspects = check.marks.filter((m) => m.kind === 'suspect').length;
  const answers = check.answers === 1 ? '1 answer' : `${check.answers} answers`;
  let line = check.answers ? `${answers}: ${parts.join(', ')}` : 'No answer read';
  if (suspects) line += ` (${suspects} ${suspects === 1 ? 'suspect' : 'suspects'} marked)`;
  if (check.unreadable) line += `; ${check.unreadable} ${check.unreadable === 1 ? 'line' : 'lines'} not read`;
  return `${line}.`;
}
