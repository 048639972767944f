/**
 * The sweep panel's host side: one webview panel per sweep, showing a SweepSession's state. Every
 * page message is validated first; the page gets the whole state when it (re)loads, then each
 * change as it happens.
 */
import * as vscode from 'vscode';
import { isSweepWebviewMessage, type HostToSweepWebview, type SweepViewState, type SweepWebviewToHost } from '../shared/sweepProtocol';
import { renderWebviewHtml, webviewOptions } from '../ui/webviewHtml';

/** viewType of the panel (not restored after a reload: the sweep it showed is gone then). */
export const SWEEP_VIEW_TYPE = 'inferenceDoctor.sweepPanel';

export interface SweepPanelDeps {
  extensionUri: vscode.Uri;
  title: string;
  snapshot(): SweepViewState;
  /** A validated page message other than `ready`. */
  onMessage(message: Exclude<SweepWebviewToHost, { type: 'ready' }>): void;
  onDidDispose(): void;
}

export class SweepPanel implements vscode.Disposable {
  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  /** False until the page says `ready` (it drops anything posted before), and again while hidden. */
  private ready = false;
  private disposed = false;

  constructor(private readonly deps: SweepPanelDeps) {
    this.panel = vscode.window.createWebviewPanel(
      SWEEP_VIEW_TYPE,
      deps.title,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      { ...webviewOptions(deps.extensionUri), retainContextWhenHidden: false },
    );
    this.panel.webview.html = renderWebviewHtml(this.panel.webview, deps.extensionUri, 'sweep', 'Inference Doctor: Backend Sweep');
    this.disposables.push(
      this.panel.onDidDispose(() => this.dispose()),
      this.panel.onDidChangeViewState(() => {
        if (!this.panel.visible) this.ready = false;
      }),
      this.panel.webview.onDidReceiveMessage((message: unknown) => this.receive(message)),
    );
  }

  reveal(): void {
    this.panel.reveal();
  }

  /** Posts a change; dropped while the page is not ready (its `ready` brings the whole state). */
  post(message: HostToSweepWebview): void {
    if (this.ready && !this.disposed) void this.panel.webview.postMessage(message);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
    this.deps.onDidDispose();
  }

  private receive(message: unknown): void {
    if (!isSweepWebviewMessage(message)) return; // untrusted: ignore anything malformed
    if (message.type === 'ready') {
      this.ready = true;
      this.post({ type: 'state', state: this.deps.snapshot() });
      return;
    }
    this.deps.onMessage(message);
  }
}
