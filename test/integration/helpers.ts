import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../src/sim/server';
import type { Behaviour, ModelBehaviour, Scenario } from '../../src/sim/scenario';

export const SCENARIOS = join(__dirname, '..', 'fixtures', 'scenarios');

/** Bundles built by this test process already: each suite asks for what it runs, each is built once. */
const built = new Set<string>();

/** Builds the named bundles (`cli`, `sim`, as scripts/build.mjs --only takes them) that this process has not built yet. */
export function buildBundles(names: string, timeoutMs = 110_000): void {
  const missing = names.split(',').filter((n) => !built.has(n));
  if (!missing.length) return;
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--only', missing.join(',')], {
    cwd: join(__dirname, '..', '..'),
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  assert.equal(build.status, 0, build.stderr);
  for (const n of missing) built.add(n);
}
export const scenarioPath = (name: string): string => join(SCENARIOS, `${name}.json`);

/** Starts simulators on demand and closes them all at the end. */
export class SimPool {
  private readonly running: RunningSimulator[] = [];
  private readonly byBehaviour = new Map<string, Promise<RunningSimulator>>();

  async start(scenario: Scenario | string, apiKey?: string): Promise<RunningSimulator> {
    const sim = await startSimulator({ port: 0, scenario, ...(apiKey ? { apiKey } : {}) });
    this.running.push(sim);
    return sim;
  }

  /** A one-model simulator, so native /generate (which names no model) gets this behaviour. */
  single(behaviour: Behaviour, extra: Partial<ModelBehaviour> = {}): Promise<RunningSimulator> {
    const key = `${behaviour}:${JSON.stringify(extra)}`;
    let sim = this.byBehaviour.get(key);
    if (!sim) {
      sim = this.start({ seed: 9, models: { [behaviour]: { behaviour, ...extra } } });
      this.byBehaviour.set(key, sim);
    }
    return sim;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.running.map((s) => s.close()));
  }
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI (dist/cli.js) with `args`, bounded by `timeoutMs`; stdin gets `input` (or nothing). */
export function runCli(args: string[], options: { input?: string; cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  const root = join(__dirname, '..', '..');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), ...args], { cwd: options.cwd ?? root, env: options.env ?? { ...process.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`inference-doctor ${args.join(' ')} timed out`));
    }, options.timeoutMs ?? 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
