import * as vscode from 'vscode';
import type { ServerConfig } from '../core/servers';
import { runQuickProbe } from '../core/probe/quick';
import { quickProbeReport } from '../core/probe/quickReport';
import { runOutcome } from '../core/probe/outcome';
import { COMMANDS } from '../commands';
import type { Ctx } from '../context';
import { notificationText } from '../core/text/foreign';
import { errorMessage } from '../core/errors';

/** Runs the fixed prompt set with progress and cancel, then reports one verdict per prompt. */
export async function runQuickProbeCommand(ctx: Ctx, server: ServerConfig): Promise<void> {
  const { servers, config } = ctx;
  const result = await vscode.window
    .withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Quick Health Probe on ${notificationText(server.label)}`, cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        progress.report({ message: 'greeting, prime check in Python, counting…' });
        const target = await servers.store.target(server.id);
        const model = servers.health.status(server.id).models?.[0];
        return runQuickProbe(
          target,
          {
            ...(model ? { model } : {}),
            maxTokens: config.get('probe.maxTokens'),
            timeoutMs: config.get('probe.timeoutSeconds') * 1000,
            earlyStop: config.get('probe.earlyStop'),
          },
          { signal: controller.signal },
        );
      },
    )
    .then(undefined, (error: unknown) => {
      void vscode.window.showErrorMessage(`Quick Health Probe failed: ${notificationText(errorMessage(error))}`);
      return undefined;
    });
  if (!result) return;
  // Every prompt failing is a failed request (unless what did arrive was NaN or degenerate).
  const allFailed = result.summary.errors === result.items.length;
  servers.health.recordProbe(server.id, runOutcome(result.summary.verdict, allFailed ? 'error' : 'completed'));

  const details = 'Show Details';
  const diagnose = 'Diagnose';
  // NaN is the worst a server can answer: an error, not a warning.
  const show =
    result.summary.verdict === 'ok'
      ? vscode.window.showInformationMessage
      : result.summary.verdict === 'nan'
        ? vscode.window.showErrorMessage
        : vscode.window.showWarningMessage;
  // A verdict that is not OK offers its diagnosis, with these answers as the probe's evidence.
  const answer = await show(
    `${notificationText(server.label)}: ${notificationText(result.summary.message)}`,
    ...(result.summary.verdict === 'ok' ? [details] : [diagnose, details]),
  );
  if (answer === details) {
    await ctx.reports.open(server.label, 'quick-health-probe.md', quickProbeReport(server, result));
  } else if (answer === diagnose) {
    await ctx.executeCommand(COMMANDS.diagnoseServer, { serverId: server.id, quickProbe: result });
  }
}
