/**
 * What the known-bad rules need to know about a host, read off its discovery report: the GPU's
 * compute capability and the versions of the packages in the chosen interpreter. The language
 * server gets this with the host's runtime catalog, so a rule about SM 12.x can say "your GPU".
 */
import type { EnvReport, InterpreterReport } from '../discovery/report';
import { PACKAGE_KEYS } from '../discovery/probeScript';

export interface HostRuleContext {
  /** 12.0 for an SM 12.0 GPU; absent when no GPU was seen or the GPUs disagree. */
  computeCapability?: number;
  /** Name → version of the packages found in the interpreter (pip and import spellings both). */
  packageVersions: Record<string, string>;
  /** Why computeCapability is absent, for the message the user sees. */
  gpuNote?: string;
}

/**
 * The interpreter's report: that path if discovery probed it (another interpreter's packages would
 * be wrong, so none otherwise); without a path, the first with SGLang.
 */
export function interpreterFor(report: EnvReport, python?: string): InterpreterReport | undefined {
  if (python) return report.interpreters.find((i) => i.path === python || i.probe?.python.executable === python);
  return report.interpreters.find((i) => i.probe?.packages.sglang.found) ?? report.interpreters[0];
}

export function ruleContextFromReport(report: EnvReport, python?: string): HostRuleContext {
  const out: HostRuleContext = { packageVersions: {} };
  const caps = report.gpus.map((g) => g.computeCap).filter((c): c is NonNullable<typeof c> => !!c);
  const distinct = [...new Set(caps.map((c) => `${c.major}.${c.minor}`))];
  if (distinct.length === 1) out.computeCapability = Number(distinct[0]);
  else if (distinct.length > 1) out.gpuNote = `GPUs of different architectures (${distinct.join(', ')}): choose one with CUDA_VISIBLE_DEVICES`;
  else out.gpuNote = report.gpus.length ? 'nvidia-smi did not report a compute capability' : 'no GPU found (nvidia-smi)';
  const probe = interpreterFor(report, python)?.probe;
  if (probe) {
    for (const key of PACKAGE_KEYS) {
      const p = probe.packages[key];
      if (!p?.found || !p.version) continue;
      out.packageVersions[key] = p.version;
      // Rules name packages as pip does ("sgl-kernel"); discovery as Python imports them.
      if (key.includes('_')) out.packageVersions[key.replace(/_/g, '-')] = p.version;
    }
  }
  return out;
}
