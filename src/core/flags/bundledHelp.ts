/**
 * Our own short help for the backend-relevant SGLang flags, shipped with the bundled flag catalog.
 *
 * Every sentence here is written for Inference Doctor from facts read in SGLang's releases
 * (server_args.py and the code it calls, v0.3.0 to v0.5.18) and in public issue reports; none of
 * it is SGLang's help text. Version ranges name the first and last release tag that has the flag
 * or behaviour. GPU notes say only what the source or a field report shows; when a fact was not
 * certain it was left out.
 *
 *   bundledHelpFor('--fp4-gemm-backend')            // { summary, when, gpus }
 *   bundledHelpFor('fp4_gemm_runner_backend')       // same entry: field names and old names resolve
 *   bundledHelpMarkdown('--attention-backend', 12.0) // hover text, the SM 12.x note first
 */

export type BundledGpuArch = 'sm80' | 'sm89' | 'sm90' | 'sm100' | 'sm120' | 'rocm' | 'any';

export interface BundledFlagHelp {
  summary: string;
  when?: string;
  gpus?: { arch: BundledGpuArch; note: string }[];
}

/** Keyed by the flag as written with dashes, e.g. "--attention-backend"; aliases/renames listed separately. */
export const BUNDLED_FLAG_HELP: Readonly<Record<string, BundledFlagHelp>> = Object.freeze({
  // ── Attention ────────────────────────────────────────────────────────────────────────────────
  '--attention-backend': {
    summary: 'Picks the attention kernel family used for both prefill and decode.',
    when: 'The first flag to change when output is garbage, NaN or `!!!!`, or a kernel is missing for your GPU. `triton` is slower but runs almost everywhere.',
    gpus: [
      { arch: 'sm90', note: 'Unset, recent releases choose `fa3` (`flashinfer` for MHA models when EAGLE topk is above 1).' },
      { arch: 'sm90', note: 'FA3 together with an `fp8_e4m3` KV cache has given nonsense in field reports; try `flashinfer` or a bf16 KV cache.' },
      { arch: 'sm100', note: 'Unset, MHA models get `trtllm_mha` (`fa4` for asymmetric K/V) and MLA models `flashinfer`. `fa3` refuses to start on SM 10.x.' },
      { arch: 'sm100', note: '`trtllm_mla` was reported (unconfirmed) to give gibberish for DeepSeek V3/R1 on 8x B200.' },
      {
        arch: 'sm120',
        note: 'No `fa3` here, and `trtllm_mha` cannot do prefill. Unset, MHA models get `flashinfer` (`triton` without it), MLA models `triton`.',
      },
      { arch: 'sm120', note: '`triton` is the usual fix for garbage from hybrid linear-attention (GDN) models and GLM-4.7-Flash with `flashinfer`.' },
      {
        arch: 'sm80',
        note: 'Unset, `flashinfer` (`triton` without FlashInfer or for models with attention sinks). v0.5.18 lets `fa3` run on SM 8.x for non-MLA models.',
      },
      { arch: 'rocm', note: 'Unset, `aiter` for MHA models; MLA models get `aiter` only with 16 or 128 KV heads per rank, otherwise `triton`.' },
    ],
  },
  '--prefill-attention-backend': {
    summary: 'Overrides the attention kernel for prefill (prompt processing) only.',
    when: 'Use it to mix kernels: keep a fast decode kernel and prefill with one that works for your model. Setting both phases to one value is the same as --attention-backend.',
    gpus: [
      { arch: 'sm100', note: '`trtllm_mha` prefill needs SM 10.x. With decode on `cutedsl_mla` (decode-only), prefill defaults to `trtllm_mla`.' },
      { arch: 'sm120', note: '`trtllm_mha` is refused for prefill here; only SM 10.x has it.' },
      { arch: 'sm90', note: '`trtllm_mha` is refused for prefill here; only SM 10.x has it.' },
    ],
  },
  '--decode-attention-backend': {
    summary: 'Overrides the attention kernel for decode (token generation) only.',
    when: 'Use it when only generation goes wrong (the first tokens look fine, then garbage), or to try a faster decode kernel while prefill stays as it is.',
    gpus: [
      { arch: 'sm120', note: 'From v0.5.10, `trtllm_mha` is accepted for decode on SM 12.x and SM 9.0; older releases allowed it on SM 10.x only.' },
      { arch: 'sm100', note: '`cutedsl_mla` (v0.5.13+) is a decode-only MLA kernel for SM 10.x; it forces the page size to 32 or 64.' },
    ],
  },
  '--mm-attention-backend': {
    summary: 'Picks the attention kernel of the vision/audio encoder in multimodal models.',
    when: 'Change it when image or video input crashes, is described wrongly, or encodes slowly. Text-only requests never use it.',
    gpus: [
      { arch: 'sm90', note: 'Unset, v0.5.18 uses `fa3`.' },
      { arch: 'sm100', note: 'Unset, v0.5.18 uses `fa4` on SM 10.0 but `triton_attn` on SM 10.3 (B300).' },
      { arch: 'sm120', note: 'Unset, v0.5.18 uses `triton_attn`.' },
      { arch: 'sm80', note: 'Unset, v0.5.18 uses `triton_attn`.' },
      { arch: 'rocm', note: 'Unset, `aiter_attn` when AITER is on and the GPU is gfx94x or newer, otherwise `triton_attn`.' },
    ],
  },
  '--speculative-draft-attention-backend': {
    summary: 'Attention kernel for the draft model of speculative decoding (v0.5.7+).',
    when: 'Set it when drafting crashes or is slow on your GPU while the target model runs fine with its own kernel.',
    gpus: [{ arch: 'rocm', note: 'For DFLASH drafts, v0.5.18 falls back to `triton` on ROCm (`flashinfer` on CUDA) when the choice is unsupported.' }],
  },
  '--speculative-attention-mode': {
    summary: 'Runs target-verify and draft-extend on the `prefill` or `decode` kernel (v0.5.2+).',
    when: 'Default `prefill`. Try `decode` when speculative decoding breaks only in the verify step, or the decode kernel is the faster one for your model.',
  },
  '--triton-attention-num-kv-splits': {
    summary: 'How many KV splits the Triton decode attention kernel uses (default 8).',
    when: 'More splits help long contexts at small batch sizes. Only matters with the `triton` attention backend.',
    gpus: [{ arch: 'rocm', note: 'v0.5.18 sets it to 16 on ROCm whatever you pass.' }],
  },
  '--triton-attention-reduce-in-fp32': {
    summary: 'Keeps the Triton attention intermediates in FP32.',
    when: 'Try it when an FP16 model crashes or gives NaN with the `triton` attention backend; other backends ignore it.',
  },
  '--dsa-prefill-backend': {
    summary: 'Prefill kernel for DeepSeek sparse attention (DSA, formerly NSA) models.',
    when: 'Unset, it is picked from the GPU and the KV dtype. Named --nsa-prefill-backend in v0.5.4 to v0.5.12; v0.5.13+ still accepts that name.',
  },
  '--dsa-decode-backend': {
    summary: 'Decode kernel for DeepSeek sparse attention (DSA, formerly NSA) models.',
    when: 'Unset, it is picked from the GPU and the KV dtype. Named --nsa-decode-backend in v0.5.4 to v0.5.12; v0.5.13+ still accepts that name.',
  },

  // ── Sampling and structured output ───────────────────────────────────────────────────────────
  '--sampling-backend': {
    summary: 'Picks the kernels that turn logits into sampled tokens.',
    when: 'Switch to `pytorch` to rule the FlashInfer sampler in or out. NaN logits stay NaN either way; only the symptom (the "NaN happened" stop) changes.',
    gpus: [{ arch: 'any', note: 'Unset, `flashinfer` when it is installed, else `pytorch`. Deterministic inference forces `pytorch`.' }],
  },
  '--grammar-backend': {
    summary: 'Engine for constrained output: JSON schema, regex, EBNF.',
    when: 'Change it when structured output is slow, rejects a schema or crashes. `none` (v0.4.4.post4+) turns constrained decoding off.',
    gpus: [{ arch: 'any', note: 'Default `xgrammar` since v0.4.4.post2 (`outlines` before); `llguidance` exists since v0.4.3.post3.' }],
  },
  '--enable-fp32-lm-head': {
    summary: 'Computes the final logits in FP32 (v0.5.3+).',
    when: 'Try it when sampling sees NaN/Inf or when small logit differences matter (RL, exact comparisons). Costs some memory.',
  },

  // ── MoE ──────────────────────────────────────────────────────────────────────────────────────
  '--moe-runner-backend': {
    summary: 'Picks the kernels that run the expert layers of MoE models (v0.5.1+).',
    when: 'Prime suspect for NaN, `!!!!` or mojibake from quantized MoE models: try `flashinfer_cutlass`, `triton` or `marlin` (v0.5.12+) in turn.',
    gpus: [
      {
        arch: 'sm100',
        note: '`auto` often becomes `flashinfer_trtllm` (DeepSeek FP8/NVFP4). With FlashInfer 0.6.16.post4 to 0.6.17 it gave NaN on B200/B300.',
      },
      {
        arch: 'sm100',
        note: 'Fixes seen for `flashinfer_trtllm` trouble: pin FlashInfer 0.6.15.post1 or older, or use `flashinfer_cutlass` (mojibake on MiniMax NVFP4).',
      },
      { arch: 'sm120', note: 'The trtllm-gen MoE kernels are SM 10.x only. v0.5.18 `auto` picks `flashinfer_cutlass` for modelopt_fp4 here.' },
      { arch: 'rocm', note: '`aiter` (v0.5.11+) is the ROCm runner.' },
    ],
  },
  '--speculative-moe-runner-backend': {
    summary: 'MoE kernel choice for the draft model only (v0.5.4.post3+).',
    when: "Use it when the draft's MoE layers need another runner than the target, e.g. a BF16 NextN layer beside an FP4 target model.",
  },
  '--moe-a2a-backend': {
    summary: 'How tokens travel between GPUs that hold different experts (v0.4.10.post2+).',
    when: 'Default `none`. Choose `deepep` or another all-to-all library only with expert parallelism (--ep-size above 1); it replaces --enable-deepep-moe.',
    gpus: [{ arch: 'rocm', note: '`mori` (v0.5.9+) is the AMD all-to-all option.' }],
  },
  '--deepep-mode': {
    summary: 'DeepEP kernel mode: `normal`, `low_latency` or `auto` (the default).',
    when: '`auto` uses the low-latency kernels for decode and the normal ones for prefill. Pin one mode to narrow down a DeepEP hang or crash.',
  },
  '--enable-deepep-moe': {
    summary: 'Old switch for DeepEP expert-parallel MoE (v0.4.4.post2 to v0.5.4).',
    when: 'Use --moe-a2a-backend deepep instead. Deprecated from v0.4.10.post2; from v0.5.3 passing it stops the server at start-up.',
  },
  '--enable-ep-moe': {
    summary: 'Old switch for expert parallelism with EP size equal to TP size (v0.4.0.post1 to v0.5.4).',
    when: 'Set --ep-size to the --tp-size value instead. Deprecated from v0.4.10.post2; from v0.5.3 passing it stops the server at start-up.',
  },
  '--flashinfer-mxfp4-moe-precision': {
    summary: 'Activation precision of the FlashInfer MXFP4 MoE kernels: `default` or `bf16`.',
    when: 'Try `bf16` when an MXFP4 MoE model (e.g. gpt-oss) loses accuracy: activations then reach the kernel unquantized. v0.5.1.x also had `mxfp4`.',
  },
  '--disable-shared-experts-fusion': {
    summary: 'Keeps the shared experts of DeepSeek-style models out of the fused MoE kernel.',
    when: 'Try it when a DeepSeek-family model gives wrong output. The FlashInfer TRTLLM and CuteDSL MoE runners turn it on by themselves.',
  },
  '--moe-dense-tp-size': {
    summary: 'TP size for the dense MLP layers of a MoE model.',
    when: 'Lower it (often to 1) when a large TP size slices dense-layer GEMMs so thin that the kernels reject them.',
  },
  '--ep-num-redundant-experts': {
    summary: 'Extra expert copies placed across EP ranks for load balancing.',
    when: 'Use with --enable-eplb so that hot experts can live on more than one GPU. Costs memory per copy.',
  },
  '--init-expert-location': {
    summary: 'Starting expert placement for expert parallelism (default `trivial`).',
    when: 'Point it at a recorded expert distribution to start balanced instead of waiting for EPLB to learn the load.',
  },
  '--enable-eplb': {
    summary: 'Moves experts between GPUs based on the load they actually see (EPLB).',
    when: 'For large expert-parallel deployments with uneven expert use. Turn it off to rule out rebalancing when output changes over time.',
  },

  // ── Dense GEMM ───────────────────────────────────────────────────────────────────────────────
  '--fp8-gemm-backend': {
    summary: 'Kernels for block-scaled FP8 linear layers (v0.5.6.post2+).',
    when: 'Change it when an FP8 checkpoint crashes inside DeepGEMM or CUTLASS or writes bad text. `triton` is the portable fallback.',
    gpus: [
      { arch: 'sm120', note: 'DeepGEMM has no SM 12.x support; FP8 crashes there were fixed with `triton`. v0.5.18 resolves `auto` to `cutlass` on SM 12.x.' },
      { arch: 'sm90', note: '`auto` prefers DeepGEMM when it is installed and enabled; set another backend to take it out of the picture.' },
      { arch: 'sm100', note: '`auto` prefers DeepGEMM when enabled, then FlashInfer TRTLLM.' },
      { arch: 'rocm', note: '`aiter` is the ROCm choice; `auto` uses it when AITER is enabled.' },
    ],
  },
  '--fp4-gemm-backend': {
    summary: 'Kernels for NVFP4 dense linear layers (v0.5.8+).',
    when: 'Change it when an NVFP4 model answers empty, constant, `!!!!` or NaN. Try `flashinfer_cudnn`, or `marlin` (v0.5.13+), before blaming the checkpoint.',
    gpus: [
      { arch: 'sm120', note: '`auto` was `flashinfer_cudnn` in v0.5.10 to v0.5.12.post1 and is `flashinfer_cutlass` from v0.5.13.' },
      {
        arch: 'sm120',
        note: '`flashinfer_cutlass` has given all-zero and NaN output on SM 12.x; `flashinfer_cudnn` or `marlin` fixed it, as did newer FlashInfer.',
      },
      { arch: 'sm100', note: 'From v0.5.12, `auto` resolves to `flashinfer_cutedsl`.' },
      { arch: 'sm90', note: 'From v0.5.13, `auto` uses `marlin` on SM 8.0 to 9.x: weights stay FP4, the math does not (no FP4 tensor cores).' },
      { arch: 'sm80', note: 'From v0.5.13, `auto` uses `marlin` on SM 8.0 to 9.x: weights stay FP4, the math does not (no FP4 tensor cores).' },
    ],
  },
  '--bf16-gemm-backend': {
    summary: 'Kernels for unquantized BF16 linear layers (v0.5.15+).',
    when: 'Set `torch` (cuBLAS, v0.5.17+) to rule out the CuTe DSL kernel when a BF16 model misbehaves on Blackwell.',
    gpus: [{ arch: 'sm100', note: '`auto` uses `cutedsl` on SM 10.x (cuBLAS under deterministic inference); other GPUs get cuBLAS.' }],
  },

  // ── Weights and precision ────────────────────────────────────────────────────────────────────
  '--quantization': {
    summary: 'Names the weight quantization method instead of reading it from the checkpoint.',
    when: 'Usually leave it unset and let the model config decide. Set it for online quantization (e.g. `fp8` on a BF16 model) or to force a method.',
    gpus: [
      { arch: 'sm80', note: 'SM 8.0 to 8.8 have no FP8 tensor cores: FP8 layers run weight-only through Marlin.' },
      { arch: 'sm90', note: 'No native FP4 math: from v0.5.13 NVFP4 (`modelopt_fp4`) dense layers run through Marlin.' },
      { arch: 'sm100', note: '`nvfp4_online` (v0.5.14+) needs SM 10.x; in v0.5.18 its MoE must run on a FlashInfer TRTLLM or CuteDSL runner.' },
    ],
  },
  '--kv-cache-dtype': {
    summary: 'Storage type of the KV cache; `auto` follows the model dtype.',
    when: 'FP8/FP4 KV saves memory but often causes gibberish or accuracy loss. Go back to `auto`, or `bf16` (v0.5.4+), first when output degrades.',
    gpus: [
      { arch: 'sm90', note: 'FA3 with `fp8_e4m3` gave repeated-word garbage on H100 in field reports. With `fp8_e5m2`, FA3 is swapped for `triton`.' },
      { arch: 'sm90', note: 'v0.5.18 refuses `mxfp8` and `nvfp4` KV caches here: both need Blackwell.' },
      { arch: 'sm100', note: '`trtllm_mla` takes only `fp8_e4m3`, `fp4_e2m1`, `bf16` or `auto`. GLM-5.1-FP8 lost accuracy with `fp8_e4m3` on B300.' },
      { arch: 'sm120', note: 'FP8 KV with FlashInfer attention and CUDA graphs gave random text on an RTX PRO 6000 (vLLM report); bf16 KV is the safe start.' },
    ],
  },
  '--quantization-param-path': {
    summary: 'JSON file with the scaling factors for an FP8 KV cache.',
    when: 'Without it the FP8 KV scales are 1.0, which can hurt accuracy. Pass the scales when the model provides them and the KV cache is FP8.',
  },
  '--dtype': {
    summary: 'Dtype of weights and activations: auto, half/float16, bfloat16, float/float32.',
    when: 'Keep `auto` normally. Try `bfloat16` when an FP16 run overflows into NaN/Inf; AWQ kernels usually want `half`.',
  },
  '--mamba-ssm-dtype': {
    summary: 'Dtype of the SSM state cache in Mamba/linear-attention hybrid models (v0.5.2+).',
    when: 'Unset, it comes from the model config. `float32` is the safe pick when low precision is suspected; `bfloat16`, or `float16` from v0.5.9, saves memory.',
  },
  '--mamba-backend': {
    summary: 'Kernels for Mamba SSM operations: `triton` (default) or `flashinfer` (v0.5.9+).',
    when: 'Switch when a hybrid SSM model fails or is slow with one of them.',
  },
  '--load-format': {
    summary: 'How the weights are read: safetensors, pt, gguf, bitsandbytes, dummy, and more.',
    when: 'Leave `auto` normally. `dummy` loads random weights for kernel and speed tests; its output is meaningless by design.',
  },
  '--json-model-override-args': {
    summary: 'JSON object whose fields override the model config at load time.',
    when: 'Fixes a config (rope scaling, architecture name) without editing files. A wrong override can break output silently: check it first.',
  },

  // ── CUDA graphs and compilation ──────────────────────────────────────────────────────────────
  '--cuda-graph-max-bs-decode': {
    summary: 'Largest decode batch size captured as a CUDA graph.',
    when: 'Lower it to save memory or start faster; raise it when big batches fall back to eager decode. Named --cuda-graph-max-bs before v0.5.14 (still accepted).',
  },
  '--cuda-graph-bs-decode': {
    summary: 'Exact list of decode batch sizes to capture as CUDA graphs.',
    when: 'Capture only the sizes you serve, or leave out one suspected of a bad capture. Named --cuda-graph-bs before v0.5.14 (old name still accepted).',
  },
  '--cuda-graph-backend-decode': {
    summary: 'CUDA graph mode for decode: full, breakable, tc_piecewise or disabled (v0.5.14+).',
    when: '`disabled` is the current way to test whether graph capture causes wrong output or crashes in decode.',
  },
  '--cuda-graph-backend-prefill': {
    summary: 'CUDA graph mode for prefill: full, breakable, tc_piecewise or disabled (v0.5.14+).',
    when: '`disabled` rules out prefill graphs. It replaces the piecewise CUDA graph flags of older releases.',
  },
  '--disable-cuda-graph': {
    summary: 'Runs every step eagerly, with no CUDA graph replay.',
    when: 'A key test: if garbage or crashes vanish, the bug is in graph capture or padding. Slower. From v0.5.14 it maps to the backend flags set to disabled.',
  },
  '--disable-cuda-graph-padding': {
    summary: 'Uses a CUDA graph only when the batch size was captured exactly, never padded.',
    when: 'Try it when corruption shows up only at some batch sizes or under load, before turning CUDA graphs off completely.',
  },
  '--enable-torch-compile': {
    summary: 'Compiles the model with torch.compile for batches up to --torch-compile-max-bs.',
    when: 'Experimental; adds start-up time. Turn it off first when a compiled run gives different or broken output.',
  },
  '--torch-compile-max-bs': {
    summary: 'Largest batch size that uses the torch.compile graph (default 32).',
    when: 'Raise it only together with --enable-torch-compile when larger batches matter; each size adds compile time.',
  },

  // ── Memory and scheduling ────────────────────────────────────────────────────────────────────
  '--mem-fraction-static': {
    summary: 'Share of GPU memory reserved for the weights plus the KV cache pool.',
    when: 'Lower it by about 0.05 on OOM at start-up or during CUDA graph capture; raise it for more KV cache when memory sits idle.',
    gpus: [{ arch: 'rocm', note: 'With `aiter` attention and a context over 8192 tokens, v0.5.18 multiplies it by 0.85.' }],
  },
  '--max-running-requests': {
    summary: 'Cap on the number of requests decoded at the same time.',
    when: 'Lower it to bound memory and latency, or to avoid a bug that only appears at large batch sizes.',
  },
  '--max-total-tokens': {
    summary: 'Fixes the KV pool size in tokens instead of deriving it from free memory.',
    when: 'Mostly for testing: a small pool reproduces eviction and retraction problems, or shares a GPU predictably.',
  },
  '--chunked-prefill-size': {
    summary: 'Largest number of prompt tokens handled in one prefill chunk; -1 disables chunking.',
    when: 'Lower it when long prompts run out of memory in prefill; raise it for faster long prompts. DP attention divides it by --dp-size.',
  },
  '--page-size': {
    summary: 'Number of tokens per KV cache page.',
    when: 'Usually chosen for you: several kernels need one fixed size and the server replaces your value with a warning.',
    gpus: [
      { arch: 'sm100', note: '`trtllm_mla` and `cutedsl_mla` use 32 or 64, `cutlass_mla` 128, and `fa4` 128 for non-MLA models.' },
      { arch: 'any', note: '`flashmla` forces 64; `trtllm_mha` accepts 16, 32, 64 or 128 (v0.5.18).' },
    ],
  },
  '--disable-radix-cache': {
    summary: 'Turns off prefix caching, the radix tree that reuses KV across requests.',
    when: 'Use it to check whether cache reuse causes wrong answers on repeated prompts, or for benchmarks that must recompute every prompt.',
  },
  '--enable-mixed-chunk': {
    summary: 'Lets a chunked-prefill batch carry decode tokens as well.',
    when: 'Can smooth latency under mixed load. Leave it off while hunting wrong output that only appears under load.',
  },
  '--disable-overlap-schedule': {
    summary: 'Stops the scheduler from preparing the next batch while the GPU runs the current one.',
    when: 'A standard race test: if wrong tokens disappear with it, suspect the overlap scheduler. Costs some throughput.',
  },
  '--enable-two-batch-overlap': {
    summary: 'Splits each batch into two micro-batches so communication hides behind compute.',
    when: 'For expert-parallel MoE deployments. v0.5.18 requires an all-to-all backend or DP attention alongside it.',
  },
  '--enable-hierarchical-cache': {
    summary: 'Adds a host-memory tier (and optional storage) below the GPU KV cache.',
    when: 'Helps when many long prefixes are reused. Turn it off to rule it out when cached prompts come back wrong.',
  },
  '--hicache-ratio': {
    summary: 'Host KV pool size as a multiple of the GPU KV pool.',
    when: 'Raise it to keep more prefixes in host memory; mind the host RAM. --hicache-size overrides it.',
  },
  '--hicache-size': {
    summary: 'Host KV pool size in gigabytes; overrides --hicache-ratio.',
    when: 'Use a fixed size when several servers share one host, so they cannot claim more RAM than there is.',
  },
  '--hicache-write-policy': {
    summary: 'When KV pages get copied to host memory: write-through, write-back or selective.',
    when: 'Default `write_through` copies every new page; the other two copy less often. Go back to the default when host-tier hits look wrong.',
  },
  '--hicache-io-backend': {
    summary: 'How KV moves between GPU and host: `kernel` (default) or `direct`.',
    when: 'Switch to `direct` to rule out the custom copy kernels when the hierarchical cache misbehaves.',
  },
  '--hicache-storage-backend': {
    summary: 'Optional storage tier below host memory: file, mooncake, hf3fs, nixl, and others.',
    when: 'Set it to share or persist KV prefixes across servers; leave it unset for a GPU plus host cache only.',
  },

  // ── Parallelism and communication ────────────────────────────────────────────────────────────
  '--tp-size': {
    summary: 'Number of GPUs that split every layer (tensor parallelism).',
    when: "Usually has to divide the model's attention head count. On PCIe-only machines every layer pays an all-reduce; compare with --pp-size or --dp-size.",
  },
  '--dp-size': {
    summary: 'Number of data-parallel replicas behind one server.',
    when: 'Raise it for throughput when one copy fits on fewer GPUs. With --enable-dp-attention it splits attention only, and --tp-size must be a multiple of it.',
  },
  '--ep-size': {
    summary: 'Number of GPUs that split the experts of MoE layers (expert parallelism).',
    when: 'Set it equal to --tp-size to spread whole experts instead of slicing each one; all-to-all backends such as `deepep` need it above 1.',
  },
  '--pp-size': {
    summary: 'Number of pipeline stages, each holding a slice of the layers.',
    when: 'Helps across nodes or on PCIe-only GPUs where TP all-reduces are costly; adds latency to each request.',
  },
  '--enable-dp-attention': {
    summary: 'Runs attention data-parallel while the MLP/MoE part stays tensor-parallel.',
    when: 'For MoE models such as DeepSeek or Qwen MoE at high batch; avoids duplicating KV across TP ranks. Needs --dp-size above 1.',
  },
  '--disable-custom-all-reduce': {
    summary: "Uses NCCL instead of SGLang's own all-reduce kernel for tensor parallelism.",
    when: 'Try it when multi-GPU start-up or the first request hangs, or output is wrong only with TP above 1. NCCL is slower at small sizes.',
    gpus: [{ arch: 'sm80', note: 'An early report of TP timeouts on A800 nodes went away with this flag.' }],
  },
  '--enable-symm-mem': {
    summary: 'Uses NCCL symmetric memory for faster collectives (v0.4.10.post2+).',
    when: 'Optional speed-up. Turn it off first when collectives hang or crash after enabling it.',
  },
  '--enable-torch-symm-mem': {
    summary: 'All-reduce through PyTorch symmetric memory, with NCCL as fallback (v0.5.3+).',
    when: 'Optional speed-up for single-node TP on recent GPUs; only some world sizes are supported.',
    gpus: [
      { arch: 'sm90', note: 'Only with 4, 6 or 8 GPUs.' },
      { arch: 'sm100', note: 'Only with 6 or 8 GPUs.' },
      { arch: 'sm80', note: 'Not supported below SM 9.0.' },
    ],
  },

  // ── Speculative decoding ─────────────────────────────────────────────────────────────────────
  '--speculative-algorithm': {
    summary: 'Turns on speculative decoding and picks the method: EAGLE, EAGLE3, NEXTN, NGRAM, ...',
    when: 'Remove it first when answers differ from a plain run: the output should not change, so a difference points at a draft or verify bug.',
  },
  '--speculative-draft-model-path': {
    summary: 'Weights of the draft model used by speculative decoding.',
    when: 'Must match the target model family and tokenizer. A poor draft lowers acceptance; it should never change the output.',
  },
  '--speculative-num-steps': {
    summary: 'Number of draft steps before each verification.',
    when: 'More steps pay off when drafts are accepted often; lower it when acceptance is poor.',
  },
  '--speculative-eagle-topk': {
    summary: 'Candidates kept per draft step, i.e. how wide the EAGLE draft tree branches.',
    when: '1 keeps a simple chain. Above 1 the kernel defaults change (Hopper no longer picks `fa3` for MHA models) and some page sizes are refused.',
  },
  '--speculative-num-draft-tokens': {
    summary: 'Number of draft tokens sent to the target model for verification each round.',
    when: 'Tune it together with --speculative-num-steps and --speculative-eagle-topk; more tokens cost more verify compute.',
  },

  // ── LoRA and disaggregation ──────────────────────────────────────────────────────────────────
  '--lora-backend': {
    summary: 'Kernels for serving several LoRA adapters at once.',
    when: 'Recent releases default to `csgmv` (`triton` earlier). Switch to `triton` when adapter output looks wrong.',
  },
  '--disaggregation-mode': {
    summary: 'Role in prefill/decode disaggregation: `null` (off), `prefill` or `decode`.',
    when: 'Set it only when separate prefill and decode servers are joined by a KV transfer backend and a router.',
  },
  '--disaggregation-transfer-backend': {
    summary: 'Library that moves the KV cache from prefill servers to decode servers.',
    when: 'Default `mooncake`. Pick `nixl`, `mori` or `mooncake_tcp` (v0.5.13+) to match what is installed and your network.',
  },

  // ── Model, API and reproducibility ───────────────────────────────────────────────────────────
  '--model-path': {
    summary: 'Local folder or Hugging Face repo id of the model weights.',
    when: 'The checkpoint decides most defaults (dtype, quantization, attention type), so name it first when comparing servers.',
  },
  '--served-model-name': {
    summary: 'Model name the OpenAI-style API reports in /v1/models and in responses.',
    when: 'Set it so clients see a stable name while the path behind it changes.',
  },
  '--trust-remote-code': {
    summary: 'Allows running the Python modeling code shipped inside a model repo.',
    when: 'Needed for models with custom architectures. Use it only for repositories you trust.',
  },
  '--context-length': {
    summary: 'Maximum tokens per sequence, prompt and output together.',
    when: 'Lower it to save KV memory. Going past the model config needs SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 and can hurt quality.',
  },
  '--random-seed': {
    summary: 'Seed for the random generators of the server.',
    when: 'Fix it when comparing runs; identical output across batches also needs --enable-deterministic-inference.',
  },
  '--enable-deterministic-inference': {
    summary: 'Uses batch-invariant kernels so one request always gives the same output (v0.5.3+).',
    when: 'For RL and debugging. Attention is limited to fa3, fa4, flashinfer or triton; sampling becomes `pytorch`; expect lower speed.',
    gpus: [
      { arch: 'sm90', note: 'Unset, attention falls back to `fa3`.' },
      { arch: 'sm100', note: 'Unset, attention falls back to `flashinfer` (`triton` for DeepSeek-family models).' },
      { arch: 'sm120', note: 'Unset, attention falls back to `flashinfer` (`triton` for DeepSeek-family models).' },
      { arch: 'any', note: 'The radix cache stays on only with fa3, fa4 or triton attention.' },
    ],
  },
  '--enable-nan-detection': {
    summary: 'Old switch that checked the logits for NaN while sampling (v0.3.6 to v0.5.12.post1).',
    when: 'In v0.4.x it logged the NaN and replaced it, so clients saw no marker. Deprecated from v0.5.10, removed in v0.5.13.',
  },
  '--disable-nan-detection': {
    summary: 'Old switch that turned off the NaN check, on by default then (v0.3.4 to v0.4.0.post1).',
    when: 'Only on old servers. Keep the check on while hunting NaN output.',
  },
  '--tool-call-parser': {
    summary: 'Parser that turns model text into OpenAI `tool_calls`.',
    when: 'Must match the model family; `auto` (v0.5.12+) reads it from the chat template. Tool-call answers lose the "NaN happened" stop marker.',
  },
  '--reasoning-parser': {
    summary: 'Moves the thinking part of the answer into `reasoning_content`.',
    when: 'Set it for reasoning models; without it the thinking stays in `content`. `auto` exists from v0.5.12.',
  },
} satisfies Record<string, BundledFlagHelp>);

