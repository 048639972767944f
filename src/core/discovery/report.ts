/**
 * Environment discovery: GPUs, CUDA versions, running SGLang and vLLM servers, Python environments with
 * their inference packages, and the GPU architectures compiled into sgl-kernel, FlashInfer (its
 * wheel and its JIT cache) and vLLM.
 * Everything is guarded: a missing tool becomes a note, never an exception.
 */
import { readLibraryTargets, uniqueTargets, type CudaTarget, type LibraryTargets } from '../gpu/fatbin';
import {
  NVIDIA_SMI_QUERY,
  archOf,
  ccText,
  compareVersions,
  compatibility,
  minCudaFor,
  parseComputeCap,
  parseNvccVersion,
  parseNvidiaSmiBanner,
  parseNvidiaSmiQuery,
  type CompatLevel,
  type ComputeCap,
  type GpuInfo,
} from '../gpu/gpus';
import type { HostLike } from '../gpu/hostLike';
import { DEFAULT_ROOTS, findInterpreters, type EnvRoots } from './interpreters';
import { parsePs, parseServerCommandLine, parseSs, parseSystemctlCat, parseUnitList, serverEnvOf, type ListeningSocket, type RunningServer } from './processes';
import { PROBE_SCRIPT, parseProbeOutput, type PythonProbe } from './probeScript';
import { mapLimit, runGuarded, type RunOptions } from './run';
import { errorMessage } from '../errors';

export type Severity = 'error' | 'warning' | 'info';

export interface EnvWarning {
  severity: Severity;
  code: 'arch-missing' | 'arch-ptx-only' | 'cuda-too-old' | 'torch-no-cuda' | 'kernel-missing' | 'probe-failed' | 'library-unreadable' | 'no-gpu';
  message: string;
  interpreter?: string;
  library?: string;
}

/** Where a library came from: a package's own files, or FlashInfer's JIT cache (`flashinfer_jit`). */
export type LibrarySource = 'sgl_kernel' | 'flashinfer' | 'vllm' | 'flashinfer_jit';

export interface LibraryReport extends LibraryTargets {
  package: LibrarySource;
}

export interface PackageVerdict {
  package: (typeof LIB_LABEL)[LibrarySource] | 'torch';
  gpuArch: string;
  level: CompatLevel;
  message: string;
}

export interface InterpreterReport {
  path: string;
  sources: string[];
  /** Other paths that start this same interpreter (`/bin/python3` beside `/usr/bin/python3`, a venv's `python`). */
  alsoAt?: string[];
  probe?: PythonProbe;
  error?: string;
  libraries: LibraryReport[];
  verdicts: PackageVerdict[];
  /** `python -m sglang.check_env`, when asked for and the installed SGLang has it. */
  checkEnv?: CheckEnvResult;
  /** `python -m vllm.collect_env` (what `vllm collect-env` runs), when asked for and the installed vLLM has it. */
  collectEnv?: CheckEnvResult;
}

export interface CheckEnvResult {
  /** Exit code; null when it was killed (timeout) or could not start. */
  code: number | null;
  /** stdout then stderr, terminal colours removed, at most CHECK_ENV_MAX_BYTES. */
  output: string;
  truncated: boolean;
  error?: string;
}

/** check_env and collect_env import torch and initialise CUDA: slow, and they can hang on a broken driver. */
export const CHECK_ENV_TIMEOUT_MS = 120_000;
export const CHECK_ENV_MAX_BYTES = 64 * 1024;
/** Interpreters with the engine to run its report in (servers' interpreters come first). */
const CHECK_ENV_MAX_INTERPRETERS = 2;

/** Each engine's own environment report: the package, its module (run with -m) and where its result goes. */
const ENGINE_ENV_REPORTS = [
  { pkg: 'sglang', module: 'sglang.check_env', file: 'check_env.py', field: 'checkEnv' },
  { pkg: 'vllm', module: 'vllm.collect_env', file: 'collect_env.py', field: 'collectEnv' },
] as const;

/**
 * collect_env's "vLLM Build Flags: CUDA Archs" prints the TORCH_CUDA_ARCH_LIST variable of the shell
 * that ran it ("Not Set" when unset), not the architectures the installed vLLM was compiled for.
 */
export const COLLECT_ENV_CUDA_ARCHS_NOTE =
  'collect_env\'s "CUDA Archs" is the TORCH_CUDA_ARCH_LIST variable of the shell that ran it, not what vLLM was compiled for: the compiled targets are read from its libraries';

