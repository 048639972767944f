/** `environment`: what a host runs — GPUs, drivers, SGLang servers, Python packages — and whether its kernels fit the GPU. */
import { discoverEnv, formatEnvReport, type EnvReport } from '../discovery';
import { ccText } from '../gpu/gpus';
import { capText, checkHost } from './guards';
import { HOST_INPUT, outputObject } from './schemaParts';
import type { ToolContext, ToolDefinition } from './types';

export interface EnvironmentInput {
  host: string;
  torch?: boolean;
  checkEnv?: boolean;
}

const REPORT_CHARS = 12_000;

/** Discovery on a host the agent named (key checked by ctx.hosts), bounded by the call's limits; the connection is closed after. */
export async function inspectHost(ctx: ToolContext, name: string, o: { torch?: boolean; checkEnv?: boolean } = {}): Promise<EnvReport> {
  const hostName = checkHost(name);
  const host = await ctx.hosts.open(hostName, ctx.signal);
  try {
    ctx.onProgress?.(`inspecting ${hostName}`);
    return await discoverEnv(host, {
      torch: o.torch ? 'auto' : 'no',
      checkEnv: o.checkEnv ?? false,
      signal: ctx.signal,
      probeTimeoutMs: Math.min(ctx.timeLimitMs, 60_000),
    });
  } finally {
    await host.close().catch(() => undefined);
  }
}

export const environmentTool: ToolDefinition<EnvironmentInput> = {
  name: 'environment',
  title: 'Inspect a GPU host',
  description:
    'Inspect a host ("local" or an SSH host whose key is already trusted): its GPUs and compute capability, driver and CUDA versions, ' +
    "running SGLang and vLLM servers, and each Python environment's sglang, sgl-kernel, FlashInfer, torch, triton, transformers and vLLM, " +
    'with a check that their CUDA libraries carry code for the GPU (a missing sm_120 build, say). Read-only; it runs discovery commands on the host.',
  inputSchema: {
    type: 'object',
    properties: {
      host: HOST_INPUT,
      torch: { type: 'boolean', description: 'Import torch in each environment for CUDA runtime details (slower; default false)' },
      checkEnv: {
        type: 'boolean',
        description: 'Also run `python -m sglang.check_env` and `python -m vllm.collect_env` where installed (import torch, touch the GPU; default false)',
      },
    },
    required: ['host'],
    additionalProperties: false,
  },
  outputSchema: outputObject(
    {
      host: { type: 'string' },
      gpus: {
        type: 'array',
        items: {
          type: 'object',
          properties: { index: { type: 'integer' }, name: { type: 'string' }, computeCapability: { type: 'string' }, memoryMiB: { type: 'number' } },
          required: ['index', 'name'],
        },
      },
      driverVersion: { type: 'string' },
      driverCudaVersion: { type: 'string' },
      servers: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            engine: { type: 'string', enum: ['sglang', 'vllm'] },
            kind: { type: 'string' },
            port: { type: 'integer' },
            modelPath: { type: 'string' },
            pid: { type: 'integer' },
            unit: { type: 'string' },
          },
          required: ['engine', 'kind', 'port'],
        },
      },
      interpreters: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            path: { type: 'string' },
            python: { type: 'string' },
            packages: { type: 'object', additionalProperties: { type: 'string' } },
            verdicts: {
              type: 'array',
              items: {
                type: 'object',
                properties: { package: { type: 'string' }, level: { type: 'string' }, message: { type: 'string' } },
                required: ['message'],
              },
            },
            error: { type: 'string' },
          },
          required: ['path', 'packages', 'verdicts'],
        },
      },
      warnings: {
        type: 'array',
        items: {
          type: 'object',
          properties: { severity: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
          required: ['severity', 'code', 'message'],
        },
      },
      notes: { type: 'array', items: { type: 'string' } },
      report: { type: 'string', description: 'The report as the CLI prints it' },
    },
    ['host', 'gpus', 'servers', 'interpreters', 'warnings', 'notes', 'report'],
  ),
  touchesHost: true,
  changesServer: false,
  async run(input, ctx) {
    const hostName = checkHost(input.host);
    const r = await inspectHost(ctx, hostName, { torch: input.torch ?? false, checkEnv: input.checkEnv ?? false });
    const data = {
      host: hostName,
      gpus: r.gpus.map((g) => ({
        index: g.index,
        name: g.name,
        ...(g.computeCap ? { computeCapability: ccText(g.computeCap) } : {}),
        ...(g.memoryMiB !== undefined ? { memoryMiB: g.memoryMiB } : {}),
      })),
      ...(r.driverVersion ? { driverVersion: r.driverVersion } : {}),
      ...(r.driverCudaVersion ? { driverCudaVersion: r.driverCudaVersion } : {}),
      servers: r.servers.map((s) => ({
        engine: s.engine,
        kind: s.kind,
        port: s.port,
        ...(s.modelPath ? { modelPath: s.modelPath } : {}),
        ...(s.pid !== undefined ? { pid: s.pid } : {}),
        ...(s.unit ? { unit: s.unit } : {}),
      })),
      interpreters: r.interpreters.map((i) => ({
        path: i.path,
        ...(i.probe ? { python: i.probe.python.version } : {}),
        packages: Object.fromEntries(Object.entries(i.probe?.packages ?? {}).flatMap(([k, p]) => (p.found ? [[k, p.version ?? 'installed']] : []))),
        verdicts: i.verdicts.map((v) => ({ package: v.package, level: v.level, message: v.message })),
        ...(i.error ? { error: i.error } : {}),
      })),
      warnings: r.warnings.map((w) => ({ severity: w.severity, code: w.code, message: w.message })),
      notes: r.notes,
      report: capText(formatEnvReport(r), REPORT_CHARS),
    };
    return { data, text: data.report };
  },
};
