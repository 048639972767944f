/**
 * Evidence from a server log: a generated 50 MB SGLang log (start-up, then request traffic with
 * NaN detections, dropped-scale warnings and CUDA errors at known rates; test/unit/diagnose-loggen)
 * read through fromSglangLog over node:readline, beside the baseline of a plain readline line count
 * of the same file in the same run. Each side reports the median of three runs, MB/s, and the peak
 * heap above the heap before it started (sampled every 5 000 lines, after a GC when --expose-gc).
 * Goal: bounded memory (the reader keeps counts and first occurrences, never the text) at a
 * small multiple of the bare line count.
 */
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fromSglangLog } from '../src/core/diagnose';
import { gatherEvidence } from '../src/core/diagnose/gather';
import { lineStream } from '../src/core/diagnose/lines';
import { bundledDiagnosisRules, diagnose } from '../src/core/diagnose/rules';
import { writeSglangLog } from '../test/unit/diagnose-loggen';

const MB = 1024 * 1024;
const RUNS = 3;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

interface Side {
  ms: number;
  peakHeapGrowthMiB: number;
  lines: number;
}

async function measure(path: string, consume: (lines: AsyncIterable<string>) => Promise<unknown>): Promise<Side> {
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  let lines = 0;
  const rl = createInterface({ input: createReadStream(path, { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
  async function* sampled(): AsyncGenerator<string> {
    for await (const l of rl) {
      if (++lines % 5000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
      yield l;
    }
  }
  const t0 = performance.now();
  await consume(sampled());
  const ms = performance.now() - t0;
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return { ms, peakHeapGrowthMiB: Math.round(((peak - base) / MB) * 10) / 10, lines };
}

export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'id-bench-diagnose-'));
  try {
    const path = join(dir, 'server.log');
    const gen = writeSglangLog(path, 50 * MB);
    const baseline: Side[] = [];
    const ours: Side[] = [];
    let nan = -1;
    for (let i = 0; i < RUNS; i++) {
      baseline.push(
        await measure(path, async (lines) => {
          let n = 0;
          for await (const line of lines) n += line === undefined ? 0 : 1;
          return n;
        }),
      );
      ours.push(
        await measure(path, async (lines) => {
          const ev = await fromSglangLog(lines);
          nan = ev.signatures['nan-detected']?.count ?? 0;
        }),
      );
    }
    const summary = (sides: Side[]) => {
      const ms = median(sides.map((s) => s.ms));
      return {
        ms: Math.round(ms),
        mbPerSecond: Math.round((gen.bytes / MB / (ms / 1000)) * 10) / 10,
        peakHeapGrowthMiB: Math.max(...sides.map((s) => s.peakHeapGrowthMiB)),
        lines: sides[0].lines,
      };
    };
    const b = summary(baseline);
    const o = summary(ours);
    // The figure: `diagnose` on a launch file and this log, end to end (goal <= 1 s).
    const launch = join(dir, 'serve.sh');
    writeFileSync(
      launch,
      '#!/bin/sh\n# 8x B200\npython -m sglang.launch_server --model-path /models/DeepSeek-R1-0528-NVFP4 --quantization modelopt_fp4 --tp 8 --kv-cache-dtype fp8_e4m3 --attention-backend trtllm_mla --moe-runner-backend flashinfer_trtllm\n',
    );
    const { rules } = bundledDiagnosisRules();
    const inProcess: number[] = [];
    let findings = 0;
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const { evidence } = await gatherEvidence({
        launch: [{ text: 'python -m sglang.launch_server --model-path /models/DeepSeek-R1-0528-NVFP4 --tp 8', fileName: launch }],
        logs: [{ lines: lineStream(createReadStream(path, { highWaterMark: 1 << 20 })), label: 'server.log', engine: 'sglang' }],
        spec: { gpu: 'B200' },
      });
      findings = diagnose(evidence, { rules }).findings.length;
      inProcess.push(performance.now() - t0);
    }
    const cli = join(__dirname, '..', 'dist', 'cli.js');
    const cliRuns: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, [cli, 'diagnose', '--launch', launch, '--log', path, '--gpu', 'b200', '--json'], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      cliRuns.push(performance.now() - t0);
      if (r.status !== 0 && r.status !== 1) throw new Error(`diagnose exited ${String(r.status)}: ${r.stderr}`);
    }
    return {
      subject: 'fromSglangLog over node:readline, generated SGLang log',
      logMiB: Math.round((gen.bytes / MB) * 10) / 10,
      logLines: gen.lines,
      baseline: { what: 'plain readline line count of the same file', ...b },
      fromSglangLog: { ...o, nanDetectedCounted: nan, nanDetectedWritten: gen.nan },
      slowdownVsLineCount: Math.round((o.ms / b.ms) * 100) / 100,
      diagnose: {
        what: 'launch file + this log: gatherEvidence (log streamed) and the rules, in process; and the CLI end to end',
        rules: rules.length,
        findings,
        inProcessMs: Math.round(median(inProcess)),
        cliMs: Math.round(median(cliRuns)),
        goalMs: 1000,
      },
      runs: RUNS,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