export interface EnvReport {
  host: string;
  generatedAt: string;
  gpus: GpuInfo[];
  /** Highest CUDA version the driver supports (nvidia-smi banner). */
  driverCudaVersion?: string;
  driverVersion?: string;
  nvccVersion?: string;
  servers: RunningServer[];
  listening: ListeningSocket[];
  interpreters: InterpreterReport[];
  warnings: EnvWarning[];
  /** Tools that were missing or failed; normal on many machines. */
  notes: string[];
}

export interface DiscoverOptions {
  /** Interpreters to always probe (e.g. a configured path). */
  pythonPaths?: string[];
  home?: string;
  roots?: EnvRoots;
  /** Probe at most this many interpreters (configured and servers' first). Default 12. */
  maxInterpreters?: number;
  /** Analyse at most this many `.so` files per package. Default 16. */
  maxLibrariesPerPackage?: number;
  libraryMaxBytes?: number;
  cuobjdump?: 'auto' | 'never' | 'prefer';
  /** Import torch in the probe: 'auto' when sglang or vllm is installed. */
  torch?: 'auto' | 'yes' | 'no';
  probeTimeoutMs?: number;
  /**
   * Also run `python -m sglang.check_env` and `python -m vllm.collect_env` where the installed
   * engine has them. Off by default: they import torch and touch the GPU, so the report commands
   * ask for them, not every connect.
   */
  checkEnv?: boolean;
  checkEnvTimeoutMs?: number;
  /** Extra environment for every command (tests set PATH / PYTHONPATH). */
  env?: Record<string, string>;
  signal?: AbortSignal;
  now?: () => Date;
}

const LIB_LABEL = { sgl_kernel: 'sgl-kernel', flashinfer: 'flashinfer', flashinfer_jit: 'FlashInfer JIT cache', vllm: 'vLLM' } as const;
/** Verdict order: the packages' own libraries, then what FlashInfer compiled on this host. */
const LIB_ORDER = ['sgl_kernel', 'flashinfer', 'flashinfer_jit', 'vllm'] as const;

async function gatherGpus(host: HostLike, run: RunOptions, notes: string[]): Promise<Pick<EnvReport, 'gpus' | 'driverCudaVersion' | 'driverVersion'>> {
  const [q, banner] = await Promise.all([runGuarded(host, NVIDIA_SMI_QUERY, run), runGuarded(host, ['nvidia-smi'], run)]);
  const out: Pick<EnvReport, 'gpus' | 'driverCudaVersion' | 'driverVersion'> = { gpus: [] };
  if (q.missing) {
    notes.push('nvidia-smi is not installed or not on PATH');
    return out;
  }
  let parsed = parseNvidiaSmiQuery(q.stdout);
  if (!q.ok && parsed.gpus.length === 0) {
    // Old drivers do not know the compute_cap field: ask without it.
    const q2 = await runGuarded(host, ['nvidia-smi', '--query-gpu=name,driver_version,memory.total', '--format=csv,noheader,nounits'], run);
    parsed = parseNvidiaSmiQuery(
      q2.stdout
        .split(/\r?\n/)
        .map((l) => {
          const p = l.split(',');
          return p.length >= 3 ? [p.slice(0, p.length - 2).join(','), '[N/A]', ...p.slice(-2)].join(',') : l;
        })
        .join('\n'),
    );
    if (parsed.gpus.length === 0) notes.push(`nvidia-smi failed: ${q.error ?? q2.error ?? 'no output'}`);
  }
  out.gpus = parsed.gpus;
  const b = parseNvidiaSmiBanner(banner.stdout);
  if (b.cudaVersion) out.driverCudaVersion = b.cudaVersion;
  if (b.driverVersion) out.driverVersion = b.driverVersion;
  else if (parsed.gpus[0]?.driverVersion) out.driverVersion = parsed.gpus[0].driverVersion;
  return out;
}

async function gatherNvcc(host: HostLike, run: RunOptions): Promise<string | undefined> {
  for (const nvcc of ['nvcc', '/usr/local/cuda/bin/nvcc']) {
    const r = await runGuarded(host, [nvcc, '--version'], run);
    const v = parseNvccVersion(r.stdout);
    if (v) return v;
  }
  return undefined;
}

