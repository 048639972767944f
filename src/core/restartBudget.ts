/**
 * How often a crashed helper process (the flags language server) may be restarted: at most `max`
 * restarts within `windowMs`; past that it stays down until the user restarts it, so a server that
 * dies on start does not respawn for ever.
 */
export class RestartBudget {
  private restarts: number[] = [];

  constructor(
    private readonly max = 4,
    private readonly windowMs = 3 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Spends one restart if the window still has one; false when the budget is used up. */
  take(): boolean {
    const t = this.now();
    this.restarts = this.restarts.filter((at) => t - at < this.windowMs);
    if (this.restarts.length >= this.max) return false;
    this.restarts.push(t);
    return true;
  }

  /** A restart the user asked for starts a fresh window. */
  reset(): void {
    this.restarts = [];
  }
}
