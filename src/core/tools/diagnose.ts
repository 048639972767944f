/** `diagnose`: the diagnosis engine over what the agent can point at, causes best first with fixes. */
import { gatherEvidence, type GatherInputs } from '../diagnose/gather';
import { bundledDiagnosisRules, diagnose, diagnosisJson, SYMPTOMS, type EvidenceSpec, type Symptom } from '../diagnose/rules';
import { gpuFromArg, NAMED_GPUS } from '../gpu/names';
import { fromSetting } from '../release/detect';
import { inspectHost } from './environment';
import { checkText, resolveServer, shown } from './guards';
import { HOST_INPUT, outputObject, SERVER_INPUT } from './schemaParts';
import { ToolError, type ToolDefinition } from './types';

export interface DiagnoseInput {
  server?: string;
  probe?: boolean;
  host?: string;
  launch?: string;
  launchFileName?: string;
  log?: string;
  gpu?: string;
  engine?: 'sglang' | 'vllm';
  version?: string;
  model?: string;
  symptom?: Symptom;
  limit?: number;
}

const TEXT_LIMIT = 4 * 1024 * 1024;

const STRINGS = { type: 'array', items: { type: 'string' } };

export const diagnoseTool: ToolDefinition<DiagnoseInput> = {
  name: 'diagnose',
  title: 'Diagnose a deployment',
  description:
    'Rank the known causes that fit a deployment (wrong backend for the GPU, kernels built without its architecture, ' +
    'quantization paths that give NaN or zeros…), each with the evidence for and against, what is still unknown and the fix ' +
    'in the order to try. Give what you have: a running server (reads /v1/models and /server_info and runs a quick probe), ' +
    'the GPU host it runs on (its GPUs, driver and Python packages are read over SSH), ' +
    'the launch command text, the server log text, the GPU, the engine and its version, the model and the symptom seen. Read-only.',
  inputSchema: {
    type: 'object',
    properties: {
      server: SERVER_INPUT,
      probe: { type: 'boolean', description: 'With server: send the quick probe prompts (default true)' },
      host: { ...HOST_INPUT, description: `The GPU host to inspect (read-only discovery commands): ${String(HOST_INPUT.description)}` },
      launch: { type: 'string', minLength: 1, maxLength: TEXT_LIMIT, description: 'The launch command or launch file text' },
      launchFileName: { type: 'string', minLength: 1, maxLength: 255, description: 'Its file name (run.sh, compose.yaml…): says how to read it' },
      log: { type: 'string', minLength: 1, maxLength: TEXT_LIMIT, description: 'SGLang or vLLM server log text' },
      gpu: {
        type: 'string',
        minLength: 1,
        maxLength: 128,
        description: `GPU: ${NAMED_GPUS.slice(0, 6)
          .map((g) => g.id)
          .join(', ')}, …, a device name or a compute capability such as 12.0`,
      },
      engine: { type: 'string', enum: ['sglang', 'vllm'] },
      version: { type: 'string', minLength: 1, maxLength: 64, description: 'The engine version (needs engine)' },
      model: { type: 'string', minLength: 1, maxLength: 512, description: 'Model path or name (its name hints quantization and traits)' },
      symptom: { type: 'string', enum: [...SYMPTOMS] },
      limit: { type: 'integer', minimum: 1, maximum: 20, description: 'At most this many causes (default 5)' },
    },
    additionalProperties: false,
  },
  outputSchema: outputObject(
    {
      symptoms: { type: 'array', items: { type: 'object', properties: { symptom: { type: 'string' }, from: { type: 'string' } }, required: ['symptom'] } },
      findings: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            title: { type: 'string' },
            confidence: { type: 'string', enum: ['match', 'possible'] },
            score: { type: 'number' },
            engine: { type: 'string' },
            mechanism: { type: 'string' },
            evidence: {
              type: 'array',
              items: { type: 'object', properties: { stance: { type: 'string' }, text: { type: 'string' } }, required: ['stance', 'text'] },
            },
            missing: STRINGS,
            fix: { type: 'object' },
            ruleOut: STRINGS,
            sources: STRINGS,
          },
          required: ['id', 'title', 'confidence', 'score', 'evidence', 'missing', 'fix', 'sources'],
        },
      },
      nextCheck: { type: 'string' },
      rulesJudged: { type: 'integer' },
      notes: STRINGS,
    },
    ['symptoms', 'findings', 'rulesJudged', 'notes'],
  ),
  // With `host` it runs discovery there; VS Code confirms such a call (src/agent/tools.ts).
  touchesHost: false,
  changesServer: false,
  async run(input, ctx) {
    const spec: EvidenceSpec = {};
    if (input.gpu !== undefined) {
      checkText('The GPU', input.gpu);
      if (!gpuFromArg(input.gpu))
        throw new ToolError(
          'invalid-input',
          `Unknown GPU ${shown(input.gpu)}: give a compute capability (12.0) or one of ${NAMED_GPUS.map((g) => g.id).join(', ')}`,
        );
      spec.gpu = input.gpu;
    }
    if (input.engine) spec.engine = input.engine;
    if (input.model !== undefined) spec.model = checkText('The model', input.model);
    if (input.version !== undefined) {
      if (!input.engine) throw new ToolError('invalid-input', 'version needs engine (whose version it is)');
      if (!fromSetting(checkText('The version', input.version))) throw new ToolError('invalid-input', `${shown(input.version)} is not a version`);
      spec.versions = { [input.engine]: input.version };
    }
    const inputs: GatherInputs = { spec };
    if (input.launch !== undefined) {
      const name = input.launchFileName ?? 'launch.sh';
      if (/[/\\]/.test(name) || name.startsWith('.') || name.startsWith('-'))
        throw new ToolError('invalid-input', `launchFileName ${shown(name)} must be a plain file name`);
      inputs.launch = [{ text: checkText('The launch text', input.launch), fileName: checkText('The launch file name', name) }];
    }
    if (input.log !== undefined) {
      const log = checkText('The log', input.log);
      inputs.logs = [{ lines: log.split('\n'), label: 'the log given', head: log.slice(0, 64 * 1024) }];
    }
    if (input.server !== undefined) {
      const server = resolveServer(ctx, input.server);
      inputs.server = {
        target: { baseUrl: server.url, ...(server.apiKey ? { apiKey: server.apiKey } : {}) },
        probe: input.probe ?? true,
        timeoutMs: Math.min(ctx.timeLimitMs, 120_000),
      };
    }
    const anything = input.launch || input.log || input.server || input.host || Object.keys(spec).length || input.symptom;
    if (!anything) throw new ToolError('invalid-input', 'Give some evidence: server, host, launch, log, gpu, engine, model or symptom');
    // Same discovery as `inference-doctor diagnose --host`: no torch import, nothing started on the GPU.
    if (input.host !== undefined) inputs.discovery = [await inspectHost(ctx, input.host)];
    const { evidence, notes } = await gatherEvidence(inputs, { signal: ctx.signal, ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}) });
    const { rules } = bundledDiagnosisRules();
    const d = diagnose(evidence, { rules, limit: input.limit ?? 5, ...(input.symptom ? { symptom: input.symptom } : {}) });
    const data = diagnosisJson(d, notes);
    const lines = [d.findings.length ? `${d.findings.length} cause(s) fit, best first:` : `No cause in the ${d.rulesJudged} rules fits what is known.`];
    d.findings.forEach((f, i) => {
      const first = f.fix.steps[0];
      const flags = first ? Object.entries(first.flags ?? {}).map(([k, v]) => (v === true ? k : `${k} ${String(v)}`)) : [];
      lines.push(`${i + 1}. [${f.confidence} ${f.score.toFixed(2)}] ${f.title} (${f.id})${first ? ` — first fix: ${[...flags, first.note].join(' ')}` : ''}`);
    });
    if (d.nextCheck) lines.push(`Next check: ${d.nextCheck}`);
    for (const n of notes) lines.push(`Note: ${n}`);
    return { data, text: lines.join('\n') };
  },
};
