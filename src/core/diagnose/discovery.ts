/**
 * Evidence from this project's environment discovery (core/discovery EnvReport): GPUs from
 * nvidia-smi (torch's device list when nvidia-smi gave none), driver and CUDA versions, the
 * packages of the interpreter that runs the server, and which sm_XX targets its CUDA libraries
 * carry (fatbin reader, with discovery's own verdict for this GPU), plus torch's arch list.
 */
import { PACKAGE_LABELS, type EnvReport, type InterpreterReport, type LibrarySource } from '../discovery/report';
import type { RunningServer } from '../discovery/processes';
import { redactEnv } from './derive';
import { ccText } from '../gpu/gpus';
import {
  emptyEvidence,
  fact,
  MAX_RECORD_KEYS,
  putEngine,
  putFact,
  putSlot,
  type Evidence,
  type KernelArchCoverage,
  type KernelLibrary,
  type VersionKey,
} from './evidence';
import { gpuFamilyOf } from './gpuFamily';
import { versionAt } from './logScan';

export interface DiscoveryOptions {
  /** The interpreter to read packages from; default the one a discovered server runs, else the first with SGLang, else vLLM. */
  interpreter?: string;
}

const LIBRARY: Record<LibrarySource, KernelLibrary> = { sgl_kernel: 'sgl-kernel', flashinfer: 'flashinfer', flashinfer_jit: 'flashinfer-jit', vllm: 'vllm' };
/** Discovery's verdict labels (PackageVerdict.package) → library. */
const VERDICT_LIBRARY: Record<string, KernelLibrary> = {
  'sgl-kernel': 'sgl-kernel',
  flashinfer: 'flashinfer',
  'FlashInfer JIT cache': 'flashinfer-jit',
  vLLM: 'vllm',
  torch: 'torch',
};

/** The report's package rows, under the names users know them by (those are evidence version keys). */
const PACKAGES = PACKAGE_LABELS as readonly (readonly [keyof NonNullable<InterpreterReport['probe']>['packages'], VersionKey])[];

function pickInterpreter(report: EnvReport, wanted?: string): InterpreterReport | undefined {
  const its = Array.isArray(report.interpreters) ? report.interpreters : [];
  if (wanted) {
    const w = its.find((i) => i.path === wanted || i.alsoAt?.includes(wanted));
    if (w) return w;
  }
  const used = new Set((report.servers ?? []).map((s) => s.interpreter).filter((p): p is string => !!p));
  return (
    its.find((i) => i.probe && (used.has(i.path) || i.alsoAt?.some((a) => used.has(a)))) ??
    its.find((i) => i.probe?.packages.sglang.found) ??
    its.find((i) => i.probe?.packages.vllm.found) ??
    its.find((i) => i.probe)
  );
}

