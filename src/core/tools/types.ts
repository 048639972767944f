/**
 * The contract of the agent tools (src/core/tools): one definition per tool, shared by the
 * VS Code language-model tools and the MCP server. A tool never sees raw agent input: `runTool`
 * (index.ts) validates it against `inputSchema` first, bounds time and output, refuses changes
 * without consent and redacts secrets from what comes back.
 */
import type { Host } from '../hosts/types';
import type { Schema } from '../rules/schema';

/** A server the user registered (VS Code's Servers view) or named on the command line (MCP). */
export interface KnownServer {
  name: string;
  url: string;
  /** Sent with requests to this server; never part of any output. */
  apiKey?: string;
}

/** How tools reach machines: the same ssh config and known_hosts the CLI reads. */
export interface HostAccess {
  /** Names an agent can give: `local` and the ssh config's aliases. */
  known(): string[];
  /** Opens a host; unknown host keys are refused (no prompt can reach the user from an agent). */
  open(spec: string, signal: AbortSignal): Promise<Host>;
}

/** One launch text judged as `inference-doctor check` judges a file. */
export interface LaunchCheck {
  release: { version: string | null; source: string; detail: string } | null;
  commands: number;
  findings: { line: number; column: number; severity: 'error' | 'warning' | 'info'; code: string; message: string; fixes: string[] }[];
}

/** Parts that live outside core (the checker is the language server's analysis). */
export interface ToolServices {
  checkLaunch?: (text: string, fileName: string, opts: { gpu?: string; version?: string }) => Promise<LaunchCheck>;
}

export interface ToolContext {
  /** Fires when the caller cancels (MCP cancellation, VS Code's CancellationToken). */
  signal: AbortSignal;
  /** The whole run is stopped after this long. */
  timeLimitMs: number;
  /** The JSON result is cut to about this many characters, with a note saying so. */
  maxOutputChars: number;
  servers: readonly KnownServer[];
  hosts: HostAccess;
  /** True only when the user consented to changes (--allow-changes, or a VS Code confirmation). */
  allowChanges: boolean;
  services: ToolServices;
  /** Where `inference-doctor supervise` keeps its state on this machine (default: its own default). */
  superviseStateDir?: string;
  /** One line per step, for a progress display. */
  onProgress?: (message: string) => void;
}

/** What `run` resolves: the structured result (validates against outputSchema) and a text for agents. */
export interface ToolOutput<O = Record<string, unknown>> {
  data: O;
  text: string;
}

export interface ToolDefinition<I = Record<string, unknown>, O = Record<string, unknown>> {
  name: string;
  /** A short human title (VS Code shows it). */
  title: string;
  description: string;
  inputSchema: Schema;
  outputSchema: Schema;
  /** Reaches a machine over SSH or runs a program there (VS Code asks first). */
  touchesHost: boolean;
  /** Changes a server (restarts it, edits its launch): refused unless ctx.allowChanges. */
  changesServer: boolean;
  run(input: I, ctx: ToolContext): Promise<ToolOutput<O>>;
}

export type ToolErrorCode = 'invalid-input' | 'refused' | 'unknown-tool' | 'timeout' | 'cancelled' | 'failed';

/** A tool call that did not produce a result; the message is meant for the agent and the user. */
export class ToolError extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}