/**
 * Old or alternative flag names that share an entry.
 *
 * `--fp4-gemm-runner-backend` / `--fp8-gemm-runner-backend` were never flags in a release
 * (every release from v0.5.6.post2 / v0.5.8 spells them `--fp8-gemm-backend` / `--fp4-gemm-backend`);
 * they are the dataclass fields (`fp4_gemm_runner_backend`, the /server_info key) written with
 * dashes, which people paste into launch commands.
 */
export const BUNDLED_HELP_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  '--fp4-gemm-runner-backend': '--fp4-gemm-backend',
  '--fp8-gemm-runner-backend': '--fp8-gemm-backend',
  '--nsa-prefill-backend': '--dsa-prefill-backend',
  '--nsa-decode-backend': '--dsa-decode-backend',
  '--cuda-graph-max-bs': '--cuda-graph-max-bs-decode',
  '--cuda-graph-bs': '--cuda-graph-bs-decode',
  // `--tp` and `--dp` work through argparse's prefix matching (unique prefixes of the long names).
  '--tp': '--tp-size',
  '--tensor-parallel-size': '--tp-size',
  '--dp': '--dp-size',
  '--data-parallel-size': '--dp-size',
  '--ep': '--ep-size',
  '--expert-parallel-size': '--ep-size',
  '--pipeline-parallel-size': '--pp-size',
  '--model': '--model-path',
});

