/**
 * The sweep panel's host side: one webview panel per sweep (../ui/pagePanel.ts), showing a
 * SweepSession's state: the whole of it when the page (re)loads, then each change as it happens.
 */
import type * as vscode from 'vscode';
import { isSweepWebviewMessage, type HostToSweepWebview, type SweepViewState, type SweepWebviewToHost } from '../shared/sweepProtocol';
import { PagePanel } from '../ui/pagePanel';

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

export type SweepPanel = PagePanel<SweepWebviewToHost, HostToSweepWebview>;

export function createSweepPanel(deps: SweepPanelDeps): SweepPanel {
  return new PagePanel<SweepWebviewToHost, HostToSweepWebview>({
    extensionUri: deps.extensionUri,
    viewType: SWEEP_VIEW_TYPE,
    page: 'sweep',
    pageTitle: 'Inference Doctor: Backend Sweep',
    title: deps.title,
    isMessage: isSweepWebviewMessage,
    snapshot: () => ({ type: 'state', state: deps.snapshot() }),
    onMessage: (m) => deps.onMessage(m),
    onDidDispose: () => deps.onDidDispose(),
  });
}
