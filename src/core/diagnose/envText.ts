/**
 * Evidence from the environment reports users paste into issues: SGLang's
 * `python -m sglang.check_env` and vLLM's `collect_env.py` (PyTorch's collect_env with vLLM
 * sections). Both are `Key: value` lines; vLLM's newer layout pads keys (`vLLM Version   : 0.8.5`)
 * and groups them under `=====` banners.
 *
 * check_env shapes (from sgl-project/sglang issues and PRs):
 *   Python: 3.12.12 (main, …) [GCC 11.4.0]
 *   GPU 0,1,2,3: NVIDIA GB300            GPU 0,1,2,3 Compute Capability: 10.3
 *   CUDA_HOME: /usr/local/cuda           NVCC: Cuda compilation tools, release 13.0, V13.0.88
 *   CUDA Driver Version: 580.82.07       PyTorch: 2.9.1+cu130
 *   sglang: 0.5.5.post3   sgl_kernel: 0.3.18.post2   flashinfer_python: 0.5.3   vllm: Module Not Found
 * collect_env shapes (from vllm-project/vllm issues):
 *   PyTorch version: 2.5.1+cu124          CUDA used to build PyTorch: 12.4
 *   CUDA runtime version: 12.1.105        GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090
 *   (or the GPUs on the following lines)  Nvidia driver version: 535.183.01
 *   vLLM Version: 0.7.1 / vLLM Version                 : 0.8.5.post1
 *   vLLM Build Flags: CUDA Archs: 8.0 9.0+PTX; ROCm: Disabled   (the shell's TORCH_CUDA_ARCH_LIST, read as that variable)
 *   [pip3] torch==2.7.0   [pip3] flashinfer-python==0.2.5
 */
import { emptyEvidence, fact, MAX_RECORD_KEYS, putFact, putSlot, type Certainty, type Evidence, type EvidenceSource, type VersionKey } from './evidence';
import { ccString, computeCapabilityOfName, gpuFamilyOf, isRocmName } from './gpuFamily';
import { forEachLineSync } from './lines';
import { versionAt, versionKeyOfPackage } from './logScan';
import { redactEnv } from './derive';
import { COLLECT_ENV_CUDA_ARCHS_NOTE } from '../discovery/report';

const MAX_TEXT = 4 * 1024 * 1024;
const MAX_LINE = 16 * 1024;

class EnvTextReader {
  readonly ev = emptyEvidence();
  lineNo = 0;
  private readonly gpuIds = new Set<string>();
  private gpuName?: string;
  private gpuCc?: string;

  constructor(
    readonly source: EvidenceSource,
    readonly label: string,
  ) {}

  where(): string {
    return `${this.label} line ${this.lineNo}`;
  }

  version(key: VersionKey, text: string, certainty: Certainty = 'certain'): void {
    if (/not found|not installed|could not collect|n\/a/i.test(text)) return;
    let v = versionAt(text);
    if (v && key === 'nvcc') v = /^\d+\.\d+/.exec(v)?.[0] ?? v;
    // `2.5.1` from a pip list beside `2.5.1+cu124` from torch itself: one version, not a conflict.
    const cur = this.ev.versions[key]?.value;
    if (v && cur && cur !== v && (cur.split('+')[0] === v || v.split('+')[0] === cur)) {
      if (v.length > cur.length) this.ev.versions[key] = fact(v, this.source, certainty, this.where());
      return;
    }
    if (v) putSlot(this.ev, this.ev.versions, key, fact(v, this.source, certainty, this.where()), `versions.${key}`);
  }

  /** `2.9.1+cu130` → torch 2.9.1+cu130 and, unless said elsewhere, CUDA 13.0. */
  torch(text: string): void {
    this.version('torch', text);
    const cu = /\+cu(\d{2,3})\b/.exec(text);
    if (cu) this.version('cuda', `${cu[1].slice(0, -1)}.${cu[1].slice(-1)}`, 'likely');
    const rocm = /\+rocm(\d+(?:\.\d+)+)/.exec(text);
    if (rocm) this.version('rocm', rocm[1], 'likely');
  }

