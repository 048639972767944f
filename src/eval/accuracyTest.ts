/**
 * "Run Accuracy Smoke Test": the server's model (the one it lists, else the user's pick) gets the
 * seeded problem set of the settings (core/eval runEval: bounded concurrency, the detector on every
 * answer), live in a panel and a cancellable notification; the run is judged against a baseline file the user picked or the
 * floors, kept in the accuracy test history, and a failed one offers Diagnose Server with the
 * accuracy-drop symptom. Saving a baseline never replaces a file without asking, and can be undone.
 * Loaded on first use by ./register.ts.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { Ctx } from '../context';
import { errorMessage } from '../core/errors';
import { BaselineError, makeBaseline, parseBaseline, type Baseline } from '../core/eval/baseline';
import { boundReport, EvalHistoryStore } from '../core/eval/history';
import { evalSettings } from '../core/eval/asProbe';
import { DIFFICULTIES, type Suite } from '../core/eval/problems';
import { summarise } from '../core/eval/report';
import { runEval, type EvalProgress } from '../core/eval/run';
import type { ServerConfig } from '../core/servers';
import { notificationText } from '../core/text/foreign';
import { addToTally, emptyTally, isEvalWebviewMessage, type EvalViewState, type EvalWebviewToHost, type HostToEvalWebview } from '../shared/evalProtocol';
import { panelTitle, showRunPanel, type PagePanel } from '../ui/pagePanel';
import { pickModel } from './pickModel';

/** viewType of the panel (not restored after a reload: a run in the history is shown again from there). */
export const EVAL_VIEW_TYPE = 'inferenceDoctor.evalPanel';

/** The page gets progress at most this often (a fast server answers hundreds of problems a second). */
const PROGRESS_INTERVAL_MS = 100;

const pct = (x: number | null): string => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

interface PickedBaseline {
  label: string;
  baseline: Baseline;
}

interface Current {
  /** undefined: a run from the history whose server left the Servers view. */
  server: ServerConfig | undefined;
  state: EvalViewState;
  baseline?: PickedBaseline;
  abort?: AbortController;
}

export class AccuracyTests {
  private panel: PagePanel<EvalWebviewToHost, HostToEvalWebview> | undefined;
  private current: Current | undefined;
  private readonly history: EvalHistoryStore;

  constructor(private readonly ctx: Ctx) {
    this.history = new EvalHistoryStore(ctx.extension.globalStorageUri.fsPath, {
      maxEntries: ctx.config.get('history.maxEntries'),
      onCorrupt: (file, error) => ctx.log.warn(`skipped unreadable accuracy test history file ${file}: ${error.message}`),
    });
    ctx.pushCleanup({
      dispose: () => {
        this.current?.abort?.abort();
        this.panel?.dispose();
      },
    });
  }

  async start(arg: unknown): Promise<void> {
    if (typeof arg === 'object' && arg !== null && 'historyId' in arg && typeof arg.historyId === 'string') {
      await this.showStored(arg.historyId);
      return;
    }
    const server = await this.ctx.servers.pick(arg, 'Run the accuracy smoke test on which server?');
    if (server) await this.run(server);
  }

  /** A run from the history, as it ended. */
  private async showStored(historyId: string): Promise<void> {
    const entry = await this.history.get(historyId);
    if (!entry) {
      void vscode.window.showWarningMessage('Inference Doctor: that accuracy test is no longer in the history.');
      return;
    }
    const r = entry.report;
    const tally = emptyTally();
    for (const d of DIFFICULTIES) tally[d] = { correct: r.byDifficulty[d].correct, graded: r.byDifficulty[d].graded };
    this.current?.abort?.abort();
    this.current = {
      server: this.ctx.servers.store.get(entry.serverId),
      state: {
        setup: {
          serverLabel: entry.serverLabel,
          url: r.url,
          model: r.model,
          suite: r.suite,
          n: r.n,
          seed: r.seed,
          concurrency: 0,
          ...(entry.baselineLabel ? { baselineLabel: entry.baselineLabel } : {}),
        },
        phase: 'done',
        progress: { done: r.counts.correct + r.counts.wrong + r.counts.invalid + r.counts.errors, total: r.n, ...r.counts },
        tally,
        report: r,
        fromHistory: true,
      },
    };
    this.showPanel();
  }

  private settings(baseline: Baseline | undefined): { suite: Suite; n: number; seed: number; concurrency: number } {
    const { config } = this.ctx;
    const set = evalSettings({ suite: config.get('eval.suite'), problems: config.get('eval.problems'), concurrency: config.get('eval.concurrency') });
    // A baseline is for its own set: the same problems, or the comparison says little.
    return { suite: baseline?.suite ?? set.suite, n: baseline?.n ?? set.n, seed: baseline?.seed ?? 1, concurrency: set.concurrency };
  }

