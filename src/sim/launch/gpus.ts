/** The GPUs `--sim-gpu` can name: a compute capability, the name nvidia-smi would print and its memory. */

export interface SimGpu {
  /** What `--sim-gpu` takes. */
  id: string;
  /** The device name as CUDA reports it. */
  name: string;
  major: number;
  minor: number;
  memoryGiB: number;
}

export const GPUS: readonly SimGpu[] = [
  { id: 'a100', name: 'NVIDIA A100-SXM4-80GB', major: 8, minor: 0, memoryGiB: 80 },
  { id: 'l40s', name: 'NVIDIA L40S', major: 8, minor: 9, memoryGiB: 48 },
  { id: 'h100', name: 'NVIDIA H100 80GB HBM3', major: 9, minor: 0, memoryGiB: 80 },
  { id: 'h200', name: 'NVIDIA H200', major: 9, minor: 0, memoryGiB: 141 },
  { id: 'b200', name: 'NVIDIA B200', major: 10, minor: 0, memoryGiB: 180 },
  { id: 'b300', name: 'NVIDIA B300 SXM6 AC', major: 10, minor: 3, memoryGiB: 270 },
  { id: 'rtx-pro-6000', name: 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition', major: 12, minor: 0, memoryGiB: 96 },
  { id: 'rtx-5090', name: 'NVIDIA GeForce RTX 5090', major: 12, minor: 0, memoryGiB: 32 },
];

export const DEFAULT_GPU = 'rtx-pro-6000';

export function findGpu(id: string): SimGpu | undefined {
  return GPUS.find((g) => g.id === id.toLowerCase());
}

/** "12.0" */
export const capability = (gpu: SimGpu): string => `${gpu.major}.${gpu.minor}`;

/** The sm_XX number a library build carries for this GPU: 120 for 12.0. */
export const smNumber = (gpu: SimGpu): number => gpu.major * 10 + gpu.minor;

/** Every arch a complete sgl-kernel build carries (the default of --sim-sgl-kernel-archs). */
export const ALL_ARCHS: readonly number[] = [...new Set(GPUS.map(smNumber))].sort((a, b) => a - b);
