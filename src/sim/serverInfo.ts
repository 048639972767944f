/** /server_info and /model_info bodies for the simulator. */
import type { ResolvedScenario } from './scenario';

/** Server args keyed by dataclass field name, with resolved ("auto" already decided) values. */
export function defaultArgs(modelPath: string): Record<string, unknown> {
  return {
    model_path: modelPath,
    tokenizer_path: modelPath,
    tokenizer_mode: 'auto',
    load_format: 'auto',
    trust_remote_code: false,
    dtype: 'auto',
    kv_cache_dtype: 'auto',
    quantization: null,
    context_length: null,
    device: 'cuda',
    served_model_name: modelPath,
    host: '127.0.0.1',
    port: 30000,
    mem_fraction_static: 0.85,
    max_running_requests: null,
    max_total_tokens: null,
    chunked_prefill_size: 8192,
    max_prefill_tokens: 16384,
    schedule_policy: 'fcfs',
    tp_size: 1,
    pp_size: 1,
    dp_size: 1,
    ep_size: 1,
    stream_interval: 1,
    stream_output: false,
    random_seed: 42,
    log_level: 'info',
    api_key: null,
    attention_backend: 'flashinfer',
    decode_attention_backend: null,
    prefill_attention_backend: null,
    sampling_backend: 'flashinfer',
    grammar_backend: 'xgrammar',
    moe_runner_backend: 'auto',
    moe_a2a_backend: 'none',
    fp4_gemm_runner_backend: 'auto',
    fp8_gemm_runner_backend: 'auto',
    speculative_algorithm: null,
    disable_cuda_graph: false,
    cuda_graph_max_bs: 256,
    enable_torch_compile: false,
    disable_radix_cache: false,
    enable_mixed_chunk: false,
    reasoning_parser: null,
    tool_call_parser: null,
    incremental_streaming_output: false,
    enable_metrics: false,
  };
}

/** JSON files cannot hold NaN: the strings "NaN", "Infinity", "-Infinity" stand for those floats. */
function pyFloats(state: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(state)) {
    out[k] = v === 'NaN' ? NaN : v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : v;
  }
  return out;
}

/** `listen` is where the simulator really listens: SGLang reports its own host and port. */
export function buildServerInfo(
  scenario: ResolvedScenario,
  modelPath: string,
  hasApiKey: boolean,
  listen?: { host: string; port: number },
): Record<string, unknown> {
  // Where the server really listens wins over any host/port a scenario or launch names.
  const args: Record<string, unknown> = { ...defaultArgs(modelPath), reasoning_parser: scenario.reasoningParser ?? null, ...scenario.serverArgs, ...listen };
  // Secrets are redacted in what the server reports.
  if (hasApiKey || args.api_key) args.api_key = '***';
  return {
    ...args,
    internal_states: [
      {
        attention_backend: args.attention_backend,
        memory_usage: { weight: 14.85, kvcache: 52.1, token_capacity: 412680, graph: 1.12 },
        avg_spec_accept_length: null,
        last_gen_throughput: 142.6,
        ...pyFloats(scenario.internalState ?? {}),
      },
    ],
    version: scenario.version ?? '0.5.9',
  };
}

export function modelInfo(modelPath: string, legacy: boolean): Record<string, unknown> {
  const info: Record<string, unknown> = { model_path: modelPath, tokenizer_path: modelPath, is_generation: true };
  if (!legacy) {
    info.preferred_sampling_params = null;
    info.weight_version = 'default';
    info.has_image_understanding = false;
    info.has_audio_understanding = false;
    info.model_type = 'qwen3';
    info.architectures = ['Qwen3ForCausalLM'];
  }
  return info;
}
