/**
 * Evidence from a launch file: the flags and environment of its SGLang or vLLM command (found by
 * core/launch, never a regex over the file; vLLM's flags keyed by EngineArgs field as its
 * "non-default args" log line keys them), and the hints around it about the machine it is
 * meant for — image tags (`-b200`, `-cu130`, `rocm`), comments ("# for 8x H100"), the file name
 * (`h100.sh`), `CUDA_VISIBLE_DEVICES`, `--gpus`, `nvidia.com/gpu`, `--tp` — and what the model path
 * says (`-FP8`, `-NVFP4`, `DeepSeek-V3` → MLA + MoE). Hints are `guess`es; flags as written are
 * `certain` (they are what the file says, not what the server resolved).
 */
import { findLaunchCommands } from '../launch';
import { launchSyntaxOfPath } from '../launch/syntax';
import type { LanguageHint, LaunchCommand } from '../launch/types';
import { fromImageTags } from '../release/detect';
import { fieldOfFlag } from '../remote/compare';
import { deriveFromArgs, redactEnv } from './derive';
import {
  emptyEvidence,
  fact,
  MAX_RECORD_KEYS,
  putEngine,
  putFact,
  putSlot,
  setOwn,
  type Certainty,
  type Evidence,
  type FlagValue,
  type GpuFamily,
} from './evidence';
import { ccString, gpuFamilyOf } from './gpuFamily';

export interface LaunchEvidenceOptions {
  /** The file's syntax when its name does not say (default: from the name, else shell). */
  languageHint?: LanguageHint;
  /** Which command when the file holds several (default 0, the first). */
  commandIndex?: number;
  /** Flag → dataclass field of an SGLang command (a catalog's fieldResolverFromCatalog); default the built-in table. */
  fieldOf?: (flag: string) => string | undefined;
  /** What a bare flag of an SGLang command means (false for `--no-x`); default true. */
  bareValueOf?: (flag: string) => unknown;
}

interface GpuToken {
  re: RegExp;
  name: string;
  cc?: string;
  family?: GpuFamily;
}

/** GPU names as people write them in tags, comments and file names. Most specific first. */
const GPU_TOKENS: readonly GpuToken[] = [
  { re: /\bgb300\b/i, name: 'NVIDIA GB300', cc: '10.3' },
  { re: /\bb300\b/i, name: 'NVIDIA B300', cc: '10.3' },
  { re: /\bgb200\b/i, name: 'NVIDIA GB200', cc: '10.0' },
  { re: /\bb200\b/i, name: 'NVIDIA B200', cc: '10.0' },
  { re: /\bgh200\b/i, name: 'NVIDIA GH200', cc: '9.0' },
  { re: /\bh200\b/i, name: 'NVIDIA H200', cc: '9.0' },
  { re: /\bh100\b/i, name: 'NVIDIA H100', cc: '9.0' },
  { re: /\bh800\b/i, name: 'NVIDIA H800', cc: '9.0' },
  { re: /\bh20\b/i, name: 'NVIDIA H20', cc: '9.0' },
  { re: /\ba100\b/i, name: 'NVIDIA A100', cc: '8.0' },
  { re: /\ba800\b/i, name: 'NVIDIA A800', cc: '8.0' },
  { re: /\bl40s\b/i, name: 'NVIDIA L40S', cc: '8.9' },
  { re: /\bl40\b/i, name: 'NVIDIA L40', cc: '8.9' },
  { re: /\bgb10\b|\bdgx[ _-]?spark\b/i, name: 'NVIDIA GB10', cc: '12.1' },
  { re: /\brtx[ _-]?pro[ _-]?6000\b|\bpro[ _-]?6000[ _-]?blackwell\b/i, name: 'NVIDIA RTX PRO 6000 Blackwell', cc: '12.0' },
  { re: /\brtx[ _-]?50[6-9]0(?:[ _-]?ti)?\b/i, name: 'NVIDIA GeForce RTX 50', cc: '12.0' },
  { re: /\brtx[ _-]?40[6-9]0(?:[ _-]?ti)?\b/i, name: 'NVIDIA GeForce RTX 40', cc: '8.9' },
  { re: /\brtx[ _-]?30[6-9]0(?:[ _-]?ti)?\b/i, name: 'NVIDIA GeForce RTX 30', cc: '8.6' },
  { re: /\bmi3(?:00|25|50|55)x?\b|\bmi3[05]x\b/i, name: 'AMD Instinct MI300', family: 'rocm-cdna' },
  { re: /\bmi2(?:10|50)x?\b/i, name: 'AMD Instinct MI250', family: 'rocm-cdna' },
  { re: /\b(?:rx[ _-]?)?7900[ _-]?xtx?\b|\bgfx11\d\d\b/i, name: 'AMD Radeon RX 7900', family: 'rocm-rdna' },
];

