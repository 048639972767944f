/**
 * Check Answers in Editor: the detector on answers the user already has, marked where they are.
 * The selection is one answer; a JSON Lines file is saved answers (detect records or server
 * responses, one per line); a saved stream (`data:` lines) is one answer put together as the probe
 * does; any other document is one answer. Marks are diagnostics of their own
 * collection, cleared when the document changes or closes (they would point at the wrong text).
 * This module is loaded on the command's first run (probe/register.ts).
 */
import * as vscode from 'vscode';
import type { Ctx } from '../context';
import { checkAnswer, checkAnswerLines, looksLikeJsonLines, summariseCheck, type AnswerCheck, type AnswerMarkKind } from '../core/detect/answerText';
import { checkSavedStream, looksLikeSavedStream } from '../core/probe/savedStream';

const SEVERITY: Record<AnswerMarkKind, vscode.DiagnosticSeverity> = {
  nan: vscode.DiagnosticSeverity.Error,
  degenerate: vscode.DiagnosticSeverity.Error,
  suspect: vscode.DiagnosticSeverity.Information,
  unreadable: vscode.DiagnosticSeverity.Warning,
};

export class AnswerChecks implements vscode.Disposable {
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('inference-doctor-answers');
  private readonly disposables: vscode.Disposable[] = [this.diagnostics];

  constructor(private readonly ctx: Ctx) {
    const clear = (doc: vscode.TextDocument): void => {
      if (this.diagnostics.has(doc.uri)) this.diagnostics.delete(doc.uri);
    };
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length) clear(e.document);
      }),
      vscode.workspace.onDidCloseTextDocument(clear),
    );
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }

  /** Checks the editor's selection, or its document, and marks what it finds. */
  private check(editor: vscode.TextEditor): AnswerCheck {
    const doc = editor.document;
    const selection = editor.selection;
    let check: AnswerCheck;
    if (!selection.isEmpty) check = checkAnswer(doc.getText(selection), doc.offsetAt(selection.start));
    else {
      const text = doc.getText();
      check = looksLikeSavedStream(text) ? checkSavedStream(text) : looksLikeJsonLines(text) ? checkAnswerLines(text) : checkAnswer(text);
    }
    this.diagnostics.set(
      doc.uri,
      check.marks.map((m) => {
        const d = new vscode.Diagnostic(new vscode.Range(doc.positionAt(m.start), doc.positionAt(m.end)), m.message, SEVERITY[m.kind]);
        d.source = 'Inference Doctor';
        if (m.code) d.code = m.code;
        return d;
      }),
    );
    return check;
  }

  /** The command: the editor of `uri` (a menu passes it) or the active one. */
  async run(uri?: vscode.Uri): Promise<void> {
    const editor =
      uri instanceof vscode.Uri ? vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString()) : vscode.window.activeTextEditor;
    if (!editor) {
      const paste = 'New File to Paste Into';
      const choice = await vscode.window.showInformationMessage(
        'Open the answer in an editor first: paste it into a new file, select it in a log, or open a JSON Lines file of saved answers or a stream saved with curl -N. Then run Check Answers in Editor again.',
        paste,
      );
      if (choice === paste) await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ language: 'plaintext', content: '' }));
      return;
    }
    const check = this.check(editor);
    const summary = summariseCheck(check);
    this.ctx.log.info(`Check Answers in ${editor.document.uri.toString(true)}: ${summary}`);
    if (!check.marks.length) {
      void vscode.window.showInformationMessage(`${summary} Nothing marked: no sign of NaN or degenerate output.`);
      return;
    }
    const show = 'Show Problems';
    const choice = await vscode.window.showInformationMessage(`${summary} Marked in the editor.`, show);
    if (choice === show) await vscode.commands.executeCommand('workbench.actions.view.problems');
  }
}
