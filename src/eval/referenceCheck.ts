/**
 * "Compare with Reference Server…": the server the command is about is B, the suspect; the user
 * picks A, the reference (another server of the Servers view, or a URL typed in, which gets no
 * API key), and the model of each when a server lists several. core/compare runCompare sends the
 * same greedy prompts to both, and the panel fills in each prompt's pair as it comes: the two
 * answers aligned with the first divergence marked, a logprob plot, then the verdict (identical,
 * drift, broken) with its numbers. A broken verdict offers Diagnose Server on B. Loaded on first
 * use by ./register.ts.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { Ctx } from '../context';
import { runCompare } from '../core/compare/run';
import type { CompareTarget } from '../core/compare/types';
import { errorMessage } from '../core/errors';
import type { ServerTarget } from '../core/probe/types';
import { normaliseBaseUrl, type ServerConfig } from '../core/servers';
import { notificationText } from '../core/text/foreign';
import {
  isCompareWebviewMessage,
  type CompareSide,
  type CompareViewState,
  type CompareWebviewToHost,
  type HostToCompareWebview,
} from '../shared/compareProtocol';
import { guardPicks } from '../ui/foreignText';
import { panelTitle, showRunPanel, type PagePanel } from '../ui/pagePanel';
import { pickModel } from './pickModel';

/** viewType of the panel (not restored after a reload: the check is run again instead). */
export const COMPARE_VIEW_TYPE = 'inferenceDoctor.comparePanel';

/** One side, ready to send to. */
interface Side {
  view: CompareSide;
  target: CompareTarget;
  /** The registered server, when it is one (B always is). */
  server?: ServerConfig;
}

interface Current {
  a: Side;
  b: Side;
  state: CompareViewState;
  abort?: AbortController;
}

export class ReferenceChecks {
  private panel: PagePanel<CompareWebviewToHost, HostToCompareWebview> | undefined;
  private current: Current | undefined;

  constructor(private readonly ctx: Ctx) {
    ctx.pushCleanup({
      dispose: () => {
        this.current?.abort?.abort();
        this.panel?.dispose();
      },
    });
  }

  async start(arg: unknown): Promise<void> {
    const suspect = await this.ctx.servers.pick(arg, 'Compare which server with a reference?');
    if (!suspect) return;
    const reference = await this.pickReference(suspect);
    if (!reference) return;
    try {
      const a = await withModel(reference.view.label, reference.target, reference.server);
      if (!a) return;
      const b = await withModel(suspect.label, await this.ctx.servers.store.target(suspect.id), suspect);
      if (!b) return;
      await this.run(a, b);
    } catch (e) {
      void vscode.window.showErrorMessage(`Inference Doctor: could not list the models: ${notificationText(errorMessage(e))}`);
    }
  }

  /** Another registered server, or a URL typed in. */
  private async pickReference(suspect: ServerConfig): Promise<{ view: CompareSide; target: ServerTarget; server?: ServerConfig } | undefined> {
    const others = this.ctx.servers.store.list().filter((s) => s.id !== suspect.id);
    const typeUrl = { label: 'Enter a URL…', description: 'a server not in the Servers view (no API key is sent)', server: undefined };
    const picked = await vscode.window.showQuickPick(
      guardPicks([...others.map((server) => ({ label: server.label, description: server.baseUrl, server })), typeUrl]),
      { title: `Compare ${suspect.label} with which reference (a server you trust)?`, ignoreFocusOut: true },
    );
    if (!picked) return undefined;
    if (picked.server) {
      const server = picked.server;
      return { view: { label: server.label, url: server.baseUrl, model: null }, target: await this.ctx.servers.store.target(server.id), server };
    }
    const typed = await vscode.window.showInputBox({
      title: 'The reference server',
      prompt: 'Its base URL (OpenAI-compatible: /v1/chat/completions with logprobs)',
      placeHolder: 'http://gpu-a:30000',
      ignoreFocusOut: true,
      validateInput: (v) => {
        try {
          normaliseBaseUrl(v);
          return undefined;
        } catch (e) {
          return errorMessage(e);
        }
      },
    });
    if (!typed) return undefined;
    const url = normaliseBaseUrl(typed);
    return { view: { label: url, url, model: null }, target: { baseUrl: url } };
  }

