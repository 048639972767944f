/**
 * The language-model tools behind the wrappers of register.ts: each call runs the core tool set
 * (src/core/tools runTool) with the servers of the Servers view (keys from secret storage), the
 * hosts of the ssh settings, VS Code's cancellation, and consent from the confirmation VS Code
 * shows: a tool that reaches a host, calls a server the user did not register, or changes a server
 * is confirmed by the user first, so invoke() runs only what the user accepted.
 */
import * as vscode from 'vscode';
import type { Ctx } from '../context';
import { expandTilde } from '../core/hosts/sshConfig';
import {
  DEFAULT_MAX_OUTPUT_CHARS,
  DEFAULT_TIME_LIMIT_MS,
  CHANGES_TIME_LIMIT_MS,
  findTool,
  runTool,
  sshHostAccess,
  type KnownServer,
  type ToolContext,
} from '../core/tools';
import { checkUrl } from '../core/tools/guards';
import { codeSpan, escapeMarkdown } from '../core/text/foreign';

export class AgentTools {
  constructor(private readonly ctx: Ctx) {}

  private async servers(): Promise<KnownServer[]> {
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
    return this.ctx.servers.store.list().some((s) => {
      if (s.label === value.trim()) return true;
      try {
        return checkUrl(s.baseUrl) === checkUrl(value);
      } catch {
        return false;
      }
    });
  }

  prepare(name: string, input: Record<string, unknown>, _token: vscode.CancellationToken): vscode.PreparedToolInvocation {
    const tool = findTool(name);
    if (!tool) return {};
    // Agent input is foreign text: code spans, never markdown of its own.
    const show = (v: unknown): string => codeSpan(typeof v === 'string' ? v : JSON.stringify(v ?? null), { maxLength: 200 });
    const where = typeof input.host === 'string' ? input.host : 'local';
    const lines: string[] = [];
    let title: string | undefined;
    if (tool.changesServer) {
      title = `${tool.title}?`;
      lines.push(
        `This **changes a server**: it edits ${show(input.launch)} on **${escapeMarkdown(where)}**, restarts it with ${show(input.restart)} and probes it.`,
      );
      if (name === 'apply_fix') lines.push(`Changes: ${show(input.changes)}`);
      if (name === 'sweep') lines.push(`Values to try (one restart each): ${show(input.vary)}; the original launch is restored at the end.`);
    } else if (tool.touchesHost) {
      title = `${tool.title}?`;
      lines.push(
        `This runs commands on **${escapeMarkdown(where)}**${name === 'search_source' ? ` to search ${show(input.paths)} for ${show(input.pattern)}` : ' to inspect its GPUs and Python packages'} (read-only).`,
      );
    } else if (input.server !== undefined && !this.isRegistered(input.server)) {
      title = `Send requests to ${typeof input.server === 'string' ? input.server.slice(0, 80) : 'a server'}?`;
      lines.push(
        `${show(input.server)} is not in the Servers view: ${tool.title.toLowerCase()} will send it HTTP requests${name === 'server_info' ? '' : ' (prompts included)'}.`,
      );
    }
    return {
      invocationMessage: `${tool.title}…`,
      ...(title ? { confirmationMessages: { title, message: new vscode.MarkdownString(lines.join('\n\n')) } } : {}),
    };
  }

  async invoke(name: string, input: Record<string, unknown>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const controller = new AbortController();
    const cancel = token.onCancellationRequested(() => controller.abort());
    if (token.isCancellationRequested) controller.abort();
    try {
      const config = this.ctx.config;
      const sshConfig = config.text('ssh.configFile');
      const knownHosts = config.text('ssh.knownHostsFile');
      const stateDir = config.text('fix.superviseStateDir');
      const tool = findTool(name);
      const toolCtx: ToolContext = {
        signal: controller.signal,
        timeLimitMs: tool?.changesServer ? CHANGES_TIME_LIMIT_MS : DEFAULT_TIME_LIMIT_MS,
        maxOutputChars: DEFAULT_MAX_OUTPUT_CHARS,
        servers: await this.servers(),
        hosts: sshHostAccess({
          ...(sshConfig ? { sshConfigFile: expandTilde(sshConfig) } : {}),
          ...(knownHosts ? { knownHostsFile: expandTilde(knownHosts) } : {}),
        }),
        // VS Code showed prepare()'s confirmation for every tool that changes a server, and invoke() runs only once the user accepted it.
        allowChanges: true,
        services: { checkLaunch: async (...args) => (await import('../cli/check/toolService')).checkLaunchText(...args) },
        ...(stateDir ? { superviseStateDir: expandTilde(stateDir) } : {}),
        onProgress: (m) => this.ctx.log.info(`agent tool ${name}: ${m}`),
      };
      const r = await runTool(name, input, toolCtx);
      if (!r.ok) {
        this.ctx.log.warn(`agent tool ${name}: ${r.error.code}: ${r.error.message}`);
        // Thrown errors reach the model as the tool's answer: say what went wrong and why.
        throw new Error(`${r.error.code}: ${r.error.message}`);
      }
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(r.text), new vscode.LanguageModelTextPart(JSON.stringify(r.data))]);
    } finally {
      cancel.dispose();
    }
  }
}