/** Evidence from a discovery report. Tolerates partial reports (a host without nvidia-smi, a failed probe). */
export function fromDiscovery(report: EnvReport, options: DiscoveryOptions = {}): Evidence {
  const ev = emptyEvidence();
  if (!report || typeof report !== 'object') return ev;
  const host = typeof report.host === 'string' ? report.host : 'host';
  const smi = `discovery on ${host} (nvidia-smi)`;
  const gpus = Array.isArray(report.gpus) ? report.gpus : [];
  for (const g of gpus) {
    if (g.name) putSlot(ev, ev.gpu, 'name', fact(g.name, 'discovery', 'certain', smi), 'gpu.name');
    if (g.computeCap) putSlot(ev, ev.gpu, 'computeCapability', fact(ccText(g.computeCap), 'discovery', 'certain', smi), 'gpu.computeCapability');
    if (g.memoryMiB !== undefined) putSlot(ev, ev.gpu, 'memoryMiB', fact(g.memoryMiB, 'discovery', 'certain', smi), 'gpu.memoryMiB');
  }
  if (gpus.length) putSlot(ev, ev.gpu, 'count', fact(gpus.length, 'discovery', 'certain', smi), 'gpu.count');
  const put = (key: VersionKey, v: string | null | undefined, where: string, certainty: 'certain' | 'likely' = 'certain'): void => {
    const t = typeof v === 'string' ? versionAt(v) : undefined;
    if (t) putSlot(ev, ev.versions, key, fact(t, 'discovery', certainty, where), `versions.${key}`);
  };
  put('driver', report.driverVersion, smi);
  put('cuda-driver', report.driverCudaVersion, smi);
  put('nvcc', report.nvccVersion, `discovery on ${host} (nvcc)`);

  const it = pickInterpreter(report, options.interpreter);
  const p = it?.probe;
  if (it && p) {
    const where = `discovery on ${host} (${it.path})`;
    put('python', p.python?.version, where);
    for (const [pkgKey, vKey] of PACKAGES) {
      const pkg = p.packages?.[pkgKey];
      if (pkg?.found) put(vKey, pkg.version, where);
    }
    const torch = p.packages?.torch;
    if (torch?.cudaVersion) put('cuda', torch.cudaVersion, where);
    if (torch?.hipVersion) put('rocm', torch.hipVersion, where);
    if (gpus.length === 0) {
      for (const d of torch?.devices ?? []) {
        putSlot(ev, ev.gpu, 'name', fact(d.name, 'discovery', 'certain', `${where} torch`), 'gpu.name');
        if (Array.isArray(d.capability))
          putSlot(
            ev,
            ev.gpu,
            'computeCapability',
            fact(`${d.capability[0]}.${d.capability[1]}`, 'discovery', 'certain', `${where} torch`),
            'gpu.computeCapability',
          );
      }
      if (torch?.devices?.length) putSlot(ev, ev.gpu, 'count', fact(torch.devices.length, 'discovery', 'likely', `${where} torch`), 'gpu.count');
    }
    if (torch?.archList?.length) {
      const sass = torch.archList.filter((a) => /^sm_/.test(a)).sort();
      const ptx = torch.archList.filter((a) => /^compute_/.test(a)).sort();
      putSlot(
        ev,
        ev.kernels,
        'torch',
        fact<KernelArchCoverage>({ sass, ptx, files: 0, complete: true }, 'discovery', 'certain', `${where} torch.cuda.get_arch_list()`),
        'kernels.torch',
      );
    }
    const byLib = new Map<KernelLibrary, KernelArchCoverage>();
    for (const lib of it.libraries ?? []) {
      const key = LIBRARY[lib.package];
      if (!key) continue;
      const cov = byLib.get(key) ?? { sass: [], ptx: [], files: 0, complete: true };
      cov.files++;
      cov.sass.push(...(lib.sass ?? []));
      cov.ptx.push(...(lib.ptx ?? []));
      if (!lib.complete || lib.error) cov.complete = false;
      byLib.set(key, cov);
    }
    for (const v of it.verdicts ?? []) {
      const key = VERDICT_LIBRARY[v.package];
      const cov = key ? byLib.get(key) : undefined;
      if (cov) {
        cov.gpuArch = v.gpuArch;
        cov.level = v.level;
      }
    }
    for (const [key, cov] of byLib) {
      cov.sass = [...new Set(cov.sass)].sort();
      cov.ptx = [...new Set(cov.ptx)].sort();
      putSlot(ev, ev.kernels, key, fact(cov, 'discovery', cov.complete ? 'certain' : 'likely', `${where} fatbin targets`), `kernels.${key}`);
    }
    const tv = (it.verdicts ?? []).find((v) => v.package === 'torch');
    const tk = ev.kernels.torch;
    if (tv && tk) tk.value = { ...tk.value, gpuArch: tv.gpuArch, level: tv.level };
  }
  const first = ev.gpu.name?.value;
  const cc = ev.gpu.computeCapability?.value;
  if (first || cc) putSlot(ev, ev.gpu, 'family', fact(gpuFamilyOf(cc, first), 'discovery', cc ? 'certain' : 'likely', smi), 'gpu.family');
  const server = serverOf(report, it);
  if (server) {
    const where = `discovery on ${host} (${server.unit ? `unit ${server.unit}` : `pid ${server.pid ?? '?'}`})`;
    // Reports saved before vLLM servers were found have no engine: they held SGLang's only.
    putEngine(ev, fact(server.engine === 'vllm' ? 'vllm' : 'sglang', 'discovery', 'likely', where));
    if (server.modelPath) putSlot(ev, ev.model, 'path', fact(server.modelPath, 'discovery', 'likely', where), 'model.path');
    for (const [name, value] of Object.entries(server.env ?? {}))
      if (typeof value === 'string')
        putFact(ev.env, name, fact(redactEnv(name, value), 'discovery', 'certain', `${where} /proc environment`), ev.conflicts, `env.${name}`, MAX_RECORD_KEYS);
  }
  return ev;
}

/** The server the evidence is about: the one the chosen interpreter runs, else the first found. */
function serverOf(report: EnvReport, it: InterpreterReport | undefined): RunningServer | undefined {
  const servers = Array.isArray(report.servers) ? report.servers : [];
  const runs = (s: RunningServer): boolean => !!it && !!s.interpreter && (s.interpreter === it.path || !!it.alsoAt?.includes(s.interpreter));
  return servers.find(runs) ?? servers[0];
}