async function gatherServers(host: HostLike, run: RunOptions, notes: string[]): Promise<{ servers: RunningServer[]; listening: ListeningSocket[] }> {
  const [ps, ss, units] = await Promise.all([
    runGuarded(host, ['ps', '-eo', 'pid,args'], run),
    runGuarded(host, ['ss', '-ltnp'], run),
    runGuarded(host, ['systemctl', 'list-units', '--type=service', '--no-legend', '--plain'], run),
  ]);
  const servers: RunningServer[] = [];
  if (!ps.ok) notes.push(`ps failed: ${ps.error ?? 'no output'}`);
  for (const row of parsePs(ps.stdout)) {
    if (!/sglang|vllm/.test(row.args)) continue;
    // ps shows arguments joined by spaces, without quoting: quotes and backslashes are literal.
    const cmd = parseServerCommandLine(row.args.replace(/[\\'"]/g, (c) => `\\${c}`));
    if (cmd) servers.push({ ...cmd, source: 'process', pid: row.pid });
  }
  const listening = ss.ok ? parseSs(ss.stdout) : [];
  if (!ss.ok) notes.push(ss.missing ? '`ss` is not available; listening ports unknown' : `ss failed: ${ss.error ?? ''}`);
  for (const s of servers) {
    const ports = listening.filter((l) => s.pid !== undefined && l.pids.includes(s.pid)).map((l) => l.port);
    if (ports.length) s.listening = [...new Set(ports)].sort((a, b) => a - b);
  }
  if (units.missing) notes.push('systemctl is not available (no systemd); units were not checked');
  else if (units.ok) {
    const names = parseUnitList(units.stdout);
    for (let i = 0; i < names.length; i += 40) {
      const cat = await runGuarded(host, ['systemctl', 'cat', '--', ...names.slice(i, i + 40)], run);
      for (const u of parseSystemctlCat(cat.stdout)) {
        const cmd = parseServerCommandLine(u.execStart);
        if (cmd) servers.push({ ...cmd, source: 'systemd', unit: u.unit });
      }
    }
  }
  return { servers, listening };
}

/** A process's environment (NUL-separated), or undefined when not readable (another user's process). */
async function readEnviron(host: HostLike, pid: number): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await host.readFile(`/proc/${pid}/environ`, { maxBytes: 256 * 1024 }));
  } catch {
    return undefined;
  }
}

/** The interpreter behind a server process: from argv, /proc/PID/exe, or a console script's shebang. */
async function serverInterpreter(host: HostLike, s: RunningServer, environ: string | undefined, run: RunOptions): Promise<string | undefined> {
  if (s.interpreter?.startsWith('/')) return s.interpreter;
  if (s.pid !== undefined && s.interpreter) {
    // A bare `python3` from an activated venv or conda env: the process environment says which.
    for (const key of ['VIRTUAL_ENV', 'CONDA_PREFIX']) {
      const v = environ
        ?.split('\0')
        .find((e) => e.startsWith(`${key}=`))
        ?.slice(key.length + 1);
      if (v?.startsWith('/')) {
        const cand = `${v.replace(/\/+$/, '')}/bin/${s.interpreter.slice(s.interpreter.lastIndexOf('/') + 1)}`;
        try {
          await host.stat(cand);
          return cand;
        } catch {
          /* not there */
        }
      }
    }
    const r = await runGuarded(host, ['readlink', `/proc/${s.pid}/exe`], run);
    const p = r.stdout.trim();
    if (r.ok && p.startsWith('/')) return p;
  }
  if (s.script) {
    try {
      const head = new TextDecoder().decode(await host.readFile(s.script, { maxBytes: 512 }));
      const m = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(head);
      if (m) return m[1].endsWith('/env') && m[2] ? undefined : m[1];
    } catch {
      /* unreadable script */
    }
  }
  return undefined;
}

async function probeInterpreter(host: HostLike, python: string, opts: DiscoverOptions): Promise<{ probe?: PythonProbe; error?: string }> {
  const r = await runGuarded(host, [python, '-c', PROBE_SCRIPT, `--torch=${opts.torch ?? 'auto'}`], {
    timeoutMs: opts.probeTimeoutMs ?? 90_000,
    maxOutputBytes: 4 * 1024 * 1024,
    env: opts.env,
    signal: opts.signal,
  });
  try {
    return { probe: parseProbeOutput(r.stdout) };
  } catch (err) {
    const why = r.error ?? errorMessage(err);
    return { error: `${python}: ${why}` };
  }
}

/** Distinct GPU capabilities: nvidia-smi first, torch's device list when nvidia-smi gave none. */
function gpuCaps(report: Pick<EnvReport, 'gpus' | 'interpreters'>): ComputeCap[] {
  const caps = new Map<string, ComputeCap>();
  for (const g of report.gpus) if (g.computeCap) caps.set(ccText(g.computeCap), g.computeCap);
  if (caps.size === 0) {
    for (const i of report.interpreters) {
      for (const d of i.probe?.packages.torch.devices ?? []) {
        const cc = parseComputeCap(d.capability);
        if (cc) caps.set(ccText(cc), cc);
      }
    }
  }
  return [...caps.values()];
}

