/**
 * The agent feature: Inference Doctor's tools as VS Code language-model tools, for agent mode and
 * any extension that calls vscode.lm.invokeTool. Activation only registers thin wrappers; the
 * rest loads on the first call (./tools.ts), and the tools themselves run in the bundled CLI.
 */
import * as vscode from 'vscode';
import type { Ctx } from '../context';
import { Lazy } from '../ui/lazy';
import { AGENT_TOOLS, vscodeToolName } from './names';

export function register(ctx: Ctx): void {
  // Hosts without the language-model API (an older VS Code, some forks) still get every other feature.
  if (typeof vscode.lm?.registerTool !== 'function') return;
  const impl = new Lazy(async () => new (await import('./tools')).AgentTools(ctx));
  for (const tool of AGENT_TOOLS) {
    ctx.pushCleanup(
      vscode.lm.registerTool<Record<string, unknown>>(vscodeToolName(tool.name), {
        prepareInvocation: async (options) => (await impl.get()).prepare(tool, options.input),
        invoke: async (options, token) => (await impl.get()).invoke(tool, options.input, token),
      }),
    );
  }
}
