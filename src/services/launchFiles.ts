/**
 * Launch files: a document of a launch-file kind (core/launch/syntax's selector) whose text starts
 * SGLang or vLLM. The sweep offers them, Apply and Verify remembers which server each one's is, and Diagnose
 * Server finds a server's launch file through both. Light on purpose: activation uses it for the
 * editor menus' context key.
 */
import * as vscode from 'vscode';
import { LAUNCH_DOCUMENT_SELECTOR } from '../core/launch/syntax';
import type { LaunchEngine } from '../core/launch/types';

/** Bigger files are not launch scripts (and are not worth scanning on every editor switch). */
const MAX_CHARS = 2_000_000;
/** One cheap test per engine, the parser decides later: `python -m sglang.launch_server …` or `sglang serve …`; `vllm serve …`, the api_server module, the vllm/vllm-openai image. */
const STARTS: Record<LaunchEngine, RegExp> = {
  sglang: /launch_server|\bsglang\s+serve\b/,
  vllm: /\bvllm\s+serve\b|vllm\.entrypoints\.openai\.api_server|vllm\/vllm-openai/,
};

/** workspaceState key (+ the launch file's URI) of the server the fix commands probe for that file. */
export const PROBE_SERVER_KEY = 'inferenceDoctor.fix.server:';

/** Files the workspace search looks at for launch commands. */
export const LAUNCH_FILES_GLOB = '**/{*.sh,*.bash,*.zsh,*.service,*.conf,*.yaml,*.yml,*.py,*.md,Dockerfile*,*.dockerfile}';

/** Whether `text` mentions a launch command of one of `engines` (default: either). */
export function mentionsLaunchCommand(text: string, engines: readonly LaunchEngine[] = ['sglang', 'vllm']): boolean {
  return text.length <= MAX_CHARS && engines.some((e) => STARTS[e].test(text));
}

/** A file on this machine, of a launch-file kind, that mentions a launch command. */
export function isLaunchDocument(doc: vscode.TextDocument): boolean {
  return doc.uri.scheme === 'file' && vscode.languages.match(LAUNCH_DOCUMENT_SELECTOR, doc) > 0 && mentionsLaunchCommand(doc.getText());
}

/** Launch files in the workspace: files of a launch-file kind, under 1 MB, that mention a launch command. */
export async function findWorkspaceLaunchFiles(max = 300): Promise<{ uri: vscode.Uri; text: string }[]> {
  const found: { uri: vscode.Uri; text: string }[] = [];
  for (const uri of await vscode.workspace.findFiles(LAUNCH_FILES_GLOB, '**/node_modules/**', max)) {
    const bytes = await vscode.workspace.fs.readFile(uri).then(undefined, () => undefined);
    if (!bytes || bytes.byteLength >= 1_000_000) continue;
    const text = new TextDecoder().decode(bytes);
    if (mentionsLaunchCommand(text)) found.push({ uri, text });
  }
  return found;
}
