/**
 * The bundled catalog of SGLang releases: its load time in the language server's code (read,
 * parse, index one release; beside JSON.parse of the same text alone), and the first hover after
 * opening a launch file in a workspace with no server_args.py, over stdio (beside a warm hover and
 * a no-op request of the same server).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundledCatalogPath, parseBundledCatalog } from '../src/core/flags/bundled/load';
import { CatalogIndex } from '../src/lsp/catalogIndex';
import { StdioLspClient } from '../src/lsp/stdioClient';

const ROOT = join(__dirname, '..');
const median = (xs: number[]): number => Number([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(2));

export async function run(): Promise<Record<string, unknown>> {
  const path = bundledCatalogPath();
  if (!path) throw new Error('data/sglang-catalog.json is missing');
  const load: number[] = [];
  const parseOnly: number[] = [];
  let releases = 0;
  for (let i = 0; i < 30; i++) {
    let t = performance.now();
    const b = parseBundledCatalog(readFileSync(path, 'utf8'));
    const newest = b.newest();
    new CatalogIndex(b.catalogFor(newest.index), { kind: 'bundled', label: 'bench', version: newest.release.version });
    load.push(performance.now() - t);
    releases = b.releases.length;
    t = performance.now();
    JSON.parse(readFileSync(path, 'utf8'));
    parseOnly.push(performance.now() - t);
  }

  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--only', 'server'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`server build failed: ${build.stderr}`);
  const ws = mkdtempSync(join(tmpdir(), 'id-bundled-bench-'));
  const c = new StdioLspClient({ serverPath: join(ROOT, 'dist', 'server.js') });
  try {
    await c.initialize(ws);
    const started = performance.now();
    for (let i = 0; i < 600; i++) {
      const s = await c.request<{ active: { kind: string } | null }>('inferenceDoctor/catalogStatus', null, 60_000);
      if (s.active?.kind === 'bundled') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const readyMs = performance.now() - started;
    const text = 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend flashinfer --moe-runner-backend auto --tp-size 2\n';
    const file = join(ws, 'launch.sh');
    writeFileSync(file, text);
    const uri = pathToFileURL(file).toString();
    const position = { line: 0, character: text.indexOf('--attention-backend') + 3 };
    let t = performance.now();
    await c.open(uri, 'shellscript', text, 1);
    await c.request('textDocument/hover', { textDocument: { uri }, position });
    const firstHoverMs = performance.now() - t;
    const warm: number[] = [];
    const noop: number[] = [];
    for (let i = 0; i < 50; i++) {
      t = performance.now();
      await c.request('textDocument/hover', { textDocument: { uri }, position });
      warm.push(performance.now() - t);
      t = performance.now();
      await c.request('inferenceDoctor/catalogStatus', null);
      noop.push(performance.now() - t);
    }
    return {
      file: { bytes: statSync(path).size, releases },
      loadMs: { median: median(load), baselineJsonParseOnlyMs: median(parseOnly), goalMs: 30 },
      firstHoverNoWorkspaceCatalogMs: {
        first: Number(firstHoverMs.toFixed(2)),
        baselineWarmHoverMs: median(warm),
        baselineNoopRequestMs: median(noop),
        serverReadyWithBundledMs: Number(readyMs.toFixed(2)),
        goalMs: 50,
      },
    };
  } finally {
    await c.close();
    rmSync(ws, { recursive: true, force: true });
  }
}
