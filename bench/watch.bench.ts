/**
 * What watching the server costs a Quick Health Probe: the engine check (`/v1/models`, and for
 * vLLM `/version` and `/metrics` before and after) beside the same three prompts unwatched, on the
 * simulator as SGLang and as vLLM (child processes, healthy answers, unpaced). Wall time per
 * quick probe, median of interleaved runs. Goal: ≤ 25 ms added on loopback.
 */
import { startSimChild } from './lib/simChild';
import { runQuickProbe } from '../src/core/probe/quick';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(url: string, rounds: number): Promise<{ watchedMs: number; unwatchedMs: number }> {
  const watched: number[] = [];
  const unwatched: number[] = [];
  for (let i = 0; i < rounds; i++) {
    for (const watch of [true, false]) {
      const t0 = performance.now();
      const q = await runQuickProbe({ baseUrl: url }, { model: 'bench-model', maxTokens: 64, watch });
      if (q.summary.errors) throw new Error(q.summary.message);
      (watch ? watched : unwatched).push(performance.now() - t0);
    }
  }
  return { watchedMs: +median(watched).toFixed(1), unwatchedMs: +median(unwatched).toFixed(1) };
}

export async function run(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const engine of ['sglang', 'vllm'] as const) {
    const { url, child } = await startSimChild('test/fixtures/scenarios/fast.json', ['--engine', engine]);
    const deadline = setTimeout(() => child.kill('SIGKILL'), 120_000);
    try {
      await measure(url, 5); // warm-up: JIT, connection pool
      const m = await measure(url, 40);
      out[engine] = { ...m, addedMs: +(m.watchedMs - m.unwatchedMs).toFixed(1), goal: 'addedMs <= 25' };
    } finally {
      clearTimeout(deadline);
      child.kill('SIGTERM');
    }
  }
  return out;
}
