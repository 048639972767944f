/**
 * Instructions per character of each detector scanner, the whole detector and the bench's regex
 * pass, counted by valgrind's callgrind: repeatable to a few percent on a shared machine, where
 * CPU time is not. Steady state only: the count of 2 passes over the text is subtracted from that
 * of 6, so start-up, parsing and JIT warm-up cancel out.
 *
 *   npx tsx bench/detector-instructions.ts [chars=300000] [channel lex words det regex]
 *
 * Needs valgrind. Bundles this file with esbuild (the same transform tsx applies) and runs the
 * bundle under `node --single-threaded` with fixed hash and random seeds, so that compilation and
 * hashing happen the same way each run (without the seeds counts moved by 10% from run to run).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDetector } from '../src/core/detect';
import { healthyText, scanAlone } from './lib/detectorParts';

const PARTS = ['channel', 'lex', 'words', 'det', 'regex'] as const;
type Part = (typeof PARTS)[number];

/** In the bundle: `passes` passes of one part over the text file. */
function worker(part: Part, file: string, passes: number): void {
  const text = readFileSync(file, 'utf8');
  for (let r = 0; r < passes; r++) {
    if (part === 'det') {
      const d = createDetector();
      for (let i = 0; i < text.length; i += 65536) d.push({ text: text.slice(i, i + 65536) });
      d.finish({ finishReason: 'stop' });
    } else if (part === 'regex') {
      void text.match(/(.)\1{31,}/g);
    } else {
      scanAlone(part, text);
    }
  }
}

function instructions(bundle: string, part: Part, file: string, passes: number, dir: string): number {
  const out = join(dir, `cg.${part}.${passes}.out`);
  const r = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${out}`,
      process.execPath,
      '--single-threaded',
      '--hash-seed=1',
      '--random-seed=1',
      bundle,
      '--worker',
      part,
      file,
      String(passes),
    ],
    { encoding: 'utf8' },
  );
  const m = /Collected : ([\d,]+)/.exec(r.stderr);
  if (!m) throw new Error(`callgrind gave no count for ${part}: ${r.stderr.slice(-500)}`);
  return Number(m[1].replace(/,/g, ''));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--worker') {
    worker(args[1] as Part, args[2], Number(args[3]));
    return;
  }
  const chars = Number(args.find((a) => /^\d+$/.test(a)) ?? 300_000);
  const parts = args.filter((a): a is Part => (PARTS as readonly string[]).includes(a));
  const dir = mkdtempSync(join(tmpdir(), 'detector-instructions-'));
  try {
    const file = join(dir, 'text.txt');
    writeFileSync(file, healthyText(chars));
    const bundle = join(dir, 'bundle.js');
    // Loaded here, not at the top: the bundle itself leaves esbuild out.
    const esbuild = await import('esbuild');
    esbuild.buildSync({
      entryPoints: [__filename],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: bundle,
      external: ['esbuild'],
      logLevel: 'warning',
    });
    const result: Record<string, number> = {};
    for (const part of parts.length ? parts : PARTS) {
      const two = instructions(bundle, part, file, 2, dir);
      const six = instructions(bundle, part, file, 6, dir);
      result[part] = Math.round((six - two) / (4 * chars));
    }
    console.log(JSON.stringify({ chars, instructionsPerChar: result }, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
