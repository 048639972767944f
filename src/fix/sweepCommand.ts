/**
 * "Backend Sweep…": pick the launch file, how its server restarts and which server to probe (the
 * pickers apply-and-verify uses), the flags to vary and their values (known issues' flags first,
 * choices from the flag catalog), confirm, then run the sweep in its panel. A healthy row is
 * applied as a reviewed edit: the change goes into the editor unsaved, beside a diff, and the
 * user saves. Loaded on first use by ./register.ts.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { Ctx } from '../context';
import { errorMessage } from '../core/errors';
import { loadBundledCatalog, VLLM_BUNDLED_FILE } from '../core/flags/bundled/load';
import { QUICK_PROMPTS, runQuickProbe, type QuickProbeResult, type QuickPrompt } from '../core/probe/quick';
import type { ServerTarget } from '../core/probe/types';
import { combinations, MAX_COMBINATIONS, type SweepAxis } from '../core/fix/sweep';
import { launchSyntaxOf } from '../core/launch/syntax';
import type { LanguageHint } from '../core/launch/types';
import type { TextEdit } from '../core/launch/edit';
import { notificationText } from '../core/text/foreign';
import { DIAGNOSTIC_SOURCE } from '../shared/lspProtocol';
import type { SweepEnd, SweepWebviewToHost } from '../shared/sweepProtocol';
import { guardPicks, iconText } from '../ui/foreignText';
import { findWorkspaceLaunchFiles, isLaunchDocument } from '../services/launchFiles';
import { accuracyProbeOf, pickProbeServer, pickTarget, restartTarget, targetRecord, targetWords, type TargetChoice } from './pickers';
import { createSweepPanel, type SweepPanel } from './sweepPanel';
import {
  axisViews,
  knownIssueSuggestions,
  launchCommandOf,
  preselectedValues,
  proposedLaunchEdits,
  sweepFlagOptions,
  vllmSweepEntries,
  type SweepFlagOption,
} from './sweepPlan';
import { SweepSession } from './sweepSession';

/** Read-only "before" side of an applied row's diff. */
const BEFORE_SCHEME = 'inference-doctor-sweep-before';
/** How long a launch file without our diagnostics waits for the language server's first ones. */
const DIAGNOSTICS_WAIT_MS = 2_000;

interface LaunchFile {
  uri: vscode.Uri;
  hint: LanguageHint;
  text: string;
}

export class Sweeps {
  private running: { session: SweepSession; panel: SweepPanel | undefined } | undefined;
  private readonly before = new Map<string, string>();
  private seq = 0;

  constructor(private readonly ctx: Ctx) {
    ctx.pushCleanup(
      vscode.workspace.registerTextDocumentContentProvider(BEFORE_SCHEME, { provideTextDocumentContent: (uri) => this.before.get(uri.toString()) }),
      vscode.workspace.onDidCloseTextDocument((d) => this.before.delete(d.uri.toString())),
      // A window that closes mid-sweep still asks for the restore (best effort: the host may not wait).
      { dispose: () => this.running?.session.cancel() },
    );
  }

