/**
 * Evidence from an SGLang server log, read line by line with bounded memory (a 50 MB log is never
 * held whole): the `server_args=ServerArgs(…)` dump (resolved values), the lines where SGLang says
 * which backend it picked, the KV cache and weight dtypes, CUDA graph capture, loader warnings
 * about parameters it dropped, crash signatures and versions it prints.
 *
 * Line shapes (written from public issue threads; the fixtures are our own lines in these shapes):
 *   [2025-07-09 11:52:19] server_args=ServerArgs(model_path='…', tp_size=1, …)
 *   [2026-02-16 14:02:09] INFO server_args.py:1832: Attention backend not specified. Use fa3 backend by default.
 *   [2025-07-16 05:13:20] Attention backend not set. Use flashinfer backend by default.
 *   Use flashinfer_trtllm as MoE runner backend on sm100 for DeepseekV3ForCausalLM
 *   [2025-11-04 05:27:13 DP0 TP0 EP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=…
 *   [2026-03-11 13:53:23 TP0] KV Cache is allocated. #tokens: 383872, KV size: 19.36 GB  (MLA)
 *   KV Cache is allocated. #tokens: N, K size: a GB, V size: b GB[, dtype: torch.float8_e4m3fn]
 *   [2025-03-08 12:29:28 TP0] Capture cuda graph end. Time elapsed: 7.23 s. mem usage=0.93 GB. avail mem=0.53 GB.
 *   [2026-03-11 17:25:41] Parameter model.layers.0.mixer.out_proj.weight_scale not found in params_dict
 *   Decode batch. #running-req: 1, #token: …, cuda graph: True, gen throughput (token/s): …
 */
import { fieldFromFlag } from '../flags/types';
import { type LineSource } from './lines';
import { LogReaderBase, MAX_SCAN_CHARS, readAll, type LogReadOptions } from './logScan';
import { kvDtypeOfTorch, normalizeQuantization, torchDtypeName } from './modelHints';
import { parseServerArgsLine } from './pyrepr';
import { putSignature, type Evidence } from './evidence';

/** Backend words in SGLang's messages → dataclass field. */
const BACKEND_FIELD: Record<string, string> = {
  attention: 'attention_backend',
  'prefill attention': 'prefill_attention_backend',
  'decode attention': 'decode_attention_backend',
  'moe runner': 'moe_runner_backend',
  'moe a2a': 'moe_a2a_backend',
  'fp4 gemm': 'fp4_gemm_runner_backend',
  'fp4 gemm runner': 'fp4_gemm_runner_backend',
  'fp8 gemm': 'fp8_gemm_runner_backend',
  'fp8 gemm runner': 'fp8_gemm_runner_backend',
  sampling: 'sampling_backend',
  grammar: 'grammar_backend',
  mamba: 'mamba_backend',
  'linear attention': 'linear_attn_backend',
  'linear attn': 'linear_attn_backend',
  'linear attention decode': 'linear_attn_decode_backend',
  'linear attention prefill': 'linear_attn_prefill_backend',
  'mm attention': 'mm_attention_backend',
  'multimodal attention': 'mm_attention_backend',
  'draft attention': 'speculative_draft_attention_backend',
};

export function backendFieldOf(words: string): string | undefined {
  const w = words.trim().toLowerCase().replace(/\s+/g, ' ');
  if (!w || w.length > 40 || !/^[a-z0-9 ]+$/.test(w)) return undefined;
  return BACKEND_FIELD[w] ?? `${w.replace(/ /g, '_')}_backend`;
}

export class SglangLogReader extends LogReaderBase {
  private sawCudaGraphTrue = false;

