/**
 * activate() cost. Two figures:
 * - in Node: require(dist/extension.js) + activate() against a generic stub of the vscode API,
 *   beside the same harness loading an empty extension (the baseline), median of fresh loads;
 * - in code-server: what the extension itself recorded during the last e2e run
 *   (test-results/activation.json), when that file exists.
 */
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..');

/** A vscode stand-in where every member is callable, constructible and disposable. */
function stubVscode(): unknown {
  const handler: ProxyHandler<() => void> = {
    get: (_target, key) => {
      if (key === 'then') return undefined; // not a thenable
      if (key === Symbol.toPrimitive) return () => 0;
      if (key === 'dispose') return () => undefined;
      return proxy;
    },
    apply: () => proxy,
    construct: () => proxy as object,
  };
  const proxy: unknown = new Proxy(function stub() {
    /* callable */
  }, handler);
  // Bundlers copy a CommonJS module's own keys into the namespace object, so name the API.
  const names = [
    'window',
    'commands',
    'workspace',
    'languages',
    'env',
    'extensions',
    'Uri',
    'EventEmitter',
    'Disposable',
    'TreeItem',
    'TreeItemCollapsibleState',
    'ThemeIcon',
    'ThemeColor',
    'MarkdownString',
    'ProgressLocation',
    'ViewColumn',
    'CodeLens',
    'Range',
    'Position',
    'Location',
    'RelativePattern',
    'FileType',
    'FileSystemError',
    'StatusBarAlignment',
    'CancellationTokenSource',
    'DiagnosticSeverity',
    'l10n',
  ];
  return Object.fromEntries(names.map((name) => [name, proxy]));
}

/** Temp dirs the bench made; removed when it ends. */
const made: string[] = [];

function fakeContext(): unknown {
  const dir = mkdtempSync(join(tmpdir(), 'id-bench-act-'));
  made.push(dir);
  const memento = { get: () => undefined, update: () => Promise.resolve(), keys: () => [] };
  return {
    subscriptions: [] as unknown[],
    globalState: memento,
    workspaceState: memento,
    secrets: { get: () => Promise.resolve(undefined), store: () => Promise.resolve(), delete: () => Promise.resolve(), onDidChange: () => ({ dispose() {} }) },
    extensionUri: stubVscode(),
    globalStorageUri: { fsPath: dir },
    logUri: stubVscode(),
    asAbsolutePath: (p: string) => join(root, p),
  };
}

interface LoadTiming {
  medianMs: number;
  minMs: number;
  requireMedianMs: number;
  activateMedianMs: number;
}

function timeLoad(file: string, runs: number): LoadTiming {
  const req = Module.createRequire(__filename);
  const vscodeStub = stubVscode();
  const originalLoad = (Module as unknown as { _load: (...args: unknown[]) => unknown })._load;
  (Module as unknown as { _load: (...args: unknown[]) => unknown })._load = function (request: unknown, ...rest: unknown[]) {
    if (request === 'vscode') return vscodeStub;
    return originalLoad.call(this, request, ...rest);
  };
  const times: number[] = [];
  const requires: number[] = [];
  const activates: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      delete req.cache[req.resolve(file)];
      const context = fakeContext();
      const start = performance.now();
      const mod = req(file) as { activate(context: unknown): unknown; deactivate?(): unknown };
      const loaded = performance.now();
      mod.activate(context);
      const end = performance.now();
      times.push(end - start);
      requires.push(loaded - start);
      activates.push(end - loaded);
      // Untimed: shut the run down as VS Code would, so no timer of it keeps the process alive.
      void mod.deactivate?.();
      for (const d of (context as { subscriptions: { dispose?(): unknown }[] }).subscriptions) d.dispose?.();
    }
  } finally {
    (Module as unknown as { _load: unknown })._load = originalLoad;
  }
  const median = (values: number[]) => round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]);
  return { medianMs: median(times), minMs: round(Math.min(...times)), requireMedianMs: median(requires), activateMedianMs: median(activates) };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export async function run(): Promise<Record<string, unknown>> {
  const bundle = join(root, 'dist/extension.js');
  if (!existsSync(bundle)) return { error: 'dist/extension.js missing: run node scripts/build.mjs' };
  const emptyDir = mkdtempSync(join(tmpdir(), 'id-bench-empty-'));
  made.push(emptyDir);
  const empty = join(emptyDir, 'empty-extension.js');
  writeFileSync(empty, 'exports.activate = function activate(context) { context.subscriptions.push({ dispose() {} }); };\n');
  const runs = 15;
  let extension: LoadTiming;
  let baseline: LoadTiming;
  try {
    extension = timeLoad(bundle, runs);
    baseline = timeLoad(empty, runs);
  } finally {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
  }
  const report: Record<string, unknown> = {
    node: { runs, extensionRequireAndActivate: extension, baselineEmptyExtension: baseline, bundleBytes: statSync(bundle).size },
    goalMs: 20,
  };
  const measured = join(root, 'test-results/activation.json');
  if (existsSync(measured)) {
    report.codeServer = { ...(JSON.parse(readFileSync(measured, 'utf8')) as object), source: 'test-results/activation.json (last e2e run)' };
  } else {
    report.codeServer = 'not measured: run `npm test -- e2e` first (the extension records its own activate() time there)';
  }
  await Promise.resolve();
  return report;
}
