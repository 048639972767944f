/**
 * "Try the Simulator": the SGLang simulator on this machine's loopback, serving the tryout
 * scenario (sim/tryout.ts), listed in the Servers view for as long as this window runs it. It
 * lets someone with no GPU server at hand see what the probe catches; nothing is saved, and it
 * stops with the window or with Stop Simulator.
 */
import * as vscode from 'vscode';
import type { ServerConfig } from '../core/servers';
import type { RunningSimulator } from '../sim/server';
import type { HealthMonitor } from './healthMonitor';
import type { ServerStore } from './serverStore';

/** Its key among the window's own servers (ServerStore.addSession). */
const SESSION_KEY = 'tryout-simulator';
/** The `when` context key the Stop Simulator menu entry reads. */
const RUNNING_CONTEXT = 'inferenceDoctor.simulatorRunning';
export const TRYOUT_LABEL = 'Simulator (this machine, no GPU)';

export class TryoutSimulator implements vscode.Disposable {
  private running: { sim: RunningSimulator; server: ServerConfig } | undefined;
  private starting: Promise<ServerConfig> | undefined;

  constructor(
    private readonly store: ServerStore,
    private readonly health: HealthMonitor,
  ) {}

  /** The simulator's server entry, starting it first if this window runs none. */
  start(): Promise<ServerConfig> {
    if (this.running) return Promise.resolve(this.running.server);
    this.starting ??= this.launch().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async launch(): Promise<ServerConfig> {
    // Loaded on first use: the simulator is not part of what activation needs.
    const [{ startSimulator }, { TRYOUT_SCENARIO }] = await Promise.all([import('../sim/server'), import('../sim/tryout')]);
    const sim = await startSimulator({ port: 0, host: '127.0.0.1', scenario: TRYOUT_SCENARIO });
    const server = this.store.addSession(SESSION_KEY, TRYOUT_LABEL, sim.url);
    this.running = { sim, server };
    await vscode.commands.executeCommand('setContext', RUNNING_CONTEXT, true);
    void this.health.refresh(server.id);
    return server;
  }

  /** Stops the simulator and takes it off the list; false when none was running. */
  async stop(): Promise<boolean> {
    // A stop asked for while it starts stops what that start brings up. Otherwise nothing is
    // awaited before the entry is taken: a start right after this call launches a new one.
    if (!this.running && this.starting) await this.starting.catch(() => undefined);
    const running = this.running;
    if (!running) return false;
    this.running = undefined;
    this.store.removeSession(running.server.id);
    // The port first: at shutdown the context command may no longer run.
    await running.sim.close();
    // A start while the port closed brought up another: its Stop stays.
    if (!this.running && !this.starting) await vscode.commands.executeCommand('setContext', RUNNING_CONTEXT, false);
    return true;
  }

  dispose(): void {
    void this.stop().catch(() => undefined);
  }
}
