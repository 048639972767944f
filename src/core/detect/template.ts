/**
 * Role turns after the answer, with the template's special tokens stripped:
 *
 * - a line that is nothing but the lower-case role name "assistant" (or "model"), what a chat
 *   template leaves of "<|im_start|>assistant", with answer text before and after it;
 * - a role name glued to the end of the answer's last sentence and ending its line ("… help you
 *   today?assistant", "… foofooassistant"), what is left of "<|eot_id|><|start_header_id|>assistant
 *   <|end_header_id|>" once the markers are dropped. A role name in prose has a space before it;
 *   one after a full stop can be a member in code ("config.user"), so only the end of a line after
 *   a sentence's words counts.
 *
 * Either way the model went on past the end of its turn and started another one: degenerate when
 * the answer goes on after it, a suspect when the answer ends right there (the server stopped, and
 * the role name is all that leaked).
 *
 * gpt-oss's harmony header with its markers stripped ("assistantfinal" glued to the answer that
 * follows it): the reasoning channel and the answer came out as one text, degenerate wherever it is.
 *
 * Likewise a few-shot template played on: after the answer, a line labelled "Question:" (or "Q:")
 * that nothing introduced (the text before it does not end with a colon, as "Practice questions:"
 * does), and later a line labelled "Answer:" (or "A:"): the model asks itself a new question and
 * answers it.
 *
 * Bounded: one pending candidate; work once per word and per line.
 */
import * as limits from './limits';
import * as scripts from './script';
import { wordHash } from './wordHash';
import type { WordScanner, WordSink } from './words';

/** Module-level copies: imported bindings are getter calls under some loaders. */
const TEMPLATE = limits.TEMPLATE;
const endsSentence = scripts.endsSentence;

const ROLES = new Map(['assistant', 'model'].map((w) => [wordHash(w), w]));
/** Role names that a template's header holds, glued to the sentence before once the markers are gone. */
const GLUED_ROLES = new Map(['assistant', 'user', 'model'].map((w) => [wordHash(w), w]));
const QUESTION_NAMES = ['question', 'q'];
const ANSWER_NAMES = ['answer', 'a'];
const QUESTION_LABELS = new Set(QUESTION_NAMES.map(wordHash));
const ANSWER_LABELS = new Set(ANSWER_NAMES.map(wordHash));
/** A line that opens with a question label ("Q:", "Question:"), and one with an answer label. */
const QUESTION_LINE = new RegExp(`^[ \\t]*(?:${QUESTION_NAMES.join('|')})[ \\t]*:`, 'im');
const ANSWER_LINE = new RegExp(`^[ \\t]*(?:${ANSWER_NAMES.join('|')})[ \\t]*:`, 'im');

/** The prompt is written in "Q:" and "A:" lines (a few-shot completion prompt): a base model carries that format on. */
export function writtenInQaLines(prompt: string): boolean {
  return QUESTION_LINE.test(prompt) && ANSWER_LINE.test(prompt);
}

/**
 * gpt-oss's harmony header with its markers stripped: "<|start|>assistant<|channel|>final<|message|>"
 * reads "assistantfinal", glued to what follows ("…politely.assistantfinalHello!"): the reasoning
 * channel and the answer came out as one text.
 */
const HARMONY_HEADERS = ['assistantfinal', 'assistantanalysis', 'assistantcommentary'].map((h) => [...h].map((ch) => ch.charCodeAt(0)));

/** The stripped harmony header the word's letters start with, or null (most words fail at their first letter). */
function harmonyHeader(w: WordScanner): string | null {
  if (w.digits > 0 || w.buf[0] !== 97 || w.len > w.buf.length) return null;
  for (const header of HARMONY_HEADERS) {
    if (w.len < header.length) continue;
    let i = 0;
    while (i < header.length && w.buf[i] === header[i]) i++;
    if (i === header.length) return String.fromCharCode(...header);
  }
  return null;
}

/** "assistant" glued to the word before it ("fooassistant"): no English word ends so. */
const ASSISTANT = [...'assistant'].map((ch) => ch.charCodeAt(0));

/** The word's letters end with "assistant" and hold more before it. */
function gluedAssistant(w: WordScanner): boolean {
  const len = w.len;
  if (len <= ASSISTANT.length || len > w.buf.length || w.digits > 0) return false;
  const from = len - ASSISTANT.length;
  for (let i = 0; i < ASSISTANT.length; i++) if (w.buf[from + i] !== ASSISTANT[i]) return false;
  return true;
}

export class TemplateTurns {
  private pending = -1;
  private pendingRole = '';
  private pendingGlued = false;
  private done = false;
  private lineHash = 0;
  private lineLower = false;
  private lineIndented = false;
  /** The last word is a role name glued to the sentence before it (offset of the role name, or -1). */
  private gluedAt = -1;
  private gluedRole = '';
  /** The line's first word, when it is capitalised and could be a label. */
  private labelHash = 0;
  private labelStart = -1;
  private labelIntroduced = false;
  /** Offset of an uninvited "Question:" line waiting for its "Answer:" line, or -1. */
  private question = -1;
  /** The first "Question:" line decides: one that was introduced, or opens the answer, makes a list of them. */
  private questionSeen = false;
  /** fewShotPrompt: the prompt is itself written in question and answer lines (writtenInQaLines). */
  constructor(
    private readonly sink: WordSink,
    private readonly fewShotPrompt = false,
  ) {}

