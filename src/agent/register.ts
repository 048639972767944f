/**
 * The agent feature: Inference Doctor's tools as VS Code language-model tools, for agent mode and
 * any extension that calls vscode.lm.invokeTool. Activation only registers thin wrappers; the
 * tools, the checker and the host layer load on the first call (./tools.ts).
 */
import * as vscode from 'vscode';
import type { Ctx } from '../context';
import { Lazy } from '../ui/lazy';
import { AGENT_TOOL_NAMES, vscodeToolName } from './names';

export function register(ctx: Ctx): void {
  // Hosts without the language-model API (an older VS Code, some forks) still get every other feature.
  if (typeof vscode.lm?.registerTool !== 'function') return;
  const impl = new Lazy(async () => new (await import('./tools')).AgentTools(ctx));
  for (const name of AGENT_TOOL_NAMES) {
    ctx.pushCleanup(
      vscode.lm.registerTool<Record<string, unknown>>(vscodeToolName(name), {
        prepareInvocation: async (options, token) => (await impl.get()).prepare(name, options.input, token),
        invoke: async (options, token) => (await impl.get()).invoke(name, options.input, token),
      }),
    );
  }
}
