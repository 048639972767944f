/**
 * The language-model tools behind the wrappers of register.ts. Each call runs the core tool set in
 * the bundled CLI (./runner.ts) with the servers of the Servers view (keys from secret storage),
 * the ssh settings and VS Code's cancellation. Consent comes from the confirmation VS Code shows:
 * a tool that reaches a host, calls a server the user did not register, or changes a server is
 * confirmed by the user first, and only a tool that changes a server gets --allow-changes.
 */
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Ctx } from '../context';
import { expandTilde } from '../core/hosts/sshConfig';
import { normaliseBaseUrl } from '../core/servers';
import { codeSpan } from '../core/text/foreign';
import type { AgentToolInfo } from './names';
import { runToolInCli, type ToolRequest } from './runner';

/**
 * An agent's structured input in words ("--fp4-gemm-backend flashinfer_cudnn", "supervise sglang"):
 * outside chat VS Code shows a confirmation as plain text, where JSON's quotes come out as &quot;.
 */
function inWords(value: unknown): string {
  if (Array.isArray(value)) return value.map(inWords).join(', ');
  if (value !== null && typeof value === 'object')
    return Object.entries(value)
      .map(([key, v]) => (key === 'flag' || key === 'value' || key === 'values' ? inWords(v) : `${key} ${inWords(v)}`))
      .join(' ');
  return String(value);
}

export class AgentTools {
  constructor(private readonly ctx: Ctx) {}

  private async servers(): Promise<ToolRequest['servers']> {
    const store = this.ctx.servers.store;
    return Promise.all(
      store.list().map(async (s) => {
        const target = await store.target(s.id).catch(() => ({ baseUrl: s.baseUrl, apiKey: undefined }));
        return { name: s.label, url: s.baseUrl, ...(target.apiKey ? { apiKey: target.apiKey } : {}) };
      }),
    );
  }

  /** Whether `value` names a registered server (by name or URL). */
  private isRegistered(value: unknown): boolean {
    if (typeof value !== 'string') return false;
    const url = (v: string): string | undefined => {
      try {
        return normaliseBaseUrl(v);
      } catch {
        return undefined;
      }
    };
    const asked = url(value);
    return this.ctx.servers.store.list().some((s) => s.label === value.trim() || (asked !== undefined && url(s.baseUrl) === asked));
  }

  prepare(tool: AgentToolInfo, input: Record<string, unknown>): vscode.PreparedToolInvocation {
    // Agent input is foreign text: shown in code spans, never as markdown of its own (a code span
    // also reads right in the plain-text dialog VS Code shows outside chat; an escaped name does not).
    const show = (v: unknown): string => codeSpan(inWords(v ?? null), { maxLength: 200 });
    const where = show(typeof input.host === 'string' ? input.host.slice(0, 100) : 'local');
    const lines: string[] = [];
    let title: string | undefined;
    if (tool.changesServer) {
      title = `${tool.title}?`;
      lines.push(`This **changes a server**: it edits ${show(input.launch)} on ${where}, restarts it (${show(input.restart)}) and probes it.`);
      if (tool.name === 'apply_fix') lines.push(`Changes: ${show(input.changes)}`);
      if (tool.name === 'sweep') lines.push(`Values to try, one restart each: ${show(input.vary)}. The original launch is put back at the end.`);
    } else {
      // diagnose reaches a host only when given one.
      if (tool.touchesHost || typeof input.host === 'string') {
        title = `${tool.title}?`;
        lines.push(
          tool.name === 'search_source'
            ? `This runs a search on ${where}: ${show(input.pattern)} in ${show(input.paths)} (read-only).`
            : `This runs discovery commands on ${where} to read its GPUs, drivers and Python packages (read-only).`,
        );
      }
      if (input.server !== undefined && !this.isRegistered(input.server)) {
        title ??= 'Send requests to a server that is not in the Servers view?';
        lines.push(
          `${show(input.server)} is not a registered server: ${tool.title.toLowerCase()} will send it HTTP requests${tool.name === 'server_info' ? '' : ', prompts included'}.`,
        );
      }
    }
    return {
      invocationMessage: `${tool.title}…`,
      ...(title ? { confirmationMessages: { title, message: new vscode.MarkdownString(lines.join('\n\n')) } } : {}),
    };
  }

  async invoke(tool: AgentToolInfo, input: Record<string, unknown>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const controller = new AbortController();
    const cancel = token.onCancellationRequested(() => controller.abort());
    if (token.isCancellationRequested) controller.abort();
    try {
      const config = this.ctx.config;
      const sshConfig = config.text('ssh.configFile');
      const knownHosts = config.text('ssh.knownHostsFile');
      const stateDir = config.text('fix.superviseStateDir');
      const answer = await runToolInCli(
        tool.name,
        { input, servers: await this.servers() },
        {
          cliPath: join(this.ctx.extension.extensionPath, 'dist', 'cli.js'),
          // VS Code asked the user (prepare's confirmation) before it called invoke().
          allowChanges: tool.changesServer,
          signal: controller.signal,
          ...(sshConfig ? { sshConfigFile: expandTilde(sshConfig) } : {}),
          ...(knownHosts ? { knownHostsFile: expandTilde(knownHosts) } : {}),
          ...(stateDir ? { stateDir: expandTilde(stateDir) } : {}),
          onStderr: (line) => this.ctx.log.info(`agent tool ${tool.name}: ${line}`),
        },
      );
      if (!answer.ok) {
        this.ctx.log.warn(`agent tool ${tool.name}: ${answer.error.code}: ${answer.error.message}`);
        // A thrown error reaches the model as the tool's answer: it says what went wrong and why.
        throw new Error(`${answer.error.code}: ${answer.error.message}`);
      }
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(answer.text), new vscode.LanguageModelTextPart(JSON.stringify(answer.data))]);
    } finally {
      cancel.dispose();
    }
  }
}
