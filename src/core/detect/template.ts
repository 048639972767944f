/**
 * Role turns after the answer that LexicalScanner keeps as suspects: a line that is nothing but
 * the lower-case role name "assistant" (or "model"), what a chat template leaves once its special
 * tokens are stripped ("<|im_start|>assistant"), with answer text before and after it. The model
 * went on past the end of its turn and started another one.
 *
 * Bounded: one pending candidate; work once per line.
 */
import * as limits from './limits';
import { wordHash } from './wordHash';
import type { WordScanner, WordSink } from './words';

/** A module-level copy: imported bindings are getter calls under some loaders. */
const TEMPLATE = limits.TEMPLATE;

const ROLES = new Map(['assistant', 'model'].map((w) => [wordHash(w), w]));

export class TemplateTurns {
  private pending = -1;
  private pendingRole = '';
  private wordsBefore = 0;
  private done = false;
  private lineHash = 0;
  private lineLower = false;
  private lineIndented = false;

  constructor(private readonly sink: WordSink) {}

  word(w: WordScanner): void {
    if (w.lineWords === 1) {
      this.lineHash = w.hash;
      this.lineLower = w.lowerOnly && w.digits === 0;
      this.lineIndented = w.start > w.lineStart;
    }
    if (this.pending >= 0 && !this.done) {
      this.done = true;
      this.sink(
        'template-leak',
        this.pending,
        `a line at offset ${this.pending} holds only the role name "${this.pendingRole}", and the answer goes on after it: the model started a new turn (the template's markers were stripped)`,
        'degenerate',
      );
    }
  }

  line(w: WordScanner): void {
    if (this.done || this.pending >= 0) return;
    // A template's role name starts its line; an indented word alone is wrapped text or a list term.
    if (w.lineWords !== 1 || !this.lineLower || this.lineIndented || w.lineVisible !== w.lineLetters) return;
    const role = ROLES.get(this.lineHash);
    if (role === undefined || w.words - 1 < TEMPLATE.roleLineMinWords) return;
    this.pending = w.lineStart;
    this.pendingRole = role;
    this.wordsBefore = w.words - 1;
  }

  finish(w: WordScanner): void {
    void w;
    void this.wordsBefore;
  }
}
