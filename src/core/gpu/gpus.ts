/**
 * GPU facts: nvidia-smi / nvcc output parsing and "does this library have code for this GPU".
 *
 * Binary compatibility rules used by `compatibility()`:
 * - SASS `sm_XY` runs on GPUs of the same major version with minor >= Y (sm_80 runs on 8.6).
 * - SASS `sm_XYa` (arch-specific) runs only on exactly X.Y.
 * - SASS `sm_XYf` (family-specific) runs on the same major with minor >= Y.
 * - PTX `compute_XY` can be JIT-compiled by the driver for any GPU >= X.Y; `compute_XYa` only for
 *   exactly X.Y; `compute_XYf` for the same major with minor >= Y.
 */
import { type CudaTarget, parseTargetName } from './fatbin';

export interface ComputeCap {
  major: number;
  minor: number;
}

export interface GpuInfo {
  index: number;
  name: string;
  computeCap?: ComputeCap;
  driverVersion?: string;
  memoryMiB?: number;
}

export interface NvidiaSmiQuery {
  gpus: GpuInfo[];
  /** Lines that were not GPU rows (error messages, garbage), trimmed. */
  skipped: string[];
}

/** The query the parser below expects. */
export const NVIDIA_SMI_QUERY = ['nvidia-smi', '--query-gpu=name,compute_cap,driver_version,memory.total', '--format=csv,noheader,nounits'];

/** `12.0`, `8.6`, `(12, 0)`, `[12, 0]`, `sm_120`, `120` → {major, minor}. */
export function parseComputeCap(v: string | number | ComputeCap | readonly number[] | null | undefined): ComputeCap | undefined {
  if (v === null || v === undefined) return undefined;
  if (Array.isArray(v)) {
    const [major, minor] = v as number[];
    return Number.isInteger(major) && Number.isInteger(minor) && major > 0 && major < 100 && minor >= 0 && minor < 10 ? { major, minor } : undefined;
  }
  if (typeof v === 'object') return parseComputeCap([(v as ComputeCap).major, (v as ComputeCap).minor]);
  const s = String(v).trim();
  let m = /^[([]?\s*(\d{1,2})\s*[.,]\s*(\d)\s*[)\]]?$/.exec(s);
  if (m) return parseComputeCap([Number(m[1]), Number(m[2])]);
  m = /^(?:sm_?|compute_?)?(\d{1,2})(\d)[af]?$/i.exec(s);
  if (m) return parseComputeCap([Number(m[1]), Number(m[2])]);
  return undefined;
}

export function ccText(cc: ComputeCap): string {
  return `${cc.major}.${cc.minor}`;
}

export function archNumber(cc: ComputeCap): number {
  return cc.major * 10 + cc.minor;
}

/** 12.0 → `sm_120`. Accepts anything parseComputeCap accepts; '' when it cannot be parsed. */
export function archOf(cc: ComputeCap | string | number): string {
  const c = typeof cc === 'object' ? cc : parseComputeCap(cc);
  return c ? `sm_${archNumber(c)}` : '';
}

const NA = /^\[?(N\/A|Not Supported|Unknown Error|Insufficient Permissions|GPU is lost)\]?$/i;

function field(s: string | undefined): string | undefined {
  const t = s?.trim();
  return t && !NA.test(t) ? t : undefined;
}

/**
 * Parse `nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader,nounits`.
 * One row per GPU; `[N/A]` fields are left out; rows that are not GPU rows go to `skipped`.
 */
export function parseNvidiaSmiQuery(text: string): NvidiaSmiQuery {
  const gpus: GpuInfo[] = [];
  const skipped: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    let parts = line.split(',');
    if (parts.length < 2) {
      skipped.push(line);
      continue;
    }
    if (parts.length > 4) parts = [parts.slice(0, parts.length - 3).join(','), ...parts.slice(-3)];
    const [name, cc, driver, mem] = parts.map(field);
    const computeCap = cc !== undefined ? parseComputeCap(cc) : undefined;
    // A row whose second field is neither a capability nor N/A is not a GPU row (e.g. an error sentence with a comma).
    if (!name || /[\u0000-\u001f\u007f]/.test(name) || (cc !== undefined && !computeCap)) {
      skipped.push(line);
      continue;
    }
    const g: GpuInfo = { index: gpus.length, name };
    if (computeCap) g.computeCap = computeCap;
    if (driver && /^\d+(\.\d+)*$/.test(driver)) g.driverVersion = driver;
    const memNum = mem !== undefined ? Number(mem.replace(/\s*MiB$/i, '')) : NaN;
    if (Number.isFinite(memNum) && memNum >= 0) g.memoryMiB = memNum;
    // Every real row has at least one recognisable value or an explicit N/A marker.
    if (!computeCap && !g.driverVersion && g.memoryMiB === undefined && !parts.slice(1).some((p) => NA.test(p.trim()))) {
      skipped.push(line);
      continue;
    }
    gpus.push(g);
  }
  return { gpus, skipped };
}

