/**
 * Which files the sweep offers: a document of a launch-file kind (core/launch/syntax's selector)
 * whose text starts SGLang. Light on purpose: activation uses it for the editor menus' context key.
 */
import * as vscode from 'vscode';
import { LAUNCH_DOCUMENT_SELECTOR } from '../core/launch/syntax';

/** Bigger files are not launch scripts (and are not worth scanning on every editor switch). */
const MAX_CHARS = 2_000_000;
/** `python -m sglang.launch_server …` or `sglang serve …`: one cheap test, the parser decides later. */
const STARTS_SGLANG = /launch_server|\bsglang\s+serve\b/;

/** Files the workspace search looks at for launch commands. */
export const LAUNCH_FILES_GLOB = '**/{*.sh,*.bash,*.zsh,*.service,*.conf,*.yaml,*.yml,*.py,*.md,Dockerfile*,*.dockerfile}';

export function mentionsLaunchCommand(text: string): boolean {
  return text.length <= MAX_CHARS && STARTS_SGLANG.test(text);
}

/** A file on this machine, of a launch-file kind, that mentions a launch command. */
export function isLaunchDocument(doc: vscode.TextDocument): boolean {
  return doc.uri.scheme === 'file' && vscode.languages.match(LAUNCH_DOCUMENT_SELECTOR, doc) > 0 && mentionsLaunchCommand(doc.getText());
}
