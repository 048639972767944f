import * as vscode from 'vscode';
import { Ctx, type Feature } from './context';
import { FlagsClient } from './flags/languageClient';
import { RuntimeHosts } from './services/runtimeHosts';
import { createServersService } from './servers/service';
import { createReportsService } from './ui/reportDocuments';
import { register as registerServers } from './servers/register';
import { register as registerProbe } from './probe/register';
import { register as registerFlags } from './flags/register';
import { register as registerRemote } from './remote/register';
import { register as registerFix } from './fix/register';
import { register as registerDiagnose } from './diagnose/register';
import { register as registerEval } from './eval/register';
import { register as registerAgent } from './agent/register';

const moduleLoadedAt = performance.now();

/** Every feature, each one `register(ctx)`; they meet only through the context's services. */
const FEATURES: Feature[] = [registerServers, registerProbe, registerFlags, registerRemote, registerFix, registerDiagnose, registerEval, registerAgent];

let flagsClient: FlagsClient | undefined;

/**
 * Builds the one context and registers each feature with it. Nothing talks to the network or
 * disk here: stores, views and panels do their work when used.
 */
export function activate(context: vscode.ExtensionContext): void {
  const started = performance.now();
  const ctx = new Ctx(context, (base) => ({
    servers: createServersService(base),
    flags: (flagsClient = new FlagsClient(base)),
    hosts: new RuntimeHosts(),
    reports: createReportsService(base),
  }));
  ctx.pushCleanup(ctx.flags);
  for (const register of FEATURES) register(ctx);
  recordActivation(context, started);
}

/** Waits for the language server to stop, so no orphan process outlives the extension host. */
export async function deactivate(): Promise<void> {
  await flagsClient?.stop();
  flagsClient = undefined;
}

/** Writes activation timing to the log folder after activate() returns, for the benchmark. */
function recordActivation(context: vscode.ExtensionContext, started: number): void {
  const activateMs = performance.now() - started;
  const sinceModuleLoadMs = performance.now() - moduleLoadedAt;
  setTimeout(() => {
    const body = JSON.stringify({ activateMs, sinceModuleLoadMs, at: new Date().toISOString() });
    const dir = context.logUri;
    void Promise.resolve(vscode.workspace.fs.createDirectory(dir))
      .then(() => vscode.workspace.fs.writeFile(vscode.Uri.joinPath(dir, 'activation.json'), Buffer.from(body)))
      .then(undefined, () => undefined);
  }, 0);
}
