/**
 * The probe panel's host side: one webview panel, driven by injected dependencies so the
 * extension wires it (see ProbePanelDeps). Every webview message is validated first.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { HistoryStore } from '../core/history';
import type { ProbeEvent, ProbeParams, ProbeResult, ServerTarget } from '../core/probe/types';
import { OK_VERDICT } from '../core/detect/types';
import {
  INITIAL_FORM_PARAMS,
  isWebviewMessage,
  type HostToWebview,
  type ProbeFormState,
  type Pane,
  type ServerChoice,
  type WebviewToHost,
} from '../shared/webviewProtocol';
import { probeWebviewOptions, renderProbeHtml } from './html';
import { runOutcome, type RunOutcome } from '../core/probe/outcome';
import { errorMessage } from '../core/errors';

/** Messages kept for a webview that is loading or hidden (server picks, run starts and ends, history). */
const MAX_QUEUED = 200;

/** viewType of the panel; the serializer and `onWebviewPanel:` activation use it. */
export const PROBE_VIEW_TYPE = 'inferenceDoctor.probe';

export interface ProbePanelDeps {
  extensionUri: vscode.Uri;
  listServers(): ServerChoice[];
  onDidChangeServers: vscode.Event<void>;
  /** Base URL and API key (from secret storage) of a server; throws when it is gone. */
  resolveTarget(serverId: string): Promise<ServerTarget>;
  /** A probe with the server watched around it (core/probe/watch). */
  runProbe: typeof import('../core/probe/watch').runWatchedProbe;
  fetchModels(target: ServerTarget): Promise<string[]>;
  history: HistoryStore;
  /** Runs the extension's Add Server flow. */
  addServer(): Promise<void>;
  /** Runs Diagnose Server on the server a stored run probed, with that run as evidence. */
  diagnose?(serverId: string, historyId: string): Promise<void>;
  /** Tells the Servers view what a finished run amounted to. */
  recordOutcome?(serverId: string, outcome: RunOutcome): void;
  /** Settings-backed defaults applied to a run where the form leaves a value unset. */
  probeDefaults?(): Partial<Pick<ProbeParams, 'timeoutMs' | 'maxTokens' | 'earlyStop'>>;
}

export interface ShowOptions {
  /** Preselect this server in the form. */
  serverId?: string;
  /** Show this history entry. */
  historyId?: string;
  pane?: Pane;
}

/** How often streamed events are posted to the webview, batched (ms). */
const BATCH_MS = 40;
/** A batch is posted early once it holds this many characters. */
const BATCH_CHARS = 256 * 1024;
/** Raw chunks are forwarded cut to this length; the webview shows no more of them. */
const RAW_CHUNK_CHARS = 2_000;

interface ActiveRun {
  controller: AbortController;
  pane: Pane;
}

/** A ProbeResult for a run that could not even start (server gone, no secret storage...). */
function failedResult(message: string, kind: 'unreachable' | 'cancelled' = 'unreachable'): ProbeResult {
  return {
    status: 'error',
    error: { kind, message },
    content: '',
    reasoning: '',
    contentDroppedChars: 0,
    totalChars: 0,
    finishReason: null,
    matchedStop: null,
    verdict: OK_VERDICT,
    ttftMs: null,
    durationMs: 0,
    completionTokens: 0,
    tokensPerSecond: null,
    chunkCount: 0,
  };
}