  async start(arg: unknown): Promise<void> {
    if (this.running) {
      this.running.panel?.reveal();
      void vscode.window.showInformationMessage('A backend sweep is running: cancel it or wait for it to restore the launch before starting another.');
      return;
    }
    const file = await pickLaunchFile(arg);
    if (!file) return;
    const choice = await pickTarget(this.ctx, file.uri);
    if (!choice) return;
    const server = await pickProbeServer(this.ctx, file.uri);
    if (!server) return;
    const axes = await this.pickAxes(file);
    if (!axes) return;
    const total = combinations(axes).length;
    if (total > MAX_COMBINATIONS) {
      void vscode.window.showErrorMessage(`${total} combinations: a sweep runs at most ${MAX_COMBINATIONS} (each restarts the server). Pick fewer values.`);
      return;
    }
    const probe = await pickProbe(this.ctx);
    if (!probe) return;
    if (!(await confirm(file, choice, server.label, axes, total))) return;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === file.uri.toString());
    if (doc?.isDirty && !(await doc.save())) return;
    await this.run(file, choice, server.id, server.label, axes, total, probe);
  }

  private async run(
    file: LaunchFile,
    choice: TargetChoice,
    serverId: string,
    serverLabel: string,
    axes: SweepAxis[],
    total: number,
    probe: (server: ServerTarget) => Promise<QuickProbeResult>,
  ): Promise<void> {
    const target = restartTarget(this.ctx, file.uri, choice);
    let panel: SweepPanel | undefined;
    const session = new SweepSession({
      target,
      axes,
      setup: {
        launchLabel: vscode.workspace.asRelativePath(file.uri),
        targetLabel: target.label,
        serverLabel,
        axes: axisViews(axes, launchCommandOf(file.text, file.hint)),
        total,
      },
      server: await this.ctx.servers.store.target(serverId),
      launchPath: file.uri.fsPath,
      restart: targetRecord(choice),
      readyTimeoutMs: this.ctx.config.get('fix.readyTimeoutSeconds') * 1000,
      probe,
      post: (m) => panel?.post(m),
    });
    const running = { session, panel: undefined as SweepPanel | undefined };
    panel = running.panel = createSweepPanel({
      extensionUri: this.ctx.extension.extensionUri,
      title: `Sweep: ${basename(file.uri.fsPath)}`,
      snapshot: () => session.snapshot(),
      onMessage: (m) => this.onMessage(session, file, m),
      // Closing the panel mid-sweep cancels it; the launch is restored all the same.
      onDidDispose: () => {
        panel = running.panel = undefined;
        session.cancel();
      },
    });
    this.running = running;
    this.ctx.log.info(`backend sweep of ${file.uri.fsPath} via ${target.label}: ${total} combinations`);
    let end: SweepEnd;
    try {
      end = await session.run();
    } finally {
      // Before the notification: it stays until dismissed, and a new sweep may start meanwhile.
      this.running = undefined;
    }
    this.ctx.log.info(`backend sweep ended: complete ${end.complete}, restored ${end.restored}${end.error ? `, error ${end.error}` : ''}`);
    void this.ctx.servers.health.refresh(serverId);
    await this.sayEnd(file, session, end);
  }

  private onMessage(session: SweepSession, file: LaunchFile, m: Exclude<SweepWebviewToHost, { type: 'ready' }>): void {
    if (m.type === 'cancel') session.cancel();
    else if (m.type === 'applyRow') void this.applyRow(session, file, m.index).catch((e: unknown) => showError('Applying the row failed', e));
    else {
      const path = session.snapshot().end?.reports?.[m.kind];
      if (path) void vscode.window.showTextDocument(vscode.Uri.file(path), { preview: true });
    }
  }

  /** The flags to vary and their values, or undefined when the user stops. */
  private async pickAxes(file: LaunchFile): Promise<SweepAxis[] | undefined> {
    const options = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Inference Doctor: reading the flag catalog' }, () =>
      this.flagOptions(file),
    );
    if (options.length === 0) {
      void vscode.window.showWarningMessage(
        'No backend flags with known choices: open the SGLang server_args.py in the workspace, or "Load Flags from Installed SGLang", then try again.',
      );
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(guardPicks(options.map(flagItem)), {
      title: 'Backend Sweep: which flags to vary?',
      placeHolder: 'Flags that known issues on this file name come first (and are selected)',
      canPickMany: true,
      matchOnDescription: true,
      matchOnDetail: true,
      ignoreFocusOut: true,
    });
    if (!picked?.length) return undefined;
    const axes: SweepAxis[] = [];
    for (const [i, { option }] of picked.entries()) {
      const values = await vscode.window.showQuickPick(guardPicks(valueItems(option)), {
        title: iconText(`Backend Sweep: values of ${option.flag} (${i + 1}/${picked.length})`),
        placeHolder: "The current value is the baseline row; a known issue's fix is preselected",
        canPickMany: true,
        ignoreFocusOut: true,
      });
      if (!values?.length) return undefined;
      axes.push({ flag: option.flag, ...(option.aliases.length ? { aliases: option.aliases } : {}), values: values.map((v) => v.value) });
    }
    return axes;
  }

  private async flagOptions(file: LaunchFile): Promise<SweepFlagOption[]> {
    const cmd = launchCommandOf(file.text, file.hint);
    if (cmd?.engine === 'vllm') {
      // vLLM's backend flags come from the bundled vLLM catalog (the known-issue rules are SGLang's).
      const bundled = await loadBundledCatalog(undefined, VLLM_BUNDLED_FILE).catch(() => undefined);
      return sweepFlagOptions(bundled ? vllmSweepEntries(bundled, file.text, file.uri.path) : [], [], cmd);
    }
    const catalog = await this.ctx.flags.catalogEntries().catch(() => undefined);
    const diagnostics = await launchDiagnostics(file.uri);
    return sweepFlagOptions(catalog?.entries ?? [], knownIssueSuggestions(diagnostics), cmd);
  }

  /** The row's flags go into the editor (unsaved), shown beside what the file says now; the user saves. */
  private async applyRow(session: SweepSession, file: LaunchFile, index: number): Promise<void> {
    const r = session.rowToApply(index);
    if ('refused' in r) {
      void vscode.window.showWarningMessage(r.refused);
      return;
    }
    const doc = await vscode.workspace.openTextDocument(file.uri);
    const now = doc.getText();
    const edits = proposedLaunchEdits(now, launchSyntaxOf(doc.languageId, file.uri.path) ?? file.hint, r.changes);
    const name = basename(file.uri.fsPath);
    if (edits.length === 0) {
      void vscode.window.showInformationMessage(`${notificationText(name)} already launches with row ${index + 1}'s flags.`);
      return;
    }
    const edit = new vscode.WorkspaceEdit();
    for (const e of edits) edit.replace(file.uri, toRange(e), e.newText);
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`${name} could not be edited`);
    const before = vscode.Uri.from({ scheme: BEFORE_SCHEME, path: file.uri.path, query: String(++this.seq) });
    this.before.set(before.toString(), now);
    await vscode.commands.executeCommand('vscode.diff', before, file.uri, `${name}: now ↔ sweep row ${index + 1} (unsaved)`);
    const save = 'Save';
    const answer = await vscode.window.showInformationMessage(
      `Row ${index + 1}'s flags are in ${notificationText(name)}, not saved: review the diff, then save (or undo the edit).`,
      save,
    );
    if (answer === save) await doc.save();
  }

  private async sayEnd(file: LaunchFile, session: SweepSession, end: SweepEnd): Promise<void> {
    const name = notificationText(basename(file.uri.fsPath));
    if (!end.restored) {
      void vscode.window.showErrorMessage(
        `Backend sweep: the original launch of ${name} was NOT restored (${notificationText(end.restoreError ?? 'unknown error')}). Check the file and restart the server by hand.`,
      );
    }
    if (end.reportError) void vscode.window.showWarningMessage(`Backend sweep: the report could not be written: ${notificationText(end.reportError)}`);
    const rows = session.snapshot().rows;
    const healthy = rows.filter((r) => r.verdict === 'ok').length;
    const how = end.error ? `failed (${notificationText(end.error)})` : end.cancelled ? 'cancelled' : 'finished';
    const where = end.reports ? ` Reports: ${notificationText(basename(end.reports.json))} and .md next to ${name}.` : '';
    const open = 'Open Report';
    const answer = await vscode.window.showInformationMessage(
      `Backend sweep ${how}: ${healthy} of ${rows.length} combinations healthy${end.restored ? '; the original launch is restored' : ''}.${where}`,
      ...(end.reports ? [open] : []),
    );
    if (answer === open && end.reports) await vscode.window.showTextDocument(vscode.Uri.file(end.reports.md));
  }
}