  protected readonly needles =
    /serverargs\(|backend|kv cache|load weight end|graph end|not found in params_dict|checkpoint|fired up and ready|total capacity of|with cuda capability/i;

  constructor(options: LogReadOptions = {}) {
    super(options);
  }

  protected override isTraffic(line: string): boolean {
    return line.includes(' batch. #') || super.isTraffic(line);
  }

  protected override wants(line: string): boolean {
    return !this.sawCudaGraphTrue && line.includes('cuda graph: True');
  }

  protected onLine(line: string, lower: string): void {
    if (lower.includes('serverargs(')) {
      this.serverArgs(line);
      return;
    }
    const scan = line.length > MAX_SCAN_CHARS ? line.slice(0, MAX_SCAN_CHARS) : line;
    if (lower.includes('backend')) this.backendLine(scan, lower);
    if (lower.includes('kv cache')) this.kvCache(scan);
    if (lower.includes('load weight end')) {
      const m = /Load weight end\..*?\btype=([A-Za-z_]\w*)(?:,\s*dtype=(torch\.\w+))?/.exec(scan);
      if (m) {
        this.putArchitecture(m[1]);
        if (m[2]) this.putModel('dtype', torchDtypeName(m[2]));
      }
    }
    if (lower.includes('graph end')) {
      if (/Capture (?:cuda|npu|[\w ]*?CUDA) graph end/i.test(scan)) this.putRuntime('cudaGraph', true);
    } else if (!this.sawCudaGraphTrue && lower.includes('cuda graph: true')) {
      this.sawCudaGraphTrue = true;
      this.putRuntime('cudaGraph', true);
    }
    if (lower.includes('not found in params_dict')) {
      const m = /Parameter\s+(\S+?)\s+not found in params_dict/.exec(scan);
      if (m) {
        putSignature(this.ev, {
          kind: /scale/i.test(m[1]) ? 'dropped-scales' : 'dropped-params',
          count: 1,
          firstLine: this.lines,
          firstText: scan.length > 500 ? `${scan.slice(0, 500)}…` : scan,
          source: 'log',
          where: this.label,
        });
      }
    }
    if (lower.includes('checkpoint') && lower.includes('detected')) {
      const m = /Detected ([\w-]+(?: [\w-]+)?) checkpoint/i.exec(scan);
      const q = m && normalizeQuantization(m[1].replace(/^modelopt /i, 'modelopt_').replace(/ /g, '_'));
      if (q) this.putModel('quantization', q, 'likely');
    }
    if (lower.includes('fired up and ready to roll')) this.putEngine('sglang', 'certain');
    if (lower.includes('total capacity of')) {
      const m = /GPU \d+ has a total capacity of ([\d.]+) GiB/.exec(scan);
      if (m) this.putGpu('memoryMiB', Math.round(Number(m[1]) * 1024), 'likely');
    }
    if (lower.includes('with cuda capability sm_')) {
      const m = /(\S.*?) with CUDA capability sm_(\d+) is not compatible/i.exec(scan);
      if (m) this.putGpuIdentity(m[1].replace(/^.*?(?=NVIDIA|Tesla|Quadro)/, ''), m[2]);
    }
  }

  private serverArgs(line: string): void {
    const r = parseServerArgsLine(line);
    if (!r.found) return;
    this.putEngine('sglang', 'certain');
    const certainty = r.truncated ? 'likely' : 'certain';
    for (const k of Object.keys(r.args)) this.putResolved(k, r.args[k], certainty);
    this.derive(r.args, certainty, 'likely');
  }

  private backendLine(line: string, lower: string): void {
    // "Use flashinfer_trtllm as MoE runner backend on sm100 for …", "Use triton as attention backend …"
    const use = /\bUse '?([\w.-]+)'? as (?:the )?([A-Za-z0-9 ]{1,40}?) backend\b/.exec(line);
    if (use) {
      const field = backendFieldOf(use[2]);
      if (field) this.putResolved(field, use[1]);
    }
    // "Attention backend not explicitly specified. Use fa3 backend by default." / "… not set. Use flashinfer …"
    const def = /Attention backend not (?:explicitly )?(?:specified|set)\.?\s*(?:Use|Using|Falling back to)\s+'?([\w.-]+)'?/i.exec(line);
    if (def) this.putResolved('attention_backend', def[1]);
    // This project's simulator: "Attention backend not set explicitly: using triton on NVIDIA … (compute capability 12.0)."
    const sim = /([A-Za-z0-9 ]{1,40}?) backend not set explicitly: using ([\w.-]+) on (.+?) \(compute capability (\d+\.\d+)\)/.exec(line);
    if (sim) {
      const field = backendFieldOf(sim[1]);
      if (field) this.putResolved(field, sim[2]);
      this.putGpuIdentity(sim[3], sim[4]);
    }
    // "SM100+ detected …, defaulting --linear-attn-decode-backend to flashinfer."
    if (lower.includes('defaulting --')) {
      const m = /defaulting (--[\w-]+) to '?([\w.-]+)'?/i.exec(line);
      if (m) this.putResolved(fieldFromFlag(m[1]), m[2]);
    }
  }

  private kvCache(line: string): void {
    const m = /KV Cache is allocated\. #tokens: ([\d,]+)/.exec(line);
    if (m) {
      const n = Number(m[1].replace(/,/g, ''));
      if (Number.isFinite(n)) this.putRuntime('kvCacheTokens', n);
      const d = /dtype[:=]\s*(torch\.\w+)/.exec(line);
      if (d) this.putModel('kvCacheDtype', kvDtypeOfTorch(d[1]));
      return;
    }
    const u = /Using KV cache dtype:\s*(torch\.\w+)/.exec(line);
    if (u) this.putModel('kvCacheDtype', kvDtypeOfTorch(u[1]));
  }
}

/** Evidence from an SGLang log given line by line (a readline interface, an array, a whole text). */
export async function fromSglangLog(lines: LineSource | string, options: LogReadOptions = {}): Promise<Evidence> {
  return readAll(new SglangLogReader(options), lines);
}
