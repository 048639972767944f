/**
 * "Load Flags from Installed SGLang" on this machine: pick an interpreter (setting
 * inferenceDoctor.flags.python, then `which -a python3 python`), build SGLang's parser in it with
 * python/dump_sglang_args.py (cached per interpreter and version), merge with the catalog read from
 * server_args.py, and hand the result to the language server. Loaded on first use of the command.
 */
import { join } from 'node:path';
import * as vscode from 'vscode';
import { LocalHost } from '../core/hosts/local';
import type { CatalogEra, FlagCatalog } from '../core/flags/types';
import { loadDumpScript, mergeCatalogs, readRuntimeCatalog, type FlagDifference, type RuntimeCatalog } from '../core/flags/runtime';
import { requestCatalogEntries, sendRuntimeCatalog } from './languageClient';

/** Optional argument of the command (from the "Reload" button, or other features). */
export interface LoadRuntimeArgs { python?: string; refresh?: boolean }

export interface LoadedRuntimeFlags {
  label: string;
  byFlag: Map<string, FlagDifference[]>;
}

async function interpreters(host: LocalHost): Promise<{ path: string; from: string }[]> {
  const out: { path: string; from: string }[] = [];
  const configured = vscode.workspace.getConfiguration('inferenceDoctor.flags').get<string>('python', '').trim();
  if (configured) out.push({ path: configured, from: 'inferenceDoctor.flags.python' });
  const finder = process.platform === 'win32' ? ['where', 'python3', 'python'] : ['which', '-a', 'python3', 'python'];
  try {
    const r = await host.exec(finder, { timeoutMs: 5000, maxOutputBytes: 64 * 1024 });
    for (const line of r.stdout.split(/\r?\n/)) {
      const p = line.trim();
      if (p) out.push({ path: p, from: 'PATH' });
    }
  } catch { /* no which/where: the user can type a path */ }
  const seen = new Set<string>();
  return out.filter((c) => !seen.has(c.path) && !!seen.add(c.path));
}

async function pickInterpreter(host: LocalHost): Promise<string | undefined> {
  const found = await interpreters(host);
  const other = { label: '$(edit) Other interpreter…', description: 'enter a path (e.g. a virtualenv\'s bin/python)', path: '' };
  const picked = await vscode.window.showQuickPick(
    [...found.map((c) => ({ label: c.path, description: c.from, path: c.path })), other],
    { placeHolder: 'Which Python has the SGLang to read flags from?', ignoreFocusOut: true },
  );
  if (!picked) return undefined;
  if (picked.path) return picked.path;
  const typed = await vscode.window.showInputBox({ title: 'Python interpreter', prompt: 'Path of a python that can import sglang', ignoreFocusOut: true });
  return typed?.trim() || undefined;
}

function summary(rt: RuntimeCatalog, differences: FlagDifference[]): string {
  const count = (k: FlagDifference['kind']): number => differences.filter((d) => d.kind === k).length;
  const parts = [
    `${rt.catalog.entries.length} flags from SGLang${rt.version ? ` ${rt.version}` : ''}`,
    rt.source === 'help' ? 'read from --help' : undefined,
    rt.fromCache ? 'cached' : undefined,
  ].filter(Boolean);
  const diff = [
    count('runtime-only') && `${count('runtime-only')} only at run time`,
    count('choices-grew') && `${count('choices-grew')} with choices added at run time`,
    count('default-differs') && `${count('default-differs')} with another default`,
  ].filter(Boolean);
  return `Inference Doctor: loaded ${parts.join(', ')}${diff.length ? `; ${diff.join(', ')}` : ''}.`;
}

function differencesMarkdown(label: string, rt: RuntimeCatalog, differences: FlagDifference[]): string {
  const lines = [`# Flags of the installed SGLang vs server_args.py`, '', `- Interpreter: \`${rt.python}\` on ${label}`, `- SGLang: ${rt.version ?? 'unknown version'} (${rt.install.sglangDir ?? '?'})`, `- Read by: ${rt.source === 'dump' ? "SGLang's own parser" : 'python -m sglang.launch_server --help'}`, ''];
  for (const w of rt.warnings) lines.push(`> ${w}`, '');
  if (!differences.length) lines.push('No differences.');
  for (const d of differences) lines.push(`- **${d.kind}** \`${d.flag}\` — ${d.message}`);
  return lines.join('\n');
}

/** Runs the command; the differences it found, for the Backend Flags view. */
export async function loadRuntimeFlags(context: vscode.ExtensionContext, opts: LoadRuntimeArgs = {}): Promise<LoadedRuntimeFlags | undefined> {
  const host = new LocalHost();
  const refresh = opts.refresh === true;
  const python = typeof opts.python === 'string' && opts.python ? opts.python : await pickInterpreter(host);
  if (!python) return undefined;
  const script = await loadDumpScript(context.asAbsolutePath(join('python', 'dump_sglang_args.py')));
  const cacheDir = join(context.globalStorageUri.fsPath, 'flag-catalogs');
  let rt: RuntimeCatalog;
  try {
    rt = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Inference Doctor: reading flags from the installed SGLang', cancellable: true },
      (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return readRuntimeCatalog(host, python, { script, cacheDir, refresh, signal: abort.signal, onProgress: (message) => progress.report({ message }) });
      },
    );
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (/Cancelled/.test(message)) return undefined;
    void vscode.window.showErrorMessage(`Inference Doctor: could not read flags with ${python}: ${message}`);
    return undefined;
  }
  // The catalog read from server_args.py (workspace or settings) gives lines and deprecations.
  const stat = await requestCatalogEntries({ staticOnly: true }).catch(() => undefined);
  let catalog: FlagCatalog = rt.catalog;
  let differences: FlagDifference[] = [];
  let byFlag = new Map<string, FlagDifference[]>();
  if (stat?.source) {
    const staticCatalog: FlagCatalog = { entries: stat.entries, choiceLists: stat.choiceLists, era: stat.source.era as CatalogEra, diagnostics: [] };
    const merged = mergeCatalogs(staticCatalog, rt.catalog, { keepStaticOnly: rt.source === 'help' });
    catalog = merged.catalog;
    // Flags the file declares but this parser lacks are common across versions; keep them out of the headline.
    differences = merged.differences.filter((d) => d.kind !== 'static-only' || rt.source === 'dump');
    byFlag = merged.byFlag;
  }
  const { catalogToJson } = await import('../core/flags');
  const label = `${host.label} · ${python}`;
  await sendRuntimeCatalog({ catalog: catalogToJson(catalog), hostLabel: label, ...(rt.version ? { version: rt.version } : {}) });
  const show = 'Show Differences';
  const reload = 'Reload (ignore cache)';
  const buttons = [...(differences.length || rt.warnings.length ? [show] : []), ...(rt.fromCache ? [reload] : [])];
  void vscode.window.showInformationMessage(summary(rt, differences), ...buttons).then(async (answer) => {
    if (answer === show) {
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: differencesMarkdown(host.label, rt, differences) });
      await vscode.window.showTextDocument(doc, { preview: true });
    } else if (answer === reload) {
      const again: LoadRuntimeArgs = { refresh: true, python };
      await vscode.commands.executeCommand('inferenceDoctor.loadRuntimeFlags', again);
    }
  });
  return { label, byFlag };
}
