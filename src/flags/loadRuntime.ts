/**
 * "Load Flags from Installed SGLang or vLLM", here or on a connected host: pick an interpreter
 * (setting inferenceDoctor.flags.python, then `which -a python3 python`; on a host, the ones
 * discovery found), find which engines it has (discovery's packages, else the dump script's
 * `version` mode, which never imports them; ask when it has both), build that engine's parser in it
 * with python/dump_engine_args.py (cached per interpreter and version) and hand the result to the
 * language server. SGLang's is merged with the catalog read from server_args.py and stands in for
 * it; vLLM's takes the bundled vLLM catalog's place on vLLM commands. Loaded on first use.
 */
import { join } from 'node:path';
import { COMMANDS } from '../commands';
import * as vscode from 'vscode';
import { LocalHost } from '../core/hosts/local';
import type { CatalogEra, FlagCatalog } from '../core/flags/types';
import {
  engineLabel,
  installedEngines,
  loadDumpScript,
  mergeCatalogs,
  readRuntimeCatalog,
  type FlagDifference,
  type RuntimeCatalog,
  type RuntimeEngine,
} from '../core/flags/runtime';
import { flagDifferencesReport } from '../core/flags/differencesReport';
import type { Host } from '../core/hosts/types';
import type { HostRuleContext } from '../core/remote/ruleContext';
import type { RuntimeHostInterpreter, RuntimeHostTarget } from '../services/runtimeHosts';
import type { Ctx } from '../context';
import { notificationText } from '../core/text/foreign';
import { guardPicks } from '../ui/foreignText';
import { errorMessage } from '../core/errors';

/** Optional argument of the command (from the "Reload" button, or other features). */
export interface LoadRuntimeArgs {
  python?: string;
  refresh?: boolean;
  /** A connected host of the Hosts view (`local`, `config:gpu-box`…); default: ask when SSH hosts are connected. */
  hostId?: string;
  /** Whose flags: default the engine the interpreter has (asked when it has both). */
  engine?: RuntimeEngine;
}

const LOCAL_ID = 'local';

export interface LoadedRuntimeFlags {
  engine: RuntimeEngine;
  label: string;
  byFlag: Map<string, FlagDifference[]>;
}

async function interpreters(ctx: Ctx, host: LocalHost): Promise<{ path: string; from: string }[]> {
  const out: { path: string; from: string }[] = [];
  const configured = ctx.config.text('flags.python');
  if (configured) out.push({ path: configured, from: 'inferenceDoctor.flags.python' });
  const finder = process.platform === 'win32' ? ['where', 'python3', 'python'] : ['which', '-a', 'python3', 'python'];
  try {
    const r = await host.exec(finder, { timeoutMs: 5000, maxOutputBytes: 64 * 1024 });
    for (const line of r.stdout.split(/\r?\n/)) {
      const p = line.trim();
      if (p) out.push({ path: p, from: 'PATH' });
    }
  } catch {
    /* no which/where: the user can type a path */
  }
  const seen = new Set<string>();
  return out.filter((c) => !seen.has(c.path) && !!seen.add(c.path));
}

/** `sglang 0.5.2 · vllm 0.11.0` for an interpreter discovery looked at. */
function enginesOf(i: RuntimeHostInterpreter): { engines: RuntimeEngine[]; text: string } {
  const versions: [RuntimeEngine, string | undefined][] = [
    ['sglang', i.sglangVersion],
    ['vllm', i.vllmVersion],
  ];
  const found = versions.filter((v): v is [RuntimeEngine, string] => v[1] !== undefined);
  return { engines: found.map(([e]) => e), text: found.length ? found.map(([e, v]) => `${e} ${v}`).join(' · ') : 'no sglang or vllm found' };
}

interface PickedInterpreter {
  path: string;
  /** The engines discovery found in it; undefined when not known (this machine, a typed path). */
  engines?: RuntimeEngine[];
}

