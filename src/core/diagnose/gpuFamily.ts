/**
 * GPU family from a compute capability and/or a device name (the names are core/gpu/names.ts's).
 * The family is what kernel rules key on: SM100 (datacenter Blackwell) has TMEM and
 * tcgen05, SM120 (RTX Blackwell) has neither, Hopper has WGMMA and FA3.
 */
import { ccText, parseComputeCap, type ComputeCap } from '../gpu/gpus';
import { computeCapabilityOfName, ROCM_CDNA, ROCM_RDNA } from '../gpu/names';

export { computeCapabilityOfName, isRocmName } from '../gpu/names';
import type { GpuFamily } from './evidence';

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
