/**
 * GPU family from a compute capability and/or a device name. core/gpu reads capabilities
 * (parseComputeCap) but has no name table; the simulator's table is a test double, so the names
 * live here. The family is what kernel rules key on: SM100 (datacenter Blackwell) has TMEM and
 * tcgen05, SM120 (RTX Blackwell) has neither, Hopper has WGMMA and FA3.
 */
import { ccText, parseComputeCap, type ComputeCap } from '../gpu/gpus';
import type { GpuFamily } from './evidence';

/** Name patterns → compute capability, most specific first (`RTX PRO 6000 Blackwell` before `RTX 6000`). */
const NAME_CC: readonly [RegExp, string][] = [
  [/\bGB10\b|DGX Spark/i, '12.1'],
  [/Quadro\s*RTX\s*\d{4}|TITAN\s*RTX/i, '7.5'],
  [/RTX\s*[2-6]000\s*Ada/i, '8.9'],
  [/RTX\s*PRO\s*\d{4}\s*Blackwell|Blackwell\s+(?:Workstation|Server|Max-Q)|RTX\s*5\d{3}\b|\bRTX\s*50\d0\b/i, '12.0'],
  [/\bG?B300\b/i, '10.3'],
  [/\bG?B200\b|\bB100\b/i, '10.0'],
  [/\bG?H100\b|\bH200\b|\bH800\b|\bH20\b|\bGH200\b/i, '9.0'],
  [/\bL40S?\b|\bL4\b|\bL20\b|RTX\s*40\d0\b|RTX\s*4\d{3}\b/i, '8.9'],
  [/\bA100\b|\bA800\b|\bA30\b/i, '8.0'],
  [/RTX\s*A\d{4}\b|\bA40\b|\bA10G?\b|\bA16\b|\bA2\b|RTX\s*30\d0\b|RTX\s*3\d{3}\b/i, '8.6'],
  [/\bT4\b|RTX\s*20\d0\b/i, '7.5'],
  [/\bV100\b|TITAN\s*V\b/i, '7.0'],
];

const ROCM_CDNA = /\bMI\s?(?:50|60|100|210|250X?|300[AX]?|308X?|325X?|350X?|355X?)\b|Instinct|\bgfx9(?:08|0a|4[0-9]|50)\b/i;
const ROCM_RDNA = /Radeon|\bRX\s?\d{4}|\bgfx1[012]\d\d\b|W7[89]00/i;

/** The compute capability a device name implies ("NVIDIA H100 80GB HBM3" → "9.0"), or undefined. */
export function computeCapabilityOfName(name: string | undefined | null): string | undefined {
  if (typeof name !== 'string' || !name) return undefined;
  const n = name.slice(0, 200);
  if (ROCM_CDNA.test(n) || ROCM_RDNA.test(n)) return undefined;
  for (const [re, cc] of NAME_CC) if (re.test(n)) return cc;
  return undefined;
}

/** Is this an AMD name (ROCm reports its own "capabilities" such as 9.4 for gfx942: never read those as NVIDIA's)? */
export function isRocmName(name: string | undefined | null): boolean {
  return typeof name === 'string' && (ROCM_CDNA.test(name) || ROCM_RDNA.test(name) || /\bAMD\b/.test(name));
}

/**
 * The family of a GPU. An AMD name wins over a capability (torch on ROCm reports gfx942 as 9.4);
 * otherwise the capability decides, and a name alone is read through the table above.
 * 11.x (Jetson Thor) is `other`: it is neither the SM100 datacenter part nor SM120.
 */
export function gpuFamilyOf(computeCapability?: string | number | ComputeCap | readonly number[] | null, name?: string | null): GpuFamily {
  if (typeof name === 'string' && name) {
    if (ROCM_CDNA.test(name)) return 'rocm-cdna';
    if (ROCM_RDNA.test(name)) return 'rocm-rdna';
  }
  const cc = parseComputeCap(computeCapability ?? undefined) ?? parseComputeCap(computeCapabilityOfName(name));
  if (!cc) return 'other';
  switch (cc.major) {
    case 8:
      return cc.minor === 9 ? 'ada' : 'ampere';
    case 9:
      return 'hopper';
    case 10:
      return 'blackwell-dc';
    case 12:
      return 'blackwell-rtx';
    default:
      return 'other';
  }
}

/** "12.0" for anything parseComputeCap reads, else undefined. */
export function ccString(v: string | number | ComputeCap | readonly number[] | null | undefined): string | undefined {
  const cc = parseComputeCap(v ?? undefined);
  return cc ? ccText(cc) : undefined;
}
