/**
 * Followed logs as read-only virtual documents (a TextDocumentContentProvider that refreshes its
 * documents as lines arrive, throttled), and the scheme of the remote feature's generated documents
 * (ui/generatedDocuments).
 */
import * as vscode from 'vscode';
import { slug } from '../ui/generatedDocuments';

export const GENERATED_SCHEME = 'inference-doctor-gen';
export const LOG_SCHEME = 'inference-doctor-log';

export interface LogDocumentSource {
  text(): string;
  stop(): void;
}

export class LogDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly sources = new Map<string, LogDocumentSource>();
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    this.subscriptions = [
      // A closed tab ends following (onDidCloseTextDocument can come minutes later).
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        for (const tab of e.closed) {
          const input = tab.input;
          if (input instanceof vscode.TabInputText && input.uri.scheme === LOG_SCHEME && !this.isShown(input.uri)) this.stop(input.uri);
        }
      }),
      // Changing a document's language also closes and reopens it: only stop when it stays closed.
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.scheme !== LOG_SCHEME) return;
        const key = d.uri.toString();
        setTimeout(() => {
          if (!vscode.workspace.textDocuments.some((t) => t.uri.toString() === key) && !this.isShown(d.uri)) this.stop(d.uri);
        }, 1000);
      }),
    ];
  }

  private isShown(uri: vscode.Uri): boolean {
    const key = uri.toString();
    return vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === key));
  }

  /** `inference-doctor-log:/<host>/<name>.sglang.log` (the extension the sglang-log language claims). */
  uriFor(hostLabel: string, name: string): vscode.Uri {
    return vscode.Uri.from({ scheme: LOG_SCHEME, path: `/${slug(hostLabel)}/${slug(name)}.sglang.log` });
  }

  /** Show `source` at `uri`, stopping whatever followed that log before. */
  add(uri: vscode.Uri, source: LogDocumentSource): void {
    const old = this.sources.get(uri.toString());
    this.sources.set(uri.toString(), source);
    old?.stop();
  }

  /** Schedule a refresh of `uri` (coalesced to at most 4 per second). */
  touch(uri: vscode.Uri): void {
    this.pending.add(uri.toString());
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      for (const k of this.pending) this.changed.fire(vscode.Uri.parse(k));
      this.pending.clear();
    }, 250);
  }

  stop(uri: vscode.Uri): void {
    const s = this.sources.get(uri.toString());
    if (!s) return;
    s.stop();
  }

  /** `source` stopped following: keep its last text (unless a newer follow took the document over). */
  ended(uri: vscode.Uri, source: LogDocumentSource, finalText: string): void {
    const key = uri.toString();
    if (this.sources.get(key) !== source) return;
    this.sources.set(key, { text: () => finalText, stop: () => undefined });
    this.touch(uri);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.sources.get(uri.toString())?.text() ?? 'Not following this log any more: run "Follow Server Log" again.';
  }

  dispose(): void {
    for (const s of this.sources.values()) s.stop();
    this.sources.clear();
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.subscriptions) d.dispose();
    this.changed.dispose();
  }
}
