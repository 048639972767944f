/**
 * The fix feature: "Apply to Server and Re-probe" from a known issue's quick fix. It writes the
 * change where the server is launched (a supervised launch script, or a systemd unit through a
 * drop-in), restarts, waits, runs the Quick Health Probe before and after, and offers the roll
 * back. It asks before changing anything. The loop itself is core/fix/loop.ts; this is its glue.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { Ctx } from '../context';
import type { ApplyAndVerifyArgs } from '../shared/lspProtocol';

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
}

function isArgs(a: unknown): a is ApplyAndVerifyArgs {
  const x = a as Partial<ApplyAndVerifyArgs> | undefined;
  return !!x && typeof x.uri === 'string' && Array.isArray(x.changes) && x.changes.every((c) => typeof c?.flag === 'string');
}