  gpu(ids: string | undefined, name: string): void {
    const n = name.trim();
    if (!n || /could not collect/i.test(n)) return;
    for (const id of (ids ?? String(this.gpuIds.size)).split(',')) if (id.trim()) this.gpuIds.add(id.trim());
    putSlot(this.ev, this.ev.gpu, 'name', fact(n, this.source, 'certain', this.where()), 'gpu.name');
    this.gpuName ??= n;
  }

  cc(text: string): void {
    const c = ccString(text.trim());
    if (!c) return;
    putSlot(this.ev, this.ev.gpu, 'computeCapability', fact(c, this.source, 'certain', this.where()), 'gpu.computeCapability');
    this.gpuCc ??= c;
  }

  env(name: string, value: string, whereNote = ''): void {
    putFact(
      this.ev.env,
      name,
      fact(redactEnv(name, value), this.source, 'certain', `${this.where()}${whereNote}`),
      this.ev.conflicts,
      `env.${name}`,
      MAX_RECORD_KEYS,
    );
  }

  finish(): Evidence {
    if (this.gpuIds.size) putSlot(this.ev, this.ev.gpu, 'count', fact(this.gpuIds.size, this.source, 'certain', this.label), 'gpu.count');
    if (this.gpuName || this.gpuCc) {
      let cc = this.gpuCc;
      if (!cc && this.gpuName && !isRocmName(this.gpuName)) {
        cc = computeCapabilityOfName(this.gpuName);
        if (cc)
          putSlot(this.ev, this.ev.gpu, 'computeCapability', fact(cc, this.source, 'likely', `${this.label} (from the GPU name)`), 'gpu.computeCapability');
      }
      const family = gpuFamilyOf(this.gpuCc ?? cc, this.gpuName);
      putSlot(this.ev, this.ev.gpu, 'family', fact(family, this.source, this.gpuCc ? 'certain' : 'likely', this.label), 'gpu.family');
    }
    return this.ev;
  }
}

function eachLine(text: string, fn: (line: string) => void): void {
  if (typeof text !== 'string') return;
  forEachLineSync(text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text, (l) => fn(l.length > MAX_LINE ? l.slice(0, MAX_LINE) : l));
}

/** `Key: value` with the key's padding removed (collect_env's new layout pads keys). */
function keyValue(line: string): [string, string] | undefined {
  const m = /^\s*([^:]{1,80}?)\s*:\s?(.*)$/.exec(line);
  return m ? [m[1].trim(), m[2].trim()] : undefined;
}

const CHECK_ENV_PACKAGES: Record<string, VersionKey> = {
  sglang: 'sglang',
  sgl_kernel: 'sgl-kernel',
  'sgl-kernel': 'sgl-kernel',
  sglang_kernel: 'sgl-kernel',
  'sglang-kernel': 'sgl-kernel',
  flashinfer: 'flashinfer',
  flashinfer_python: 'flashinfer',
  'flashinfer-python': 'flashinfer',
  triton: 'triton',
  transformers: 'transformers',
  vllm: 'vllm',
  pytorch: 'torch',
  torch: 'torch',
};

