/**
 * Language server: hover/completion latency over stdio (beside a no-op request round trip) and in
 * process (beside a bare launch-command scan), diagnostics of a generated 500-flag launch file,
 * incremental catalog update after a one-line edit of an 11,000-line main-era server_args.py
 * (beside a full rebuild), and the server's heap with 3 catalogs loaded (beside an idle server).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildCatalog, buildCatalogWith, catalogToJson, disposeCatalog, loadPythonParser, updateCatalog, type FlagCatalog } from '../src/core/flags';
import { findLaunchCommands } from '../src/core/launch';
import { builtinRules } from '../src/core/rules';
import { analyzeText } from '../src/lsp/analysis';
import { CatalogIndex } from '../src/lsp/catalogIndex';
import { complete, hover } from '../src/lsp/features';
import { StdioLspClient } from '../src/lsp/stdioClient';
import { generateMainEra } from './catalog.bench';

const ROOT = join(__dirname, '..');
const ARGS = join(ROOT, 'test', 'fixtures', 'server_args');

function stats(xs: number[]): { p50: number; p99: number; n: number } {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number): number => Number(s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(3));
  return { p50: q(0.5), p99: q(0.99), n: s.length };
}

/** A shell script with one launch command of `n` flags drawn from the catalog (values from choices). */
function generateLaunch(catalog: FlagCatalog, n: number): string {
  const parts = ['python3 -m sglang.launch_server --model-path nvidia/Qwen3.5-397B-A17B-NVFP4'];
  const pool = catalog.entries.filter((e) => !e.deprecated);
  for (let i = 0; i < n; i++) {
    const e = pool[(i * 7) % pool.length];
    const zero = e.nargs === 0 || (e.action ?? '').startsWith('store_') || e.action === 'BooleanOptionalAction';
    const v = zero ? '' : e.choices?.length ? ` ${String(e.choices[i % e.choices.length])}` : ' 1';
    // every 50th flag misspelled, to exercise did-you-mean
    parts.push(`  ${i % 50 === 49 ? `${e.flag}x` : e.flag}${v}`);
  }
  return `#!/bin/sh\n${parts.join(' \\\n')}\n`;
}