export class ProbePanel implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly runs = new Map<string, ActiveRun>();
  private ready = false;
  /** Messages that wait for the webview's `ready` (it drops anything posted before). */
  private queued: HostToWebview[] = [];
  private disposed = false;

  /** Takes over `panel` (new, or restored by VS Code after a reload); `onDisposed` runs once when it closes. */
  constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly deps: ProbePanelDeps,
    private readonly onDisposed: () => void = () => undefined,
  ) {
    panel.webview.options = probeWebviewOptions(deps.extensionUri);
    panel.webview.html = renderProbeHtml(panel.webview, deps.extensionUri);
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      // Hidden without retainContextWhenHidden, the webview's document is gone: messages wait for the
      // `ready` of the one that comes back (a server picked in the tree meanwhile would be lost).
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
      panel.webview.onDidReceiveMessage((message: unknown) => {
        if (!isWebviewMessage(message)) return; // untrusted: ignore anything malformed
        this.onMessage(message).catch((error: unknown) => this.post({ type: 'error', message: errorMessage(error) }));
      }),
      deps.onDidChangeServers(() => this.post({ type: 'servers', servers: deps.listServers() })),
    );
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.onDisposed();
    for (const run of this.runs.values()) run.controller.abort();
    this.runs.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }

  /** Brings the panel to the front. */
  reveal(): void {
    this.panel.reveal(undefined, false);
  }

  /** Selects a server, shows a history entry or a pane, as `options` ask. */
  apply(options: ShowOptions): void {
    if (options.serverId) this.post({ type: 'selectServer', serverId: options.serverId });
    if (options.historyId) void this.showEntry(options.historyId, options.pane ?? 'main');
  }

  private post(message: HostToWebview): void {
    if (this.disposed) return;
    if (!this.ready && message.type !== 'init') {
      // Stream events are not kept for a webview that is not there: runFinished carries the whole result.
      if (message.type === 'runEvent' || message.type === 'runEvents') return;
      this.queued.push(message);
      if (this.queued.length > MAX_QUEUED) this.queued.shift();
      return;
    }
    void this.panel.webview.postMessage(message);
  }

  private async onMessage(message: WebviewToHost): Promise<void> {
    switch (message.type) {
      case 'ready': {
        // Also after a webview reload: start over with fresh state.
        this.ready = true;
        // Settings give the form's first values; a restored webview keeps its own.
        const { maxTokens, earlyStop } = this.deps.probeDefaults?.() ?? {};
        const form: ProbeFormState = {
          params: { ...INITIAL_FORM_PARAMS, ...(maxTokens ? { maxTokens } : {}), ...(earlyStop !== undefined ? { earlyStop } : {}) },
        };
        this.post({ type: 'init', servers: this.deps.listServers(), history: await this.historyList(), form });
        const queued = this.queued.splice(0);
        for (const m of queued) this.post(m);
        break;
      }
      case 'listModels':
        await this.listModels(message.serverId);
        break;
      case 'run':
        await this.startRun(message.serverId, message.params, message.pane);
        break;
      case 'stop':
        this.runs.get(message.runId)?.controller.abort();
        break;
      case 'rerun': {
        const entry = await this.deps.history.get(message.historyId);
        if (!entry) return this.post({ type: 'error', message: 'That probe is no longer in the history.' });
        await this.startRun(entry.serverId, entry.params, message.pane);
        break;
      }
      case 'openEntry':
        await this.showEntry(message.historyId, message.pane);
        break;
      case 'deleteEntry':
        await this.deps.history.delete(message.historyId);
        this.post({ type: 'history', entries: await this.historyList() });
        break;
      case 'diagnose': {
        const entry = await this.deps.history.get(message.historyId);
        if (!entry) return this.post({ type: 'error', message: 'That probe is no longer in the history.' });
        await this.deps.diagnose?.(entry.serverId, entry.id);
        break;
      }
      case 'addServer':
        await this.deps.addServer();
        break;
    }
  }

  private async historyList() {
    try {
      return await this.deps.history.list();
    } catch (error) {
      this.post({ type: 'error', message: `Could not read the probe history: ${errorMessage(error)}` });
      return [];
    }
  }

  private async showEntry(historyId: string, pane: Pane): Promise<void> {
    const entry = await this.deps.history.get(historyId);
    if (entry) this.post({ type: 'showEntry', pane, entry });
    else this.post({ type: 'error', message: 'That probe is no longer in the history.' });
  }

  private async listModels(serverId: string): Promise<void> {
    try {
      const models = await this.deps.fetchModels(await this.deps.resolveTarget(serverId));
      this.post({ type: 'models', serverId, models });
    } catch (error) {
      this.post({ type: 'models', serverId, models: [], error: errorMessage(error) });
    }
  }

  private async startRun(serverId: string, params: ProbeParams, pane: Pane): Promise<void> {
    const server = this.deps.listServers().find((s) => s.id === serverId);
    if (!server) {
      this.post({ type: 'error', message: 'That server is gone. Pick another one or add it again.' });
      return;
    }
    // One run per pane: a new run replaces the pane's current one.
    for (const [id, run] of this.runs) {
      if (run.pane === pane) {
        run.controller.abort();
        this.runs.delete(id);
      }
    }
    const defaults = this.deps.probeDefaults?.() ?? {};
    const runParams: ProbeParams = { ...params, timeoutMs: params.timeoutMs ?? defaults.timeoutMs };
    const runId = randomBytes(8).toString('hex');
    const controller = new AbortController();
    this.runs.set(runId, { controller, pane });
    const startedAt = Date.now();
    this.post({ type: 'runStarted', runId, pane, serverLabel: server.label, params: runParams });

    const batcher = new EventBatcher((events) => this.post({ type: 'runEvents', runId, events }));
    let result: ProbeResult;
    try {
      const target = await this.deps.resolveTarget(serverId);
      result = await this.deps.runProbe(target, runParams, { signal: controller.signal, onEvent: (event) => batcher.add(event) });
    } catch (error) {
      // runProbe reports server problems in the result; this is for everything before it.
      result = failedResult(errorMessage(error), controller.signal.aborted ? 'cancelled' : 'unreachable');
    } finally {
      batcher.close();
    }
    this.runs.delete(runId);
    this.deps.recordOutcome?.(serverId, runOutcome(result.verdict.kind, result.status));

    let historyId: string | undefined;
    try {
      const entry = await this.deps.history.add({ serverId, serverLabel: server.label, baseUrl: server.baseUrl, params: runParams, result, startedAt });
      historyId = entry.id;
    } catch (error) {
      this.post({ type: 'error', message: `The run finished but could not be saved to history: ${errorMessage(error)}` });
    }
    // Sent for replaced runs too; the webview ignores a runId no pane shows any more.
    this.post({ type: 'runFinished', runId, result, historyId });
    this.post({ type: 'history', entries: await this.historyList() });
  }
}