/** Evidence from `python -m sglang.check_env` output. */
export function fromCheckEnv(text: string, options: { label?: string } = {}): Evidence {
  const r = new EnvTextReader('check-env', options.label ?? 'check_env');
  eachLine(text, (line) => {
    r.lineNo++;
    try {
      const gcc = /^\s*GPU ([\d,\s]+?) Compute Capability:\s*(\S+)/i.exec(line);
      if (gcc) return r.cc(gcc[2]);
      const g = /^\s*GPU ([\d,\s]+?):\s*(.+)$/.exec(line);
      if (g) return r.gpu(g[1].replace(/\s/g, ''), g[2]);
      const kv = keyValue(line);
      if (!kv) return;
      const [key, value] = kv;
      const k = key.toLowerCase();
      if (k === 'python') return r.version('python', value);
      if (k === 'nvcc' || k === 'hipcc') {
        const v = /release\s+(\d+\.\d+)/i.exec(value)?.[1] ?? /\bV?(\d+\.\d+)/.exec(value)?.[1];
        if (v) r.version('nvcc', v);
        return;
      }
      if (/^(?:cuda|nvidia|rocm) driver version$/.test(k)) return r.version('driver', value);
      if (/^cuda runtime(?: version)?$/.test(k)) return r.version('cuda', value);
      if (k === 'cuda version') return r.version('cuda-driver', value);
      if (k === 'pytorch' || k === 'torch') return r.torch(value);
      const pkg = CHECK_ENV_PACKAGES[k];
      if (pkg) return r.version(pkg, value);
    } catch {
      /* one odd line */
    }
    // "CUDA Runtime 13.0" (no colon)
    const rt = /^\s*CUDA Runtime\s+(\d+\.\d+)/i.exec(line);
    if (rt) r.version('cuda', rt[1]);
  });
  return r.finish();
}

/** Evidence from vLLM's `python collect_env.py` output (old and new layout). */
export function fromCollectEnv(text: string, options: { label?: string } = {}): Evidence {
  const r = new EnvTextReader('collect-env', options.label ?? 'collect_env');
  let inGpuList = false;
  let inEnvSection = false;
  eachLine(text, (line) => {
    r.lineNo++;
    try {
      if (/^\s*=+\s*$/.test(line)) return;
      const banner = /^\s{2,}([A-Za-z][\w /-]*?)\s*$/.exec(line);
      if (banner && !line.includes(':')) {
        inEnvSection = /environment variables/i.test(banner[1]);
        inGpuList = false;
        return;
      }
      if (inGpuList) {
        const g = /^\s*GPU (\d+):\s*(.+)$/.exec(line);
        if (g) return r.gpu(g[1], g[2]);
        if (line.trim() === '') return;
        inGpuList = false;
      }
      if (inEnvSection) {
        const e = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
        if (e) return r.env(e[1], e[2]);
      }
      const pip = /^\s*\[(?:pip3?|conda)\]\s+([A-Za-z][\w.-]*)(?:==|\s+)(\d[\w.+-]*)/.exec(line);
      if (pip) {
        const key = versionKeyOfPackage(pip[1]);
        if (key === 'torch') r.torch(pip[2]);
        else if (key) r.version(key, pip[2]);
        return;
      }
      const kv = keyValue(line);
      if (!kv) return;
      const [key, value] = kv;
      const k = key.toLowerCase();
      if (k === 'pytorch version') return r.torch(value);
      if (k === 'cuda used to build pytorch') return r.version('cuda', value);
      if (k === 'rocm used to build pytorch') return r.version('rocm', value);
      if (k === 'cuda runtime version') return r.version('nvcc', value);
      if (k === 'nvidia driver version') return r.version('driver', value);
      if (k === 'python version') return r.version('python', value);
      if (k === 'vllm version') return r.version('vllm', value);
      if (k === 'gpu models and configuration') {
        inGpuList = true;
        const g = /GPU (\d+):\s*(.+)$/.exec(value);
        if (g) r.gpu(g[1], g[2]);
        else if (value && !/could not collect/i.test(value)) r.gpu('0', value);
        return;
      }
      if (k === 'cuda archs') {
        // "CUDA Archs: 8.0 9.0 12.0+PTX; ROCm: Disabled" under "vLLM Build Flags:". collect_env prints
        // the TORCH_CUDA_ARCH_LIST of the shell that ran it there, not what vLLM was compiled for:
        // it is that variable, never kernel coverage (discovery reads the compiled targets).
        const archs = value.split(';')[0].trim();
        if (archs && !/not set/i.test(archs)) r.env('TORCH_CUDA_ARCH_LIST', archs, ` (${COLLECT_ENV_CUDA_ARCHS_NOTE})`);
      }
    } catch {
      /* one odd line */
    }
  });
  return r.finish();
}
