/**
 * What SGLang and vLLM logs have in common: crash and warning signatures (counted, first
 * occurrence kept), package versions the log prints, and the bookkeeping of a streaming reader
 * (line numbers, bounded line length, facts with "server log line N"). Memory stays bounded: a
 * reader keeps counts, first occurrences and the facts it read, never the text.
 */
import {
  emptyEvidence,
  fact,
  MAX_RECORD_KEYS,
  putEngine,
  putFact,
  putSignature,
  putSlot,
  type Certainty,
  type Engine,
  type Evidence,
  type Fact,
  type FlagValue,
  type GpuEvidence,
  type LogSignatureKind,
  type ModelEvidence,
  type ModelTrait,
  type RuntimeEvidence,
  type VersionKey,
} from './evidence';
import { deriveFromArgs } from './derive';
import { ccString, gpuFamilyOf } from './gpuFamily';
import { forEachLine } from './lines';
import { normalizeQuantization, traitsOfArchitecture } from './modelHints';

/** Signature and pattern scanning looks at this much of a line. */
export const MAX_SCAN_CHARS = 64 * 1024;
/** repr lines (server_args, non-default args, engine config) are parsed up to this length. */
export const MAX_REPR_CHARS = 1024 * 1024;
const MAX_QUOTE = 500;

export interface LogReadOptions {
  /** Names the log in `where` texts: "server log" → "server log line 12". */
  label?: string;
}

interface SignatureRule {
  kind: LogSignatureKind;
  test: RegExp;
  /** Rules of one group are exclusive: the first that matches a line wins (CUDA errors). */
  group?: string;
  /** Cheap substring that must be in the line (lower case) before the regex runs. */
  needle: string;
}

/**
 * Shapes seen in public SGLang, vLLM and FlashInfer issues (see the tests' fixtures for lines of
 * our own in these shapes). Order matters inside a group.
 */
const SIGNATURES: readonly SignatureRule[] = [
  { kind: 'nan-detected', needle: 'nan', test: /Detected errors during sampling|NaN in the logits|nan detected in (?:the )?(?:logits|hidden|output)/i },
  { kind: 'nan-happened', needle: 'nan happened', test: /NaN happened/ },
  { kind: 'probability-tensor-inf-nan', needle: 'probability tensor', test: /probability tensor contains either `?inf`?, `?nan`? or element < 0/i },
  { kind: 'unsupported-arch', needle: 'unsupported arch', test: /Unsupported architecture/i },
  {
    kind: 'torch-arch-missing',
    needle: 'not compatible with the current pytorch',
    test: /with CUDA capability sm_\d+ is not compatible with the current PyTorch installation/i,
  },
  { kind: 'cuda-illegal-memory', group: 'cuda', needle: 'illegal memory access', test: /illegal memory access/i },
  { kind: 'kernel-missing', group: 'cuda', needle: 'no kernel image', test: /no kernel image is available for execution on the device/i },
  { kind: 'oom', group: 'cuda', needle: 'out of memory', test: /OutOfMemoryError|CUDA out of memory|CUDA error: out of memory|HIP out of memory/i },
  { kind: 'cuda-driver-too-old', group: 'cuda', needle: 'driver version is insufficient', test: /CUDA driver version is insufficient/i },
  { kind: 'cuda-error', group: 'cuda', needle: 'cuda error', test: /CUDA error\b/i },
  { kind: 'no-valid-tactics', needle: 'no valid tactics', test: /No valid tactics/i },
  {
    kind: 'package-too-old',
    needle: 'less than the minimum required version',
    test: /is installed with version \S+, which is less than the minimum required version/,
  },
  { kind: 'jit-fallback', needle: 'prebuilt kernels not found', test: /Prebuilt kernels not found, using JIT backend/i },
  { kind: 'scheduler-exception', needle: 'scheduler hit an exception', test: /Scheduler hit an exception/ },
  { kind: 'engine-core-failed', needle: 'engine core', test: /Engine core initialization failed|EngineCore failed to start|EngineDeadError/ },
];

/** Needles of the shared signatures and version lines. */
const COMMON_NEEDLES = new RegExp(
  [...SIGNATURES.map((r) => r.needle), 'is installed with version', 'transformers version', '==', 'driver version:']
    .map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|'),
  'i',
);

/** pip-style `name==version` and "name version X" for the packages we track. */
const PACKAGE_KEY: Record<string, VersionKey> = {
  sglang: 'sglang',
  'sgl-kernel': 'sgl-kernel',
  sgl_kernel: 'sgl-kernel',
  'sglang-kernel': 'sgl-kernel',
  flashinfer: 'flashinfer',
  'flashinfer-python': 'flashinfer',
  flashinfer_python: 'flashinfer',
  torch: 'torch',
  triton: 'triton',
  transformers: 'transformers',
  vllm: 'vllm',
};

