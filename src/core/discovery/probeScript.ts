/**
 * The one Python script discovery runs with each interpreter, and the typed, validated shape of
 * what it prints. The script never imports sglang, sgl_kernel, flashinfer or vllm (importing them
 * loads CUDA libraries and can take a long time or crash on the wrong GPU): it locates packages
 * with importlib, reads versions from package metadata or the package's own files, and lists the
 * shared libraries (of sgl_kernel, flashinfer and vllm, and the .so files in FlashInfer's JIT
 * cache). Only torch is imported, and only when asked (`--torch=yes`) or when sglang or
 * vllm is installed (`--torch=auto`). Every step is guarded; the JSON line always comes out.
 * Written to run on Python 2.7 as well, so an old `python` on PATH reports instead of crashing.
 */

export const PROBE_MARKER = '@@INFERENCE_DOCTOR_ENV@@';

export const PROBE_SCRIPT = String.raw`
import sys, os, re, json
R = {"python": {"version": sys.version.split()[0], "executable": sys.executable, "real": os.path.realpath(sys.executable), "prefix": sys.prefix}, "packages": {}, "caches": {}, "errors": []}
TORCH = "auto"
for a in sys.argv[1:]:
    if a.startswith("--torch="):
        TORCH = a.split("=", 1)[1]
MAX_LIBS = 64
# The JIT cache nests <version>/<archs>/cached_ops/<op>/<op>.so; a big or odd cache must not
# make the walk long, so depth, .so count and directories visited are all bounded.
CACHE_DEPTH = 6
CACHE_MAX_LIBS = 64
CACHE_MAX_DIRS = 2000
# also setuptools-scm's form, __version__ = version = '0.11.0' (vLLM's _version.py)
VER_RE = re.compile(r"^\s*__version__\s*(?::\s*str\s*)?=\s*(?:version\s*(?::\s*str\s*)?=\s*)?['\"]([^'\"]+)['\"]", re.M)

def err_text(e):
    return "%s: %s" % (type(e).__name__, str(e)[:300])

def locate(module):
    try:
        import importlib.util
        spec = importlib.util.find_spec(module)
    except BaseException as e:
        return None, err_text(e)
    if spec is None:
        return None, None
    locs = getattr(spec, "submodule_search_locations", None)
    if locs:
        for loc in locs:
            return loc, None
    if getattr(spec, "origin", None) and os.path.isabs(spec.origin):
        return os.path.dirname(spec.origin), None
    return None, None

def dist_version(names):
    try:
        from importlib import metadata
    except BaseException:
        return None
    for n in names:
        try:
            return metadata.version(n)
        except BaseException:
            pass
    return None

def file_version(d):
    for f in ("version.py", "_version.py", "__init__.py"):
        try:
            fh = open(os.path.join(d, f), "rb")
            try:
                text = fh.read(200000).decode("utf-8", "replace")
            finally:
                fh.close()
            m = VER_RE.search(text)
            if m:
                return m.group(1)
        except BaseException:
            pass
    return None

def list_libs(d, depth=3, limit=MAX_LIBS, max_dirs=None, flags=None):
    out = []
    base = d.rstrip(os.sep).count(os.sep)
    seen = 0
    for root, dirs, files in os.walk(d):
        seen += 1
        if max_dirs is not None and seen > max_dirs:
            if flags is not None:
                flags["truncated"] = True
            return out
        dirs[:] = sorted(x for x in dirs if x != "__pycache__" and not x.startswith("."))
        if root.count(os.sep) - base >= depth:
            dirs[:] = []
        for f in sorted(files):
            if f.endswith(".so") or ".so." in f:
                p = os.path.join(root, f)
                try:
                    size = os.path.getsize(p)
                except BaseException:
                    size = None
                out.append({"path": p, "size": size})
                if len(out) >= limit:
                    if flags is not None:
                        flags["truncated"] = True
                    return out
    return out

def package(key, module, dists, libs=False):
    info = {"found": False}
    R["packages"][key] = info
    try:
        d, e = locate(module)
        if e:
            info["error"] = e
        if d:
            info["found"] = True
            info["path"] = d
            v = dist_version(dists) or file_version(d)
            if v:
                info["version"] = v
            if libs:
                info["libraries"] = list_libs(d)
    except BaseException as e:
        info["error"] = err_text(e)
    return info

def cache_dir(key, path, libs=False):
    try:
        info = {"path": path, "exists": os.path.isdir(path)}
        R["caches"][key] = info
        if libs and info["exists"]:
            info["libraries"] = list_libs(path, CACHE_DEPTH, CACHE_MAX_LIBS, CACHE_MAX_DIRS, info)
    except BaseException as e:
        R["errors"].append(err_text(e))

def torch_details(info):
    info["imported"] = False
    try:
        import torch
    except BaseException as e:
        info["import_error"] = err_text(e)
        return
    info["imported"] = True
    try:
        info["version"] = str(getattr(torch, "__version__", "")) or info.get("version")
        v = getattr(torch, "version", None)
        info["cuda_version"] = getattr(v, "cuda", None)
        info["hip_version"] = getattr(v, "hip", None)
    except BaseException as e:
        info["error"] = err_text(e)
    try:
        info["cuda_available"] = bool(torch.cuda.is_available())
    except BaseException as e:
        info["cuda_available"] = False
        info["cuda_error"] = err_text(e)
    try:
        info["arch_list"] = [str(a) for a in torch.cuda.get_arch_list()]
    except BaseException as e:
        info["arch_list_error"] = err_text(e)
    if info.get("cuda_available"):
        devs = []
        try:
            for i in range(min(int(torch.cuda.device_count()), 16)):
                cap = torch.cuda.get_device_capability(i)
                devs.append({"index": i, "name": str(torch.cuda.get_device_name(i)), "capability": [int(cap[0]), int(cap[1])]})
        except BaseException as e:
            info["device_error"] = err_text(e)
        info["devices"] = devs

def main():
    sgl = package("sglang", "sglang", ["sglang"])
    package("sgl_kernel", "sgl_kernel", ["sgl-kernel", "sgl_kernel"], libs=True)
    package("flashinfer", "flashinfer", ["flashinfer-python", "flashinfer"], libs=True)
    t = package("torch", "torch", ["torch"])
    package("triton", "triton", ["triton"])
    package("transformers", "transformers", ["transformers"])
    vl = package("vllm", "vllm", ["vllm"], libs=True)
    home = os.path.expanduser("~")
    cache_dir("flashinfer", os.path.join(os.environ.get("FLASHINFER_WORKSPACE_BASE") or home, ".cache", "flashinfer"), libs=True)
    cache_dir("triton", os.environ.get("TRITON_CACHE_DIR") or os.path.join(home, ".triton", "cache"))
    want = TORCH == "yes" or (TORCH == "auto" and (sgl.get("found") or vl.get("found")))
    if t.get("found") and want:
        torch_details(t)

try:
    main()
except BaseException as e:
    R["errors"].append(err_text(e))
sys.stdout.write("\n${PROBE_MARKER}" + json.dumps(R, default=str) + "\n")
sys.stdout.flush()
`;
import { errorMessage } from '../errors';

