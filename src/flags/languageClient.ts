/**
 * The flags language server (dist/server.js) as a service on the context: `vscode-languageclient`
 * is loaded and the server spawned only when a document really holds a launch command (or
 * server_args.py) or a feature asks for the catalog. It can be stopped and restarted (command
 * "Restart Flags Language Server"); a crashed server is restarted a few times, then left down
 * with a message that offers the restart.
 *
 *   ctx.flags.watchDocuments();                      // in the flags feature's register(ctx)
 *   await ctx.flags.catalogEntries();                // from any feature
 *   await ctx.flags.sendRuntimeCatalog({ catalog, hostLabel, computeCapability });
 */
import * as vscode from 'vscode';
import { REMOTE_SCHEME } from '../core/remote/uris';
import { LAUNCH_DOCUMENT_SELECTOR } from '../core/launch/syntax';
import { errorDetail, errorMessage } from '../core/errors';
import { RestartBudget } from '../core/restartBudget';
import type { CtxBase } from '../context';
import type { LanguageClient, LanguageClientOptions, ServerOptions, ErrorHandler } from 'vscode-languageclient/node';
import {
  CONFIG_SECTION,
  FIX_COMMANDS,
  onCustomNotification,
  sendCustomNotification,
  sendCustomRequest,
  type CatalogEntriesParams,
  type CatalogEntriesResult,
  type CatalogStatus,
  type SetHostGpuParams,
  type SetServerReleaseParams,
  type LaunchEngine,
  type SetRuntimeCatalogParams,
} from '../shared/lspProtocol';
import { notificationText } from '../core/text/foreign';

/** Documents the server looks at: the one table in core/launch/syntax (imported alone, so the launch finder stays out of activation). */
export const DOCUMENT_SELECTOR = LAUNCH_DOCUMENT_SELECTOR;

export type FlagsClientState = 'stopped' | 'starting' | 'running' | 'failed';

/** Largest document the start check reads; bigger files are not launch scripts. */
const CHECK_MAX_CHARS = 2_000_000;
/** A failed start is tried again by the next launch document opened this long after it. */
const RETRY_AFTER_FAILURE_MS = 30_000;
/** What a launch command or a flag definition file contains (cheap: one substring search). */
const LAUNCH_HINT = /sglang|launch_server|server_args|vllm/i;

/** Whether opening `doc` should start the server: a matching kind of file that mentions SGLang or vLLM. */
export function holdsLaunchCommand(doc: vscode.TextDocument): boolean {
  const s = doc.uri.scheme;
  if (s !== 'file' && s !== 'untitled' && s !== 'vscode-remote' && s !== REMOTE_SCHEME) return false;
  if (vscode.languages.match(DOCUMENT_SELECTOR, doc) <= 0) return false;
  if (/(^|\/)server_args\.py$/.test(doc.uri.path)) return true;
  return doc.getText().length <= CHECK_MAX_CHARS && LAUNCH_HINT.test(doc.getText());
}

