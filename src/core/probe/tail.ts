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
    this.parts.push(text);
    this.length += text.length;
    this.total += text.length;
    // Compact at twice the limit so the cost stays linear in the input.
    if (this.length > this.limit * 2) this.compact();
  }

  private compact(): void {
    let joined = this.parts.join('');
    if (joined.length > this.limit) {
      let cut = joined.length - this.limit;
      // Do not start the kept text with the low half of a surrogate pair.
      const c = joined.charCodeAt(cut);
      if (c >= 0xdc00 && c <= 0xdfff) cut++;
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
