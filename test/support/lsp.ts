/**
 * What the language-server tests share: the built server (dist/server.js, driven over stdio by
 * StdioLspClient), document URIs and positions, hover text as read, diagnostics by code.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CompletionItem, CompletionList, Diagnostic, Hover, MarkupContent, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import type { StdioLspClient } from '../../src/lsp/stdioClient';

const ROOT = join(__dirname, '..', '..');
export const LSP_SERVER = join(ROOT, 'dist', 'server.js');

/** Builds dist/server.js (bounded); a failed build fails the suite with esbuild's words. */
export function buildLanguageServer(): void {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--only', 'server'], { cwd: ROOT, encoding: 'utf8', timeout: 110_000 });
  assert.equal(r.status, 0, `build failed: ${r.stderr}`);
}

export const uriOf = (path: string): string => pathToFileURL(path).toString();
/** Markdown as a reader sees it: backslash escapes dropped. */
export const readable = (md: string): string => md.replace(/\\([!-/:-@[-`{-~])/g, '$1');
export const hoverText = (h: Hover | null): string => (h ? readable((h.contents as MarkupContent).value) : '');
export const byCode = (ds: Diagnostic[], code: string): Diagnostic[] => ds.filter((d) => d.code === code);
export const completionLabels = (r: CompletionList | CompletionItem[] | null): string[] => (r ? (Array.isArray(r) ? r : r.items) : []).map((i) => i.label);

/** Position of the `nth` occurrence of `needle` (plus `delta` characters). */
export function posOf(text: string, needle: string, delta = 0, nth = 0): { line: number; character: number } {
  let i = -1;
  for (let k = 0; k <= nth; k++) {
    i = text.indexOf(needle, i + 1);
    if (i < 0) throw new Error(`${needle} not found`);
  }
  const before = text.slice(0, i + delta);
  return { line: before.split('\n').length - 1, character: before.length - before.lastIndexOf('\n') - 1 };
}

/** Opens `path` with `text` (version 1) and resolves with its first diagnostics that satisfy `pred`. */
export async function openForDiagnostics(
  c: StdioLspClient,
  path: string,
  languageId: string,
  text: string,
  pred: (p: PublishDiagnosticsParams) => boolean = () => true,
  timeoutMs = 20_000,
): Promise<PublishDiagnosticsParams> {
  const uri = uriOf(path);
  const p = c.diagnostics(uri, (d) => d.version === 1 && pred(d), timeoutMs, true);
  await c.open(uri, languageId, text, 1);
  return p;
}

/** The hover at `needle` in `text` (opened as `path`), as read. */
export async function hoverAt(c: StdioLspClient, path: string, text: string, needle: string, delta = 2): Promise<string> {
  return hoverText(await c.request<Hover>('textDocument/hover', { textDocument: { uri: uriOf(path) }, position: posOf(text, needle, delta) }));
}