export async function run(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const mainSrc = readFileSync(join(ARGS, 'dataclass_main.py'), 'utf8');
  const mainCatalog = await buildCatalog(mainSrc, { keepTree: false, timeoutMs: 60_000 });
  const index = new CatalogIndex(mainCatalog, { kind: 'workspace', label: 'server_args.py' });
  const rules = builtinRules().rules;
  // 500 distinct flags need a bigger catalog than the fixture's ~200: the generated 11k-line one
  const bigCatalog = await buildCatalog(generateMainEra(), { keepTree: false, timeoutMs: 60_000 });
  const bigIndex = new CatalogIndex(bigCatalog, { kind: 'workspace', label: 'server_args.py (generated)' });
  const launch500 = generateLaunch(bigCatalog, 500);

  // ---------------------------------------------------------------- in process
  {
    const service = readFileSync(join(ROOT, 'test', 'fixtures', 'launch', 'sglang.service'), 'utf8');
    const analysis = analyzeText(service, 'systemd', index, { rules });
    const pos = { line: 12, character: 10 };
    const h: number[] = [];
    const c: number[] = [];
    const scan: number[] = [];
    const offset = service.split('\n').slice(0, 12).join('\n').length + 1 + 8;
    for (let i = 0; i < 2000; i++) {
      let t = performance.now();
      hover(analysis, pos, index);
      h.push(performance.now() - t);
      t = performance.now();
      complete(analysis, service, offset, { line: 12, character: 8 }, index);
      c.push(performance.now() - t);
      t = performance.now();
      findLaunchCommands(service, 'systemd');
      scan.push(performance.now() - t);
    }
    const diag: number[] = [];
    const scan500: number[] = [];
    let count = 0;
    for (let i = 0; i < 30; i++) {
      let t = performance.now();
      count = analyzeText(launch500, 'shellscript', bigIndex, { rules }).diagnostics.length;
      diag.push(performance.now() - t);
      t = performance.now();
      findLaunchCommands(launch500, 'shellscript');
      scan500.push(performance.now() - t);
    }
    out.inProcess = {
      hoverMs: stats(h),
      completionMs: stats(c),
      baselineLaunchScanMs: stats(scan),
      diagnostics500Flags: { ms: stats(diag), diagnostics: count, baselineLaunchScanOnlyMs: stats(scan500), goalMs: 20 },
    };
  }

  // ---------------------------------------------------------------- incremental catalog update
  {
    const source = generateMainEra();
    const parser = await loadPythonParser();
    buildCatalogWith(parser, source, { keepTree: false, timeoutMs: 60_000 });
    const full: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      buildCatalogWith(parser, source, { keepTree: false, timeoutMs: 60_000 });
      full.push(performance.now() - t);
    }
    let current = buildCatalogWith(parser, source, { timeoutMs: 60_000 });
    const lines = source.split('\n');
    const rows = lines.map((l, i) => (/^    \] = "auto"$/.test(l) ? i : -1)).filter((i) => i >= 0);
    const inc: number[] = [];
    for (let k = 0; k < 60; k++) {
      const row = rows[(k * 7) % rows.length];
      const col = lines[row].indexOf('"');
      const text = k % 2 ? '"auto"' : '"none"';
      const t = performance.now();
      current = updateCatalog(current, { range: { start: { line: row, character: col }, end: { line: row, character: col + 6 } }, text });
      inc.push(performance.now() - t);
    }
    const flags = current.entries.length;
    disposeCatalog(current);
    out.incrementalCatalog = {
      file: { lines: lines.length, flags },
      oneLineEditMs: { ...stats(inc), goal: 5 },
      baselineFullRebuildMs: stats(full),
    };
  }

  // ---------------------------------------------------------------- over stdio
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--only', 'server'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`server build failed: ${build.stderr}`);
  const ws = mkdtempSync(join(tmpdir(), 'id-lsp-bench-'));
  const clients: StdioLspClient[] = [];
  const extraDirs: string[] = [];
  try {
    mkdirSync(join(ws, 'sglang', 'srt'), { recursive: true });
    writeFileSync(join(ws, 'sglang', 'srt', 'server_args.py'), generateMainEra());
    writeFileSync(join(ws, 'launch.sh'), launch500);
    const serverPath = join(ROOT, 'dist', 'server.js');
    const waitActive = async (c: StdioLspClient, kind: string): Promise<void> => {
      for (let i = 0; i < 600; i++) {
        const s = await c.request<{ active: { kind: string } | null }>('inferenceDoctor/catalogStatus', null, 60_000);
        if (s.active?.kind === kind) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no ${kind} catalog`);
    };
    const c = new StdioLspClient({ serverPath, nodeArgs: ['--expose-gc'] });
    clients.push(c);
    await c.initialize(ws);
    await waitActive(c, 'workspace');
    const uri = pathToFileURL(join(ws, 'launch.sh')).toString();
    const t0 = performance.now();
    const d = c.diagnostics(uri, () => true, 60_000);
    await c.open(uri, 'shellscript', launch500);
    await d;
    const firstDiagnosticsMs = performance.now() - t0;
    const h: number[] = [];
    const comp: number[] = [];
    const noop: number[] = [];
    const textLines = launch500.split('\n');
    for (let i = 0; i < 500; i++) {
      const line = 2 + (i % 400);
      let t = performance.now();
      await c.request('textDocument/hover', { textDocument: { uri }, position: { line, character: 4 } });
      h.push(performance.now() - t);
      t = performance.now();
      await c.request('textDocument/completion', { textDocument: { uri }, position: { line, character: Math.min(4, textLines[line].length) } });
      comp.push(performance.now() - t);
      t = performance.now();
      await c.request('inferenceDoctor/catalogStatus', null);
      noop.push(performance.now() - t);
    }
    out.stdio = {
      hoverMs: stats(h),
      completionMs: stats(comp),
      baselineNoopRequestMs: stats(noop),
      goalP99Ms: 5,
      firstDiagnostics500FlagsMs: Number(firstDiagnosticsMs.toFixed(2)),
    };

    // heap: idle server vs one with workspace + settings + runtime catalogs
    const heapOf = async (cl: StdioLspClient): Promise<number> => {
      // resident set of the server process (V8 heap + tree-sitter WASM memory)
      await new Promise((r) => setTimeout(r, 200));
      const r = spawnSync('ps', ['-o', 'rss=', '-p', String(cl.child.pid)], { encoding: 'utf8' });
      return Number(r.stdout.trim()) / 1024;
    };
    const idle = new StdioLspClient({ serverPath });
    clients.push(idle);
    const idleWs = mkdtempSync(join(tmpdir(), 'id-lsp-idle-'));
    extraDirs.push(idleWs);
    await idle.initialize(idleWs);
    await idle.request('inferenceDoctor/catalogStatus', null, 60_000);
    const three = new StdioLspClient({ serverPath, configuration: { 'inferenceDoctor.flags': { serverArgsPath: join(ARGS, 'inline_v04.py') } } });
    clients.push(three);
    await three.initialize(ws);
    await waitActive(three, 'workspace');
    const runtime = catalogToJson(await buildCatalog(readFileSync(join(ARGS, 'choices_lists_2025.py'), 'utf8'), { keepTree: false, timeoutMs: 60_000 }));
    await three.conn.sendNotification('inferenceDoctor/setRuntimeCatalog', { catalog: runtime, hostLabel: 'bench', computeCapability: 12 });
    let sources = 0;
    for (let i = 0; i < 200 && sources < 3; i++) {
      const s = await three.request<{ sources: unknown[] }>('inferenceDoctor/catalogStatus', null, 60_000);
      sources = s.sources.length;
      if (sources < 3) await new Promise((r) => setTimeout(r, 50));
    }
    out.memory = {
      rssMbThreeCatalogs: Number((await heapOf(three)).toFixed(1)),
      baselineRssMbIdleServer: Number((await heapOf(idle)).toFixed(1)),
      catalogsLoaded: sources,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    for (const d of [ws, ...extraDirs]) rmSync(d, { recursive: true, force: true });
  }
  return out;
}
