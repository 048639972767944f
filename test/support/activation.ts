/**
 * A script for a fresh, plain Node process (no tsx hooks, which would transform the bundle on every
 * require) that loads an extension bundle under a stand-in vscode module and calls activate():
 *
 *   node -e ACTIVATION_SCRIPT BUNDLE RUNS
 *
 * It prints one JSON object: per run the wall and CPU milliseconds of require() and of activate(),
 * and, after the last run, which files Node had loaded. Shared by the activation test and bench.
 */
export interface ActivationRun {
  requireMs: number;
  activateMs: number;
  cpuMs: number;
}

export interface ActivationReport {
  runs: ActivationRun[];
  /** Every file in require.cache after the last activate(). */
  loaded: string[];
}

export const ACTIVATION_SCRIPT = String.raw`
const Module = require('module');
const { mkdtempSync, rmSync } = require('fs');
const { join } = require('path');
const { tmpdir } = require('os');
const [file, runsArg] = process.argv.slice(1);
const stub = new Proxy(function stub() {}, {
  get: (_t, k) => (k === 'then' ? undefined : k === Symbol.toPrimitive ? () => 0 : k === 'dispose' ? () => undefined : stub),
  apply: () => stub,
  construct: () => stub,
});
// Bundlers copy a CommonJS module's own keys into the namespace object, so every name is spelt out.
const VSCODE = Object.fromEntries(
  ['CancellationTokenSource', 'CodeLens', 'Diagnostic', 'DiagnosticSeverity', 'Disposable', 'EventEmitter', 'FilePermission',
   'FileSystemError', 'FileType', 'LanguageModelTextPart', 'LanguageModelToolResult', 'Location', 'MarkdownString', 'Position',
   'ProgressLocation', 'Range', 'RelativePattern', 'StatusBarAlignment', 'TabInputText', 'ThemeColor', 'ThemeIcon', 'TreeItem',
   'TreeItemCollapsibleState', 'Uri', 'ViewColumn', 'WorkspaceEdit', 'commands', 'env', 'extensions', 'l10n', 'languages', 'lm',
   'window', 'workspace',
  ].map((name) => [name, stub]),
);
const load = Module._load;
Module._load = function (request, ...rest) {
  return request === 'vscode' ? VSCODE : load.call(this, request, ...rest);
};
const memento = { get: () => undefined, update: () => Promise.resolve(), keys: () => [] };
const runs = [];
const dirs = [];
for (let i = 0; i < Number(runsArg); i++) {
  delete require.cache[require.resolve(file)];
  const dir = mkdtempSync(join(tmpdir(), 'id-activate-'));
  dirs.push(dir);
  const context = {
    subscriptions: [], globalState: memento, workspaceState: memento,
    secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined, onDidChange: () => ({ dispose() {} }) },
    extensionUri: stub, logUri: stub, globalStorageUri: { fsPath: dir }, asAbsolutePath: (p) => join(dir, p),
  };
  const cpu = process.cpuUsage();
  const start = performance.now();
  const ext = require(file);
  const loaded = performance.now();
  ext.activate(context);
  const end = performance.now();
  const used = process.cpuUsage(cpu);
  runs.push({ requireMs: loaded - start, activateMs: end - loaded, cpuMs: (used.user + used.system) / 1000 });
  for (const d of context.subscriptions) if (d && typeof d.dispose === 'function') d.dispose();
}
for (const d of dirs) rmSync(d, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ runs, loaded: Object.keys(require.cache) }));
// Timers a stand-in API cannot clear (health checks) would keep the process alive.
process.exit(0);
`;