  private async run(a: Side, b: Side): Promise<void> {
    this.current?.abort?.abort();
    const abort = new AbortController();
    const prompts = Math.min(200, Math.max(1, Math.floor(this.ctx.config.get('compare.prompts'))));
    const topLogprobs = Math.min(20, Math.max(0, Math.floor(this.ctx.config.get('compare.topLogprobs'))));
    const state: CompareViewState = { setup: { a: a.view, b: b.view, prompts, topLogprobs }, phase: 'running', rows: [] };
    const current: Current = { a, b, state, abort };
    this.current = current;
    this.showPanel();
    const mine = (): boolean => this.current === current;

    const result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Comparing ${notificationText(b.view.label)} with ${notificationText(a.view.label)}`,
        cancellable: true,
      },
      (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        return runCompare({
          a: a.target,
          b: b.target,
          prompts,
          topLogprobs,
          signal: abort.signal,
          keepLogprobs: true,
          onPrompt: (row) => {
            state.rows.push(row);
            progress.report({ increment: 100 / prompts, message: `${state.rows.length}/${prompts} prompts` });
            if (mine()) this.panel?.post({ type: 'row', row });
          },
        });
      },
    );
    current.abort = undefined;
    const { prompts: rows, ...summary } = result;
    state.rows = rows;
    state.summary = summary;
    state.phase = 'done';
    if (mine()) this.panel?.post({ type: 'state', state });
    this.ctx.log.info(`reference check of ${b.view.label} against ${a.view.label}: ${result.verdict} (${result.reasons.join(' ')})`);
    if (result.verdict === 'broken' && !result.cancelled) {
      const diagnoseIt = 'Diagnose';
      const picked = await vscode.window.showWarningMessage(
        `${notificationText(b.view.label)} does not compute what ${notificationText(a.view.label)} does: ${notificationText(result.reasons[0] ?? 'broken')}`,
        diagnoseIt,
      );
      if (picked === diagnoseIt && mine()) await this.diagnose();
    } else if (result.verdict === 'error' && !result.cancelled) {
      void vscode.window.showErrorMessage(`Inference Doctor: the reference check could not be made: ${notificationText(result.reasons.join(' '))}`);
    }
  }

  private showPanel(): void {
    const cur = this.current;
    if (!cur) return;
    this.panel = showRunPanel<CompareWebviewToHost, HostToCompareWebview>(this.panel, {
      extensionUri: this.ctx.extension.extensionUri,
      viewType: COMPARE_VIEW_TYPE,
      page: 'compare',
      pageTitle: 'Inference Doctor: Compare with Reference Server',
      title: panelTitle('Compare: ', cur.state.setup.b.label),
      isMessage: isCompareWebviewMessage,
      snapshot: () => ({ type: 'state', state: this.current?.state ?? cur.state }),
      onMessage: (m) => this.onMessage(m),
      onClosed: (panel) => {
        if (this.panel === panel) this.panel = undefined;
        this.current?.abort?.abort();
      },
    });
  }

  private async onMessage(m: Exclude<CompareWebviewToHost, { type: 'ready' }>): Promise<void> {
    const cur = this.current;
    if (!cur) return;
    if (m.type === 'stop') {
      if (cur.abort && !cur.abort.signal.aborted) {
        cur.state.phase = 'stopping';
        this.panel?.post({ type: 'state', state: cur.state });
        cur.abort.abort();
      }
    } else if (m.type === 'runAgain') {
      if (!cur.abort) await this.run(cur.a, cur.b);
    } else await this.diagnose();
  }

  private async diagnose(): Promise<void> {
    const cur = this.current;
    const server = cur?.b.server;
    if (!cur || !server) return;
    const verdict = cur.state.summary?.verdict ?? 'unknown';
    await this.ctx.executeCommand(COMMANDS.diagnoseServer, {
      serverId: server.id,
      symptom: 'accuracy-drop',
      symptomFrom: `reference check against ${cur.a.view.label}: ${verdict}`,
    });
  }
}

/** The side with its model: the only one the server lists, else the user's pick; undefined when dismissed. */
async function withModel(label: string, target: ServerTarget, server: ServerConfig | undefined): Promise<Side | undefined> {
  const model = await pickModel(target, label);
  if (model === undefined) return undefined;
  return {
    view: { label, url: target.baseUrl, model },
    target: { ...target, ...(model ? { model } : {}) },
    ...(server ? { server } : {}),
  };
}
