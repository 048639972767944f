/**
 * Markdown code spans and fences, read one backtick at a time: the third backtick that opens a line
 * (nothing but spaces and backticks before it) opens or closes a fenced block; any other backtick
 * outside a fence opens or closes a code span, which a line break also closes. LexicalScanner and
 * WordScanner each keep one: they read the same text, but not at the same place at once.
 */
export class CodeSpans {
  inFence = false;
  inInline = false;
  /** Backticks that opened the current line. */
  leading = 0;

  /** A backtick; lineLead: nothing but spaces and backticks came before it on its line. */
  tick(lineLead: boolean): void {
    if (lineLead) {
      if (++this.leading === 3) {
        this.inFence = !this.inFence;
        this.inInline = false;
      }
      return;
    }
    if (!this.inFence) this.inInline = !this.inInline;
  }

  endLine(): void {
    this.leading = 0;
    this.inInline = false;
  }
}
