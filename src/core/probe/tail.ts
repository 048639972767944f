/** Keeps the last `limit` characters of a growing text, counting what it dropped. */
export class TailBuffer {
  private parts: string[] = [];
  private length = 0;
  /** Characters dropped from the start. */
  dropped = 0;
  /** Every character ever appended. */
  total = 0;

  constructor(private readonly limit: number) {}

  append(text: string): void {
    if (!text) return;
    this.total += text.length;
    if (text.length >= this.limit) {
      // One piece fills the window on its own: everything kept so far goes.
      this.dropped += this.length;
      this.parts = [text];
      this.length = text.length;
      this.compact();
      return;
    }
    this.parts.push(text);
    this.length += text.length;
    // Compact at four times the limit so copying stays a fraction of the input.
    if (this.length > this.limit * 4) this.compact();
  }

  private compact(): void {
    let joined = this.parts.join('');
    if (joined.length > this.limit) {
      let cut = joined.length - this.limit;
      // Do not start the kept text with the low half of a surrogate pair.
      const c = joined.charCodeAt(cut);
      if (c >= 0xdc00 && c <= 0xdfff) cut++;
      // The slice may share the joined string's storage; that is at most 4x the limit and is
      // released at the next compaction, so memory stays bounded.
      joined = joined.slice(cut);
      this.dropped += cut;
    }
    this.parts = joined ? [joined] : [];
    this.length = joined.length;
  }

  /** The kept text, at most `limit` characters. */
  value(): string {
    this.compact();
    return this.parts[0] ?? '';
  }

  /** The last n characters kept (cheap check for cumulative native text). */
  endsWith(text: string): boolean {
    if (text.length > this.length) return false;
    const last = this.parts[this.parts.length - 1] ?? '';
    if (last.length >= text.length) return last.endsWith(text);
    return this.value().endsWith(text);
  }

  get size(): number {
    return this.length;
  }
}
