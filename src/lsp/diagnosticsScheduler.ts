/**
 * Batches diagnostics: every change asks for its document, and one pass after the current tick
 * (and after start-up loading) publishes each asked-for document once.
 */
export class DiagnosticsScheduler {
  private readonly pending = new Set<string>();
  private scheduled = false;

  constructor(
    private readonly ready: Promise<void>,
    private readonly publish: (uri: string) => void,
  ) {}

  schedule(uri: string): void {
    this.pending.add(uri);
    if (this.scheduled) return;
    this.scheduled = true;
    void this.ready.then(() => setImmediate(() => this.flush()));
  }

  scheduleAll(uris: Iterable<string>): void {
    for (const uri of uris) this.schedule(uri);
  }

  private flush(): void {
    this.scheduled = false;
    for (const uri of [...this.pending]) {
      this.pending.delete(uri);
      this.publish(uri);
    }
  }
}