  word(w: WordScanner): void {
    if (w.lineWords === 1) {
      this.lineHash = w.hash;
      this.lineLower = w.lowerOnly && w.digits === 0;
      this.lineIndented = w.start > w.lineStart;
      this.labelHash = w.upper === 1 && w.digits === 0 && !this.lineIndented ? w.hash : 0;
      this.labelStart = w.start;
      // The gap before the line starts with a colon: the text before introduced what follows.
      this.labelIntroduced = w.gapFirst === 58;
    } else if (w.lineWords === 2 && this.labelHash !== 0 && w.gapFirst === 58) this.label(w.words - 1);
    if (this.pending >= 0 && !this.done) {
      this.done = true;
      this.sink('template-leak', this.pending, this.detail(), 'degenerate');
    }
    this.gluedAt = -1;
    const header = this.done ? null : harmonyHeader(w);
    if (header !== null) {
      this.done = true;
      this.sink(
        'template-leak',
        w.start,
        `"${header}" at offset ${w.start} is gpt-oss's channel header with its markers stripped: the reasoning and the answer came out as one text (the server's reasoning parser did not split them)`,
        'degenerate',
      );
      return;
    }
    if (this.done || this.pending >= 0 || !w.lowerOnly || w.words < TEMPLATE.roleLineMinWords) return;
    // After a sentence on its line: "config.user" alone on a line is a name in code.
    const glued = w.gapLen === 1 && endsSentence(w.gapFirst) && w.lineWords >= TEMPLATE.gluedRoleLineWords;
    const role = glued ? GLUED_ROLES.get(w.hash) : undefined;
    if (role !== undefined) {
      this.gluedAt = w.start;
      this.gluedRole = role;
    } else if (gluedAssistant(w)) {
      this.gluedAt = w.start + w.len - ASSISTANT.length;
      this.gluedRole = 'assistant';
    }
  }

  /** The line opens with "Label:"; wordsBefore: the answer's words before the line. */
  private label(wordsBefore: number): void {
    if (this.done) return;
    if (QUESTION_LABELS.has(this.labelHash)) {
      if (!this.questionSeen && !this.labelIntroduced && wordsBefore > 0) this.question = this.labelStart;
      this.questionSeen = true;
    } else if (ANSWER_LABELS.has(this.labelHash) && this.question >= 0) {
      this.done = true;
      const detail = `after the answer, a "Question:" line at offset ${this.question} that nothing introduced, then an "Answer:" line: the model plays a few-shot template on, asking itself new questions and answering them`;
      if (this.fewShotPrompt) {
        this.sink(
          'template-leak',
          this.question,
          `${detail}; the prompt itself is written in question and answer lines, so a base model carries its format on`,
          'suspect',
        );
      } else this.sink('template-leak', this.question, detail, 'degenerate');
    }
  }

  line(w: WordScanner): void {
    // "A: 6": a label whose line holds no other word.
    if (w.lineWords === 1 && this.labelHash !== 0 && w.gapFirst === 58) this.label(w.words - 1);
    if (this.done || this.pending >= 0) return;
    // Only spaces between the glued role name and the line's end.
    if (this.gluedAt >= 0 && w.gapLen === w.gapSpaces + w.gapNewlines) {
      this.pending = this.gluedAt;
      this.pendingRole = this.gluedRole;
      this.pendingGlued = true;
      return;
    }
    // A template's role name starts its line; an indented word alone is wrapped text or a list term.
    if (w.lineWords !== 1 || !this.lineLower || this.lineIndented || w.lineVisible !== w.lineLetters) return;
    const role = ROLES.get(this.lineHash);
    if (role === undefined || w.words - 1 < TEMPLATE.roleLineMinWords) return;
    this.pending = w.lineStart;
    this.pendingRole = role;
  }

  /** A glued role name that ends the answer leaked alone: the server stopped right after it. */
  finish(): void {
    if (this.done || !this.pendingGlued) return;
    this.done = true;
    this.sink(
      'template-leak',
      this.pending,
      `the role name "${this.pendingRole}" at offset ${this.pending} is glued to the end of the answer: what is left of the chat template's next turn once its markers were stripped`,
      'suspect',
    );
  }

  private detail(): string {
    return this.pendingGlued
      ? `the role name "${this.pendingRole}" at offset ${this.pending} is glued to the end of a sentence and ends its line, and the answer goes on after it: the model started a new turn (the template's markers were stripped)`
      : `a line at offset ${this.pending} holds only the role name "${this.pendingRole}", and the answer goes on after it: the model started a new turn (the template's markers were stripped)`;
  }
}
