/**
 * Probe runner overhead: CPU and wall time of runProbe streaming from the simulator, beside raw
 * fetch reading the same SSE bytes (body consumed, nothing parsed), at 1 and 64 concurrent
 * streams. The simulator runs in a child process so its CPU time is not counted.
 * Goal: runProbe CPU ≤ 1.1 × raw fetch CPU.
 */
import { startSimChild } from './lib/simChild';
import { buildRequestBody, runProbe } from '../src/core/probe/runner';
import type { ProbeParams } from '../src/core/probe/types';

const startSim = (): ReturnType<typeof startSimChild> => startSimChild('test/fixtures/scenarios/fast.json');

interface Sample {
  cpuMs: number;
  wallMs: number;
  streams: number;
  bytes: number;
}

async function measure(concurrency: number, rounds: number, one: () => Promise<number>): Promise<Sample> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let bytes = 0;
  for (let r = 0; r < rounds; r++) {
    const sizes = await Promise.all(Array.from({ length: concurrency }, one));
    bytes += sizes.reduce((a, b) => a + b, 0);
  }
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - t0, streams: concurrency * rounds, bytes };
}

export async function run(): Promise<Record<string, unknown>> {
  const { url, child } = await startSim();
  const deadline = setTimeout(() => child.kill('SIGKILL'), 180_000);
  try {
    const params: ProbeParams = { endpoint: 'chat', model: 'bench-model', prompt: 'Explain what a KV cache is.', stream: true, maxTokens: 512, temperature: 0 };
    const body = JSON.stringify(buildRequestBody(params));
    const raw = async (): Promise<number> => {
      const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const reader = res.body!.getReader();
      let n = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        n += value.byteLength;
      }
      return n;
    };
    const probe = async (): Promise<number> => {
      const r = await runProbe({ baseUrl: url }, params);
      if (r.status !== 'completed') throw new Error(`probe ${r.status}: ${r.error?.message ?? ''}`);
      return r.totalChars;
    };
    // Warm up both paths (JIT, connection pool).
    await measure(8, 3, raw);
    await measure(8, 3, probe);

    const out: Record<string, unknown> = {};
    for (const [label, concurrency, rounds] of [
      ['c1', 1, 60],
      ['c64', 64, 4],
    ] as const) {
      // Interleave and repeat to even out noise from other load on the machine.
      const rawSamples: Sample[] = [];
      const probeSamples: Sample[] = [];
      for (let rep = 0; rep < 3; rep++) {
        rawSamples.push(await measure(concurrency, rounds, raw));
        probeSamples.push(await measure(concurrency, rounds, probe));
      }
      const best = (s: Sample[]): Sample => s.reduce((a, b) => (b.cpuMs < a.cpuMs ? b : a));
      const r = best(rawSamples);
      const p = best(probeSamples);
      out[label] = {
        concurrency,
        streams: p.streams,
        rawFetch: { cpuMs: +r.cpuMs.toFixed(1), wallMs: +r.wallMs.toFixed(1), cpuMsPerStream: +(r.cpuMs / r.streams).toFixed(3), bytes: r.bytes },
        runProbe: { cpuMs: +p.cpuMs.toFixed(1), wallMs: +p.wallMs.toFixed(1), cpuMsPerStream: +(p.cpuMs / p.streams).toFixed(3), contentChars: p.bytes },
        cpuRatio: +(p.cpuMs / r.cpuMs).toFixed(3),
        wallRatio: +(p.wallMs / r.wallMs).toFixed(3),
        goal: 'cpuRatio <= 1.1',
      };
    }
    return out;
  } finally {
    clearTimeout(deadline);
    child.kill('SIGTERM');
  }
}
