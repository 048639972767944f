/**
 * A manual check of the built-in fatbin reader against cuobjdump on a machine with real CUDA
 * libraries (the lent GPU machine; never CI). For every shared object under the given folders it
 * reads the targets with the header-only reader (cuobjdump off) and with `cuobjdump --list-elf
 * --list-ptx`, and prints one JSON summary: which files agree, which differ and how, bytes read.
 *
 *   node check-real-cuda.js DIR [DIR …] > summary.json
 *
 * Bundled with esbuild (`npx esbuild scripts/check-real-cuda.ts --bundle --platform=node
 * --outfile=…`) so it runs with a bare `node` and no node_modules.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LocalHost } from '../src/core/hosts/local';
import { mergeCuobjdumpTargets, parseCuobjdumpList, readLibraryTargets, type CudaTarget } from '../src/core/gpu/fatbin';

const MAX_FILES = 400;

function sharedObjects(dir: string, out: string[]): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (out.length >= MAX_FILES) return;
    const path = join(dir, name);
    let st;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    if (st.isDirectory()) sharedObjects(path, out);
    else if (/\.so(\.\d+)*$/.test(name) && st.size > 0) out.push(path);
  }
}

const names = (ts: CudaTarget[]): string[] => ts.map((t) => t.name).sort();

interface Row {
  path: string;
  mb: number;
  reader: string[];
  cuobjdump: string[] | null;
  /** What cuobjdump listed that the reader did not see (after the sm_XXf naming is allowed for). */
  missedByReader: string[];
  /** What the reader saw that cuobjdump did not list. */
  extraInReader: string[];
  complete: boolean;
  readerMs: number;
  cuobjdumpMs: number;
  issues: string[];
  error?: string;
}

async function main(): Promise<void> {
  const files: string[] = [];
  for (const dir of process.argv.slice(2)) sharedObjects(dir, files);
  const host = new LocalHost();
  const rows: Row[] = [];
  for (const path of files) {
    const t0 = performance.now();
    const lib = await readLibraryTargets(host, path, { cuobjdump: 'never' });
    const readerMs = performance.now() - t0;
    const t1 = performance.now();
    const res = spawnSync('cuobjdump', ['--list-elf', '--list-ptx', path], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
    const cuobjdumpMs = performance.now() - t1;
    const parsed = res.error ? null : parseCuobjdumpList(`${res.stdout}\n${res.stderr}`);
    const tool = parsed ? parsed.targets : null;
    const missed = tool ? mergeCuobjdumpTargets(lib.targets, tool).added : [];
    const extra = tool
      ? lib.targets.filter(
          (r) => !tool.some((t) => t.kind === r.kind && t.arch === r.arch && (t.variant === r.variant || (t.variant === '' && r.variant === 'f'))),
        )
      : [];
    rows.push({
      path,
      mb: Number(((lib.size ?? 0) / 1e6).toFixed(1)),
      reader: names(lib.targets),
      cuobjdump: tool ? names(tool) : null,
      missedByReader: names(missed),
      extraInReader: names(extra),
      complete: lib.complete,
      readerMs: Number(readerMs.toFixed(1)),
      cuobjdumpMs: Number(cuobjdumpMs.toFixed(1)),
      issues: lib.issues,
      ...(lib.error ? { error: lib.error } : {}),
    });
  }
  const withCode = rows.filter((r) => (r.cuobjdump?.length ?? 0) > 0 || r.reader.length > 0);
  // Only files cuobjdump could list are compared: without it there is nothing to agree with.
  const compared = withCode.filter((r) => r.cuobjdump !== null);
  const disagree = compared.filter((r) => r.missedByReader.length > 0 || r.extraInReader.length > 0);
  const sum = (f: (r: Row) => number, rs: Row[]): number => Number(rs.reduce((a, r) => a + f(r), 0).toFixed(0));
  process.stdout.write(
    `${JSON.stringify(
      {
        files: rows.length,
        withDeviceCode: withCode.length,
        compared: compared.length,
        agree: compared.length - disagree.length,
        disagree: disagree.length,
        incomplete: withCode.filter((r) => !r.complete).map((r) => r.path),
        readerMsTotal: sum((r) => r.readerMs, withCode),
        cuobjdumpMsTotal: sum((r) => r.cuobjdumpMs, withCode),
        disagreements: disagree,
        rows: withCode.map((r) => ({ path: r.path, mb: r.mb, targets: r.reader, readerMs: r.readerMs, cuobjdumpMs: r.cuobjdumpMs })),
      },
      null,
      1,
    )}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(3);
});