/** `--x=v`, `x`, `x_y` (a field name) → `--x-y`. */
function normalizeFlag(flag: string): string {
  let f = flag.trim();
  const eq = f.indexOf('=');
  if (eq >= 0) f = f.slice(0, eq);
  f = f.replace(/^-+/, '').replace(/_/g, '-').toLowerCase();
  return `--${f}`;
}

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

export function bundledHelpFor(flag: string): BundledFlagHelp | undefined {
  const f = normalizeFlag(flag);
  if (own(BUNDLED_FLAG_HELP, f)) return BUNDLED_FLAG_HELP[f];
  const target = own(BUNDLED_HELP_ALIASES, f) ? BUNDLED_HELP_ALIASES[f] : undefined;
  return target !== undefined && own(BUNDLED_FLAG_HELP, target) ? BUNDLED_FLAG_HELP[target] : undefined;
}

/** The arch a compute capability (12.0, 8.9, 10.3) belongs to; undefined for ones we have no notes for. */
export function bundledArchOf(computeCapability: number): BundledGpuArch | undefined {
  if (!Number.isFinite(computeCapability)) return undefined;
  const cc = Math.round(computeCapability * 10);
  if (cc === 89) return 'sm89';
  if (cc >= 80 && cc < 90) return 'sm80';
  if (cc >= 90 && cc < 100) return 'sm90';
  if (cc >= 100 && cc < 110) return 'sm100';
  if (cc >= 120 && cc < 130) return 'sm120';
  return undefined;
}

