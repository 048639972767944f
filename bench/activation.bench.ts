/**
 * activate() cost. Two figures:
 * - in Node: require(dist/extension.js) + activate() against a stand-in vscode API, in a fresh
 *   plain Node process (no tsx hooks), beside the same harness loading an empty extension (the
 *   baseline): the first load (what a window pays) and the median of fresh loads after it;
 * - in code-server: what the extension itself recorded during the last e2e run
 *   (test-results/activation.json), when that file exists.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ACTIVATION_SCRIPT, type ActivationReport } from '../test/support/activation';

const root = resolve(__dirname, '..');

interface LoadTiming {
  medianMs: number;
  minMs: number;
  requireMedianMs: number;
  activateMedianMs: number;
  /** Process CPU time (user + system) of require + activate: the figure to read on a shared machine. */
  cpuMedianMs: number;
  /** The first load in the process, CPU time: what a window pays, before V8 has seen the bundle. */
  firstLoadCpuMs: number;
}

const round = (n: number) => Math.round(n * 1000) / 1000;
const median = (values: number[]) => round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]);

function timeLoad(file: string, runs: number): LoadTiming {
  const r = spawnSync(process.execPath, ['-e', ACTIVATION_SCRIPT, file, String(runs)], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`activation harness failed for ${file}: ${r.stderr.slice(-500)}`);
  const report = JSON.parse(r.stdout) as ActivationReport;
  const later = report.runs.slice(1);
  return {
    medianMs: median(later.map((x) => x.requireMs + x.activateMs)),
    minMs: round(Math.min(...later.map((x) => x.requireMs + x.activateMs))),
    requireMedianMs: median(later.map((x) => x.requireMs)),
    activateMedianMs: median(later.map((x) => x.activateMs)),
    cpuMedianMs: median(later.map((x) => x.cpuMs)),
    firstLoadCpuMs: round(report.runs[0].cpuMs),
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const bundle = join(root, 'dist/extension.js');
  if (!existsSync(bundle)) return { error: 'dist/extension.js missing: run node scripts/build.mjs' };
  const emptyDir = mkdtempSync(join(tmpdir(), 'id-bench-empty-'));
  const empty = join(emptyDir, 'empty-extension.js');
  writeFileSync(empty, 'exports.activate = function activate(context) { context.subscriptions.push({ dispose() {} }); };\n');
  const runs = 15;
  let extension: LoadTiming;
  let baseline: LoadTiming;
  try {
    extension = timeLoad(bundle, runs);
    baseline = timeLoad(empty, runs);
  } finally {
    rmSync(emptyDir, { recursive: true, force: true });
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
