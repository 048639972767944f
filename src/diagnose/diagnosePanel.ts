/**
 * The Diagnose Server panel's host side (../ui/pagePanel.ts): one webview panel showing a
 * diagnosis, sent whole when the page (re)loads and whenever it changes.
 */
import type * as vscode from 'vscode';
import { isDiagnoseWebviewMessage, type DiagnoseViewState, type DiagnoseWebviewToHost, type HostToDiagnoseWebview } from '../shared/diagnoseProtocol';
import { PagePanel, panelTitle } from '../ui/pagePanel';

/** viewType of the panel (not restored after a reload: a diagnosis is re-run, not kept). */
export const DIAGNOSE_VIEW_TYPE = 'inferenceDoctor.diagnosePanel';

export interface DiagnosePanelDeps {
  extensionUri: vscode.Uri;
  /** A validated page message other than `ready`. */
  onMessage(message: Exclude<DiagnoseWebviewToHost, { type: 'ready' }>): void;
  onDidDispose(): void;
}

export class DiagnosePanel implements vscode.Disposable {
  private readonly panel: PagePanel<DiagnoseWebviewToHost, HostToDiagnoseWebview>;
  private state: DiagnoseViewState;

  constructor(deps: DiagnosePanelDeps, initial: DiagnoseViewState) {
    this.state = initial;
    this.panel = new PagePanel({
      extensionUri: deps.extensionUri,
      viewType: DIAGNOSE_VIEW_TYPE,
      page: 'diagnose',
      pageTitle: 'Inference Doctor: Diagnose Server',
      title: title(initial),
      isMessage: isDiagnoseWebviewMessage,
      snapshot: () => ({ type: 'state', state: this.state }),
      onMessage: (m) => deps.onMessage(m),
      onDidDispose: () => deps.onDidDispose(),
    });
  }

  reveal(): void {
    this.panel.reveal();
  }

  /** Shows a new state (the page gets it now, or when it is next ready). */
  show(state: DiagnoseViewState): void {
    this.state = state;
    this.panel.setTitle(title(state));
    this.panel.post({ type: 'state', state });
  }

  dispose(): void {
    this.panel.dispose();
  }
}

function title(state: DiagnoseViewState): string {
  return panelTitle('Diagnose: ', state.serverLabel);
}
