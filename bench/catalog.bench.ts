/**
 * Flag catalog: build (tree-sitter parse + extraction) of an 11,000-line main-era server_args.py
 * beside CPython's ast.parse of the same file, incremental update after a one-line edit, and
 * re-open from the JSON cache. Plus the split layout (flags in srt/arg_groups/fields/*.py): the
 * whole package's catalog beside ast.parse of the same files, from a local copy of SGLang main at
 * /tmp/sglang-main (or SGLANG_MAIN_DIR) when there is one, else the test fixture package.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildCatalogWith,
  buildPackageCatalog,
  catalogFromJson,
  catalogToJson,
  disposeCatalog,
  loadPythonParser,
  resolveLocalPackage,
  updateCatalog,
  type FlagCatalog,
} from '../src/core/flags';

const FIXTURES = join(__dirname, '..', 'test', 'fixtures', 'server_args');
const TARGET_LINES = 11_000;

/** Grow the main-era fixture to ~11k lines by repeating its field block under fresh names. */
export function generateMainEra(): string {
  const src = readFileSync(join(FIXTURES, 'dataclass_main.py'), 'utf8');
  const start = src.indexOf('    # ---------------------------------------------------------------- model');
  const end = src.indexOf('\n    @staticmethod');
  const head = src.slice(0, start);
  const block = src.slice(start, end);
  const tail = src.slice(end);
  const parts = [head];
  let lines = head.split('\n').length + tail.split('\n').length;
  const blockLines = block.split('\n').length;
  for (let copy = 0; lines < TARGET_LINES; copy++) {
    const suffix = copy === 0 ? '' : `_r${copy}`;
    let b = block.replace(/^    ([a-z][a-z0-9_]*):/gm, `    $1${suffix}:`);
    if (copy) b = b.replace(/aliases=\[[^\]]*\]/g, 'aliases=[]').replace(/cli_name="--([a-z0-9-]+)"/g, `cli_name="--$1-r${copy}"`);
    parts.push(b);
    lines += blockLines;
  }
  parts.push(tail);
  return parts.join('');
}

const SPLIT_COPY = process.env.SGLANG_MAIN_DIR ?? '/tmp/sglang-main/python/sglang';

/**
 * The split layout: buildPackageCatalog over texts held in memory (no disk time on either side)
 * beside CPython's ast.parse of the same files (the files the catalog read), median of 7 each.
 */