async function pickInterpreter(ctx: Ctx, host: LocalHost, target: RuntimeHostTarget | undefined): Promise<PickedInterpreter | undefined> {
  // On a connected host, discovery already knows the interpreters (those with an engine first).
  const found: (PickedInterpreter & { from: string })[] =
    target && target.id !== LOCAL_ID
      ? target.interpreters
          .map((i) => ({ path: i.path, ...enginesOf(i) }))
          .sort((a, b) => b.engines.length - a.engines.length)
          .map(({ path, engines, text }) => ({ path, engines, from: text }))
      : await interpreters(ctx, host);
  const other = { label: 'Other interpreter…', ownIcon: 'edit', description: "enter a path (e.g. a virtualenv's bin/python)", path: '', engines: undefined };
  const where = target ? ` on ${notificationText(target.label)}` : '';
  const picked = await vscode.window.showQuickPick(
    guardPicks([...found.map((c) => ({ label: c.path, description: c.from, path: c.path, engines: c.engines })), other]),
    { placeHolder: `Which Python${where} has the SGLang or vLLM to read flags from?`, ignoreFocusOut: true },
  );
  if (!picked) return undefined;
  if (picked.path) return { path: picked.path, ...(picked.engines ? { engines: picked.engines } : {}) };
  const typed = await vscode.window.showInputBox({
    title: `Python interpreter${where}`,
    prompt: 'Path of a python that can import sglang or vllm',
    ignoreFocusOut: true,
  });
  return typed?.trim() ? { path: typed.trim() } : undefined;
}

/**
 * Whose flags to read: the one engine the interpreter has, else asked; an interpreter with neither
 * reads SGLang's, whose error says so.
 */
async function pickEngine(engines: RuntimeEngine[], python: string): Promise<RuntimeEngine | undefined> {
  if (engines.length <= 1) return engines[0] ?? 'sglang';
  const picked = await vscode.window.showQuickPick(
    guardPicks(engines.map((engine) => ({ label: engineLabel(engine), description: `installed in ${python}`, engine }))),
    { placeHolder: `${notificationText(python)} has both SGLang and vLLM: read whose flags?`, ignoreFocusOut: true },
  );
  return picked?.engine;
}

/** This machine, or a connected host of the Hosts view; asks only when an SSH host is connected. */
async function pickHost(ctx: Ctx, hostId: string | undefined): Promise<{ target?: RuntimeHostTarget } | undefined> {
  const targets = ctx.hosts.connected();
  if (hostId) {
    const t = targets.find((x) => x.id === hostId);
    if (!t && hostId !== LOCAL_ID) {
      void vscode.window.showErrorMessage(`Inference Doctor: ${notificationText(hostId)} is not connected. Connect it in the Hosts view first.`);
      return undefined;
    }
    return { target: t };
  }
  const remote = targets.filter((t) => t.id !== LOCAL_ID);
  if (remote.length === 0) return { target: targets.find((t) => t.id === LOCAL_ID) };
  const picked = await vscode.window.showQuickPick(
    guardPicks([{ label: 'This machine', description: 'local', id: LOCAL_ID }, ...remote.map((t) => ({ label: t.label, description: 'connected', id: t.id }))]),
    { placeHolder: 'Read the flags of the SGLang or vLLM installed where?', ignoreFocusOut: true },
  );
  if (!picked) return undefined;
  return { target: targets.find((t) => t.id === picked.id) };
}

