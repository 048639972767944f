/**
 * The Diagnose Server panel's host side: one webview panel showing a diagnosis. Every page message
 * is validated first; the page gets the whole state when it (re)loads and whenever it changes.
 */
import * as vscode from 'vscode';
import { isDiagnoseWebviewMessage, type DiagnoseViewState, type DiagnoseWebviewToHost } from '../shared/diagnoseProtocol';
import { showControls } from '../core/text/foreign';
import { renderWebviewHtml, webviewOptions } from '../ui/webviewHtml';

/** viewType of the panel (not restored after a reload: a diagnosis is re-run, not kept). */
export const DIAGNOSE_VIEW_TYPE = 'inferenceDoctor.diagnosePanel';

export interface DiagnosePanelDeps {
  extensionUri: vscode.Uri;
  /** A validated page message other than `ready`. */
  onMessage(message: Exclude<DiagnoseWebviewToHost, { type: 'ready' }>): void;
  onDidDispose(): void;
}

export class DiagnosePanel implements vscode.Disposable {
  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  /** False until the page says `ready` (it drops anything posted before), and again while hidden. */
  private ready = false;
  private disposed = false;
  private state: DiagnoseViewState;

  constructor(
    private readonly deps: DiagnosePanelDeps,
    initial: DiagnoseViewState,
  ) {
    this.state = initial;
    this.panel = vscode.window.createWebviewPanel(
      DIAGNOSE_VIEW_TYPE,
      title(initial),
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      { ...webviewOptions(deps.extensionUri), retainContextWhenHidden: false },
    );
    this.panel.webview.html = renderWebviewHtml(this.panel.webview, deps.extensionUri, 'diagnose', 'Inference Doctor: Diagnose Server');
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

  /** Shows a new state (the page gets it now, or when it is next ready). */
  show(state: DiagnoseViewState): void {
    this.state = state;
    if (this.disposed) return;
    this.panel.title = title(state);
    if (this.ready) void this.panel.webview.postMessage({ type: 'state', state });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
    this.deps.onDidDispose();
  }

  private receive(message: unknown): void {
    if (!isDiagnoseWebviewMessage(message)) return; // untrusted: ignore anything malformed
    if (message.type === 'ready') {
      this.ready = true;
      void this.panel.webview.postMessage({ type: 'state', state: this.state });
      return;
    }
    this.deps.onMessage(message);
  }
}

function title(state: DiagnoseViewState): string {
  return `Diagnose: ${showControls(state.serverLabel.replace(/\s+/g, ' ').slice(0, 60))}`;
}
