/**
 * Read-only virtual documents holding text the extension generated (environment reports, comparison
 * JSON, command lines, probe reports): a TextDocumentContentProvider, so VS Code never marks them dirty
 * or offers to save them, and a tab restored after a reload says how to get the text again.
 */
import * as vscode from 'vscode';

/** A host label, file name or server key as one safe path segment of a generated document's URI. */
export function slug(s: string): string {
  return s.replace(/[^\w.@-]+/g, '_').slice(0, 80) || '_';
}

/** How many documents one store keeps; the oldest are forgotten beyond it. */
const MAX_DOCUMENTS = 100;

export class GeneratedDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  /** `preview`: open in the preview tab (reports shown once) rather than a tab of their own. */
  constructor(
    private readonly scheme: string,
    private readonly opts: { preview?: boolean } = {},
  ) {}

  /** Store text under `path` (e.g. `/env/gpu1/environment-report.txt`) and return its URI. */
  set(path: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: this.scheme, path });
    const key = uri.toString();
    // Re-set documents move to the end, so the bound forgets the least recently written.
    this.contents.delete(key);
    this.contents.set(key, text);
    if (this.contents.size > MAX_DOCUMENTS) this.contents.delete(this.contents.keys().next().value!);
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? 'This generated document is no longer available: run the command again.';
  }

  async open(path: string, text: string, language?: string): Promise<vscode.TextEditor> {
    const uri = this.set(path, text);
    let doc = await vscode.workspace.openTextDocument(uri);
    if (language && doc.languageId !== language) doc = await vscode.languages.setTextDocumentLanguage(doc, language);
    return vscode.window.showTextDocument(doc, { preview: this.opts.preview === true });
  }

  dispose(): void {
    this.changed.dispose();
    this.contents.clear();
  }
}
