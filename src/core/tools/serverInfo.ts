/** `server_info`: health, served models, version and the resolved backends of a server. */
import { errorMessage } from '../errors';
import { fetchHealth, fetchModels, fetchServerInfo, fetchVllmVersion, summariseServerInfo } from '../probe/server-api';
import type { ServerTarget } from '../probe/types';
import { resolveServer } from './guards';
import { outputObject, SERVER_INPUT } from './schemaParts';
import type { ToolDefinition } from './types';

const HEALTH = { type: 'string', enum: ['unknown', 'checking', 'healthy', 'unhealthy', 'unreachable'] };

export const serverInfoTool: ToolDefinition<{ server: string }> = {
  name: 'server_info',
  title: 'Read a server’s status',
  description:
    'Read what a running SGLang server says about itself: /health and /health_generate, the models it serves, its version, ' +
    'and the backends it resolved at start-up (attention, MoE runner, FP4/FP8 GEMM, KV cache dtype, quantization, parallelism) from /server_info. ' +
    'A server that answers NaN can still pass /health: probe it to see its answers.',
  inputSchema: { type: 'object', properties: { server: SERVER_INPUT }, required: ['server'], additionalProperties: false },
  outputSchema: outputObject(
    {
      server: { type: 'string' },
      health: HEALTH,
      generateHealth: HEALTH,
      models: { type: 'array', items: { type: 'string' } },
      version: { type: 'string' },
      modelPath: { type: 'string' },
      backends: { type: 'object', additionalProperties: { type: 'string' } },
      resolvedAttentionBackend: { type: 'string' },
      errors: { type: 'array', items: { type: 'string' } },
    },
    ['server', 'health', 'generateHealth', 'models', 'backends', 'errors'],
  ),
  touchesHost: false,
  changesServer: false,
  async run(input, ctx) {
    const server = resolveServer(ctx, input.server);
    const target: ServerTarget = { baseUrl: server.url, ...(server.apiKey ? { apiKey: server.apiKey } : {}) };
    const opts = { signal: ctx.signal, timeoutMs: Math.min(ctx.timeLimitMs, 30_000) };
    const health = await fetchHealth(target, opts);
    const errors: string[] = health.error ? [health.error] : [];
    let models: string[] = [];
    let summary: ReturnType<typeof summariseServerInfo> = { backends: {} };
    if (health.health !== 'unreachable') {
      const [m, info] = await Promise.allSettled([fetchModels(target, opts), fetchServerInfo(target, opts)]);
      if (m.status === 'fulfilled') models = m.value.map((x) => x.id);
      else errors.push(`/v1/models: ${errorMessage(m.reason)}`);
      if (info.status === 'fulfilled') summary = summariseServerInfo(info.value);
      else {
        // vLLM serves /server_info only in dev mode; its version is at /version.
        const vllm = m.status === 'fulfilled' && m.value[0]?.ownedBy === 'vllm';
        const version = vllm ? await fetchVllmVersion(target, opts) : undefined;
        if (version) summary = { ...summary, version };
        else errors.push(`/server_info: ${errorMessage(info.reason)}`);
      }
    }
    const data = { server: server.url, health: health.health, generateHealth: health.generateHealth, models, ...summary, errors };
    const lines = [
      `${server.url}: /health ${health.health}, /health_generate ${health.generateHealth}`,
      `models: ${models.join(', ') || 'none listed'}${summary.version ? `; version ${summary.version}` : ''}`,
      ...Object.entries(summary.backends).map(([k, v]) => `${k} = ${v}`),
      ...errors.map((e) => `error: ${e}`),
    ];
    return { data, text: lines.join('\n') };
  },
};
