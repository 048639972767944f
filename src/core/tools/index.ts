/**
 * The agent tools: one set, run the same way by the VS Code language-model tools and the MCP
 * server. `runTool` is the only way in: it validates the input against the tool's schema, refuses
 * a tool that changes a server without consent, bounds the run in time, redacts secrets and cuts
 * the output to the size limit.
 *
 * A new tool is one more module here exporting a ToolDefinition, added to TOOLS (and to
 * package.json's languageModelTools and agent/names.ts, which a unit test holds against this list).
 */
import { errorMessage } from '../errors';
import { compareTool, evalTool } from './accuracy';
import { applyFixTool, sweepTool } from './applyFix';
import { checkLaunchTool } from './checkLaunch';
import { judgeAnswerTool } from './judgeAnswer';
import { diagnoseTool } from './diagnose';
import { environmentTool } from './environment';
import { flagsTool } from './flags';
import { capData, capText, checkInput, redactText, redactValue } from './guards';
import { probeTool } from './probe';
import { searchSourceTool } from './searchSource';
import { serverInfoTool } from './serverInfo';
import { ToolError, type ToolContext, type ToolDefinition, type ToolOutput } from './types';

export * from './types';
export { sshHostAccess, type HostAccessOptions } from './hostAccess';

// Each tool's own input type is checked by its schema at run time; the list holds them as one type.
type AnyTool = ToolDefinition<never>;

export const TOOLS: readonly ToolDefinition[] = (
  [
    probeTool,
    diagnoseTool,
    evalTool,
    compareTool,
    flagsTool,
    checkLaunchTool,
    judgeAnswerTool,
    searchSourceTool,
    environmentTool,
    serverInfoTool,
    applyFixTool,
    sweepTool,
  ] as AnyTool[]
).map((t) => t as unknown as ToolDefinition);

export function findTool(name: string): ToolDefinition | undefined {
  return TOOLS.find((t) => t.name === name);
}

/** The defaults a caller starts from: two minutes, 64 KiB of JSON. */
export const DEFAULT_TIME_LIMIT_MS = 120_000;
export const DEFAULT_MAX_OUTPUT_CHARS = 64 * 1024;
/** A tool that changes a server restarts it: give it longer. */
export const CHANGES_TIME_LIMIT_MS = 30 * 60_000;

export type ToolRun = { ok: true; data: Record<string, unknown>; text: string } | { ok: false; error: ToolError };

function timeoutError(tool: string, ms: number): ToolError {
  return new ToolError('timeout', `${tool} stopped after ${Math.round(ms / 1000)} s (the time limit)`);
}

/** Runs a tool by name; never throws: a refusal or failure comes back as `{ ok: false, error }`. */
export async function runTool(name: string, input: unknown, ctx: ToolContext): Promise<ToolRun> {
  const keys = ctx.servers.flatMap((s) => (s.apiKey ? [s.apiKey] : []));
  const fail = (error: ToolError): ToolRun => ({ ok: false, error: new ToolError(error.code, capText(redactText(error.message, keys), 4000)) });
  const tool = findTool(name);
  if (!tool)
    return fail(new ToolError('unknown-tool', `No tool is called ${JSON.stringify(name.slice(0, 80))}; known: ${TOOLS.map((t) => t.name).join(', ')}`));
  return runDefinition(tool, input, ctx);
}

/** runTool for a definition in hand (tests run their own). */
export async function runDefinition(tool: ToolDefinition, input: unknown, ctx: ToolContext): Promise<ToolRun> {
  const keys = ctx.servers.flatMap((s) => (s.apiKey ? [s.apiKey] : []));
  const fail = (error: ToolError): ToolRun => ({ ok: false, error: new ToolError(error.code, capText(redactText(error.message, keys), 4000)) });
  try {
    checkInput(tool.inputSchema, input, tool.name);
  } catch (error) {
    return fail(error as ToolError);
  }
  if (tool.changesServer && !ctx.allowChanges) {
    return fail(
      new ToolError(
        'refused',
        `${tool.name} changes a server (edits its launch and restarts it) and changes are not allowed here. ` +
          'Ask the user: in VS Code they confirm each change; an MCP server must be started with `inference-doctor mcp --allow-changes`.',
      ),
    );
  }
  const limit = ctx.timeLimitMs;
  const timer = AbortSignal.timeout(limit);
  const signal = AbortSignal.any([ctx.signal, timer]);
  let stop: (() => void) | undefined;
  // Code that does not watch the signal still cannot hold the call past the limit.
  const stopped = new Promise<never>((_, reject) => {
    const onAbort = (): void =>
      reject(timer.aborted && !ctx.signal.aborted ? timeoutError(tool.name, limit) : new ToolError('cancelled', `${tool.name} was cancelled`));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    stop = () => signal.removeEventListener('abort', onAbort);
  });
  try {
    const out: ToolOutput = await Promise.race([tool.run(input as Record<string, unknown>, { ...ctx, signal }), stopped]);
    const data = capData(redactValue(out.data, keys), ctx.maxOutputChars);
    let text = capText(redactText(out.text, keys), Math.max(1000, Math.floor(ctx.maxOutputChars / 2)));
    if (data.truncated === true && typeof data.note === 'string' && !out.data.truncated) text += `\n(${data.note})`;
    return { ok: true, data, text };
  } catch (error) {
    if (error instanceof ToolError) return fail(error);
    if (timer.aborted && !ctx.signal.aborted) return fail(timeoutError(tool.name, limit));
    if (ctx.signal.aborted) return fail(new ToolError('cancelled', `${tool.name} was cancelled`));
    return fail(new ToolError('failed', `${tool.name} failed: ${errorMessage(error)}`));
  } finally {
    stop?.();
  }
}