  private async run(server: ServerConfig, baseline?: PickedBaseline): Promise<void> {
    this.current?.abort?.abort();
    const abort = new AbortController();
    const { suite, n, seed, concurrency } = this.settings(baseline?.baseline);
    const state: EvalViewState = {
      setup: {
        serverLabel: server.label,
        url: server.baseUrl,
        model: null,
        suite,
        n,
        seed,
        concurrency,
        ...(baseline ? { baselineLabel: baseline.label } : {}),
      },
      phase: 'running',
      progress: { done: 0, total: n, correct: 0, wrong: 0, invalid: 0, errors: 0 },
      tally: emptyTally(),
    };
    const current: Current = { server, state, abort, ...(baseline ? { baseline } : {}) };
    this.current = current;
    this.showPanel();
    const mine = (): boolean => this.current === current;
    const startedAt = Date.now();

    const target = await this.ctx.servers.store.target(server.id);
    let model: string | null | undefined;
    try {
      model = await pickModel(target, server.label, abort.signal);
    } catch (e) {
      model = undefined;
      state.error = `Could not list the server's models: ${errorMessage(e)}`;
    }
    if (model === undefined) {
      // Dismissed, or the server did not answer: nothing was sent.
      current.abort = undefined;
      state.phase = 'done';
      state.error ??= 'No model was picked: nothing was sent.';
      if (mine()) this.panel?.post({ type: 'state', state });
      return;
    }
    state.setup.model = model;
    if (mine()) this.panel?.post({ type: 'state', state });

    const run = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Accuracy smoke test on ${notificationText(server.label)}`, cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        let posted = 0;
        let timer: NodeJS.Timeout | undefined;
        const flush = (): void => {
          timer = undefined;
          posted = Date.now();
          if (mine()) this.panel?.post({ type: 'progress', progress: state.progress, tally: state.tally });
        };
        const evalRun = await runEval(target, {
          suite,
          n,
          seed,
          concurrency,
          signal: abort.signal,
          ...(model ? { model } : {}),
          onResult: (r) => addToTally(state.tally, r),
          onProgress: (p: EvalProgress) => {
            state.progress = p;
            progress.report({ increment: 100 / p.total, message: `${p.done}/${p.total} · ${pct(p.done ? p.correct / p.done : null)} right` });
            if (timer) return;
            const wait = PROGRESS_INTERVAL_MS - (Date.now() - posted);
            if (wait <= 0) flush();
            else timer = setTimeout(flush, wait);
          },
        });
        if (timer) clearTimeout(timer);
        return evalRun;
      },
    );
    current.abort = undefined;
    const report = summarise(run, baseline?.baseline);
    state.phase = 'done';
    state.progress = { ...state.progress, ...report.counts };
    state.report = boundReport(report);
    if (mine()) this.panel?.post({ type: 'state', state });
    this.ctx.log.info(
      `accuracy smoke test of ${server.label}: ${report.status}, ${pct(report.accuracy)} of ${report.graded} graded${report.judgement ? `: ${report.judgement.message}` : ''}`,
    );
    await this.history
      .add({ serverId: server.id, serverLabel: server.label, startedAt, report, ...(baseline ? { baselineLabel: baseline.label } : {}) })
      .catch((e: unknown) => this.ctx.log.warn(`could not keep the accuracy test in the history: ${errorMessage(e)}`));
    if (report.judgement && !report.judgement.pass) {
      const diagnoseIt = 'Diagnose';
      const picked = await vscode.window.showWarningMessage(
        `Accuracy smoke test on ${notificationText(server.label)}: ${notificationText(report.judgement.message)}`,
        diagnoseIt,
      );
      if (picked === diagnoseIt && mine()) await this.diagnose();
    } else if (report.status === 'failed') {
      void vscode.window.showErrorMessage(`Accuracy smoke test on ${notificationText(server.label)} failed: ${notificationText(report.failure ?? 'error')}`);
    }
  }

  private showPanel(): void {
    const cur = this.current;
    if (!cur) return;
    this.panel = showRunPanel<EvalWebviewToHost, HostToEvalWebview>(this.panel, {
      extensionUri: this.ctx.extension.extensionUri,
      viewType: EVAL_VIEW_TYPE,
      page: 'eval',
      pageTitle: 'Inference Doctor: Accuracy Smoke Test',
      title: panelTitle('Accuracy: ', cur.state.setup.serverLabel),
      isMessage: isEvalWebviewMessage,
      snapshot: () => ({ type: 'state', state: this.current?.state ?? cur.state }),
      onMessage: (m) => this.onMessage(m),
      onClosed: (panel) => {
        if (this.panel === panel) this.panel = undefined;
        this.current?.abort?.abort();
      },
    });
  }

  private async onMessage(m: Exclude<EvalWebviewToHost, { type: 'ready' }>): Promise<void> {
    const cur = this.current;
    if (!cur) return;
    switch (m.type) {
      case 'stop':
        if (cur.abort && !cur.abort.signal.aborted) {
          cur.state.phase = 'stopping';
          this.panel?.post({ type: 'state', state: cur.state });
          cur.abort.abort();
        }
        return;
      case 'runAgain':
        if (cur.abort) return;
        if (!cur.server) {
          void vscode.window.showWarningMessage(`Inference Doctor: ${notificationText(cur.state.setup.serverLabel)} is no longer in the Servers view.`);
          return;
        }
        await this.run(cur.server, cur.baseline);
        return;
      case 'compareBaseline': {
        if (cur.abort || !cur.server) return;
        const picked = await pickBaseline();
        if (picked) await this.run(cur.server, picked);
        return;
      }
      case 'saveBaseline':
        await this.saveBaseline(cur);
        return;
      case 'diagnose':
        await this.diagnose();
        return;
    }
  }

  /** Diagnose Server on this server, with the accuracy drop as the symptom no probe shows. */
  private async diagnose(): Promise<void> {
    const cur = this.current;
    const r = cur?.state.report;
    if (!cur || !r) return;
    if (!cur.server) {
      void vscode.window.showWarningMessage(`Inference Doctor: ${notificationText(cur.state.setup.serverLabel)} is no longer in the Servers view.`);
      return;
    }
    const from = `accuracy smoke test: ${pct(r.accuracy)} right (${r.suite}, ${r.graded} graded)${r.judgement ? `, ${r.judgement.pass ? 'passed' : 'failed'}` : ''}`;
    await this.ctx.executeCommand(COMMANDS.diagnoseServer, { serverId: cur.server.id, symptom: 'accuracy-drop', symptomFrom: from });
  }

  /** Writes the shown run as a baseline where the user says; asks before replacing a file; offers Undo. */
  private async saveBaseline(cur: Current): Promise<void> {
    const report = cur.state.report;
    if (!report || report.status !== 'completed' || report.accuracy === null) {
      void vscode.window.showWarningMessage('Inference Doctor: only a completed run with graded answers can be a baseline.');
      return;
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const name = `${(report.model ?? cur.state.setup.serverLabel).replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60)}.${report.suite}.eval.json`;
    const uri = await vscode.window.showSaveDialog({
      title: 'Save this run as an accuracy baseline',
      saveLabel: 'Save Baseline',
      filters: { 'Accuracy baseline': ['json'] },
      ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}),
    });
    if (!uri) return;
    const before = await readIfExists(uri);
    if (before !== undefined) {
      const replace = 'Replace';
      const answer = await vscode.window.showWarningMessage(
        `${notificationText(basename(uri.path))} already exists. Replace it with this run?`,
        { modal: true, detail: 'You can undo this from the notification that follows.' },
        replace,
      );
      if (answer !== replace) return;
    }
    const { version } = this.ctx.extension.extension.packageJSON as { version?: unknown };
    const text = `${JSON.stringify(makeBaseline(report, typeof version === 'string' ? version : ''), null, 2)}\n`;
    await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
    cur.state.savedBaseline = basename(uri.path);
    if (this.current === cur) this.panel?.post({ type: 'state', state: cur.state });
    const undo = 'Undo';
    const warn = report.judgement && !report.judgement.pass ? ' (note: this run did not pass)' : '';
    const picked = await vscode.window.showInformationMessage(`Saved the baseline to ${notificationText(basename(uri.path))}${warn}.`, undo);
    if (picked !== undo) return;
    if (before === undefined) await vscode.workspace.fs.delete(uri);
    else await vscode.workspace.fs.writeFile(uri, before);
    if (cur.state.savedBaseline === basename(uri.path)) delete cur.state.savedBaseline;
    if (this.current === cur) this.panel?.post({ type: 'state', state: cur.state });
  }
}

async function readIfExists(uri: vscode.Uri): Promise<Uint8Array | undefined> {
  try {
    return await vscode.workspace.fs.readFile(uri);
  } catch (e) {
    if (e instanceof vscode.FileSystemError && e.code === 'FileNotFound') return undefined;
    throw e;
  }
}

/** A baseline file the user picks, read and checked (a bad one says why and changes nothing). */
async function pickBaseline(): Promise<PickedBaseline | undefined> {
  const [uri] =
    (await vscode.window.showOpenDialog({
      title: 'Compare with which baseline?',
      openLabel: 'Use Baseline',
      canSelectMany: false,
      filters: { 'Accuracy baseline': ['json'] },
    })) ?? [];
  if (!uri) return undefined;
  try {
    const baseline = parseBaseline(Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8'));
    return { label: basename(uri.path), baseline };
  } catch (e) {
    const why = e instanceof BaselineError ? e.message : errorMessage(e);
    void vscode.window.showErrorMessage(
      `Inference Doctor: ${notificationText(basename(uri.path))} is not a baseline the test can use: ${notificationText(why)}`,
    );
    return undefined;
  }
}
