/**
 * Evidence from a vLLM server log, line by line with bounded memory, like fromSglangLog.
 *
 * Line shapes (from public vLLM issue threads; fixtures are our own lines in these shapes):
 *   (APIServer pid=5385) INFO 11-03 05:51:44 [api_server.py:1839] vLLM API server version 0.11.0
 *   INFO 11-03 05:51:44 [utils.py:233] non-default args: {'model': '…', 'tensor_parallel_size': 2, …}
 *   INFO 02-14 03:50:41 api_server.py:529] args: Namespace(model='…', kv_cache_dtype='fp8', …)   (≤ 0.6)
 *   Initializing a V1 LLM engine (v0.8.4) with config: model='…', dtype=torch.bfloat16, quantization=compressed-tensors,
 *       enforce_eager=False, kv_cache_dtype=auto, …, compilation_config={"level":3,…,"cudagraph_mode":1,…}
 *   Using AttentionBackendEnum.FLASHINFER backend.
 *   Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER', …].
 *   Using backend AttentionBackendEnum.FLASH_ATTN for vit attention        (multimodal encoder, not the LM)
 *   Using 'FLASHINFER_CUTLASS' NvFp4 MoE backend out of potential backends: […]
 *   Selected FlashInferFP8ScaledMMLinearKernel for ModelOptFp8LinearMethod
 *   Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|…| 11/11
 *   Graph capturing finished in 8 secs, took 0.31 GiB
 *   WARNING … [fp8.py:52] Detected fp8 checkpoint. Please note that the format is experimental …
 *   Your device 'Tesla T4' (with compute capability 7.5) doesn't support torch.bfloat16.
 */
import type { Evidence, FlagValue } from './evidence';
import { type LineSource } from './lines';
import { LogReaderBase, readAll, type LogReadOptions } from './logScan';
import { normalizeQuantization } from './modelHints';
import { parsePyKwargs, parsePyRepr } from './pyrepr';

/** vLLM V0 backend names → the AttentionBackendEnum names V1 logs. */
const OLD_BACKEND: Record<string, string> = {
  flashinfer: 'FLASHINFER',
  'flash attention': 'FLASH_ATTN',
  xformers: 'XFORMERS',
  'torch sdpa': 'TORCH_SDPA',
  rocmflashattention: 'ROCM_FLASH',
  triton: 'TRITON_ATTN',
  'triton mla': 'TRITON_MLA',
  flashmla: 'FLASHMLA',
  'cutlass mla': 'CUTLASS_MLA',
  pallas: 'PALLAS',
};

/** A backend vLLM chose, as its log line says it: the evidence field it resolves, and the quantization it implies. */
export interface VllmBackendChoice {
  /** `attention_backend`, `moe_backend`, `mla_prefill_backend`, `mm_encoder_attn_backend`, `nvfp4_gemm_backend`, `linear_kernel.<method>`. */
  field: string;
  value: string;
  quantization?: string;
}

/**
 * The backend-selection line of a vLLM log (attention, MoE, MLA prefill, the multimodal encoder's
 * attention, NVFP4 GEMM, linear kernels), else undefined. Shared by the diagnosis log reader and
 * the Hosts view's log follower, which picks these lines out.
 */
export function readVllmBackendLine(line: string): VllmBackendChoice | undefined {
  if (!/Using|Selected /.test(line)) return undefined;
  const moe = /Using '?(\w+)'? (\w+) MoE backend/.exec(line);
  if (moe) return { field: 'moe_backend', value: moe[1], ...(/^(?:nvfp4|mxfp4|fp8)$/i.test(moe[2]) ? { quantization: moe[2] } : {}) };
  const mlaPrefill = /Using (\w+) MLA prefill backend/.exec(line);
  if (mlaPrefill) return { field: 'mla_prefill_backend', value: mlaPrefill[1] };
  const mm = /Using (?:backend )?AttentionBackendEnum\.(\w+) for /.exec(line);
  if (mm) return { field: 'mm_encoder_attn_backend', value: mm[1] };
  const en = /Using AttentionBackendEnum\.(\w+) backend/.exec(line);
  if (en) return { field: 'attention_backend', value: en[1] };
  const pot = /Using (\w+) attention backend out of potential backends/.exec(line);
  if (pot) return { field: 'attention_backend', value: pot[1] };
  const fp4 = /Using (\w+) for NVFP4 GEMM/.exec(line);
  if (fp4) return { field: 'nvfp4_gemm_backend', value: fp4[1], quantization: 'nvfp4' };
  const sel = /\bSelected (\w+) for (\w+)/.exec(line);
  if (sel) return { field: `linear_kernel.${sel[2]}`, value: sel[1] };
  const old = /Using (FlashInfer|Flash Attention|XFormers|Torch SDPA|ROCmFlashAttention|Triton MLA|Triton|FlashMLA|CUTLASS MLA|Pallas) backend/i.exec(line);
  const name = old && OLD_BACKEND[old[1].toLowerCase()];
  return name ? { field: 'attention_backend', value: name } : undefined;
}

