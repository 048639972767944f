/**
 * Reference check overhead: `runCompare` over 50 prompts with top-20 logprobs against two
 * simulators with no latency (child processes, so their CPU is not counted here), beside the
 * servers' own time: the same 100 requests sent with plain fetch at the same concurrency, bodies
 * read and nothing parsed. Wall and CPU time of this process, best of five interleaved runs.
 * Goal: compare wall time ≤ 1.2 × the plain requests'.
 */
import { startSimChild } from './lib/simChild';
import { promptSet } from '../src/core/compare/prompts';
import { greedyBody } from '../src/core/compare/request';
import { COMPARE_DEFAULTS, runCompare } from '../src/core/compare/run';

const PROMPTS = 50;
const TOP = 20;

const startSim = (): ReturnType<typeof startSimChild> => startSimChild('test/fixtures/scenarios/drift.json');

interface Sample {
  cpuMs: number;
  wallMs: number;
  bytes: number;
}

async function measure(one: () => Promise<number>): Promise<Sample> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const bytes = await one();
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - t0, bytes };
}

export async function run(): Promise<Record<string, unknown>> {
  const sims = await Promise.all([startSim(), startSim()]);
  const deadline = setTimeout(() => sims.forEach((s) => s.child.kill('SIGKILL')), 240_000);
  try {
    const [urlA, urlB] = sims.map((s) => s.url);
    const prompts = promptSet(PROMPTS);
    const body = (model: string, prompt: string): string =>
      JSON.stringify(greedyBody({ prompt, model, maxTokens: COMPARE_DEFAULTS.maxTokens, topLogprobs: TOP, seed: COMPARE_DEFAULTS.seed, timeoutMs: 0 }));
    const send = async (url: string, text: string): Promise<number> => {
      const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
      return (await res.arrayBuffer()).byteLength;
    };
    // The servers' own time: the same pairs, the same number in flight, bodies read whole.
    const plain = async (): Promise<number> => {
      let next = 0;
      let bytes = 0;
      const worker = async (): Promise<void> => {
        while (next < prompts.length) {
          const p = prompts[next++];
          const sizes = await Promise.all([send(urlA, body('reference', p)), send(urlB, body('drifting', p))]);
          bytes += sizes[0] + sizes[1];
        }
      };
      await Promise.all(Array.from({ length: COMPARE_DEFAULTS.concurrency }, worker));
      return bytes;
    };
    let verdict = '';
    const compare = async (): Promise<number> => {
      const r = await runCompare({
        a: { baseUrl: urlA, model: 'reference' },
        b: { baseUrl: urlB, model: 'drifting' },
        prompts,
        topLogprobs: TOP,
        // The plain run sends no repeat; leave it out so both send the same requests.
        repeatCheck: false,
      });
      if (r.verdict === 'error') throw new Error(`compare failed: ${r.reasons.join(' ')}`);
      verdict = r.verdict;
      return r.numbers.logprobPairs;
    };
    // Warm up both paths (JIT, connection pools, the simulators' own JIT).
    await plain();
    await compare();

    const plainSamples: Sample[] = [];
    const compareSamples: Sample[] = [];
    for (let rep = 0; rep < 5; rep++) {
      plainSamples.push(await measure(plain));
      compareSamples.push(await measure(compare));
    }
    const best = (s: Sample[]): Sample => s.reduce((x, y) => (y.wallMs < x.wallMs ? y : x));
    const p = best(plainSamples);
    const c = best(compareSamples);
    return {
      prompts: PROMPTS,
      topLogprobs: TOP,
      maxTokens: COMPARE_DEFAULTS.maxTokens,
      concurrency: COMPARE_DEFAULTS.concurrency,
      verdict,
      plainFetch: { wallMs: +p.wallMs.toFixed(1), cpuMs: +p.cpuMs.toFixed(1), bodyBytes: p.bytes },
      compare: { wallMs: +c.wallMs.toFixed(1), cpuMs: +c.cpuMs.toFixed(1), logprobPairs: c.bytes },
      wallRatio: +(c.wallMs / p.wallMs).toFixed(3),
      cpuRatio: +(c.cpuMs / p.cpuMs).toFixed(3),
      goal: 'wallRatio <= 1.2',
    };
  } finally {
    clearTimeout(deadline);
    for (const s of sims) s.child.kill('SIGTERM');
  }
}