function usedBy(report: EnvReport, python: string): string {
  const ports = report.servers.filter((s) => s.interpreter === python).map((s) => (s.unit ? `unit ${s.unit}` : `port ${s.port}`));
  return ports.length ? ` (used by the server on ${ports.join(', ')})` : '';
}

function computeWarnings(report: EnvReport): void {
  const w = report.warnings;
  const caps = gpuCaps(report);
  if (report.gpus.length === 0 && caps.length === 0) {
    w.push({
      severity: 'info',
      code: 'no-gpu',
      message: 'No NVIDIA GPU found (nvidia-smi missing or failed, and torch saw none); architecture checks were skipped',
    });
  }
  for (const cc of caps) {
    const need = minCudaFor(cc);
    if (need && report.driverCudaVersion && compareVersions(report.driverCudaVersion, need) < 0) {
      w.push({
        severity: 'error',
        code: 'cuda-too-old',
        message: `The driver supports CUDA ${report.driverCudaVersion}, but ${archOf(cc)} GPUs need CUDA ≥ ${need}; update the NVIDIA driver`,
      });
    }
    if (need && report.nvccVersion && compareVersions(report.nvccVersion, need) < 0) {
      w.push({
        severity: 'warning',
        code: 'cuda-too-old',
        message: `nvcc is CUDA ${report.nvccVersion}; JIT-compiled kernels (FlashInfer, DeepGEMM) for ${archOf(cc)} need CUDA ≥ ${need}`,
      });
    }
  }
  // The JIT cache belongs to the user, not to one interpreter: report each cache once.
  const jitSeen = new Set<string>();
  for (const it of report.interpreters) {
    if (it.error) {
      w.push({ severity: 'warning', code: 'probe-failed', message: `Could not inspect ${it.path}: ${it.error}`, interpreter: it.path });
      continue;
    }
    const p = it.probe;
    if (!p) continue;
    const where = `${it.path}${usedBy(report, it.path)}`;
    const pk = p.packages;
    if (pk.sglang.found && !pk.sgl_kernel.found) {
      w.push({
        severity: 'warning',
        code: 'kernel-missing',
        message: `sglang ${pk.sglang.version ?? ''} is installed in ${where} but sgl-kernel is not`,
        interpreter: it.path,
      });
    }
    const torch = pk.torch;
    if (torch.imported && caps.length) {
      if (torch.cudaVersion == null) {
        w.push({ severity: 'error', code: 'torch-no-cuda', message: `torch ${torch.version ?? ''} in ${where} is a CPU-only build`, interpreter: it.path });
      } else {
        for (const cc of caps) {
          const need = minCudaFor(cc);
          if (need && compareVersions(torch.cudaVersion, need) < 0) {
            w.push({
              severity: 'error',
              code: 'cuda-too-old',
              message: `torch ${torch.version ?? ''} in ${where} is built for CUDA ${torch.cudaVersion}; ${archOf(cc)} needs CUDA ≥ ${need} (install a cu128 or newer build)`,
              interpreter: it.path,
              library: 'torch',
            });
          }
        }
        if (torch.cudaAvailable === false) {
          w.push({
            severity: 'warning',
            code: 'torch-no-cuda',
            message: `torch in ${where} reports CUDA as unavailable${torch.cudaError ? ` (${torch.cudaError})` : ''}`,
            interpreter: it.path,
          });
        }
      }
    }
    const jitCache = p.caches.flashinfer?.path ?? '';
    for (const v of it.verdicts) {
      const jit = v.package === LIB_LABEL.flashinfer_jit;
      if (jit && v.level !== 'native') {
        if (jitSeen.has(`${jitCache}\0${v.gpuArch}`)) continue;
        jitSeen.add(`${jitCache}\0${v.gpuArch}`);
      }
      const at = jit ? `FlashInfer in ${where}` : `in ${where}`;
      // A rebuildable cache or FlashInfer's own JIT fallback: worth a warning, not an error.
      const soft = v.package === 'flashinfer' || jit;
      if (v.level === 'none') {
        w.push({ severity: soft ? 'warning' : 'error', code: 'arch-missing', message: `${v.message} — ${at}`, interpreter: it.path, library: v.package });
      } else if (v.level === 'ptx-jit') {
        w.push({ severity: 'warning', code: 'arch-ptx-only', message: `${v.message} — ${at}`, interpreter: it.path, library: v.package });
      }
    }
    for (const l of it.libraries) {
      if (l.package === 'flashinfer_jit') {
        if (jitSeen.has(l.path)) continue;
        jitSeen.add(l.path);
      }
      if (l.error)
        w.push({
          severity: 'info',
          code: 'library-unreadable',
          message: `Could not read GPU targets of ${l.path}: ${l.error}`,
          interpreter: it.path,
          library: l.package,
        });
      else if (!l.complete && l.hasFatbin)
        w.push({
          severity: 'info',
          code: 'library-unreadable',
          message: `GPU target list of ${l.path} may be incomplete: ${l.issues[0] ?? ''}`,
          interpreter: it.path,
          library: l.package,
        });
    }
  }
  const rank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
  w.sort((a, b) => rank[a.severity] - rank[b.severity]);
}

