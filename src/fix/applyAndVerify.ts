/**
 * "Apply to Server and Re-probe": which restart target and which server (asked once per launch
 * file, remembered), a confirmation naming every change, then the loop with progress and cancel,
 * and the outcome with Roll Back / Keep. Loaded on first use by ./register.ts.
 */
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Ctx } from '../context';
import type { ServerConfig } from '../core/servers';
import { errorMessage } from '../core/errors';
import { applyAndVerify, launchServerUrl, ScriptTarget, localSupervised, SystemdTarget, type RestartTarget, type VerifyResult } from '../core/fix/loop';
import { defaultSupervisorDir, Supervisor } from '../core/fix/supervisor';
import { LocalHost } from '../core/hosts/local';
import { OUTCOME_LABEL, runOutcome } from '../core/probe/outcome';
import type { VerdictKind } from '../core/detect/types';
import { notificationText, escapeMarkdown, codeSpan } from '../core/text/foreign';
import type { ApplyAndVerifyArgs } from '../shared/lspProtocol';
import { guardPicks } from '../ui/foreignText';

type TargetChoice = { kind: 'supervise'; name: string } | { kind: 'systemd'; unit: string };
interface TargetItem {
  label: string;
  description: string;
  detail?: string;
  ownIcon?: string;
  /** Undefined: ask for a unit name. */
  choice?: TargetChoice;
  runsThis: boolean;
}
const TARGET_KEY = 'inferenceDoctor.fix.target:';
const SERVER_KEY = 'inferenceDoctor.fix.server:';

function stateDir(ctx: Ctx): string {
  return ctx.config.text('fix.superviseStateDir') ?? defaultSupervisorDir();
}

export async function applyAndVerifyCommand(ctx: Ctx, args: ApplyAndVerifyArgs): Promise<void> {
  const uri = vscode.Uri.parse(args.uri);
  if (uri.scheme !== 'file') {
    void vscode.window.showWarningMessage(
      'Inference Doctor: Apply to Server works on launch files on this machine for now; apply the quick fix and restart on the host.',
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
  const where = choice.kind === 'supervise' ? `restart "${choice.name}" (supervise)` : `restart ${choice.unit} (a drop-in; the unit file is not written)`;
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
  const host = new LocalHost();
  const target: RestartTarget =
    choice.kind === 'supervise'
      ? new ScriptTarget(host, uri.fsPath, localSupervised(new Supervisor(stateDir(ctx)), choice.name))
      : new SystemdTarget(host, choice.unit);
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
  for (const item of r.probe?.items ?? [])
    lines.push('', `## ${item.label}: ${item.result.verdict.kind}`, '', '```text', item.result.content.slice(0, 400).replace(/```/g, "'''"), '```');
  if (r.logTail) lines.push('', '## Server log', '', '```text', r.logTail.replace(/```/g, "'''"), '```');
  return `${lines.join('\n')}\n`;
}

/** The remembered restart target of this launch file, else the user's pick (supervised names found, or a unit). */
async function pickTarget(ctx: Ctx, uri: vscode.Uri): Promise<TargetChoice | undefined> {
  const key = TARGET_KEY + uri.toString();
  const saved = ctx.extension.workspaceState.get<TargetChoice>(key);
  if (saved) return saved;
  const dir = stateDir(ctx);
  const supervised = existsSync(dir) ? readdirSync(dir).filter((n) => existsSync(join(dir, n, 'command.json'))) : [];
  const sup = new Supervisor(dir);
  const items: TargetItem[] = [
    ...supervised.map((name): TargetItem => {
      const s = sup.status(name);
      const runsThis = s.command?.argv.some((a) => a === uri.fsPath || a.endsWith(`/${uri.path.split('/').pop() ?? ''}`));
      return {
        label: name,
        description: `supervise${s.running ? ' · running' : ''}${runsThis ? ' · runs this file' : ''}`,
        detail: s.command?.argv.join(' '),
        choice: { kind: 'supervise', name },
        runsThis: !!runsThis,
      };
    }),
    { label: 'A systemd unit…', ownIcon: 'server-process', description: 'restart through a drop-in', runsThis: false },
  ].sort((a, b) => Number(b.runsThis) - Number(a.runsThis));
  const picked = await vscode.window.showQuickPick(guardPicks(items), {
    title: 'How is this server restarted?',
    placeHolder: 'A name started with "inference-doctor supervise start", or a systemd unit',
    ignoreFocusOut: true,
  });
  if (!picked) return undefined;
  let choice = picked.choice;
  if (!choice) {
    const unit = await vscode.window.showInputBox({
      title: 'systemd unit',
      prompt: 'The unit that runs this launch command',
      placeHolder: 'sglang.service',
      ignoreFocusOut: true,
    });
    if (!unit?.trim()) return undefined;
    choice = { kind: 'systemd', unit: unit.trim() };
  }
  await ctx.extension.workspaceState.update(key, choice);
  return choice;
}

/** The registered server on the launch command's port, else the remembered or picked one. */
async function pickProbeServer(ctx: Ctx, uri: vscode.Uri): Promise<ServerConfig | undefined> {
  const servers = ctx.servers.store.list();
  const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  const port = new URL(launchServerUrl(text, uri.path)).port;
  const onPort = servers.filter((s) => {
    try {
      const u = new URL(s.baseUrl);
      return (u.port || (u.protocol === 'https:' ? '443' : '80')) === port && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
    } catch {
      return false;
    }
  });
  if (onPort.length === 1) return onPort[0];
  const key = SERVER_KEY + uri.toString();
  const saved = ctx.extension.workspaceState.get<string>(key);
  const remembered = saved ? ctx.servers.store.get(saved) : undefined;
  if (remembered) return remembered;
  const picked = await ctx.servers.pick(undefined, 'Probe which server after the restart?');
  if (picked) await ctx.extension.workspaceState.update(key, picked.id);
  return picked;
}
