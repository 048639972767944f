/**
 * The MCP server: every tool of src/core/tools with its input and output schemas, each call run
 * through runTool (validation, consent, time and size limits, redaction). Results carry the
 * structured JSON and a text an agent reads; failures are tool errors (isError) with the reason.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CHANGES_TIME_LIMIT_MS, runTool, TOOLS, type HostAccess, type ToolContext } from '../../core/tools';
import { checkLaunchText } from '../check/toolService';
import type { CliIo } from '../command';
import type { McpArgs } from '../commands/mcp';

const INSTRUCTIONS = `Inference Doctor finds out why an LLM inference server (SGLang, vLLM) answers "!!!!", NaN or nonsense.
Start with probe (is the output broken?) and diagnose (which backend, kernel or flag causes it, and the fix to try first; give it the server and, when you know it, the GPU host it runs on).
flags and check_launch answer questions about SGLang flags and launch commands; server_info, environment and search_source read a server or a GPU host.
apply_fix and sweep restart servers: they run only when the server was started with --allow-changes.`;

export async function serveMcp(args: McpArgs, deps: { hosts: HostAccess; io: CliIo }): Promise<void> {
  const { io } = deps;
  // What the agent may name: servers by name (never their keys) and hosts from the ssh config.
  const hosts = deps.hosts.known().slice(0, 50);
  const known = [
    args.servers.length ? `Known servers: ${args.servers.map((s) => `${s.name} (${s.url})`).join(', ')}.` : 'No servers are named: give a server URL.',
    `Hosts: ${hosts.join(', ')}.`,
  ].join('\n');
  const server = new Server({ name: 'inference-doctor', version: '0.1.0' }, { capabilities: { tools: {} }, instructions: `${INSTRUCTIONS}\n${known}` });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.changesServer && !args.allowChanges ? `${t.description} (Changes are not allowed by this server: it will refuse.)` : t.description,
      inputSchema: t.inputSchema as { type: 'object'; properties?: Record<string, object> },
      outputSchema: t.outputSchema as { type: 'object'; properties?: Record<string, object> },
      annotations: { title: t.title, readOnlyHint: !t.changesServer, destructiveHint: t.changesServer, idempotentHint: !t.changesServer, openWorldHint: true },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    const progressToken = request.params._meta?.progressToken;
    let step = 0;
    const ctx: ToolContext = {
      signal: AbortSignal.any([extra.signal, io.signal]),
      timeLimitMs: tool?.changesServer ? Math.max(args.timeLimitMs, CHANGES_TIME_LIMIT_MS) : args.timeLimitMs,
      maxOutputChars: args.maxOutputChars,
      servers: args.servers,
      hosts: deps.hosts,
      allowChanges: args.allowChanges,
      services: { checkLaunch: checkLaunchText },
      onProgress: (message) => {
        io.stderr.write(`inference-doctor mcp: ${request.params.name}: ${message}\n`);
        if (progressToken !== undefined)
          void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++step, message } }).catch(() => undefined);
      },
    };
    const r = await runTool(request.params.name, request.params.arguments ?? {}, ctx);
    if (r.ok) return { content: [{ type: 'text', text: r.text }], structuredContent: r.data };
    return { content: [{ type: 'text', text: `${r.error.code}: ${r.error.message}` }], isError: true };
  });

  const transport = new StdioServerTransport(io.stdin, io.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    // A client that goes away closes stdin: that ends the server.
    io.stdin.once('end', () => void server.close().then(resolve, resolve));
    io.signal.addEventListener('abort', () => void server.close().then(resolve, resolve), { once: true });
  });
  await server.connect(transport);
  io.stderr.write(`inference-doctor mcp: serving ${TOOLS.length} tools on stdio${args.allowChanges ? ' (changes allowed)' : ''}\n`);
  await closed;
}