export function versionKeyOfPackage(name: string): VersionKey | undefined {
  const k = name
    .trim()
    .toLowerCase()
    .replace(/^module\s+/, '')
    .replace(/['"`]/g, '');
  return PACKAGE_KEY[k] ?? PACKAGE_KEY[k.replace(/_/g, '-')];
}

const VERSION_TEXT = /^v?(\d+(?:\.\d+)+(?:[.+-]?[A-Za-z0-9]+)*)/;

/** Cuts a version out of text after a marker: "0.5.6.post2," → "0.5.6.post2". */
export function versionAt(text: string): string | undefined {
  const m = VERSION_TEXT.exec(text.trim());
  return m ? m[1].replace(/[.,;:)]+$/, '') : undefined;
}

/** The bookkeeping every log reader shares. Subclasses add engine-specific lines in `onLine`. */
export abstract class LogReaderBase {
  protected readonly ev: Evidence = emptyEvidence();
  /** Lines read so far. */
  lines = 0;
  protected readonly label: string;

  constructor(options: LogReadOptions = {}) {
    this.label = options.label ?? 'server log';
  }

  protected abstract onLine(line: string, lower: string): void;

  /**
   * Words (case-insensitive) one of which a line must hold to be looked at further: the engine's
   * own and those of the shared signatures and versions. Most lines of a long log (request
   * traffic) hold none, and one regex test is what they cost.
   */
  protected abstract readonly needles: RegExp;

  /**
   * Request traffic, the bulk of a long log: batch statistics and HTTP access lines. They hold no
   * signature, so they skip the needle test (two substring tests instead of a regex).
   */
  protected isTraffic(line: string): boolean {
    return line.includes('" 200 OK');
  }

  /** Lines the needles miss but the reader still wants (SGLang's first `cuda graph: True`). */
  protected wants(_line: string): boolean {
    return false;
  }

  /** Feeds one line (without its newline). */
  line(raw: string): void {
    this.lines++;
    if (typeof raw !== 'string' || raw.length === 0) return;
    const line = raw.length > MAX_REPR_CHARS ? raw.slice(0, MAX_REPR_CHARS) : raw;
    const scan = line.length > MAX_SCAN_CHARS ? line.slice(0, MAX_SCAN_CHARS) : line;
    if (this.isTraffic(scan) ? !this.wants(scan) : !this.needles.test(scan) && !COMMON_NEEDLES.test(scan) && !this.wants(scan)) return;
    const lower = scan.toLowerCase();
    try {
      this.onLine(line, lower);
      if (!this.isArgsDump(lower)) this.signatures(scan, lower);
      this.commonVersions(scan, lower);
    } catch {
      // A reader bug on one hostile line must not end the read.
    }
  }

  /** The evidence read so far (the reader keeps it; merge to combine). */
  result(): Evidence {
    return this.ev;
  }

  protected where(): string {
    return `${this.label} line ${this.lines}`;
  }

  protected fact<T>(value: T, certainty: Certainty = 'certain'): Fact<T> {
    return fact(value, 'log', certainty, this.where());
  }

  /** Lines that echo arguments (a field named enable_nan_detection is not a NaN). */
  protected isArgsDump(lower: string): boolean {
    return lower.includes('serverargs(') || lower.includes('non-default args') || lower.includes('args: namespace(') || lower.includes('with config:');
  }

  private signatures(line: string, lower: string): void {
    const hitGroups = new Set<string>();
    for (const r of SIGNATURES) {
      if (!lower.includes(r.needle)) continue;
      if (r.group && hitGroups.has(r.group)) continue;
      if (!r.test.test(line)) continue;
      if (r.group) hitGroups.add(r.group);
      putSignature(this.ev, {
        kind: r.kind,
        count: 1,
        firstLine: this.lines,
        firstText: line.length > MAX_QUOTE ? `${line.slice(0, MAX_QUOTE)}…` : line,
        source: 'log',
        where: this.label,
      });
    }
  }

  private commonVersions(line: string, lower: string): void {
    if (lower.includes('is installed with version')) {
      const m = /(?:Module\s+)?['"`]?([A-Za-z][\w.-]*)['"`]?\s+is installed with version\s+(\S+?),/.exec(line);
      const key = m && versionKeyOfPackage(m[1]);
      if (m && key) this.putVersion(key, m[2], 'certain');
    }
    if (lower.includes('transformers version')) {
      const m = /Transformers version\s+(\S+)\s+is used/i.exec(line);
      if (m) this.putVersion('transformers', m[1], 'certain');
    }
    if (lower.includes('==')) {
      for (const m of line.matchAll(/(?<![\w-])([A-Za-z][\w-]*)==(\d[\w.+-]*)/g)) {
        const key = versionKeyOfPackage(m[1]);
        if (key) this.putVersion(key, m[2], 'likely');
      }
    }
    if (lower.includes('driver version:')) {
      const d = /Driver Version:\s*(\d+(?:\.\d+)+)/i.exec(line);
      if (d) this.putVersion('driver', d[1], 'certain');
      const c = /CUDA Version:\s*(\d+\.\d+)/i.exec(line);
      if (c) this.putVersion('cuda-driver', c[1], 'certain');
    }
  }

  // ---- writers ------------------------------------------------------------------------------

  protected putVersion(key: VersionKey, version: string, certainty: Certainty = 'certain'): void {
    const v = versionAt(version);
    if (v) putSlot(this.ev, this.ev.versions, key, this.fact(v, certainty), `versions.${key}`);
  }

  protected putResolved(field: string, value: FlagValue, certainty: Certainty = 'certain'): void {
    putFact(this.ev.flags.resolved, field, this.fact(value, certainty), this.ev.conflicts, `flags.resolved.${field}`, MAX_RECORD_KEYS);
  }

  protected putWritten(field: string, value: FlagValue, certainty: Certainty = 'certain'): void {
    putFact(this.ev.flags.written, field, this.fact(value, certainty), this.ev.conflicts, `flags.written.${field}`, MAX_RECORD_KEYS);
  }

  protected putGpu<K extends keyof GpuEvidence>(key: K, value: NonNullable<GpuEvidence[K]>['value'], certainty: Certainty = 'certain'): void {
    putSlot(this.ev, this.ev.gpu, key, this.fact(value, certainty) as NonNullable<GpuEvidence[K]>, `gpu.${key}`);
  }

  /** A GPU name and capability seen together: name, capability and family. */
  protected putGpuIdentity(name: string | undefined, cc: string | undefined, certainty: Certainty = 'certain'): void {
    const n = name?.trim();
    const c = ccString(cc);
    if (n) this.putGpu('name', n, certainty);
    if (c) this.putGpu('computeCapability', c, certainty);
    if (n || c) this.putGpu('family', gpuFamilyOf(c, n), c ? certainty : 'likely');
  }

  protected putModel<K extends Exclude<keyof ModelEvidence, 'traits'>>(
    key: K,
    value: NonNullable<ModelEvidence[K]>['value'],
    certainty: Certainty = 'certain',
  ): void {
    putSlot(this.ev, this.ev.model, key, this.fact(value, certainty) as NonNullable<ModelEvidence[K]>, `model.${key}`);
  }

  protected putTrait(trait: ModelTrait, value: boolean, certainty: Certainty): void {
    putSlot(this.ev, this.ev.model.traits, trait, this.fact(value, certainty), `model.traits.${trait}`);
  }

  protected putArchitecture(arch: string): void {
    this.putModel('architecture', arch);
    for (const [t, v] of Object.entries(traitsOfArchitecture(arch))) if (v) this.putTrait(t as ModelTrait, true, 'likely');
  }

  protected putQuantization(method: unknown, certainty: Certainty = 'certain'): void {
    const q = normalizeQuantization(method);
    if (q) this.putModel('quantization', q, certainty);
  }

  protected putRuntime<K extends keyof RuntimeEvidence>(key: K, value: NonNullable<RuntimeEvidence[K]>['value'], certainty: Certainty = 'certain'): void {
    putSlot(this.ev, this.ev.runtime, key, this.fact(value, certainty) as NonNullable<RuntimeEvidence[K]>, `runtime.${key}`);
  }

  protected putEngine(engine: Engine, certainty: Certainty): void {
    putEngine(this.ev, this.fact(engine, certainty));
  }

  /** Model, quantization, dtypes and GPU count from server args (see derive.ts). */
  protected derive(args: Record<string, FlagValue>, direct: Certainty = 'certain', count: Certainty = 'likely'): void {
    deriveFromArgs(this.ev, args, (v, c) => this.fact(v, c), { direct, count });
  }
}

/** Runs a reader over a line source. */
export async function readAll<R extends LogReaderBase>(reader: R, lines: AsyncIterable<string> | Iterable<string> | string): Promise<Evidence> {
  await forEachLine(lines, (l) => reader.line(l));
  return reader.result();
}