/** vLLM CUDAGraphMode values as numbers or pairs in a JSON dump. */
function cudagraphModeText(v: FlagValue | undefined): string | undefined {
  const names = ['NONE', 'PIECEWISE', 'FULL'];
  if (typeof v === 'number') return names[v];
  if (Array.isArray(v) && v.length === 2 && v[0] === 2) return v[1] === 1 ? 'FULL_AND_PIECEWISE' : v[1] === 0 ? 'FULL_DECODE_ONLY' : undefined;
  if (typeof v === 'string') return v.replace(/^CUDAGraphMode\./, '') || undefined;
  return undefined;
}

const own = (o: Record<string, FlagValue>, k: string): FlagValue | undefined => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);

export class VllmLogReader extends LogReaderBase {
  /** Graph modes seen in "Capturing CUDA graphs (…, MODE)" bars: written as one fact at the end. */
  private readonly captured = new Set<string>();
  private captureWhere?: string;

  protected readonly needles =
    /vllm api server version|with config:|non-default args:|args: namespace\(|using|selected |capturing cuda graph|graph capturing finished|cudagraph is disabled|checkpoint|with compute capability|resolved architecture:|gpu kv cache size:|starting vllm api server/i;

  constructor(options: LogReadOptions = {}) {
    super(options);
  }

  protected override isTraffic(line: string): boolean {
    return line.includes('Avg prompt throughput:') || super.isTraffic(line);
  }

  protected onLine(line: string, lower: string): void {
    if (lower.includes('vllm api server version')) {
      const m = /vLLM API server version\s+(\S+)/i.exec(line);
      if (m) this.putVersion('vllm', m[1]);
      this.putEngine('vllm', 'certain');
    }
    if (lower.includes('with config:')) return this.engineConfig(line);
    if (lower.includes('non-default args:')) {
      const at = line.indexOf('non-default args:') + 'non-default args:'.length;
      const r = parsePyRepr(line, at);
      if (r.value && typeof r.value === 'object' && !Array.isArray(r.value)) {
        const args = r.value;
        const c = r.truncated ? 'likely' : 'certain';
        for (const k of Object.keys(args)) this.putWritten(k, args[k], c);
        this.derive(args, c, 'likely');
        this.putEngine('vllm', 'certain');
      }
      return;
    }
    if (lower.includes('args: namespace(')) {
      const at = line.indexOf('Namespace(');
      if (at >= 0) {
        const r = parsePyKwargs(line, at + 'Namespace'.length);
        const c = r.truncated ? 'likely' : 'certain';
        for (const k of Object.keys(r.args)) this.putWritten(k, r.args[k], c);
        this.derive(r.args, c, 'likely');
        this.putEngine('vllm', 'likely');
      }
      return;
    }
    if (lower.includes('using') || lower.includes('selected ')) this.usingLine(line, lower);
    if (lower.includes('capturing cuda graph')) {
      const m = /Capturing CUDA graphs? \(([^)]*)\)/i.exec(line);
      if (m) {
        const mode = /\b(PIECEWISE|FULL)\b/.exec(m[1])?.[1];
        const decodeOnly = /decode/i.test(m[1]) && !/mixed|prefill/i.test(m[1]);
        if (mode) this.captured.add(mode === 'FULL' && decodeOnly ? 'FULL_DECODE' : mode);
        this.captureWhere ??= this.where();
        this.putRuntime('cudaGraph', true);
      }
    }
    if (lower.includes('graph capturing finished')) this.putRuntime('cudaGraph', true);
    if (lower.includes('cudagraph is disabled under eager mode')) this.putRuntime('cudaGraph', false);
    if (lower.includes('checkpoint') && lower.includes('detected')) {
      const m = /Detected ([\w-]+(?: [\w-]+)?) checkpoint/i.exec(line);
      const q = m && normalizeQuantization(m[1].replace(/^modelopt /i, 'modelopt_').replace(/ /g, '_'));
      if (q) this.putModel('quantization', q, 'likely');
    }
    if (lower.includes('with compute capability')) {
      const m = /Your device '([^']+)' \(with compute capability (\d+\.\d+)\)/.exec(line);
      if (m) this.putGpuIdentity(m[1], m[2]);
    }
    if (lower.includes('resolved architecture:')) {
      const m = /Resolved architecture:\s*([A-Za-z_]\w*)/.exec(line);
      if (m) this.putArchitecture(m[1]);
    }
    if (lower.includes('gpu kv cache size:')) {
      const m = /GPU KV cache size:\s*([\d,]+)\s*tokens/.exec(line);
      if (m) this.putRuntime('kvCacheTokens', Number(m[1].replace(/,/g, '')));
    }
    if (lower.includes('starting vllm api server')) this.putEngine('vllm', 'certain');
  }

  private usingLine(line: string, lower: string): void {
    const chosen = readVllmBackendLine(line);
    if (chosen) {
      this.putResolved(chosen.field, chosen.value);
      if (chosen.quantization) this.putQuantization(chosen.quantization, 'likely');
      return;
    }
    const fa = /Using FlashAttention version (\d+)/.exec(line);
    if (fa) return this.putResolved('flash_attn_version', Number(fa[1]));
    if (lower.includes('data type to store kv cache')) {
      const m = /Using (\w+) data type to store kv cache/i.exec(line);
      if (m) return this.putModel('kvCacheDtype', m[1]);
    }
  }

  private engineConfig(line: string): void {
    const ver = /LLM engine \(v([\w.+-]+)\)/.exec(line);
    if (ver) this.putVersion('vllm', ver[1]);
    this.putEngine('vllm', 'certain');
    const at = line.indexOf('with config:') + 'with config:'.length;
    const r = parsePyKwargs(line, at);
    const c = r.truncated ? 'likely' : 'certain';
    const args = r.args;
    for (const k of Object.keys(args)) if (k !== 'compilation_config') this.putResolved(k, args[k], c);
    this.derive(args, c, 'likely');
    if (own(args, 'enforce_eager') === true) this.putRuntime('cudaGraph', false, c);
    const cc = own(args, 'compilation_config');
    if (cc && typeof cc === 'object' && !Array.isArray(cc)) {
      this.putResolved('compilation_config', cc, c);
      const level = own(cc, 'mode') ?? own(cc, 'level');
      if (typeof level === 'string' || typeof level === 'number') this.putRuntime('compileMode', String(level).replace(/^CompilationMode\./, ''), c);
      const mode = cudagraphModeText(own(cc, 'cudagraph_mode'));
      if (mode) this.putRuntime('cudagraphMode', mode, c);
    }
  }

  override result(): Evidence {
    if (this.captured.size) {
      const full = this.captured.has('FULL') || this.captured.has('FULL_DECODE');
      const piece = this.captured.has('PIECEWISE');
      const mode = full && piece ? 'FULL_AND_PIECEWISE' : piece ? 'PIECEWISE' : this.captured.has('FULL') ? 'FULL' : 'FULL_DECODE_ONLY';
      if (!this.ev.runtime.cudagraphMode) this.ev.runtime.cudagraphMode = { value: mode, source: 'log', certainty: 'certain', where: this.captureWhere };
    }
    return this.ev;
  }
}

/** Evidence from a vLLM log given line by line. */
export async function fromVllmLog(lines: LineSource | string, options: LogReadOptions = {}): Promise<Evidence> {
  return readAll(new VllmLogReader(options), lines);
}