/** vLLM has no entry in the shared impact table: say what fails instead of the generic sentence. */
const VLLM_IMPACT = 'its compiled ops (vllm._C, fused MoE, flash-attention) fail with "no kernel image is available for execution on the device"';

function verdictsFor(it: InterpreterReport, caps: ComputeCap[]): PackageVerdict[] {
  const out: PackageVerdict[] = [];
  for (const cc of caps) {
    for (const src of LIB_ORDER) {
      const libs = it.libraries.filter((l) => l.package === src && !l.error);
      if (src === 'flashinfer_jit') {
        const v = jitCacheVerdict(libs, cc, it.probe?.caches.flashinfer?.path ?? '');
        if (v) out.push(v);
        continue;
      }
      const targets = uniqueTargets(libs.flatMap((l) => l.targets));
      if (libs.length === 0 || targets.length === 0) continue; // nothing compiled in (pure-Python or JIT-only package)
      const c = compatibility(targets, cc, LIB_LABEL[src]);
      const message =
        src === 'vllm' && c.level === 'none'
          ? `${LIB_LABEL.vllm} has no ${c.gpuArch} code: ${VLLM_IMPACT} (built for ${targets.map((t) => t.name).join(', ')})`
          : c.message;
      out.push({ package: LIB_LABEL[src], gpuArch: c.gpuArch, level: c.level, message });
    }
    const arch = it.probe?.packages.torch.archList;
    if (arch && arch.length) {
      const c = compatibility(arch, cc, 'torch');
      out.push({ package: 'torch', gpuArch: c.gpuArch, level: c.level, message: c.message });
    }
  }
  return out;
}

function relativeTo(dir: string, path: string): string {
  return dir && path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : path;
}

/**
 * FlashInfer's JIT cache is judged file by file, not as a union like a package: FlashInfer loads
 * each cached op on its own, so one op built for another GPU fails however fine its neighbours are.
 */
function jitCacheVerdict(libs: LibraryReport[], cc: ComputeCap, cache: string): PackageVerdict | undefined {
  const withCode = libs.filter((l) => l.targets.length > 0);
  if (withCode.length === 0) return undefined;
  const label = LIB_LABEL.flashinfer_jit;
  const judged = withCode.map((l) => ({ l, c: compatibility(l.targets, cc, label) }));
  const gpuArch = archOf(cc);
  const names = (js: typeof judged): string => {
    const n = js.map((j) => relativeTo(cache, j.l.path));
    return n.length > 3 ? `${n.slice(0, 3).join(', ')} and ${n.length - 3} more` : n.join(', ');
  };
  const of = (js: typeof judged): string => `${js.length} of ${withCode.length} cached kernel${withCode.length === 1 ? '' : 's'}`;
  const bad = judged.filter((j) => j.c.level === 'none');
  if (bad.length) {
    const built = uniqueTargets(bad.flatMap((j) => j.l.targets))
      .map((t) => t.name)
      .join(', ');
    return {
      package: label,
      gpuArch,
      level: 'none',
      message: `${label} has no ${gpuArch} code in ${of(bad)} (${names(bad)}; built for ${built}): they were built for other GPUs, e.g. a cache copied from another machine; clear ${cache || 'the cache'} and FlashInfer rebuilds them for this GPU`,
    };
  }
  const ptx = judged.filter((j) => j.c.level === 'ptx-jit');
  if (ptx.length) {
    return {
      package: label,
      gpuArch,
      level: 'ptx-jit',
      message: `${label} has only PTX for ${gpuArch} in ${of(ptx)} (${names(ptx)}): the driver JIT-compiles them at every start; clear ${cache || 'the cache'} and FlashInfer rebuilds them for this GPU`,
    };
  }
  return {
    package: label,
    gpuArch,
    level: 'native',
    message: `${label} has ${gpuArch} code (${withCode.length} cached kernel${withCode.length === 1 ? '' : 's'})`,
  };
}

