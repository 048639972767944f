/**
 * The one context every feature is registered with. `activate()` builds it (extension.ts), then
 * calls each feature's `register(ctx)`. Features never import each other: they meet through the
 * services here, and call each other's commands only through the typed `ctx.executeCommand`.
 *
 *   export function register(ctx: Ctx): void {
 *     ctx.registerCommand(COMMANDS.addHost, () => …);
 *     ctx.pushCleanup(view, tree);
 *   }
 */
import * as vscode from 'vscode';
import type { CommandArgs, CommandHandler, CommandId } from './commands';
import { Config } from './config';
import type { ServerConfig } from './core/servers';
import type { ServerStore } from './servers/serverStore';
import type { HealthMonitor } from './servers/healthMonitor';
import type { FlagsClient } from './flags/languageClient';
import type { RuntimeHosts } from './services/runtimeHosts';
import { createLogChannel } from './ui/foreignText';

/** The registered inference servers, their health and how a command finds the one it is about. */
export interface ServersService {
  readonly store: ServerStore;
  readonly health: HealthMonitor;
  /** The server a command argument names (row, id, `{ serverId }`), else the only one, else the user's pick; among the `eligible` ones when given. */
  readonly pick: (arg: unknown, placeHolder: string, eligible?: (server: ServerConfig) => boolean) => Promise<ServerConfig | undefined>;
  /** The server a command argument names, without asking. */
  readonly fromArg: (arg: unknown) => ServerConfig | undefined;
}

/** Read-only markdown reports (virtual documents, never dirty). */
export interface ReportsService {
  open(owner: string, name: string, markdown: string): Promise<vscode.TextEditor>;
}

/** What the services are built from: everything on the context except the services themselves. */
export interface CtxBase {
  readonly extension: vscode.ExtensionContext;
  readonly config: Config;
  readonly log: vscode.LogOutputChannel;
  pushCleanup(...disposables: vscode.Disposable[]): void;
}

export interface Services {
  servers: ServersService;
  /** The flags language client: started on first use, restartable. */
  flags: FlagsClient;
  /** Connected hosts (filled by the remote feature, read by the flags feature). */
  hosts: RuntimeHosts;
  reports: ReportsService;
}

export class Ctx implements CtxBase {
  readonly config = new Config(vscode.workspace);
  readonly servers: ServersService;
  readonly flags: FlagsClient;
  readonly hosts: RuntimeHosts;
  readonly reports: ReportsService;
  private logChannel: vscode.LogOutputChannel | undefined;

  constructor(
    readonly extension: vscode.ExtensionContext,
    services: (base: CtxBase) => Services,
  ) {
    const s = services(this);
    this.servers = s.servers;
    this.flags = s.flags;
    this.hosts = s.hosts;
    this.reports = s.reports;
  }

  /** "Inference Doctor" in the Output panel, created on first use. */
  get log(): vscode.LogOutputChannel {
    if (!this.logChannel) {
      this.logChannel = createLogChannel('Inference Doctor');
      this.pushCleanup(this.logChannel);
    }
    return this.logChannel;
  }

  /** Disposed when the extension deactivates, in reverse order of pushing (VS Code's order). */
  pushCleanup(...disposables: vscode.Disposable[]): void {
    this.extension.subscriptions.push(...disposables);
  }

  /** Registers a command of the table; its handler's arguments are typed by `CommandArgs`. */
  registerCommand<I extends CommandId>(id: I, handler: CommandHandler<I>): void {
    this.pushCleanup(vscode.commands.registerCommand(id, handler as (...args: unknown[]) => unknown));
  }

  /** Runs a command of the table with arguments of its type. */
  executeCommand<I extends CommandId>(id: I, ...args: CommandArgs[I]): Thenable<unknown> {
    return vscode.commands.executeCommand(id, ...args);
  }
}

/** Every feature folder's one entry point. */
export type Feature = (ctx: Ctx) => void;
