/**
 * Our own short help for vLLM's backend-relevant flags, shown with the bundled vLLM catalog. Every
 * sentence is written for Inference Doctor from facts read in vLLM's releases (arg_utils.py, the
 * config dataclasses, envs.py and the argv pre-processing); none of it is vLLM's help text. Other
 * flags get no help: the hover shows the facts (type, default, choices, releases) only.
 */

export interface VllmFlagHelp {
  summary: string;
  when?: string;
}

export const VLLM_FLAG_HELP: Readonly<Record<string, VllmFlagHelp>> = Object.freeze({
  '--attention-backend': {
    summary: 'Picks the attention backend (FLASH_ATTN, FLASHINFER, TRITON_ATTN, …); unset, vLLM chooses one for the GPU and model.',
    when: 'A flag from 0.13 on; it replaces the VLLM_ATTENTION_BACKEND environment variable, which later releases no longer read. Names are checked when the engine starts, not by the argument parser.',
  },
  '--moe-backend': {
    summary: 'Picks the kernel family for the fused MoE layers (`auto` lets vLLM decide per GPU and quantization).',
    when: 'Replaces the VLLM_USE_FLASHINFER_MOE_* and VLLM_FLASHINFER_MOE_BACKEND environment variables. Try another value first when a MoE model gives NaN or garbage on a new GPU.',
  },
  '--kv-cache-dtype': {
    summary: 'Data type of the KV cache; `auto` keeps the model dtype. FP8 values halve the cache memory.',
    when: 'Written to the `cache_dtype` field of the cache config. FP8 caches need kernel support on the attention backend in use.',
  },
  '--quantization': {
    summary: 'The weight quantization method; unset, vLLM reads it from the checkpoint config.',
    when: 'Set it only to force a method (for example a Marlin kernel instead of the default for the checkpoint).',
  },
  '--compilation-config': {
    summary: 'torch.compile and CUDA graph settings, as JSON or as dotted keys (`--compilation-config.cudagraph_mode=FULL`).',
    when: 'Up to 0.11, `-O` is short for this flag (`-O3` is compilation level 3); from 0.12, `-O` is the optimization level and this flag is `-cc`.',
  },
  '--optimization-level': {
    summary: 'One knob for start-up time against speed (0 to 3): how much compilation and CUDA graph capture happens.',
    when: 'From 0.12 on; `-O0` … `-O3` set it. Before 0.12, `-O` meant the compilation config.',
  },
  '--enforce-eager': {
    summary: 'Runs the model eagerly, without capturing CUDA graphs.',
    when: 'A first step when a crash or wrong output happens only with graphs; slower decode.',
  },
  '--dtype': {
    summary: 'Data type of weights and activations; `auto` follows the checkpoint config.',
  },
  '--enable-prefix-caching': {
    summary: 'Reuses KV cache blocks of shared prompt prefixes; `--no-enable-prefix-caching` turns it off.',
  },
});

/** Our help for an option string (`-O` is looked up by what it stands for in the release). */
export function vllmHelpFor(flag: string): VllmFlagHelp | undefined {
  return VLLM_FLAG_HELP[flag];
}

/** The help as hover markdown: summary, then when to change it. */
export function vllmHelpMarkdown(flag: string): string | undefined {
  const h = vllmHelpFor(flag);
  if (!h) return undefined;
  return h.when ? `${h.summary}\n\n${h.when}` : h.summary;
}