export async function discoverEnv(host: HostLike, opts: DiscoverOptions = {}): Promise<EnvReport> {
  const run: RunOptions = { env: opts.env, signal: opts.signal };
  const notes: string[] = [];
  const homeP = opts.home !== undefined ? Promise.resolve(opts.home) : runGuarded(host, ['printenv', 'HOME'], run).then((r) => r.stdout.trim() || undefined);
  const [gpu, nvccVersion, srv, home] = await Promise.all([gatherGpus(host, run, notes), gatherNvcc(host, run), gatherServers(host, run, notes), homeP]);
  const report: EnvReport = {
    host: host.label ?? 'host',
    generatedAt: (opts.now?.() ?? new Date()).toISOString(),
    ...gpu,
    ...(nvccVersion ? { nvccVersion } : {}),
    servers: srv.servers,
    listening: srv.listening,
    interpreters: [],
    warnings: [],
    notes,
  };

  const fromServers: { path: string; source: string }[] = [];
  for (const s of report.servers) {
    const environ = s.pid !== undefined ? await readEnviron(host, s.pid) : undefined;
    if (environ !== undefined) s.env = serverEnvOf(environ);
    const py = await serverInterpreter(host, s, environ, run);
    if (py) {
      s.interpreter = py;
      try {
        await host.stat(py);
      } catch {
        notes.push(`${s.unit ? `systemd ${s.unit}` : `server pid ${s.pid ?? '?'}`} runs ${py}, which does not exist on this host`);
        continue;
      }
      fromServers.push({ path: py, source: s.unit ? `systemd ${s.unit}` : `server pid ${s.pid ?? '?'}` });
    }
  }
  const found = await findInterpreters(host, { configured: opts.pythonPaths, fromServers, home, roots: opts.roots ?? DEFAULT_ROOTS, run });
  notes.push(...found.notes);
  const max = opts.maxInterpreters ?? 12;
  if (found.candidates.length > max) notes.push(`${found.candidates.length} Python interpreters found; inspected the first ${max}`);
  const candidates = found.candidates.slice(0, max);

  const libCache = new Map<string, Promise<LibraryTargets>>();
  const readLib = (path: string): Promise<LibraryTargets> => {
    let p = libCache.get(path);
    if (!p) {
      p = readLibraryTargets(host, path, { maxBytes: opts.libraryMaxBytes, cuobjdump: opts.cuobjdump, signal: opts.signal });
      libCache.set(path, p);
    }
    return p;
  };

  report.interpreters = await mapLimit(candidates, 4, async (c): Promise<InterpreterReport> => {
    const it: InterpreterReport = { path: c.path, sources: c.sources, libraries: [], verdicts: [] };
    const r = await probeInterpreter(host, c.path, opts);
    if (r.error) {
      it.error = r.error;
      return it;
    }
    it.probe = r.probe;
    const maxLibs = opts.maxLibrariesPerPackage ?? 16;
    for (const pkg of ['sgl_kernel', 'flashinfer', 'vllm'] as const) {
      const libs = (r.probe?.packages[pkg].libraries ?? []).slice(0, maxLibs);
      for (const l of libs) it.libraries.push({ ...(await readLib(l.path)), package: pkg });
    }
    // The JIT cache matters only to an interpreter that has FlashInfer; readLib shares the reads.
    const jit = r.probe?.packages.flashinfer.found ? (r.probe.caches.flashinfer?.libraries ?? []) : [];
    for (const l of jit.slice(0, maxLibs)) it.libraries.push({ ...(await readLib(l.path)), package: 'flashinfer_jit' });
    return it;
  });

  report.interpreters = mergeSameInterpreters(report.interpreters);
  if (opts.checkEnv) await runEngineEnvReports(host, report.interpreters, opts);
  const caps = gpuCaps(report);
  for (const it of report.interpreters) it.verdicts = verdictsFor(it, caps);
  computeWarnings(report);
  return report;
}

/**
 * One entry per interpreter: paths whose probes report the same resolved executable and the same
 * sys.prefix are one interpreter found under several names (`/usr/bin/python3`, `/bin/python3` on a
 * merged /usr, `python` and `python3` of one venv). A venv whose python links to the base one has its
 * own prefix and stays apart, as it sees other packages. The first entry (servers' first) is kept.
 */