function showError(what: string, e: unknown): void {
  void vscode.window.showErrorMessage(`Inference Doctor: ${what}: ${notificationText(errorMessage(e))}`);
}

function toRange(e: TextEdit): vscode.Range {
  return new vscode.Range(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character);
}

function flagItem(option: SweepFlagOption): vscode.QuickPickItem & { option: SweepFlagOption; ownIcon?: string } {
  const suggested = option.suggestedValues.length > 0;
  return {
    label: option.flag,
    description: [option.current !== undefined ? `now ${option.current}` : 'not set', `${option.choices.length} choices`, suggested ? 'known issue' : '']
      .filter(Boolean)
      .join(' · '),
    detail: suggested ? `Known issue's fix: ${option.why.join('; ')}` : option.help?.replace(/\s+/g, ' ').slice(0, 200),
    picked: suggested,
    option,
    ...(suggested ? { ownIcon: 'warning' } : {}),
  };
}

function valueItems(option: SweepFlagOption): (vscode.QuickPickItem & { value: string })[] {
  const pre = preselectedValues(option);
  return option.choices.map((value) => {
    const notes = [value === option.current ? 'current' : '', option.suggestedValues.includes(value) ? "a known issue's fix" : ''].filter(Boolean);
    return { label: value, value, picked: pre.includes(value), ...(notes.length ? { description: notes.join(' · ') } : {}) };
  });
}