export interface PyLibrary {
  path: string;
  size: number | null;
}

export interface PyPackage {
  found: boolean;
  path?: string;
  version?: string;
  error?: string;
  libraries?: PyLibrary[];
}

export interface PyTorch extends PyPackage {
  imported?: boolean;
  importError?: string;
  cudaVersion?: string | null;
  hipVersion?: string | null;
  cudaAvailable?: boolean;
  cudaError?: string;
  archList?: string[];
  devices?: { index: number; name: string; capability: [number, number] }[];
}

/** A cache directory; `libraries` only for FlashInfer's JIT cache, `truncated` when a bound cut the listing. */
export interface PyCache {
  path: string;
  exists: boolean;
  libraries?: PyLibrary[];
  truncated?: boolean;
}

export const PACKAGE_KEYS = ['sglang', 'sgl_kernel', 'flashinfer', 'torch', 'triton', 'transformers', 'vllm'] as const;
export type PackageKey = (typeof PACKAGE_KEYS)[number];

export interface PythonProbe {
  /** `real`: the executable with links resolved (with `prefix`, what tells two interpreter paths apart). */
  python: { version: string; executable: string; real?: string; prefix: string };
  packages: Record<Exclude<PackageKey, 'torch'>, PyPackage> & { torch: PyTorch };
  caches: Record<string, PyCache>;
  errors: string[];
}