/** The `nvidia-smi` banner: `Driver Version: 575.57.08   CUDA Version: 12.9`. */
export function parseNvidiaSmiBanner(text: string): { driverVersion?: string; cudaVersion?: string } {
  const out: { driverVersion?: string; cudaVersion?: string } = {};
  const d = /Driver Version:\s*(\d+(?:\.\d+)*)/i.exec(text);
  const c = /CUDA Version:\s*(\d+\.\d+)/i.exec(text);
  if (d) out.driverVersion = d[1];
  if (c) out.cudaVersion = c[1];
  return out;
}

/** `nvcc --version` → `12.8` (from "Cuda compilation tools, release 12.8, V12.8.93"). */
export function parseNvccVersion(text: string): string | undefined {
  return /release\s+(\d+\.\d+)/i.exec(text)?.[1] ?? /\bV(\d+\.\d+)\.\d+/.exec(text)?.[1];
}

/** Compare dotted numeric versions ('12.8' < '12.10'); non-numeric parts compare as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((x) => parseInt(x, 10) || 0);
  const pb = b.split(/[.+-]/).map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** Minimum CUDA toolkit/runtime a GPU needs (only for the generations where it bites). */
export function minCudaFor(cc: ComputeCap): string | undefined {
  if (cc.major === 10 || cc.major === 12) return '12.8';
  return undefined;
}

function majorMinor(arch: number): ComputeCap {
  return { major: Math.floor(arch / 10), minor: arch % 10 };
}

/** Would this target's code run on this GPU (SASS directly, PTX through the JIT)? */
export function targetRunsOn(t: CudaTarget, cc: ComputeCap): boolean {
  const tc = majorMinor(t.arch);
  if (t.variant === 'a') return tc.major === cc.major && tc.minor === cc.minor;
  if (t.variant === 'f' || t.kind === 'sass') return tc.major === cc.major && tc.minor <= cc.minor;
  return archNumber(tc) <= archNumber(cc); // plain PTX: forward compatible
}

export type CompatLevel = 'native' | 'ptx-jit' | 'none' | 'no-device-code';

export interface Compatibility {
  level: CompatLevel;
  gpuArch: string;
  /** SASS targets that run on the GPU. */
  native: string[];
  /** PTX targets the driver can JIT for the GPU. */
  jit: string[];
  /** One sentence for humans. */
  message: string;
}

/** What goes wrong when a library lacks code for the GPU. */
const IMPACT: Record<string, string> = {
  'sgl-kernel': 'FP4 GEMM will fail or fall back (expect "no kernel image is available" or garbage such as !!!!)',
  flashinfer: 'its prebuilt kernels cannot run; FlashInfer must JIT-compile for this GPU or attention/sampling fails',
  torch: 'PyTorch CUDA ops fail with "no kernel image is available for execution on the device"',
};

export function impactOf(library: string): string {
  return IMPACT[library] ?? 'its CUDA kernels will fail on this GPU';
}

/**
 * Does a library built for `targets` run on a GPU of capability `cc`?
 * `library` names it in the message (`sgl-kernel`, `flashinfer`, `torch`, or a file name).
 */
export function compatibility(targets: readonly (CudaTarget | string)[], cc: ComputeCap, library = 'the library'): Compatibility {
  const ts = targets.map((t) => (typeof t === 'string' ? parseTargetName(t) : t)).filter((t): t is CudaTarget => !!t);
  const gpuArch = archOf(cc);
  const native = ts.filter((t) => t.kind === 'sass' && targetRunsOn(t, cc)).map((t) => t.name);
  const jit = ts.filter((t) => t.kind === 'ptx' && targetRunsOn(t, cc)).map((t) => t.name);
  const built = ts.map((t) => t.name).join(', ');
  if (ts.length === 0) {
    return { level: 'no-device-code', gpuArch, native, jit, message: `${library} contains no CUDA device code` };
  }
  if (native.length) {
    return { level: 'native', gpuArch, native, jit, message: `${library} has ${gpuArch} code (${native.join(', ')})` };
  }
  if (jit.length) {
    return {
      level: 'ptx-jit',
      gpuArch,
      native,
      jit,
      message: `${library} has no ${gpuArch} SASS, only PTX (${jit.join(', ')}) that the driver must JIT-compile: slow first start, and kernels that need ${gpuArch}-specific instructions are missing (built for ${built})`,
    };
  }
  return { level: 'none', gpuArch, native, jit, message: `${library} has no ${gpuArch} code: ${impactOf(library)} (built for ${built})` };
}
