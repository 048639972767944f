import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../src/sim/server';
import type { Behaviour, ModelBehaviour, Scenario } from '../../src/sim/scenario';

export const SCENARIOS = join(__dirname, '..', 'fixtures', 'scenarios');
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