// ---------------------------------------------------------------------------------------------
// Validation of the script's output: it comes from another machine, so trust nothing.

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, max = 4096): string | undefined => (typeof v === 'string' ? v.slice(0, max) : undefined);

function pkg(v: unknown): PyPackage {
  const o = isObj(v) ? v : {};
  const p: PyPackage = { found: o.found === true };
  const path = str(o.path);
  const version = str(o.version, 200);
  const error = str(o.error, 1000);
  if (path) p.path = path;
  if (version) p.version = version;
  if (error) p.error = error;
  const libs = libraries(o.libraries);
  if (libs) p.libraries = libs;
  return p;
}

function libraries(v: unknown): PyLibrary[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.slice(0, 256).flatMap((l) => {
    // Longer than PATH_MAX is not a path; cutting it would name another file.
    if (!isObj(l) || typeof l.path !== 'string' || l.path.length > 4096) return [];
    return [{ path: l.path, size: typeof l.size === 'number' && Number.isFinite(l.size) ? l.size : null }];
  });
}

function torch(v: unknown): PyTorch {
  const o = isObj(v) ? v : {};
  const t: PyTorch = pkg(v);
  if (typeof o.imported === 'boolean') t.imported = o.imported;
  const ie = str(o.import_error, 1000);
  if (ie) t.importError = ie;
  if (typeof o.cuda_version === 'string' || o.cuda_version === null) t.cudaVersion = o.cuda_version;
  if (typeof o.hip_version === 'string' || o.hip_version === null) t.hipVersion = o.hip_version;
  if (typeof o.cuda_available === 'boolean') t.cudaAvailable = o.cuda_available;
  const ce = str(o.cuda_error, 1000);
  if (ce) t.cudaError = ce;
  if (Array.isArray(o.arch_list)) t.archList = o.arch_list.filter((a): a is string => typeof a === 'string').slice(0, 64);
  if (Array.isArray(o.devices)) {
    t.devices = o.devices.slice(0, 64).flatMap((d) => {
      if (!isObj(d) || !Array.isArray(d.capability)) return [];
      const [a, b] = d.capability as unknown[];
      if (typeof a !== 'number' || typeof b !== 'number') return [];
      return [{ index: typeof d.index === 'number' ? d.index : 0, name: str(d.name, 200) ?? '', capability: [a, b] as [number, number] }];
    });
  }
  return t;
}

/** Find the marker line in the interpreter's stdout and validate the JSON after it. */
export function parseProbeOutput(stdout: string): PythonProbe {
  const at = stdout.lastIndexOf(PROBE_MARKER);
  if (at < 0) throw new Error('the probe script printed no report (wrong interpreter, or it was killed)');
  const line = stdout.slice(at + PROBE_MARKER.length).split('\n')[0];
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    throw new Error(`the probe script printed invalid JSON: ${errorMessage(err)}`);
  }
  if (!isObj(raw) || !isObj(raw.python)) throw new Error('the probe script printed JSON of an unexpected shape');
  const py = raw.python;
  const pk = isObj(raw.packages) ? raw.packages : {};
  const caches: PythonProbe['caches'] = {};
  if (isObj(raw.caches)) {
    for (const [k, v] of Object.entries(raw.caches).slice(0, 16)) {
      if (k === '__proto__' || !isObj(v) || typeof v.path !== 'string' || v.path.length > 4096) continue; // a JSON key must not reach the prototype
      const c: PyCache = { path: v.path, exists: v.exists === true };
      const libs = libraries(v.libraries);
      if (libs) c.libraries = libs;
      if (v.truncated === true) c.truncated = true;
      caches[k] = c;
    }
  }
  return {
    python: {
      version: str(py.version, 100) ?? '',
      executable: str(py.executable) ?? '',
      ...(str(py.real) ? { real: str(py.real)! } : {}),
      prefix: str(py.prefix) ?? '',
    },
    packages: {
      sglang: pkg(pk.sglang),
      sgl_kernel: pkg(pk.sgl_kernel),
      flashinfer: pkg(pk.flashinfer),
      torch: torch(pk.torch),
      triton: pkg(pk.triton),
      transformers: pkg(pk.transformers),
      vllm: pkg(pk.vllm),
    },
    caches,
    errors: Array.isArray(raw.errors) ? raw.errors.filter((e): e is string => typeof e === 'string').slice(0, 50) : [],
  };
}