interface GpuHint {
  name?: string;
  cc?: string;
  family?: GpuFamily;
  count?: number;
  where: string;
}

/** GPU mentions in one piece of hint text, each with a count when one is written beside it ("8x H100", "H100x8"). */
function gpuHintsIn(text: string, where: string): GpuHint[] {
  const out: GpuHint[] = [];
  const t = text.slice(0, 4096).replace(/(\d)\s*[x×*]\s*(?=[a-z])/gi, '$1x ');
  for (const g of GPU_TOKENS) {
    const m = g.re.exec(t);
    if (!m) continue;
    // Trim the RTX series name to the number written: "RTX 5090".
    const num = /\d{4}/.exec(m[0])?.[0];
    const name = g.name.endsWith('RTX 50') || g.name.endsWith('RTX 40') || g.name.endsWith('RTX 30') ? `NVIDIA GeForce RTX ${num ?? ''}`.trim() : g.name;
    const before = /(?:^|[^\w.])(\d{1,2})\s*(?:x\s*)?$/i.exec(t.slice(Math.max(0, m.index - 8), m.index));
    const after = /^\s*[x×*]\s*(\d{1,2})(?!\d)/i.exec(t.slice(m.index + m[0].length, m.index + m[0].length + 8));
    const n = Number(before?.[1] ?? after?.[1]);
    const hint: GpuHint = { name, where };
    if (g.cc) hint.cc = g.cc;
    hint.family = g.family ?? gpuFamilyOf(g.cc, name);
    if (n >= 1 && n <= 64) hint.count = n;
    out.push(hint);
    break; // one GPU per piece of text: the most specific
  }
  const sm = /(?<![a-z0-9])sm_?(\d{2,3})[af]?(?![0-9])/i.exec(t);
  if (!out.length && sm) {
    const cc = ccString(`sm_${sm[1]}`);
    if (cc) out.push({ cc, family: gpuFamilyOf(cc), where });
  }
  return out;
}

