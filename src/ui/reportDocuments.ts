/**
 * Read-only reports the extension writes (Quick Health Probe details, installed-SGLang flag differences):
 * virtual documents, so VS Code never marks them dirty or asks to save them, and a report reopened after
 * a reload says how to get it again instead of failing to open.
 */
import * as vscode from 'vscode';

export const REPORT_SCHEME = 'inference-doctor-report';

/** How many reports are kept; the oldest are forgotten beyond it. */
const MAX_REPORTS = 50;

class ReportDocuments implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? 'This report is no longer available: run the command again.\n';
  }

  /** Shows `text` as `name` (e.g. `quick-health-probe.md`) under a folder named after `owner`. */
  async open(owner: string, name: string, text: string, language: string): Promise<vscode.TextEditor> {
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${owner.replace(/[^\w.@-]+/g, '_').slice(0, 80) || '_'}/${name}` });
    const key = uri.toString();
    this.contents.delete(key);
    this.contents.set(key, text);
    if (this.contents.size > MAX_REPORTS) this.contents.delete(this.contents.keys().next().value!);
    this.changed.fire(uri);
    let doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== language) doc = await vscode.languages.setTextDocumentLanguage(doc, language);
    return vscode.window.showTextDocument(doc, { preview: true });
  }

  dispose(): void {
    this.changed.dispose();
    this.contents.clear();
  }
}

let reports: ReportDocuments | undefined;

/** The one report store; its provider is registered by registerReportDocuments. */
export function reportDocuments(): ReportDocuments {
  reports ??= new ReportDocuments();
  return reports;
}

/** Registers the report scheme (from activate(): a restored report tab needs the provider at once). */
export function registerReportDocuments(context: vscode.ExtensionContext): void {
  const store = reportDocuments();
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, store), store);
}
