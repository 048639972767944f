/** What the simulator's handlers share: the scenario, its models, the API key and the request counter. */
import { hashString } from './answers';
import { HttpError } from './http';
import { loadScenario, type ModelBehaviour, type ResolvedScenario, type Scenario, type SimEngine } from './scenario';

export class SimState {
  readonly scenario: ResolvedScenario;
  readonly apiKey: string | undefined;
  readonly modelNames: string[];
  /** The model of requests that name none (native routes never do). */
  readonly firstModel: string;
  readonly startedAt = Math.floor(Date.now() / 1000);
  /** Where the server listens, once it does (for /server_info). */
  address: () => { host: string; port: number } | undefined = () => undefined;
  private counter = 0;
  /** vLLM's /metrics: requests being answered, finished ones by finish reason, and those answered from NaN logits. */
  running = 0;
  readonly finished = new Map<string, number>();
  corruptedRequests = 0;

  constructor(scenario: Scenario | string, apiKey: string | undefined, engine?: SimEngine) {
    const loaded = loadScenario(scenario);
    this.scenario = engine ? { ...loaded, engine } : loaded;
    this.apiKey = apiKey ?? this.scenario.apiKey;
    this.modelNames = [...this.scenario.models.keys()];
    this.firstModel = this.modelNames[0] ?? 'default';
  }

  resolveModel(name: unknown): { model: string; behaviour: ModelBehaviour } {
    const model = typeof name === 'string' && name ? name : this.firstModel;
    const behaviour = this.scenario.models.get(model) ?? this.scenario.default;
    if (!behaviour) throw new HttpError(404, `The model \`${model}\` does not exist.`, 'NotFoundError', 'model');
    return { model, behaviour };
  }

  /** A new request id: deterministic for the scenario seed, the request's place and its prompt. */
  nextId(prompt: string): string {
    const n = ++this.counter;
    return hashString(`${n}:${prompt}`, this.scenario.seed).toString(16).padStart(8, '0') + n.toString(16).padStart(8, '0');
  }

  authorised(authorization: string | undefined): boolean {
    return !this.apiKey || authorization === `Bearer ${this.apiKey}`;
  }
}