/** The comment part of a line ("# for 8x H100", "// 4x B200", a trailing " # …"). */
function commentOf(line: string): string | undefined {
  const t = line.trim();
  if (/^(#|\/\/|<!--|;)/.test(t)) return t;
  const m = /\s#\s(.*)$/.exec(line);
  return m ? m[1] : undefined;
}

const IMAGE_RE = /(?<![\w./-])((?:[a-z0-9][\w.-]*(?::\d+)?\/)*[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*):([\w][\w.-]{0,127})/gi;

function baseName(p: string): string {
  return p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1) || p;
}

function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * vLLM's short aliases (facts of its parser, as the bundled catalog records them) → EngineArgs
 * field. `-O` is left out: its field changed in 0.12 (compilation config, then optimization level).
 */
const VLLM_ALIAS_FIELD: Readonly<Record<string, string>> = {
  '-tp': 'tensor_parallel_size',
  '-pp': 'pipeline_parallel_size',
  '-dp': 'data_parallel_size',
  '-dpl': 'data_parallel_size_local',
  '-dpa': 'data_parallel_address',
  '-dpp': 'data_parallel_rpc_port',
  '-dpr': 'data_parallel_start_rank',
  '-dpn': 'data_parallel_rank',
  '-dpb': 'data_parallel_backend',
  '-dph': 'data_parallel_hybrid_lb',
  '-dpe': 'data_parallel_external_lb',
  '-dcp': 'decode_context_parallel_size',
  '-pcp': 'prefill_context_parallel_size',
  '-ep': 'enable_expert_parallel',
  '-q': 'quantization',
  '-sc': 'speculative_config',
  '-cc': 'compilation_config',
  '-ac': 'attention_config',
  '-asc': 'api_server_count',
  '-n': 'nnodes',
  '-r': 'node_rank',
  '-spec-draft-tp': 'speculative_draft_tensor_parallel_size',
};

/**
 * A vLLM option's EngineArgs field: its long name with dashes (or the underscores vLLM accepts) as
 * underscores, `--no-x` as x, a short alias through the table; a dotted key of a JSON config
 * (`--compilation-config.cudagraph_mode`) and `-O` have none.
 */
export function vllmFieldOfFlag(flag: string): string | undefined {
  if (VLLM_ALIAS_FIELD[flag]) return VLLM_ALIAS_FIELD[flag];
  if (!flag.startsWith('--') || flag.includes('.')) return undefined;
  const name = flag.slice(2).replace(/-/g, '_');
  return /^[a-z][a-z0-9_]*$/.test(name) ? name.replace(/^no_/, '') : undefined;
}

/** Evidence from one launch file's text. Never throws; a file without an SGLang or vLLM command still gives its hints. */
export function fromLaunch(text: string, fileName: string, options: LaunchEvidenceOptions = {}): Evidence {
  const ev = emptyEvidence();
  if (typeof text !== 'string') return ev;
  const name = baseName(typeof fileName === 'string' ? fileName : 'launch file');
  try {
    const hint = options.languageHint ?? launchSyntaxOfPath(fileName) ?? 'shellscript';
    const cmds = findLaunchCommands(text, hint, { engines: ['sglang', 'vllm'] });
    const cmd = cmds[Math.max(0, Math.min(cmds.length - 1, options.commandIndex ?? 0))];
    if (cmd) readCommand(ev, cmd, name, options);
    readHints(ev, text, fileName, name);
  } catch {
    // what was read so far
  }
  return ev;
}

/**
 * Only the hints around a launch command (image tags, comments, the file name, GPU counts): for
 * callers that already hold the command's flags, such as the language server.
 */
export function hintsOfFile(text: string, fileName: string): Evidence {
  const ev = emptyEvidence();
  if (typeof text !== 'string') return ev;
  try {
    readHints(ev, text, fileName, baseName(typeof fileName === 'string' ? fileName : 'launch file'));
  } catch {
    // what was read so far
  }
  return ev;
}

function readCommand(ev: Evidence, cmd: LaunchCommand, name: string, options: LaunchEvidenceOptions): void {
  const at = (line: number): string => `${name} line ${line + 1}`;
  putEngine(ev, fact(cmd.engine, 'launch', 'certain', at(cmd.entryRange.start.line)));
  const vllm = cmd.engine === 'vllm';
  const fieldOf = vllm ? vllmFieldOfFlag : (options.fieldOf ?? fieldOfFlag);
  const bareValueOf = vllm ? (flag: string) => !flag.startsWith('--no-') : options.bareValueOf;
  const args: Record<string, FlagValue> = {};
  // `vllm serve MODEL`: the model is the first positional word after `serve`.
  const model = vllm ? cmd.args.find((a) => a.kind === 'positional') : undefined;
  if (model && !model.dynamic) {
    putFact(
      ev.flags.written,
      'model',
      fact(model.value, 'launch', 'certain', at(model.range.start.line)),
      ev.conflicts,
      'flags.written.model',
      MAX_RECORD_KEYS,
    );
    setOwn(args, 'model', model.value);
  }
  for (const a of cmd.args) {
    if (a.kind !== 'flag' || !a.name) continue;
    const field = fieldOf(a.name);
    if (!field) continue;
    const vs = a.values ?? [];
    let value: FlagValue;
    if (vs.length === 0) {
      const bare = bareValueOf?.(a.name);
      value = bare === undefined ? true : (JSON.parse(JSON.stringify(bare) ?? 'null') as FlagValue);
    } else value = vs.length === 1 ? vs[0].value : vs.map((v) => v.value);
    const dynamic = a.dynamic || vs.some((v) => v.dynamic);
    const certainty: Certainty = dynamic ? 'guess' : 'certain';
    putFact(ev.flags.written, field, fact(value, 'launch', certainty, at(a.range.start.line)), ev.conflicts, `flags.written.${field}`, MAX_RECORD_KEYS);
    if (!dynamic) setOwn(args, field, value);
  }
  for (const e of cmd.env) {
    putFact(
      ev.env,
      e.name,
      fact(redactEnv(e.name, e.value), 'launch', e.dynamic ? 'guess' : 'certain', at(e.range.start.line)),
      ev.conflicts,
      `env.${e.name}`,
      MAX_RECORD_KEYS,
    );
    if (e.name === 'CUDA_VISIBLE_DEVICES' && !e.dynamic) {
      const ids = e.value.split(',').filter((x) => x.trim() !== '');
      if (ids.length && ids.length <= 4096) putSlot(ev, ev.gpu, 'count', fact(ids.length, 'launch', 'likely', at(e.range.start.line)), 'gpu.count');
    }
  }
  const line = cmd.range.start.line;
  deriveFromArgs(ev, args, (v, c) => fact(v, 'launch', c, at(line)), { direct: 'likely', count: 'guess' });
}

function readHints(ev: Evidence, text: string, fileName: string, name: string): void {
  const hints: GpuHint[] = [];
  hints.push(...gpuHintsIn(String(fileName).replace(/\.[a-z0-9]+$/i, ''), `file name ${name}`));
  const lines = text.length > 4 * 1024 * 1024 ? [] : text.split('\n');
  const md = /\.(md|markdown)$/i.test(name);
  for (let i = 0; i < lines.length && i < 100_000; i++) {
    const line = lines[i];
    if (line.length > 8192) continue;
    const c = md ? line : commentOf(line);
    if (c) hints.push(...gpuHintsIn(c, `comment in ${name} line ${i + 1}`));
  }
  // Image tags: GPU, CUDA and ROCm in the tag (lmsysorg/sglang:v0.5.6-cu130-b200, rocm/sgl-dev:…-mi30x).
  IMAGE_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  let images = 0;
  while ((m = IMAGE_RE.exec(text)) && images++ < 50) {
    const [ref, image, tag] = m;
    const where = `image tag ${ref.length > 120 ? `${ref.slice(0, 120)}…` : ref} in ${name} line ${lineOf(text, m.index)}`;
    hints.push(...gpuHintsIn(tag.replace(/[-_.]/g, ' '), where));
    const cu = /(?:^|[-_.])cu(\d{2})(\d)(?![0-9])/i.exec(tag);
    if (cu) putSlot(ev, ev.versions, 'cuda', fact(`${Number(cu[1])}.${cu[2]}`, 'file-hint', 'guess', where), 'versions.cuda');
    if (/rocm/i.test(image) || /rocm/i.test(tag)) {
      // SGLang's ROCm images are built for Instinct (CDNA) parts.
      if (!hints.some((h) => h.where === where && h.family)) hints.push({ family: 'rocm-cdna', where });
      const rv = /rocm(\d)(\d)(\d)?/i.exec(tag);
      if (rv) putSlot(ev, ev.versions, 'rocm', fact(`${rv[1]}.${rv[2]}${rv[3] ? `.${rv[3]}` : ''}`, 'file-hint', 'guess', where), 'versions.rocm');
    }
    if (/(?:^|\/)vllm[-/]|vllm-openai/i.test(image)) putEngine(ev, fact('vllm', 'file-hint', 'guess', where));
  }
  for (const h of hints) {
    if (h.name) putSlot(ev, ev.gpu, 'name', fact(h.name, 'file-hint', 'guess', h.where), 'gpu.name');
    if (h.cc) putSlot(ev, ev.gpu, 'computeCapability', fact(h.cc, 'file-hint', 'guess', h.where), 'gpu.computeCapability');
    if (h.family) putSlot(ev, ev.gpu, 'family', fact(h.family, 'file-hint', 'guess', h.where), 'gpu.family');
    if (h.count) putSlot(ev, ev.gpu, 'count', fact(h.count, 'file-hint', 'guess', h.where), 'gpu.count');
  }
  // GPUs handed to a container: --gpus 2, device=0,1, compose `count: 4`, Kubernetes nvidia.com/gpu: 8.
  const gpus =
    /--gpus[ =]+["']?(?:"?device=)?(\d+(?:,\d+)*)/.exec(text) ??
    /\bnvidia\.com\/gpu["']?\s*:\s*["']?(\d+)/.exec(text) ??
    /driver:\s*nvidia[\s\S]{0,80}?\bcount:\s*(\d+)/.exec(text) ??
    /\bcount:\s*(\d+)[\s\S]{0,80}?capabilities:\s*\[\s*["']?gpu/.exec(text);
  if (gpus) {
    const v = gpus[1];
    const n = v.includes(',') || /device=/.test(gpus[0]) ? v.split(',').length : Number(v);
    if (n >= 1 && n <= 4096) putSlot(ev, ev.gpu, 'count', fact(n, 'file-hint', 'likely', `${name} line ${lineOf(text, gpus.index)}`), 'gpu.count');
  }
  for (const c of fromImageTags(text, fileName)) {
    if (c.exact && c.version) {
      putSlot(ev, ev.versions, 'sglang', fact(c.version, 'file-hint', 'likely', c.detail), 'versions.sglang');
      break;
    }
  }
}
