/**
 * The host side every page-shell panel shares (sweep, diagnose, accuracy test, reference check):
 * one webview panel on the shell of ./webviewTemplate.ts, page messages validated before anything
 * else sees them, and the page's whole state sent when it says `ready` (it drops anything posted
 * before, and reloads when it was hidden), then each change as it happens.
 */
import * as vscode from 'vscode';
import { errorMessage } from '../core/errors';
import { notificationText, showControls } from '../core/text/foreign';
import { renderWebviewHtml, webviewOptions } from './webviewHtml';

export interface PagePanelSpec<ToHost extends { type: string }, ToPage> {
  extensionUri: vscode.Uri;
  /** The panel's viewType (these panels are not restored after a reload). */
  viewType: string;
  /** The page bundle: dist/webview/<page>.js. */
  page: string;
  /** The HTML document's title. */
  pageTitle: string;
  /** The tab's title (foreign text in it is flattened and its controls shown). */
  title: string;
  /** The protocol's check of an untrusted page message. */
  isMessage(value: unknown): value is ToHost;
  /** What the page gets when it (re)loads: its whole state. */
  snapshot(): ToPage;
  /** A validated page message other than `ready`. */
  onMessage(message: Exclude<ToHost, { type: 'ready' }>): void;
  onDidDispose(): void;
}

/** A tab title from foreign text: one line, at most 60 characters, invisible characters shown. */
export function panelTitle(prefix: string, label: string): string {
  return `${prefix}${showControls(label.replace(/\s+/g, ' ').slice(0, 60))}`;
}

export class PagePanel<ToHost extends { type: string }, ToPage> implements vscode.Disposable {
  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  /** False until the page says `ready`, and again while hidden (a hidden page is unloaded). */
  private ready = false;
  private disposed = false;

  constructor(private readonly spec: PagePanelSpec<ToHost, ToPage>) {
    this.panel = vscode.window.createWebviewPanel(
      spec.viewType,
      spec.title,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      { ...webviewOptions(spec.extensionUri), retainContextWhenHidden: false },
    );
    this.panel.webview.html = renderWebviewHtml(this.panel.webview, spec.extensionUri, spec.page, spec.pageTitle);
    this.disposables.push(
      this.panel.onDidDispose(() => this.dispose()),
      this.panel.onDidChangeViewState(() => {
        if (!this.panel.visible) this.ready = false;
      }),
      this.panel.webview.onDidReceiveMessage((message: unknown) => this.receive(message)),
    );
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  reveal(): void {
    this.panel.reveal();
  }

  setTitle(title: string): void {
    if (!this.disposed) this.panel.title = title;
  }

  /** Posts a change; dropped while the page is not ready (its `ready` brings the whole state). */
  post(message: ToPage): void {
    if (this.ready && !this.disposed) void this.panel.webview.postMessage(message);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
    this.spec.onDidDispose();
  }

  private receive(message: unknown): void {
    if (!this.spec.isMessage(message)) return; // untrusted: ignore anything malformed
    if (message.type === 'ready') {
      this.ready = true;
      this.post(this.spec.snapshot());
      return;
    }
    this.spec.onMessage(message as Exclude<ToHost, { type: 'ready' }>);
  }
}

/** What showRunPanel needs beyond a PagePanelSpec: an async message handler, and who to tell when the panel closes. */
export type RunPanelSpec<ToHost extends { type: string }, ToPage> = Omit<PagePanelSpec<ToHost, ToPage>, 'onMessage' | 'onDidDispose'> & {
  onMessage(message: Exclude<ToHost, { type: 'ready' }>): Promise<void>;
  onClosed(panel: PagePanel<ToHost, ToPage>): void;
};

/**
 * A feature's one panel for its current run (accuracy test, reference check): the open one is
 * retitled, sent the run's state and revealed; otherwise a new one is made, whose handler errors
 * show as notifications. Returns the panel to keep.
 */
export function showRunPanel<ToHost extends { type: string }, ToPage>(
  open: PagePanel<ToHost, ToPage> | undefined,
  spec: RunPanelSpec<ToHost, ToPage>,
): PagePanel<ToHost, ToPage> {
  if (open) {
    open.setTitle(spec.title);
    open.post(spec.snapshot());
    open.reveal();
    return open;
  }
  const panel: PagePanel<ToHost, ToPage> = new PagePanel<ToHost, ToPage>({
    ...spec,
    onMessage: (m) =>
      void spec.onMessage(m).catch((e: unknown) => void vscode.window.showErrorMessage(`Inference Doctor: ${notificationText(errorMessage(e))}`)),
    onDidDispose: () => spec.onClosed(panel),
  });
  return panel;
}