export class FlagsClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  /** The last runtime catalog of each engine, oldest first (the latest host's GPU is the one kept). */
  private readonly lastRuntime = new Map<LaunchEngine, SetRuntimeCatalogParams>();
  private lastHostGpu: SetHostGpuParams | undefined;
  private lastServerRelease: SetServerReleaseParams | undefined;
  private currentState: FlagsClientState = 'stopped';
  private failedAt = 0;
  private readonly budget = new RestartBudget();
  private readonly stateEmitter = new vscode.EventEmitter<FlagsClientState>();
  private readonly statusEmitter = new vscode.EventEmitter<CatalogStatus>();
  private readonly clientSubscriptions: vscode.Disposable[] = [];
  /** Fires on every state change (stopped, starting, running, failed). */
  readonly onDidChangeState = this.stateEmitter.event;
  /** Fires when the server's active catalog changes. */
  readonly onCatalogStatus = this.statusEmitter.event;

  constructor(private readonly base: CtxBase) {}

  get state(): FlagsClientState {
    return this.currentState;
  }

  /** Starts the server with the first document that holds a launch command (open ones included). */
  watchDocuments(): vscode.Disposable {
    const check = (doc: vscode.TextDocument): void => {
      if (!this.mayStartFor(doc)) return;
      this.base.log.info(`starting the flags language server for ${doc.uri.toString()} (${doc.languageId})`);
      void this.start();
    };
    for (const doc of vscode.workspace.textDocuments) check(doc);
    return vscode.workspace.onDidOpenTextDocument(check);
  }

  private mayStartFor(doc: vscode.TextDocument): boolean {
    const idle = this.currentState === 'stopped' || (this.currentState === 'failed' && Date.now() - this.failedAt >= RETRY_AFTER_FAILURE_MS);
    return idle && holdsLaunchCommand(doc);
  }

  /** The running client, starting it when needed; undefined when it cannot start (the user was told). */
  start(): Promise<LanguageClient | undefined> {
    if (this.client) return Promise.resolve(this.client);
    this.starting ??= this.spawn().catch((e: unknown) => {
      this.starting = undefined;
      this.failedAt = Date.now();
      this.setState('failed');
      this.base.log.error(`flags language server did not start: ${errorDetail(e)}`);
      void this.offerRestart(`the flags language server did not start: ${errorMessage(e)}`);
      return undefined;
    });
    return this.starting;
  }

  /** Stops the server and waits for it; a later start() spawns a new one. */
  async stop(): Promise<void> {
    const c = this.client ?? (this.starting ? await this.starting : undefined);
    this.client = undefined;
    this.starting = undefined;
    for (const d of this.clientSubscriptions.splice(0)) d.dispose();
    if (c) await c.stop().catch(() => undefined);
    this.setState('stopped');
  }

  /** Stop, then start with a fresh crash budget (the restart command). */
  async restart(): Promise<LanguageClient | undefined> {
    this.base.log.info('restarting the flags language server');
    await this.stop();
    this.budget.reset();
    return this.start();
  }

  /** The active catalog's entries (starting the server when needed); undefined when it cannot run. */
  async catalogEntries(params: CatalogEntriesParams = {}): Promise<CatalogEntriesResult | undefined> {
    const c = await this.start();
    return c ? sendCustomRequest(c, 'inferenceDoctor/catalogEntries', params) : undefined;
  }

  /**
   * Hands the server a catalog read from an installed SGLang (catalogToJson) and the GPU of that
   * host. Kept and re-sent whenever the server (re)starts; `catalog: null` clears it.
   */
  /** This machine's GPU for the known-issue checks; kept and sent again to a restarted server. */
  async sendHostGpu(params: SetHostGpuParams): Promise<void> {
    this.lastHostGpu = params;
    const c = this.client ?? (this.starting ? await this.starting : undefined);
    if (c) await sendCustomNotification(c, 'inferenceDoctor/setHostGpu', params);
  }

  /** The selected server's SGLang version, so launch files are judged against the release it runs. */
  async sendServerRelease(params: SetServerReleaseParams): Promise<void> {
    this.lastServerRelease = params;
    const c = this.client ?? (this.starting ? await this.starting : undefined);
    if (c) await sendCustomNotification(c, 'inferenceDoctor/setServerRelease', params);
  }

  async sendRuntimeCatalog(params: SetRuntimeCatalogParams): Promise<void> {
    const engine = params.engine ?? 'sglang';
    this.lastRuntime.delete(engine);
    this.lastRuntime.set(engine, params);
    const c = this.client ?? (this.starting ? await this.starting : undefined);
    if (c) await sendCustomNotification(c, 'inferenceDoctor/setRuntimeCatalog', params);
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
    this.statusEmitter.dispose();
  }

  private async spawn(): Promise<LanguageClient> {
    this.setState('starting');
    const { LanguageClient: Client, TransportKind, State } = await import('vscode-languageclient/node');
    const module = this.base.extension.asAbsolutePath('dist/server.js');
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc },
      debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6011'] } },
    };
    const watchers = [
      vscode.workspace.createFileSystemWatcher('**/.inference-doctor/rules.json'),
      vscode.workspace.createFileSystemWatcher('**/server_args.py'),
    ];
    this.clientSubscriptions.push(...watchers);
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      synchronize: { configurationSection: CONFIG_SECTION, fileEvents: watchers },
      outputChannelName: 'Inference Doctor Flags',
      // Hovers may hold one command link, the built-in rules' "Apply to Server and Re-probe"; every other command link stays inert.
      markdown: { isTrusted: { enabledCommands: [FIX_COMMANDS.applyAndVerify] } },
      errorHandler: await this.errorHandler(),
      // A failed initialize is not retried in a loop: the user gets the message and the restart command.
      initializationFailedHandler: (error) => {
        this.base.log.error(`flags language server failed to initialize: ${errorMessage(error)}`);
        return false;
      },
    };
    const c = new Client('inferenceDoctor.flags', 'Inference Doctor Flags', serverOptions, clientOptions);
    this.clientSubscriptions.push(
      c.onDidChangeState((e) => {
        if (this.client !== c) return; // the first start is followed by spawn() itself
        if (e.newState === State.Starting) this.setState('starting');
        else if (e.newState === State.Running) {
          this.setState('running');
          // A server restarted after a crash gets the runtime catalog again.
          for (const p of this.lastRuntime.values()) void sendCustomNotification(c, 'inferenceDoctor/setRuntimeCatalog', p).catch(() => undefined);
          if (this.lastHostGpu) void sendCustomNotification(c, 'inferenceDoctor/setHostGpu', this.lastHostGpu).catch(() => undefined);
          if (this.lastServerRelease) void sendCustomNotification(c, 'inferenceDoctor/setServerRelease', this.lastServerRelease).catch(() => undefined);
        }
      }),
    );
    await c.start();
    this.clientSubscriptions.push(onCustomNotification(c, 'inferenceDoctor/catalogChanged', (s) => this.statusEmitter.fire(s)) as vscode.Disposable);
    for (const p of this.lastRuntime.values()) await sendCustomNotification(c, 'inferenceDoctor/setRuntimeCatalog', p);
    if (this.lastHostGpu) await sendCustomNotification(c, 'inferenceDoctor/setHostGpu', this.lastHostGpu);
    if (this.lastServerRelease) await sendCustomNotification(c, 'inferenceDoctor/setServerRelease', this.lastServerRelease);
    this.client = c;
    this.setState('running');
    return c;
  }

  /** Restart a crashed server within the budget, else stay down and offer the restart command. */
  private async errorHandler(): Promise<ErrorHandler> {
    const { CloseAction, ErrorAction } = await import('vscode-languageclient/node');
    return {
      error: (_error, _message, count) => ({ action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown }),
      closed: () => {
        if (this.currentState === 'stopped') return { action: CloseAction.DoNotRestart, handled: true };
        if (this.budget.take()) {
          this.base.log.warn('the flags language server exited; restarting it');
          return { action: CloseAction.Restart, handled: true };
        }
        this.setState('failed');
        void this.offerRestart('the flags language server stopped several times in a row and was not restarted.');
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    };
  }

  private async offerRestart(why: string): Promise<void> {
    const restart = 'Restart Language Server';
    const answer = await vscode.window.showWarningMessage(`Inference Doctor: ${notificationText(why)}`, restart, 'Show Log');
    if (answer === restart) await this.restart();
    else if (answer === 'Show Log') this.base.log.show();
  }

  private setState(state: FlagsClientState): void {
    if (state === this.currentState) return;
    this.currentState = state;
    this.stateEmitter.fire(state);
  }
}