function summary(engine: RuntimeEngine, rt: RuntimeCatalog, differences: FlagDifference[], hostLabel: string): string {
  const count = (k: FlagDifference['kind']): number => differences.filter((d) => d.kind === k).length;
  const parts = [
    `${rt.catalog.entries.length} flags from ${engineLabel(engine)}${rt.version ? ` ${rt.version}` : ''} on ${hostLabel}`,
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

/** Runs the command; the differences it found, for the Backend Flags view. */
export async function loadRuntimeFlags(ctx: Ctx, opts: LoadRuntimeArgs = {}): Promise<LoadedRuntimeFlags | undefined> {
  const context = ctx.extension;
  const local = new LocalHost();
  const refresh = opts.refresh === true;
  const where = await pickHost(ctx, typeof opts.hostId === 'string' ? opts.hostId : undefined);
  if (!where) return undefined;
  const target = where.target;
  const host: Host = target && target.id !== LOCAL_ID ? target.host : local;
  const hostLabel = target && target.id !== LOCAL_ID ? target.label : local.label;
  const given = typeof opts.python === 'string' && opts.python ? opts.python : undefined;
  const known = given ? target?.interpreters.find((i) => i.path === given) : undefined;
  const interpreter = given ? { path: given, ...(known ? { engines: enginesOf(known).engines } : {}) } : await pickInterpreter(ctx, local, target);
  if (!interpreter) return undefined;
  const python = interpreter.path;
  const script = await loadDumpScript(context.asAbsolutePath(join('python', 'dump_engine_args.py')));
  const env = target?.env ? { env: target.env } : {};
  let engine: RuntimeEngine | undefined = opts.engine === 'vllm' || opts.engine === 'sglang' ? opts.engine : undefined;
  if (!engine) {
    // Not known from discovery: ask the interpreter (a missing one fails below with its own error).
    const engines = interpreter.engines ?? (await installedEngines(host, python, { script, ...env }).catch(() => []));
    engine = await pickEngine(engines, python);
    if (!engine) return undefined;
  }
  const name = engineLabel(engine);
  const cacheDir = join(context.globalStorageUri.fsPath, 'flag-catalogs');
  let rt: RuntimeCatalog;
  try {
    rt = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Inference Doctor: reading flags from the installed ${name}`, cancellable: true },
      (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return readRuntimeCatalog(host, python, {
          script,
          engine,
          cacheDir,
          refresh,
          signal: abort.signal,
          onProgress: (message) => progress.report({ message: notificationText(message) }),
          ...env,
        });
      },
    );
  } catch (e) {
    const message = errorMessage(e);
    if (/Cancelled/.test(message)) return undefined;
    void vscode.window.showErrorMessage(`Inference Doctor: could not read ${name}'s flags with ${notificationText(python)}: ${notificationText(message)}`);
    return undefined;
  }
  // SGLang's: the catalog read from server_args.py (workspace or settings) gives lines and deprecations.
  // vLLM's is sent as its parser gave it, and only compared with the bundled facts of its release.
  const vllm = engine === 'vllm';
  const stat = await ctx.flags.catalogEntries(vllm ? { bundledVllm: rt.version ? { version: rt.version } : {} } : { staticOnly: true }).catch(() => undefined);
  const staticLabel = vllm ? (stat?.source?.label ?? 'the bundled vLLM catalog') : 'server_args.py';
  let catalog: FlagCatalog = rt.catalog;
  let differences: FlagDifference[] = [];
  let byFlag = new Map<string, FlagDifference[]>();
  if (stat?.source) {
    const staticCatalog: FlagCatalog = { entries: stat.entries, choiceLists: stat.choiceLists, era: stat.source.era as CatalogEra, diagnostics: [] };
    const merged = mergeCatalogs(staticCatalog, rt.catalog, { keepStaticOnly: rt.source === 'help', staticLabel });
    if (!vllm) catalog = merged.catalog;
    // Flags the file declares but this parser lacks are common across versions; keep them out of the headline.
    differences = merged.differences.filter((d) => d.kind !== 'static-only' || rt.source === 'dump');
    byFlag = merged.byFlag;
  }
  const { catalogToJson } = await import('../core/flags');
  const label = `${hostLabel} · ${python}`;
  // The host's GPU and package versions let known-bad rules say "your GPU" instead of "if your GPU is…".
  const rules: HostRuleContext | undefined = target?.ruleContext(python);
  await ctx.flags.sendRuntimeCatalog({
    catalog: catalogToJson(catalog),
    engine,
    hostLabel: label,
    ...(rt.version ? { version: rt.version } : {}),
    ...(rules?.computeCapability !== undefined ? { computeCapability: rules.computeCapability } : {}),
    ...(rules && Object.keys(rules.packageVersions).length ? { packageVersions: rules.packageVersions } : {}),
  });
  const show = 'Show Differences';
  const reload = 'Reload (ignore cache)';
  const buttons = [...(differences.length || rt.warnings.length ? [show] : []), ...(rt.fromCache ? [reload] : [])];
  const gpu = rules?.computeCapability !== undefined ? ` Known issues now check the GPU of ${hostLabel} (SM ${rules.computeCapability.toFixed(1)}).` : '';
  const use = engine === 'vllm' ? ' vLLM commands are now checked against it.' : '';
  void vscode.window
    .showInformationMessage(`${notificationText(summary(engine, rt, differences, hostLabel), { maxLength: 600 })}${notificationText(gpu)}${use}`, ...buttons)
    .then(async (answer) => {
      if (answer === show) {
        await ctx.reports.open(
          hostLabel,
          vllm ? 'vllm-flag-differences.md' : 'flag-differences.md',
          flagDifferencesReport(hostLabel, rt, differences, staticLabel),
        );
      } else if (answer === reload) {
        const again: LoadRuntimeArgs = { refresh: true, python, hostId: target?.id ?? LOCAL_ID, engine };
        await ctx.executeCommand(COMMANDS.loadRuntime, again);
      }
    });
  return { engine, label, byFlag };
}
