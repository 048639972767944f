import * as vscode from 'vscode';
import type { ServerStatus } from '../core/servers';
import type { RunOutcome } from '../core/probe/outcome';
import type { ServerTarget } from '../core/probe/types';
import type { ServerStore } from './serverStore';
import type { Config } from '../config';
import { errorMessage } from '../core/errors';

/** What a health check needs from the network; injected so the monitor stays testable. */
export type ServerChecker = (target: ServerTarget, options: { checkGenerate: boolean; signal: AbortSignal }) => Promise<ServerStatus>;

/**
 * Keeps the last known status of every server. Checks run on demand (view refresh, add, edit)
 * and on a timer from settings; at most one check per server runs at a time.
 */
export class HealthMonitor implements vscode.Disposable {
  private readonly statuses = new Map<string, ServerStatus>();
  /** Last probe per server, kept apart from health checks (which never change it). */
  private readonly probes = new Map<string, NonNullable<ServerStatus['lastProbe']>>();
  private readonly running = new Map<string, AbortController>();
  private readonly changed = new vscode.EventEmitter<string>();
  readonly onDidChange = this.changed.event;
  private timer: NodeJS.Timeout | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly store: ServerStore,
    private readonly check: ServerChecker,
    private readonly config: Config,
  ) {
    this.subscriptions.push(
      store.onDidChange(() => this.forgetRemoved()),
      config.onDidChange(['health'], () => this.schedule()),
    );
  }

  status(id: string): ServerStatus {
    const checked = this.checked(id);
    const lastProbe = this.probes.get(id);
    return lastProbe ? { ...checked, lastProbe } : checked;
  }

  private checked(id: string): ServerStatus {
    return this.statuses.get(id) ?? { health: 'unknown' };
  }

  /** Records what a probe of the server found (a stopped run says nothing and is not recorded). */
  recordProbe(id: string, outcome: RunOutcome): void {
    if (outcome === 'stopped' || !this.store.get(id)) return;
    this.probes.set(id, { outcome, at: Date.now() });
    this.changed.fire(id);
  }

  /** Starts periodic checks (first one soon, not during activation). */
  start(): void {
    this.schedule();
  }

  async refresh(id?: string): Promise<void> {
    const ids = id ? [id] : this.store.list().map((s) => s.id);
    await Promise.all(ids.map((serverId) => this.checkOne(serverId)));
  }

  private async checkOne(id: string): Promise<void> {
    this.running.get(id)?.abort();
    const controller = new AbortController();
    this.running.set(id, controller);
    const previous = this.checked(id);
    // Only the first check shows a spinner; periodic ones keep the last state until they finish.
    if (previous.health === 'unknown') this.set(id, { ...previous, health: 'checking' });
    try {
      const target = await this.store.target(id);
      const checkGenerate = this.config.get('health.checkGenerate');
      const status = await this.check(target, { checkGenerate, signal: controller.signal });
      if (!controller.signal.aborted) this.set(id, { ...status, checkedAt: Date.now() });
    } catch (error) {
      if (!controller.signal.aborted) {
        this.set(id, { ...previous, health: 'unreachable', lastError: errorMessage(error), checkedAt: Date.now() });
      }
    } finally {
      if (this.running.get(id) === controller) this.running.delete(id);
    }
  }

  /** Stores a status; tells listeners only when something they show changed (fewer tree refreshes). */
  private set(id: string, status: ServerStatus): void {
    const before = this.statuses.get(id);
    this.statuses.set(id, status);
    if (!before || visibleKey(before) !== visibleKey(status)) this.changed.fire(id);
  }

  private forgetRemoved(): void {
    const live = new Set(this.store.list().map((s) => s.id));
    for (const id of new Set([...this.statuses.keys(), ...this.probes.keys()])) {
      if (!live.has(id)) {
        this.statuses.delete(id);
        this.probes.delete(id);
        this.running.get(id)?.abort();
      }
    }
  }

  private schedule(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const seconds = this.config.get('health.intervalSeconds');
    setTimeout(() => void this.refresh(), 500);
    if (seconds > 0) this.timer = setInterval(() => void this.refresh(), seconds * 1000);
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    for (const controller of this.running.values()) controller.abort();
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}

function visibleKey(status: ServerStatus): string {
  const { checkedAt: _checkedAt, ...shown } = status;
  return JSON.stringify(shown);
}
