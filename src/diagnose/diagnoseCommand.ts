/**
 * "Diagnose Server…": which server (a Servers row, a Hosts view's running server, the probe panel's
 * verdict or the Quick Health Probe's notification), the evidence gathered with progress and
 * cancel (./gather.ts), the causes ranked by core/diagnose/rules, shown in the Diagnose panel.
 * Each cause's buttons run Apply to Server and Re-probe with its first flag fix, or the backend
 * sweep on the launch file. Loaded on first use by ./register.ts.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { Ctx } from '../context';
import { errorMessage } from '../core/errors';
import type { FlagChange } from '../core/launch/edit';
import { notificationText } from '../core/text/foreign';
import { githubLink, type DiagnoseViewState, type DiagnoseWebviewToHost } from '../shared/diagnoseProtocol';
import { SYMPTOMS, type Symptom } from '../core/diagnose/rules/types';
import { DiagnosePanel } from './diagnosePanel';
import { EvidenceGatherer, type DiagnoseRun, type DiagnoseSubject } from './gather';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class Diagnoses {
  private panel: DiagnosePanel | undefined;
  private readonly gatherer: EvidenceGatherer;
  private current: { subject: DiagnoseSubject; run?: DiagnoseRun; abort?: AbortController } | undefined;

  constructor(private readonly ctx: Ctx) {
    this.gatherer = new EvidenceGatherer(ctx);
    ctx.pushCleanup({
      dispose: () => {
        this.current?.abort?.abort();
        this.panel?.dispose();
      },
    });
  }

  async start(arg: unknown): Promise<void> {
    const subject = await this.subjectOf(arg);
    if (subject) await this.diagnose(subject, false);
  }

  /** The server the argument names, else the user's pick; a probe or history entry that came with it. */
  private async subjectOf(arg: unknown): Promise<DiagnoseSubject | undefined> {
    // A Hosts view row of a running server: { kind: 'server', hostId, key } (a Servers row carries `server` instead).
    if (isObj(arg) && arg.kind === 'server' && typeof arg.hostId === 'string' && typeof arg.key === 'string' && !('server' in arg)) {
      const host = this.ctx.hosts.connected().find((h) => h.id === arg.hostId);
      return { label: `${arg.key} on ${host?.label ?? arg.hostId}`, host: { hostId: arg.hostId, key: arg.key } };
    }
    const server = await this.ctx.servers.pick(arg, 'Diagnose which server?');
    if (!server) return undefined;
    const subject: DiagnoseSubject = { label: server.label, server };
    if (isObj(arg)) {
      if (typeof arg.historyId === 'string') subject.historyId = arg.historyId;
      const q = arg.quickProbe;
      if (isObj(q) && Array.isArray(q.items) && isObj(q.summary)) subject.quickProbe = q as unknown as NonNullable<DiagnoseSubject['quickProbe']>;
      if (typeof arg.symptom === 'string' && (SYMPTOMS as readonly string[]).includes(arg.symptom)) {
        const from = typeof arg.symptomFrom === 'string' ? arg.symptomFrom : 'given with the command';
        subject.symptom = { symptom: arg.symptom as Symptom, from };
      }
    }
    return subject;
  }

  private async diagnose(subject: DiagnoseSubject, fresh: boolean): Promise<void> {
    this.current?.abort?.abort();
    const abort = new AbortController();
    const current: NonNullable<Diagnoses['current']> = { subject, abort };
    this.current = current;
    const running: DiagnoseViewState = {
      serverLabel: subject.server?.label ?? subject.label,
      phase: 'running',
      progress: 'Starting',
      sources: [],
      notes: [],
      symptoms: [],
      findings: [],
      rulesJudged: 0,
    };
    this.showPanel(running);
    const run = await vscode.window
      .withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Diagnosing ${notificationText(running.serverLabel)}`, cancellable: true },
        (progress, token) => {
          token.onCancellationRequested(() => abort.abort());
          return this.gatherer.run(subject, {
            signal: abort.signal,
            fresh,
            onProgress: (m) => {
              progress.report({ message: notificationText(m) });
              if (this.current === current) this.panel?.show({ ...running, progress: m });
            },
          });
        },
      )
      .then(
        (r) => r,
        (e: unknown) => {
          if (this.current === current) this.panel?.show({ ...running, phase: 'done', error: abort.signal.aborted ? 'Cancelled.' : errorMessage(e) });
          if (!abort.signal.aborted) this.ctx.log.warn(`diagnosis of ${running.serverLabel} failed: ${errorMessage(e)}`);
          return undefined;
        },
      );
    // A newer diagnosis replaced this one, or it was cancelled (the panel closed, or Cancel).
    if (this.current !== current) return;
    current.abort = undefined;
    if (abort.signal.aborted) this.panel?.show({ ...running, phase: 'done', error: 'Cancelled.' });
    if (!run || abort.signal.aborted) return;
    current.run = run;
    const top = run.state.findings[0];
    this.ctx.log.info(
      `diagnosis of ${run.state.serverLabel}: ${run.state.findings.length} causes${top ? `, first ${top.id} (${top.confidence} ${top.score})` : ''}; read ${run.state.sources.map((s) => s.kind).join(', ')}`,
    );
    this.showPanel(run.state);
  }

  private showPanel(state: DiagnoseViewState): void {
    if (this.panel) {
      this.panel.show(state);
      this.panel.reveal();
      return;
    }
    const panel: DiagnosePanel = new DiagnosePanel(
      {
        extensionUri: this.ctx.extension.extensionUri,
        onMessage: (m) =>
          void this.onMessage(m).catch((e: unknown) => void vscode.window.showErrorMessage(`Inference Doctor: ${notificationText(errorMessage(e))}`)),
        onDidDispose: () => {
          if (this.panel === panel) this.panel = undefined;
          this.current?.abort?.abort();
        },
      },
      state,
    );
    this.panel = panel;
  }

  private async onMessage(m: Exclude<DiagnoseWebviewToHost, { type: 'ready' }>): Promise<void> {
    const cur = this.current;
    if (m.type === 'openSource') {
      const link = githubLink(m.url);
      if (link) await vscode.env.openExternal(vscode.Uri.parse(link, true));
      return;
    }
    if (m.type === 'rediagnose') {
      // Again from scratch: a new probe, a fresh discovery report.
      if (cur)
        await this.diagnose(
          {
            label: cur.subject.label,
            ...(cur.subject.server ? { server: cur.subject.server } : {}),
            ...(cur.subject.host ? { host: cur.subject.host } : {}),
            ...(cur.subject.symptom ? { symptom: cur.subject.symptom } : {}),
          },
          true,
        );
      return;
    }
    const run = cur?.run;
    const finding = run?.state.findings[m.index];
    if (!run || !finding) return;
    if (!run.launch) {
      void vscode.window.showWarningMessage(
        'No launch file is known for this server: open the script or unit that starts it, then use its known-issue light bulb or Backend Sweep from there.',
      );
      return;
    }
    if (m.type === 'sweep') {
      if (run.launch.uri.scheme !== 'file') {
        void vscode.window.showWarningMessage('Inference Doctor: the backend sweep works on launch files on this machine for now.');
        return;
      }
      await this.ctx.executeCommand(COMMANDS.sweep, run.launch.uri);
      return;
    }
    // The first step of the fix that changes flags (a package step cannot be applied and re-probed).
    const step = finding.fix.steps.find((s) => s.flags && Object.keys(s.flags).length > 0);
    if (!step?.flags) {
      void vscode.window.showInformationMessage(
        `"${notificationText(finding.title)}" has no flag change to apply: ${notificationText(finding.fix.steps[0]?.note ?? 'see its fix steps')}`,
      );
      return;
    }
    const changes: FlagChange[] = Object.entries(step.flags).map(([flag, value]) => ({ flag, value: typeof value === 'number' ? String(value) : value }));
    await this.ctx.executeCommand(COMMANDS.applyAndVerify, { uri: run.launch.uri.toString(), changes, summary: step.note });
  }
}
