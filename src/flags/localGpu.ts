/**
 * This machine's GPU for the known-issue checks on local launch files: the nvidia-smi query that
 * host discovery runs, once, after the flags language server first starts (so activation never
 * waits for it). No nvidia-smi, or no GPU: nothing is sent, and rules keep saying the GPU is unknown.
 */
import type { Ctx } from '../context';
import type { ExecResult } from '../core/hosts/types';

export const LOCAL_HOST_LABEL = 'This machine';

export async function sendLocalGpu(ctx: Ctx): Promise<void> {
  const [{ LocalHost }, { NVIDIA_SMI_QUERY, parseNvidiaSmiQuery }] = await Promise.all([import('../core/hosts/local'), import('../core/gpu/gpus')]);
  const program = ctx.config.text('gpu.nvidiaSmiPath') ?? NVIDIA_SMI_QUERY[0];
  const r: ExecResult | Error = await new LocalHost()
    .exec([program, ...NVIDIA_SMI_QUERY.slice(1)], { timeoutMs: 15_000, maxOutputBytes: 64 * 1024 })
    .catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
  if (r instanceof Error || r.code !== 0) {
    ctx.log.info(`no NVIDIA GPU on this machine for known-issue checks (${program}: ${r instanceof Error ? r.message : `exit ${String(r.code)}`})`);
    return;
  }
  // Mixed GPUs in one box are rare; the rules then check the first one, as CUDA_VISIBLE_DEVICES=0 would run.
  const gpu = parseNvidiaSmiQuery(r.stdout).gpus.find((g) => g.computeCap);
  if (!gpu?.computeCap) return;
  const { major, minor } = gpu.computeCap;
  ctx.log.info(`this machine's GPU for known-issue checks: ${gpu.name} (compute capability ${major}.${minor})`);
  await ctx.flags.sendHostGpu({ hostLabel: LOCAL_HOST_LABEL, computeCapability: major + minor / 10, gpuName: gpu.name });
}
