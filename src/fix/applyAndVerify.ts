/**
 * "Apply to Server and Re-probe": which restart target and which server (asked once per launch
 * file, remembered), a confirmation naming every change, then the loop with progress and cancel,
 * and the outcome with Roll Back / Keep. Loaded on first use by ./register.ts.
 */
import * as vscode from 'vscode';
import type { Ctx } from '../context';
import type { ServerConfig } from '../core/servers';
import { errorMessage } from '../core/errors';
import { applyAndVerify, type RestartTarget, type VerifyResult } from '../core/fix/loop';
import { OUTCOME_LABEL, runOutcome } from '../core/probe/outcome';
import type { VerdictKind } from '../core/detect/types';
import { notificationText, escapeMarkdown, codeSpan } from '../core/text/foreign';
import type { ApplyAndVerifyArgs } from '../shared/lspProtocol';
import { accuracyProbeOf, canRestartFrom, pickProbeServer, pickTarget, restartTarget, targetWords } from './pickers';

export async function applyAndVerifyCommand(ctx: Ctx, args: ApplyAndVerifyArgs): Promise<void> {
  const uri = vscode.Uri.parse(args.uri);
  if (!canRestartFrom(uri)) {
    void vscode.window.showWarningMessage(
      'Inference Doctor: Apply to Server works on launch files on this machine or opened from a connected SSH host (the Hosts view); apply the quick fix and restart by hand here.',
    );
    return;
  }
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (doc?.isDirty && !(await doc.save())) return;
  const choice = await pickTarget(ctx, uri);
  if (!choice) return;
  const server = await pickProbeServer(ctx, uri);
  if (!server) return;
  const changeText = args.changes.map((c) => (c.value === false ? `remove ${c.flag}` : c.value === true ? `add ${c.flag}` : `${c.flag} ${c.value}`)).join(', ');
  const where = `restart ${targetWords(choice)}`;
  const go = 'Apply and Re-probe';
  const answer = await vscode.window.showWarningMessage(
    `Change ${notificationText(changeText)} in ${notificationText(vscode.workspace.asRelativePath(uri))}, ${notificationText(where)}, and re-probe ${notificationText(server.label)}?`,
    {
      modal: true,
      detail: 'The server restarts (and reloads its weights). You can roll back afterwards; a server that does not come back is rolled back on its own.',
    },
    go,
  );
  if (answer !== go) return;
  let target: RestartTarget;
  try {
    target = restartTarget(ctx, uri, choice);
  } catch (e) {
    void vscode.window.showErrorMessage(`Inference Doctor: ${notificationText(errorMessage(e))}`);
    return;
  }
  const serverTarget = await ctx.servers.store.target(server.id);
  const result = await vscode.window
    .withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Inference Doctor: ${notificationText(args.summary)}`, cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return applyAndVerify(target, args.changes, {
          server: serverTarget,
          readyTimeoutMs: ctx.config.get('fix.readyTimeoutSeconds') * 1000,
          signal: abort.signal,
          ...(ctx.config.get('fix.probeSet') === 'accuracy' ? { probe: accuracyProbeOf(ctx, abort.signal) } : {}),
          onProgress: (m) => progress.report({ message: m }),
        });
      },
    )
    .then(undefined, (e: unknown) => {
      void vscode.window.showErrorMessage(`Inference Doctor: Apply to Server failed: ${notificationText(errorMessage(e))}`);
      return undefined;
    });
  if (!result) return;
  ctx.log.info(`apply and verify on ${server.label} via ${target.label}: ${result.outcome} (${result.before} → ${result.after ?? 'no answer'})`);
  if (result.after) ctx.servers.health.recordProbe(server.id, runOutcome(result.after, 'completed'));
  void ctx.servers.health.refresh(server.id);
  await showOutcome(ctx, server, target, args, result);
}

/** Probe answers quoted in the outcome report at most. */
const MAX_REPORTED_ANSWERS = 12;

const label = (v: VerdictKind | undefined): string => (v ? OUTCOME_LABEL[v] : '?');

async function showOutcome(ctx: Ctx, server: ServerConfig, target: RestartTarget, args: ApplyAndVerifyArgs, r: VerifyResult): Promise<void> {
  const name = notificationText(server.label);
  const details = 'Show Details';
  const rollBack = 'Roll Back';
  let answer: string | undefined;
  if (r.outcome === 'did-not-start' || r.outcome === 'crashed') {
    const what =
      r.outcome === 'crashed' ? 'came back, then exited during the probe' : `did not come back after the change (${notificationText(r.error ?? '')})`;
    answer = await vscode.window.showErrorMessage(`${name} ${what}; the launch was rolled back.`, details);
  } else if (r.outcome === 'healthy') {
    answer = await vscode.window.showInformationMessage(
      `${name} is healthy now: ${label(r.before)} → OK after: ${notificationText(args.summary).replace(/\.+$/, '')}.`,
      details,
      rollBack,
    );
  } else {
    const what = r.outcome === 'better' ? 'better but not healthy' : r.outcome === 'worse' ? 'worse' : 'no better';
    answer = await vscode.window.showWarningMessage(`${name} is ${what}: ${label(r.before)} → ${label(r.after)}. Roll back the change?`, rollBack, details);
  }
  if (answer === details) await ctx.reports.open(server.label, 'apply-and-verify.md', outcomeReport(server, target, args, r));
  if (answer === rollBack) {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Inference Doctor: rolling back ${notificationText(target.label)}` },
      () => target.restore(),
    );
    void vscode.window.showInformationMessage(`Rolled back: ${notificationText(target.label)} is launched as before.`);
  }
}

function outcomeReport(server: ServerConfig, target: RestartTarget, args: ApplyAndVerifyArgs, r: VerifyResult): string {
  const lines = [
    `# Apply and verify: ${escapeMarkdown(server.label)}`,
    '',
    `Change: ${args.changes.map((c) => codeSpan(c.value === false ? `remove ${c.flag}` : c.value === true ? c.flag : `${c.flag} ${c.value}`)).join(', ')}`,
    `Restarted: ${escapeMarkdown(target.label)}`,
    '',
    '| | verdict |',
    '| --- | --- |',
    `| before | ${r.before} |`,
    `| after | ${r.after ?? 'did not start'} |`,
    '',
    `Outcome: **${r.outcome}**${r.readySeconds !== undefined ? ` (ready after ${r.readySeconds.toFixed(1)} s)` : ''}${r.restored ? '; the launch was rolled back' : ''}.`,
  ];
  if (r.probe) lines.push('', escapeMarkdown(r.probe.summary.message));
  // The accuracy test is a hundred answers: the first few say enough.
  for (const item of r.probe?.items.slice(0, MAX_REPORTED_ANSWERS) ?? [])
    lines.push('', `## ${item.label}: ${item.result.verdict.kind}`, '', '```text', item.result.content.slice(0, 400).replace(/```/g, "'''"), '```');
  if (r.logTail) lines.push('', '## Server log', '', '```text', r.logTail.replace(/```/g, "'''"), '```');
  return `${lines.join('\n')}\n`;
}
