import * as vscode from 'vscode';
import type { ServerConfig } from '../core/servers';
import { runQuickProbe, type QuickProbeResult } from '../core/probe/quick';
import type { ServersFeature } from '../servers/register';
import { longestBacktickRun, notificationText } from '../core/text/foreign';

const VERDICT_LABEL = { ok: 'OK', degenerate: 'Degenerate', nan: 'NaN' } as const;

/** Runs the fixed prompt set with progress and cancel, then reports one verdict per prompt. */
export async function runQuickProbeCommand(servers: ServersFeature, server: ServerConfig): Promise<void> {
  const config = vscode.workspace.getConfiguration('inferenceDoctor.probe');
  const result = await vscode.window.withProgress(
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
          maxTokens: config.get<number>('maxTokens', 256),
          timeoutMs: config.get<number>('timeoutSeconds', 120) * 1000,
          earlyStop: config.get<boolean>('earlyStop', true),
        },
        { signal: controller.signal },
      );
    },
  ).then(undefined, (error: unknown) => {
    void vscode.window.showErrorMessage(`Quick Health Probe failed: ${notificationText(error instanceof Error ? error.message : String(error))}`);
    return undefined;
  });
  if (!result) return;

  const details = 'Show Details';
  const show = result.summary.verdict === 'ok' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
  const answer = await show(`${notificationText(server.label)}: ${notificationText(result.summary.message)}`, details);
  if (answer === details) {
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: quickProbeReport(server, result) });
    await vscode.window.showTextDocument(doc, { preview: true });
  }
}

/** Markdown report; model output goes in fenced blocks so it is shown, not rendered. */
export function quickProbeReport(server: ServerConfig, result: QuickProbeResult): string {
  const lines = [`# Quick Health Probe: ${server.label}`, '', `\`${server.baseUrl}\` — ${result.summary.message}`, ''];
  for (const item of result.items) {
    const { verdict } = item.result;
    lines.push(`## ${item.label}: ${VERDICT_LABEL[verdict.kind]}`, '', `Prompt: ${item.prompt}`, '');
    for (const reason of verdict.reasons) lines.push(`- ${reason.message} (at character ${reason.offset})`);
    if (item.result.error) lines.push(`- Request problem: ${item.result.error.message}`);
    const fence = '`'.repeat(Math.max(3, longestBacktickRun(item.result.content) + 1));
    lines.push('', fence + 'text', item.result.content.slice(0, 4000), fence, '');
  }
  return lines.join('\n');
}