async function splitLayout(): Promise<Record<string, unknown>> {
  const fromCopy = existsSync(join(SPLIT_COPY, 'srt', 'server_args.py'));
  const dir = fromCopy ? SPLIT_COPY : join(FIXTURES, 'split_layout', 'sglang');
  const pkg = await resolveLocalPackage(dir);
  if (!pkg) return { skipped: `no package at ${dir}` };
  const first = await buildPackageCatalog(pkg.serverArgs, pkg.readFile);
  const texts = new Map<string, string>();
  for (const f of first.package.files) texts.set(f, (await pkg.readFile(f)) ?? '');
  const readFile = (rel: string): Promise<string | undefined> => Promise.resolve(texts.get(rel));
  for (let i = 0; i < 3; i++) await buildPackageCatalog(pkg.serverArgs, readFile);
  const builds: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    await buildPackageCatalog(pkg.serverArgs, readFile);
    builds.push(performance.now() - t0);
  }
  const script = [
    'import ast, json, sys, time',
    'texts = [open(p, encoding="utf-8").read() for p in sys.argv[1:]]',
    'runs = []',
    'for _ in range(7):',
    '    t = time.perf_counter()',
    '    for s in texts: ast.parse(s)',
    '    runs.append((time.perf_counter() - t) * 1000)',
    'runs.sort()',
    'print(json.dumps({"median": runs[3], "best": runs[0]}))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', script, ...first.package.files.map((f) => join(pkg.root, f))], { encoding: 'utf8' });
  const ast = r.status === 0 ? (JSON.parse(r.stdout) as { median: number; best: number }) : undefined;
  const buildMs = median(builds);
  return {
    source: fromCopy ? SPLIT_COPY : 'test/fixtures/server_args/split_layout (no copy of SGLang main found)',
    files: first.package.files.length,
    chars: [...texts.values()].reduce((n, t) => n + t.length, 0),
    flags: first.entries.length,
    withChoices: first.entries.filter((e) => e.choices || e.choicesExpr).length,
    buildMs: Number(buildMs.toFixed(2)),
    cpythonAstParseMs: ast ? Number(ast.median.toFixed(2)) : null,
    buildVsAstParse: ast ? Number((buildMs / ast.median).toFixed(3)) : null,
    bestBuildMs: Number(Math.min(...builds).toFixed(2)),
    bestCpythonAstParseMs: ast ? Number(ast.best.toFixed(2)) : null,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function run(): Promise<Record<string, unknown>> {
  const source = generateMainEra();
  const parser = await loadPythonParser();
  // Warm-up (JIT, WASM tiering).
  for (let i = 0; i < 3; i++) buildCatalogWith(parser, source, { keepTree: false });
  const builds: number[] = [];
  let catalog: FlagCatalog | undefined;
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    const c = buildCatalogWith(parser, source, { keepTree: i === 6 });
    builds.push(performance.now() - t0);
    catalog = c;
  }
  const parseOnly: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    parser.parse(source)?.delete();
    parseOnly.push(performance.now() - t0);
  }

  // CPython ast.parse of the same text, timed inside Python.
  let astMs: number | undefined;
  let astBestMs: number | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'flags-bench-'));
  try {
    const file = join(dir, 'server_args.py');
    writeFileSync(file, source);
    const r = spawnSync('python3', [join(FIXTURES, 'dump_parser.py'), '--time-ast', file, '7'], { encoding: 'utf8' });
    if (r.status === 0) {
      const t = JSON.parse(r.stdout) as { ast_parse_ms: number; ast_parse_median_ms: number };
      astMs = t.ast_parse_median_ms;
      astBestMs = t.ast_parse_ms;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // Incremental: a one-line edit of a default, repeated at different places.
  const lines = source.split('\n');
  const rows = lines.map((l, i) => (/^    \] = "auto"$/.test(l) ? i : -1)).filter((i) => i >= 0);
  const updates: number[] = [];
  let current = catalog!;
  for (let k = 0; k < 40; k++) {
    const row = rows[(k * 7) % rows.length];
    const text = k % 2 ? '"auto"' : '"none"';
    const col = lines[row].indexOf('"');
    const t0 = performance.now();
    current = updateCatalog(current, { range: { start: { line: row, character: col }, end: { line: row, character: col + 6 } }, text });
    updates.push(performance.now() - t0);
    lines[row] = lines[row].slice(0, col) + text + lines[row].slice(col + 6);
  }
  const entries = current.entries.length;
  disposeCatalog(current);

  // Re-open from cache.
  const cacheText = JSON.stringify(catalogToJson(catalog!));
  const opens: number[] = [];
  const saves: number[] = [];
  for (let i = 0; i < 7; i++) {
    let t0 = performance.now();
    JSON.stringify(catalogToJson(catalog!));
    saves.push(performance.now() - t0);
    t0 = performance.now();
    catalogFromJson(JSON.parse(cacheText));
    opens.push(performance.now() - t0);
  }

  const buildMs = median(builds);
  return {
    file: { lines: source.split('\n').length, chars: source.length, flags: entries },
    buildMs: Number(buildMs.toFixed(2)),
    treeSitterParseOnlyMs: Number(median(parseOnly).toFixed(2)),
    extractionMs: Number((buildMs - median(parseOnly)).toFixed(2)),
    // Like for like: median against median (7 runs each), and best against best.
    cpythonAstParseMs: astMs === undefined ? null : Number(astMs.toFixed(2)),
    buildVsAstParse: astMs === undefined ? null : Number((buildMs / astMs).toFixed(3)),
    bestBuildMs: Number(Math.min(...builds).toFixed(2)),
    bestCpythonAstParseMs: astBestMs === undefined ? null : Number(astBestMs.toFixed(2)),
    bestBuildVsBestAstParse: astBestMs === undefined ? null : Number((Math.min(...builds) / astBestMs).toFixed(3)),
    treeSitterParseOnlyVsAstParse: astMs === undefined ? null : Number((median(parseOnly) / astMs).toFixed(3)),
    goalBuildVsAstParse: 0.5,
    incrementalUpdateMs: { median: Number(median(updates).toFixed(2)), max: Number(Math.max(...updates).toFixed(2)), goal: 5 },
    cache: { bytes: cacheText.length, saveMs: Number(median(saves).toFixed(2)), openMs: Number(median(opens).toFixed(2)) },
    splitLayout: await splitLayout(),
  };
}
