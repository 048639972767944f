/**
 * The fix feature: "Apply to Server and Re-probe" from a known issue's quick fix, and the backend
 * sweep. Apply writes the change where the server is launched (a supervised launch script, or a
 * systemd unit through a drop-in), restarts, waits, runs the Quick Health Probe before and after,
 * and offers the roll back; the sweep does that for every combination of the chosen flags, then
 * restores the launch. Both ask before changing anything. The loops are core/fix/; this is glue,
 * and the heavy modules load on first use.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { Ctx } from '../context';
import type { ApplyAndVerifyArgs } from '../shared/lspProtocol';
import { Lazy } from '../ui/lazy';
import { isLaunchDocument } from '../services/launchFiles';

/** True while the active editor holds an SGLang launch command: the editor menus offer the sweep. */
const LAUNCH_EDITOR_CONTEXT = 'inferenceDoctor.editorHoldsLaunchCommand';

export function register(ctx: Ctx): void {
  ctx.registerCommand(COMMANDS.applyAndVerify, async (args) => {
    if (!isArgs(args)) {
      void vscode.window.showInformationMessage('Use the light bulb on a known issue in a launch file: its "Apply to Server and Re-probe" runs this.');
      return;
    }
    // The loop (SSH, supervisor, probe) loads on first use.
    const { applyAndVerifyCommand } = await import('./applyAndVerify');
    await applyAndVerifyCommand(ctx, args);
  });
  // One Sweeps per window: it knows whether a sweep is running.
  const sweeps = new Lazy(async () => new (await import('./sweepCommand')).Sweeps(ctx));
  ctx.registerCommand(COMMANDS.sweep, async (uri) => (await sweeps.get()).start(uri));
  trackLaunchEditor(ctx);
}

function trackLaunchEditor(ctx: Ctx): void {
  const update = (editor: vscode.TextEditor | undefined): void => {
    void vscode.commands.executeCommand('setContext', LAUNCH_EDITOR_CONTEXT, !!editor && isLaunchDocument(editor.document));
  };
  update(vscode.window.activeTextEditor);
  ctx.pushCleanup(
    vscode.window.onDidChangeActiveTextEditor(update),
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (doc === vscode.window.activeTextEditor?.document) update(vscode.window.activeTextEditor);
    }),
  );
}

function isArgs(a: unknown): a is ApplyAndVerifyArgs {
  const x = a as Partial<ApplyAndVerifyArgs> | undefined;
  return !!x && typeof x.uri === 'string' && Array.isArray(x.changes) && x.changes.every((c) => typeof c?.flag === 'string');
}