/** Collects ProbeEvents and posts them in batches (timer or size), keeping their order. */
class EventBatcher {
  private events: ProbeEvent[] = [];
  private chars = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(private readonly send: (events: ProbeEvent[]) => void) {}

  add(event: ProbeEvent): void {
    if (this.closed) return;
    const slim = slimEvent(event);
    this.events.push(slim);
    if (slim.type === 'delta') this.chars += (slim.content?.length ?? 0) + (slim.reasoning?.length ?? 0);
    else if (slim.type === 'chunk') this.chars += slim.raw.length;
    if (this.chars >= BATCH_CHARS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.events.length) return;
    const events = this.events;
    this.events = [];
    this.chars = 0;
    this.send(events);
  }

  close(): void {
    this.flush();
    this.closed = true;
  }
}

/** Drops what the webview never shows: request bodies (they repeat the prompt) and long raw chunks. */
function slimEvent(event: ProbeEvent): ProbeEvent {
  if (event.type === 'request') return { type: 'request', url: event.url, body: undefined, at: event.at };
  if (event.type === 'chunk' && event.raw.length > RAW_CHUNK_CHARS) {
    return { type: 'chunk', raw: `${event.raw.slice(0, RAW_CHUNK_CHARS)} … (+${event.raw.length - RAW_CHUNK_CHARS} chars)`, at: event.at };
  }
  return event;
}