async function confirm(file: LaunchFile, choice: TargetChoice, serverLabel: string, axes: SweepAxis[], total: number): Promise<boolean> {
  const where = targetWords(choice);
  const go = 'Start Sweep';
  const answer = await vscode.window.showWarningMessage(
    `Sweep ${total} combination${total === 1 ? '' : 's'} of ${notificationText(axes.map((a) => a.flag).join(', '))} on ${notificationText(serverLabel)}?`,
    {
      modal: true,
      detail:
        `The server restarts ${total} time${total === 1 ? '' : 's'} through ${notificationText(where)}, reloading its weights each time, and is probed after each start. ` +
        `At the end, and on Cancel or a failure, the original launch of ${notificationText(vscode.workspace.asRelativePath(file.uri))} is restored byte for byte (one more restart).`,
    },
    go,
  );
  return answer === go;
}

/** The launch file: the command's argument (an editor menu's resource), else the active editor's, else the user's pick. */
async function pickLaunchFile(arg: unknown): Promise<LaunchFile | undefined> {
  const open = async (uri: vscode.Uri): Promise<LaunchFile | undefined> => {
    if (uri.scheme !== 'file') {
      void vscode.window.showWarningMessage('Inference Doctor: the backend sweep works on launch files on this machine for now.');
      return undefined;
    }
    const doc = await vscode.workspace.openTextDocument(uri);
    const hint = launchSyntaxOf(doc.languageId, uri.path) ?? 'shellscript';
    if (!launchCommandOf(doc.getText(), hint)) {
      void vscode.window.showWarningMessage(`No SGLang or vLLM launch command in ${notificationText(vscode.workspace.asRelativePath(uri))}.`);
      return undefined;
    }
    return { uri, hint, text: doc.getText() };
  };
  if (arg instanceof vscode.Uri) return open(arg);
  const active = vscode.window.activeTextEditor?.document;
  if (active && isLaunchDocument(active)) return open(active.uri);
  const found = (await findWorkspaceLaunchFiles()).map((f) => f.uri);
  if (found.length === 0) {
    void vscode.window.showInformationMessage(
      'No launch file found: open the script or unit that starts SGLang or vLLM, then run Backend Sweep from its editor.',
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(guardPicks(found.map((uri) => ({ label: vscode.workspace.asRelativePath(uri), uri }))), {
    title: 'Backend Sweep: which launch file?',
    ignoreFocusOut: true,
  });
  return picked ? open(picked.uri) : undefined;
}

/** The file's diagnostics; when none are ours yet, a moment for the language server (it may just have started). */
async function launchDiagnostics(uri: vscode.Uri): Promise<vscode.Diagnostic[]> {
  const ours = () => vscode.languages.getDiagnostics(uri).filter((d) => d.source === DIAGNOSTIC_SOURCE);
  if (ours().length) return ours();
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      sub.dispose();
      resolve();
    };
    const timer = setTimeout(done, DIAGNOSTICS_WAIT_MS);
    const sub = vscode.languages.onDidChangeDiagnostics((e) => {
      if (e.uris.some((u) => u.toString() === uri.toString())) done();
    });
  });
  return ours();
}

/**
 * What each combination is probed with: the Quick Health Probe's prompts, one of the user's, or
 * the accuracy smoke test of the settings (a combination whose answers read fine but are wrong
 * fails it).
 */
async function pickProbe(ctx: Ctx): Promise<((server: ServerTarget) => Promise<QuickProbeResult>) | undefined> {
  const quick = { label: 'Quick Health Probe', description: QUICK_PROMPTS.map((p) => p.label.toLowerCase()).join(', '), probeSet: 'quick' as const };
  const own = { label: 'A prompt of my own…', description: 'one prompt, greedy, streamed', probeSet: 'own' as const };
  const accuracy = { label: 'Accuracy smoke test', description: 'problems with exact answers (the eval settings)', probeSet: 'accuracy' as const };
  const picked = await vscode.window.showQuickPick([quick, own, accuracy], { title: 'Backend Sweep: probe each combination with', ignoreFocusOut: true });
  if (!picked) return undefined;
  if (picked.probeSet === 'quick') return (s) => runQuickProbe(s, { prompts: QUICK_PROMPTS });
  if (picked.probeSet === 'accuracy') return accuracyProbeOf(ctx);
  const prompt = await vscode.window.showInputBox({
    title: 'Backend Sweep: the prompt',
    prompt: 'Sent to the server after each restart (temperature 0); the verdict is read as it streams',
    placeHolder: 'Explain what a mixture-of-experts layer does.',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Type a prompt'),
  });
  const prompts: QuickPrompt[] | undefined = prompt?.trim() ? [{ id: 'own', label: 'Your prompt', prompt: prompt.trim() }] : undefined;
  return prompts && ((s) => runQuickProbe(s, { prompts }));
}