export const BUNDLED_ARCH_LABELS: Readonly<Record<BundledGpuArch, string>> = Object.freeze({
  sm80: 'Ampere (SM 8.0/8.6)',
  sm89: 'Ada (SM 8.9)',
  sm90: 'Hopper (SM 9.0)',
  sm100: 'Blackwell datacenter (SM 10.x: B200, GB200, B300)',
  sm120: 'Blackwell RTX (SM 12.x: RTX PRO 6000, RTX 5090)',
  rocm: 'AMD ROCm',
  any: 'Any GPU',
});

/** Escape Markdown outside `code spans`, so our text renders as written and never as HTML or links. */
function mdText(s: string): string {
  return s
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/[\\*_[\]<>#|!]/g, (c) => `\\${c}`).replace(/&/g, '&amp;')))
    .join('');
}

/**
 * Markdown for a hover: summary, when, GPU notes (the GPU matching computeCapability first when
 * given; with `onlyThisGpu`, other GPUs' notes are left out when that GPU has any). `summary: false`
 * leaves the summary out, for a hover that shows it elsewhere.
 */
export function bundledHelpMarkdown(flag: string, computeCapability?: number, options: { summary?: boolean; onlyThisGpu?: boolean } = {}): string | undefined {
  const help = bundledHelpFor(flag);
  if (!help) return undefined;
  const out: string[] = options.summary === false ? [] : [mdText(help.summary)];
  if (help.when) out.push(`**When to change it:** ${mdText(help.when)}`);
  const here = computeCapability === undefined ? undefined : bundledArchOf(computeCapability);
  const all = help.gpus ?? [];
  const notes = options.onlyThisGpu && here && all.some((n) => n.arch === here) ? all.filter((n) => n.arch === here || n.arch === 'any') : all;
  if (notes.length) {
    const mine = computeCapability === undefined ? undefined : bundledArchOf(computeCapability);
    const rank = (arch: BundledGpuArch): number => (mine !== undefined && arch === mine ? 0 : arch === 'any' ? 1 : 2);
    const sorted = notes.map((n, i) => ({ n, i })).sort((a, b) => rank(a.n.arch) - rank(b.n.arch) || a.i - b.i);
    const lines = sorted.map(({ n }) => {
      const label = BUNDLED_ARCH_LABELS[n.arch];
      const here = mine !== undefined && n.arch === mine ? ' (this GPU)' : '';
      return `- **${mdText(label)}${here}:** ${mdText(n.note)}`;
    });
    out.push(lines.join('\n'));
  }
  return out.join('\n\n');
}