export function mergeSameInterpreters(list: InterpreterReport[]): InterpreterReport[] {
  const byKey = new Map<string, InterpreterReport>();
  const out: InterpreterReport[] = [];
  for (const it of list) {
    const py = it.probe?.python;
    const key = py?.real && py.prefix ? `${py.real}\0${py.prefix}` : undefined;
    const first = key ? byKey.get(key) : undefined;
    if (!first) {
      if (key) byKey.set(key, it);
      out.push(it);
      continue;
    }
    (first.alsoAt ??= []).push(it.path);
    for (const s of it.sources) if (!first.sources.includes(s)) first.sources.push(s);
  }
  return out;
}

async function runEngineEnvReports(host: HostLike, interpreters: InterpreterReport[], opts: DiscoverOptions): Promise<void> {
  for (const tool of ENGINE_ENV_REPORTS) {
    const withPkg = interpreters.filter((it) => it.probe?.packages[tool.pkg].found && it.probe.packages[tool.pkg].path).slice(0, CHECK_ENV_MAX_INTERPRETERS);
    for (const it of withPkg) {
      // Older releases have no such module: look for the file rather than run an ImportError.
      const file = `${it.probe!.packages[tool.pkg].path!}/${tool.file}`;
      try {
        await host.stat(file);
      } catch {
        continue;
      }
      const r = await runGuarded(host, [it.path, '-m', tool.module], {
        env: opts.env,
        signal: opts.signal,
        timeoutMs: opts.checkEnvTimeoutMs ?? CHECK_ENV_TIMEOUT_MS,
        maxOutputBytes: CHECK_ENV_MAX_BYTES,
      });
      const clean = (t: string): string => t.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '').replace(/\r\n?/g, '\n');
      const text = [clean(r.stdout).trimEnd(), clean(r.stderr).trimEnd()].filter(Boolean).join('\n');
      const truncated = text.length > CHECK_ENV_MAX_BYTES;
      it[tool.field] = {
        code: r.code,
        output: truncated ? text.slice(0, CHECK_ENV_MAX_BYTES) : text,
        truncated,
        ...(r.ok ? {} : { error: r.error ?? 'failed' }),
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Text rendering

function targetsText(ts: CudaTarget[]): string {
  const sass = ts.filter((t) => t.kind === 'sass').map((t) => t.name);
  const ptx = ts.filter((t) => t.kind === 'ptx').map((t) => t.name);
  return [sass.length ? sass.join(' ') : 'no SASS', ptx.length ? `PTX ${ptx.join(' ')}` : ''].filter(Boolean).join(' | ');
}

const MARK: Record<Severity, string> = { error: 'ERROR', warning: 'WARN ', info: 'info ' };

/** How the report names each kind of server command. */
export const SERVER_KIND_LABEL: Record<RunningServer['kind'], string> = {
  launch_server: 'launch_server',
  serve: 'sglang serve',
  vllm_serve: 'vllm serve',
  vllm_api_server: 'vllm api_server',
};

/** The packages an interpreter row reports, in report order, with the name users know them by. */
export const PACKAGE_LABELS = [
  ['sglang', 'sglang'],
  ['sgl_kernel', 'sgl-kernel'],
  ['flashinfer', 'flashinfer'],
  ['torch', 'torch'],
  ['triton', 'triton'],
  ['transformers', 'transformers'],
  ['vllm', 'vllm'],
] as const;

export function formatEnvReport(r: EnvReport): string {
  const L: string[] = [];
  L.push(`Inference Doctor environment report: ${r.host} (${r.generatedAt})`, '');
  L.push('GPUs');
  if (r.gpus.length === 0) L.push('  none found');
  for (const g of r.gpus) {
    const cc = g.computeCap ? `${archOf(g.computeCap)} (compute ${ccText(g.computeCap)})` : 'compute capability unknown';
    const mem = g.memoryMiB !== undefined ? `, ${g.memoryMiB} MiB` : '';
    L.push(`  [${g.index}] ${g.name}: ${cc}${mem}`);
  }
  const cuda = [
    r.driverVersion ? `driver ${r.driverVersion}` : '',
    r.driverCudaVersion ? `driver supports CUDA ${r.driverCudaVersion}` : '',
    r.nvccVersion ? `nvcc ${r.nvccVersion}` : 'nvcc not found',
  ]
    .filter(Boolean)
    .join(', ');
  L.push(`  ${cuda}`, '');

  L.push('SGLang and vLLM servers');
  if (r.servers.length === 0) L.push('  none running');
  for (const s of r.servers) {
    const who = s.source === 'systemd' ? `systemd ${s.unit ?? ''}` : `pid ${s.pid ?? '?'}`;
    const listen = s.listening?.length ? `listening on ${s.listening.join(', ')}` : s.source === 'process' ? 'not seen listening' : '';
    L.push(`  ${who}: ${SERVER_KIND_LABEL[s.kind]} on ${s.host}:${s.port}${s.portIsDefault ? ' (default port)' : ''}${listen ? `, ${listen}` : ''}`);
    if (s.modelPath) L.push(`      model ${s.modelPath}`);
    if (s.interpreter) L.push(`      python ${s.interpreter}`);
    const env = Object.entries(s.env ?? {});
    if (env.length) L.push(`      env ${env.map(([k, v]) => `${k}=${v}`).join(' ')}`);
  }
  L.push('');

  L.push('Python environments');
  if (r.interpreters.length === 0) L.push('  none found');
  for (const it of r.interpreters) {
    L.push(`  ${it.path}  [${it.sources.join(', ')}]`);
    if (it.alsoAt?.length) L.push(`    also found as ${it.alsoAt.join(', ')}`);
    if (it.error || !it.probe) {
      L.push(`      could not inspect: ${it.error ?? 'unknown error'}`);
      continue;
    }
    const p = it.probe;
    const libLines = (src: LibrarySource, dir: string, indent = 10): void => {
      for (const l of it.libraries.filter((x) => x.package === src)) {
        const what = l.error ? `unreadable: ${l.error}` : l.hasFatbin ? targetsText(l.targets) + (l.complete ? '' : ' (may be incomplete)') : 'no CUDA code';
        L.push(`${' '.repeat(indent)}${relativeTo(dir, l.path)}: ${what}`);
      }
    };
    L.push(`      Python ${p.python.version}`);
    for (const [key, label] of PACKAGE_LABELS) {
      const pkg = p.packages[key];
      if (!pkg.found) {
        if (key === 'sglang' || key === 'sgl_kernel' || key === 'torch') L.push(`      ${label.padEnd(13)}not installed`);
        continue;
      }
      let extra = '';
      if (key === 'torch') {
        const t = p.packages.torch;
        if (t.imported) {
          extra = `  CUDA ${t.cudaVersion ?? 'none (CPU build)'}, ${t.cudaAvailable ? 'GPU available' : 'no GPU visible'}`;
          if (t.archList?.length) extra += `, built for ${t.archList.join(' ')}`;
        } else if (t.importError) extra = `  import failed: ${t.importError}`;
      }
      L.push(`      ${label.padEnd(13)}${pkg.version ?? '(version unknown)'}  ${pkg.path ?? ''}${extra}`);
      if (key === 'sgl_kernel' || key === 'flashinfer' || key === 'vllm') libLines(key, pkg.path ?? '');
      const cache = key === 'flashinfer' ? p.caches.flashinfer : undefined;
      if (cache) {
        const listed = cache.libraries?.length ?? 0;
        const read = it.libraries.filter((x) => x.package === 'flashinfer_jit').length;
        const cut = cache.truncated || read < listed ? ` (read only the first ${read} .so files)` : '';
        L.push(`          JIT cache ${cache.path}${cache.exists ? '' : ' (absent)'}${cut}`);
        libLines('flashinfer_jit', cache.path, 14);
      }
    }
    for (const v of it.verdicts) L.push(`      → ${v.message}`);
    for (const tool of ENGINE_ENV_REPORTS) {
      const c = it[tool.field];
      if (!c) continue;
      L.push(`      python -m ${tool.module}${c.code === 0 ? '' : ` (${c.code === null ? (c.error ?? 'did not finish') : `exit ${c.code}`})`}`);
      const lines = c.output.split('\n');
      for (const line of lines.slice(0, 120)) L.push(`          ${line}`);
      if (lines.length > 120 || c.truncated) L.push('          … (cut; run it on the host for the rest)');
      if (tool.pkg === 'vllm' && /CUDA Archs/.test(c.output)) L.push(`          note: ${COLLECT_ENV_CUDA_ARCHS_NOTE}`);
    }
  }
  L.push('');

  L.push('Findings');
  if (r.warnings.length === 0) L.push('  nothing wrong found');
  for (const w of r.warnings) L.push(`  ${MARK[w.severity]} ${w.message}`);
  if (r.notes.length) {
    L.push('', 'Notes');
    for (const n of r.notes) L.push(`  - ${n}`);
  }
  return `${L.join('\n')}\n`;
}
