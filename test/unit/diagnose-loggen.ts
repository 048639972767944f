/**
 * A generated SGLang server log of a given size, written in 1 MB blocks (never held whole): a
 * start-up section, then request traffic (prefill/decode batch lines), with NaN detections,
 * dropped-scale warnings and CUDA errors sprinkled at known rates, so tests and the bench can
 * check exact counts. Shared by test/unit/diagnose-logs.test.ts and bench/diagnose.bench.ts.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

export interface GeneratedLog {
  bytes: number;
  lines: number;
  nan: number;
  droppedScales: number;
  illegalMemory: number;
  /** Line number of the first NaN detection. */
  firstNanLine: number;
}

const START = [
  '[2026-06-01 10:00:00] INFO server_args.py:2241: Attention backend not specified. Use trtllm_mla backend by default.',
  '[2026-06-01 10:00:00] INFO server_args.py:1408: Use flashinfer_trtllm as MoE runner backend on sm100 for DeepseekV3ForCausalLM',
  "[2026-06-01 10:00:01] server_args=ServerArgs(model_path='/models/DeepSeek-R1-0528-NVFP4', quantization='modelopt_fp4', kv_cache_dtype='fp8_e4m3', tp_size=8, attention_backend='trtllm_mla', moe_runner_backend='flashinfer_trtllm', disable_cuda_graph=False)",
  '[2026-06-01 10:01:30 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=120.02 GB, mem usage=59.71 GB.',
  '[2026-06-01 10:01:31 TP0] KV Cache is allocated. #tokens: 2201344, KV size: 68.40 GB',
  '[2026-06-01 10:02:02 TP0] Capture cuda graph end. Time elapsed: 30.50 s. mem usage=2.11 GB. avail mem=48.20 GB.',
  '[2026-06-01 10:02:05] The server is fired up and ready to roll!',
];

/** Writes the log to `path` until it reaches `targetBytes`. Deterministic. */
export function writeSglangLog(path: string, targetBytes: number): GeneratedLog {
  const fd = openSync(path, 'w');
  const out: GeneratedLog = { bytes: 0, lines: 0, nan: 0, droppedScales: 0, illegalMemory: 0, firstNanLine: 0 };
  let block: string[] = [];
  let blockBytes = 0;
  const flush = (): void => {
    if (!block.length) return;
    const text = `${block.join('\n')}\n`;
    writeSync(fd, text);
    block = [];
    blockBytes = 0;
  };
  const push = (line: string): void => {
    block.push(line);
    out.lines++;
    const n = line.length + 1; // ASCII only
    out.bytes += n;
    blockBytes += n;
    if (blockBytes >= 1 << 20) flush();
  };
  try {
    for (const l of START) push(l);
    let i = 0;
    while (out.bytes < targetBytes) {
      i++;
      const s = String(i % 60).padStart(2, '0');
      if (i % 5 === 0) {
        push(
          `[2026-06-01 10:${s}:${s} TP0] Prefill batch. #new-seq: 1, #new-token: ${(i * 7) % 4096}, #cached-token: ${(i * 3) % 512}, token usage: 0.0${i % 10}, #running-req: ${i % 32}, #queue-req: 0`,
        );
      } else {
        push(
          `[2026-06-01 10:${s}:${s} TP0] Decode batch. #running-req: ${i % 32}, #token: ${(i * 13) % 90000}, token usage: 0.0${i % 10}, cuda graph: True, gen throughput (token/s): ${(i % 900) + 100}.25, #queue-req: 0`,
        );
      }
      if (i % 10_007 === 0) {
        push(`[2026-06-01 10:${s}:${s} TP${i % 8}] Detected errors during sampling! NaN in the logits.`);
        out.nan++;
        if (!out.firstNanLine) out.firstNanLine = out.lines;
      }
      if (i % 50_021 === 0) {
        push(`[2026-06-01 10:${s}:${s} TP0] Parameter model.layers.${i % 61}.mlp.experts.w13_weight_scale_2 not found in params_dict`);
        out.droppedScales++;
      }
      if (i % 200_003 === 0) {
        push('RuntimeError: CUDA error: an illegal memory access was encountered');
        out.illegalMemory++;
      }
    }
    flush();
  } finally {
    closeSync(fd);
  }
  return out;
}
