/**
 * The probe feature: Probe panel, probe history, the Quick Health Probe and Check Answers in
 * Editor. The panel module (webview host, history store, runner), the quick probe (runner and
 * detector) and the answer checks are imported on first use so activation stays cheap; the
 * serializer is the only thing registered up front, because VS Code needs it to restore a panel
 * after a reload.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { Ctx } from '../context';
import type { ProbePanels } from './panelHost';
import type { AnswerChecks } from './checkAnswers';

export function register(ctx: Ctx): void {
  let panels: Promise<ProbePanels> | undefined;
  const loadPanels = (): Promise<ProbePanels> => (panels ??= import('./panelHost').then((m) => new m.ProbePanels(ctx)));

  ctx.pushCleanup(
    vscode.window.registerWebviewPanelSerializer('inferenceDoctor.probe', {
      deserializeWebviewPanel: async (panel) => (await loadPanels()).revive(panel),
    }),
  );
  ctx.registerCommand(COMMANDS.openProbePanel, async (arg) => {
    const server = ctx.servers.fromArg(arg);
    (await loadPanels()).show(server ? { serverId: server.id } : {});
  });
  ctx.registerCommand(COMMANDS.openProbeHistory, async () => (await loadPanels()).pickHistoryEntry());
  ctx.registerCommand(COMMANDS.quickHealthProbe, async (arg) => {
    const server = await ctx.servers.pick(arg, 'Run the Quick Health Probe on which server?');
    if (server) await (await import('./quickProbeCommand')).runQuickProbeCommand(ctx, server);
  });
  let answers: Promise<AnswerChecks> | undefined;
  const loadAnswers = (): Promise<AnswerChecks> =>
    (answers ??= import('./checkAnswers').then((m) => {
      const made = new m.AnswerChecks(ctx);
      ctx.pushCleanup(made);
      return made;
    }));
  ctx.registerCommand(COMMANDS.checkAnswers, async (uri) => (await loadAnswers()).run(uri));
}
