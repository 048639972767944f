/**
 * A minimal LSP client that spawns `node dist/server.js --stdio` and talks JSON-RPC to it. Used by
 * the integration tests and the benchmark; handy for scripting the server from other tools.
 * Not part of the server bundle.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type { InitializeParams, InitializeResult, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';

export interface StdioClientOptions {
  serverPath: string;
  /** Extra node flags, e.g. ['--expose-gc']. */
  nodeArgs?: string[];
  /** Answer for `workspace/configuration` items (by section). */
  configuration?: Record<string, unknown>;
}

export class StdioLspClient {
  readonly conn: MessageConnection;
  readonly child: ChildProcess;
  stderr = '';
  readonly logs: string[] = [];
  readonly notifications: { method: string; params: unknown }[] = [];
  private readonly diagWaiters: { uri: string; pred: (p: PublishDiagnosticsParams) => boolean; resolve: (p: PublishDiagnosticsParams) => void }[] = [];
  readonly lastDiagnostics = new Map<string, PublishDiagnosticsParams>();
  exited: number | null | undefined;

  constructor(readonly opts: StdioClientOptions) {
    this.child = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.serverPath, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.on('data', (b: Buffer) => {
      this.stderr = (this.stderr + b.toString()).slice(-20_000);
    });
    this.child.on('exit', (code) => {
      this.exited = code;
    });
    this.conn = createMessageConnection(new StreamMessageReader(this.child.stdout!), new StreamMessageWriter(this.child.stdin!));
    this.conn.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      this.lastDiagnostics.set(p.uri, p);
      for (let i = this.diagWaiters.length - 1; i >= 0; i--) {
        const w = this.diagWaiters[i];
        if (w.uri === p.uri && w.pred(p)) {
          this.diagWaiters.splice(i, 1);
          w.resolve(p);
        }
      }
    });
    this.conn.onNotification('window/logMessage', (p: { message: string }) => {
      this.logs.push(p.message);
    });
    this.conn.onNotification((method: string, params: unknown) => {
      this.notifications.push({ method, params });
    });
    this.conn.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) =>
      p.items.map((it) => (it.section ? (opts.configuration?.[it.section] ?? null) : null)),
    );
    this.conn.onRequest('client/registerCapability', () => null);
    this.conn.onRequest('window/workDoneProgress/create', () => null);
    this.conn.listen();
  }

  async initialize(workspaceFolder: string | undefined, extra: Partial<InitializeParams> = {}): Promise<InitializeResult> {
    const { pathToFileURL } = await import('node:url');
    const uri = workspaceFolder ? pathToFileURL(workspaceFolder).toString() : null;
    const result = await this.conn.sendRequest<InitializeResult>('initialize', {
      processId: process.pid,
      rootUri: uri,
      workspaceFolders: uri ? [{ uri, name: 'ws' }] : null,
      capabilities: { workspace: { configuration: true }, textDocument: { publishDiagnostics: { relatedInformation: true } } },
      ...extra,
    });
    await this.conn.sendNotification('initialized', {});
    return result;
  }

  /** Resolves with the next diagnostics for `uri` satisfying `pred` (or the last ones, if they already do and `acceptLast`). */
  diagnostics(
    uri: string,
    pred: (p: PublishDiagnosticsParams) => boolean = () => true,
    timeoutMs = 10_000,
    acceptLast = false,
  ): Promise<PublishDiagnosticsParams> {
    const last = this.lastDiagnostics.get(uri);
    if (acceptLast && last && pred(last)) return Promise.resolve(last);
    return new Promise((resolve, reject) => {
      const w = {
        uri,
        pred,
        resolve: (p: PublishDiagnosticsParams) => {
          clearTimeout(t);
          resolve(p);
        },
      };
      const t = setTimeout(() => {
        const i = this.diagWaiters.indexOf(w);
        if (i >= 0) this.diagWaiters.splice(i, 1);
        reject(new Error(`no diagnostics for ${uri} within ${timeoutMs} ms; stderr: ${this.stderr.slice(-500)}`));
      }, timeoutMs);
      this.diagWaiters.push(w);
    });
  }

  open(uri: string, languageId: string, text: string, version = 1): Promise<void> {
    return this.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });
  }

  request<R>(method: string, params: unknown, timeoutMs = 10_000): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`${method} timed out after ${timeoutMs} ms`)), timeoutMs);
      this.conn.sendRequest<R>(method, params).then(
        (r) => {
          clearTimeout(t);
          resolve(r);
        },
        (e: unknown) => {
          clearTimeout(t);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  }

  async close(): Promise<void> {
    try {
      await Promise.race([this.conn.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 1000))]);
      await this.conn.sendNotification('exit');
    } catch {
      /* already gone */
    }
    await new Promise((r) => setTimeout(r, 100));
    this.conn.dispose();
    if (this.exited === undefined) this.child.kill();
  }
}
