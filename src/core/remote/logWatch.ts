/**
 * Following an SGLang or vLLM server log: classify lines that mean trouble (NaN, vLLM's count of
 * corrupted requests, sampling errors, CUDA failures) and pick out the lines where vLLM says which
 * attention / MoE / GEMM backend it chose, keep only the last N lines, and decide when to tell the
 * user (once per burst of trouble, not once per line). No vscode import: the extension and the
 * integration tests share it.
 */
import { readVllmBackendLine } from '../diagnose/vllmLog';

export type LogAlertKind = 'sampling-error' | 'nan' | 'cuda-error' | 'illegal-memory-access' | 'no-valid-tactics' | 'unsupported-arch' | 'backend-selected';

export interface LogAlert {
  kind: LogAlertKind;
  /** `problem`: trouble, worth a notification; `info`: a line worth finding again (a backend choice), never a notification. */
  level: 'problem' | 'info';
  /** Short human text for notifications ("NaN in the log"). */
  title: string;
  /** The line that triggered it (trimmed to 500 characters). */
  line: string;
  /** 1-based line number in the whole stream (not the bounded buffer). */
  lineNumber: number;
}

interface AlertRule {
  kind: LogAlertKind;
  title: string;
  test: RegExp;
}

/** Most specific first: a line is reported once, under the first rule that matches. */
const RULES: readonly AlertRule[] = [
  { kind: 'sampling-error', title: 'Detected errors during sampling', test: /Detected errors during sampling/ },
  // vLLM's periodic stats line counts requests with NaN logits when VLLM_COMPUTE_NANS_IN_LOGITS=1; "Corrupted: 0 reqs" is fine.
  { kind: 'nan', title: 'Requests with NaN logits (vLLM counted corrupted requests)', test: /\bCorrupted: [1-9]\d* reqs\b/ },
  { kind: 'illegal-memory-access', title: 'CUDA illegal memory access', test: /illegal memory access/i },
  { kind: 'no-valid-tactics', title: 'No valid tactics (GEMM backend has no kernel for this GPU)', test: /No valid tactics/ },
  { kind: 'unsupported-arch', title: 'Unsupported architecture', test: /Unsupported architecture/i },
  { kind: 'cuda-error', title: 'CUDA error', test: /CUDA error/ },
  // A bare "NaN" word (not "nan" inside identifiers such as enable_nan_detection or "finance").
  { kind: 'nan', title: 'NaN in the server log', test: /(?<![A-Za-z0-9_])NaN(?![A-Za-z0-9_])/ },
];

/** Lines that mention NaN only as a setting, not as an event: server-args dumps and flag echoes. */
const BENIGN_NAN = /(?:server_args=ServerArgs\(|--(?:enable|disable)-nan-detection|(?:enable|disable)_nan_detection\s*[=:])/;

/** What the backend-selection lines choose, in the user's words. */
const BACKEND_WHAT: Record<string, string> = {
  attention_backend: 'attention',
  moe_backend: 'MoE',
  mla_prefill_backend: 'MLA prefill',
  mm_encoder_attn_backend: "the multimodal encoder's attention",
  nvfp4_gemm_backend: 'NVFP4 GEMM',
};

/** The alert kind of one log line, or undefined for an ordinary line. */
export function classifyLogLine(line: string): Omit<LogAlert, 'lineNumber' | 'line'> | undefined {
  if (line.length === 0) return undefined;
  const text = line.length > 4000 ? line.slice(0, 4000) : line;
  for (const r of RULES) {
    if (!r.test.test(text)) continue;
    if (r.kind === 'nan' && BENIGN_NAN.test(text) && !/NaN happened|NaN in the logits/.test(text)) return undefined;
    return { kind: r.kind, level: 'problem', title: r.title };
  }
  const chosen = readVllmBackendLine(text);
  if (!chosen) return undefined;
  const what = BACKEND_WHAT[chosen.field] ?? chosen.field.replace(/^linear_kernel\./, 'the linear layers of ');
  return { kind: 'backend-selected', level: 'info', title: `vLLM chose ${chosen.value} for ${what}` };
}

/**
 * The last `maxLines` lines of a stream fed in arbitrary chunks. A partial last line is held until
 * its newline arrives (or `flush()`); `\r\n` is normalised.
 */
export class LogBuffer {
  private lines: string[] = [];
  private start = 0;
  private pending = '';
  private total = 0;
  /** Lines dropped from the front since the buffer was created. */
  dropped = 0;

  constructor(
    readonly maxLines = 5000,
    private readonly maxLineChars = 16_384,
  ) {
    if (!Number.isInteger(maxLines) || maxLines < 1) throw new RangeError('maxLines must be a positive integer');
  }

  /** Feed a chunk; returns the complete lines it finished (with their 1-based stream line numbers). */
  push(chunk: string): { text: string; lineNumber: number }[] {
    const data = this.pending + chunk;
    const parts = data.split('\n');
    this.pending = parts.pop() ?? '';
    if (this.pending.length > this.maxLineChars * 4) {
      // A runaway line without newline (progress bars with \r): cut it so memory stays bounded.
      parts.push(this.pending);
      this.pending = '';
    }
    const out: { text: string; lineNumber: number }[] = [];
    for (let p of parts) {
      if (p.endsWith('\r')) p = p.slice(0, -1);
      // Progress bars rewrite a line with \r; keep what was shown last.
      const cr = p.lastIndexOf('\r');
      if (cr >= 0) p = p.slice(cr + 1);
      if (p.length > this.maxLineChars) p = `${p.slice(0, this.maxLineChars)} … [line cut at ${this.maxLineChars} characters]`;
      this.add(p);
      out.push({ text: p, lineNumber: this.total });
    }
    return out;
  }

  /** Complete a pending partial line (stream ended). */
  flush(): { text: string; lineNumber: number }[] {
    if (!this.pending) return [];
    const p = this.pending;
    this.pending = '';
    return this.push(`${p}\n`);
  }

  private add(line: string): void {
    this.total++;
    this.lines.push(line);
    if (this.lines.length - this.start > this.maxLines) {
      this.start++;
      this.dropped++;
      // Compact now and then instead of shifting on every line.
      if (this.start > 4096 && this.start > this.lines.length / 2) {
        this.lines = this.lines.slice(this.start);
        this.start = 0;
      }
    }
  }

  /** Total complete lines seen. */
  get lineCount(): number {
    return this.total;
  }
  /** Lines currently kept. */
  get size(): number {
    return this.lines.length - this.start;
  }

  snapshot(): string[] {
    return this.lines.slice(this.start);
  }

  /** The kept text, with a first line saying how many earlier lines were dropped. */
  text(): string {
    const kept = this.snapshot();
    const head = this.dropped > 0 ? [`… ${this.dropped} earlier line${this.dropped === 1 ? '' : 's'} not kept (showing the last ${this.maxLines}) …`] : [];
    const body = [...head, ...kept].join('\n');
    return this.pending ? `${body}${body ? '\n' : ''}${this.pending}` : body;
  }
}

/**
 * Decides when an alert becomes a notification: the first alert of a burst notifies; further
 * alerts are counted silently until `quietMs` pass without any alert, after which the next alert
 * starts a new burst.
 */
export class BurstNotifier {
  private lastAlertAt = -Infinity;
  private current: { first: LogAlert; count: number; kinds: Set<LogAlertKind> } | undefined;

  constructor(
    private readonly quietMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Record an alert; true when the caller should notify now. */
  offer(alert: LogAlert): boolean {
    const t = this.now();
    const quiet = t - this.lastAlertAt;
    this.lastAlertAt = t;
    if (!this.current || quiet >= this.quietMs) {
      this.current = { first: alert, count: 1, kinds: new Set([alert.kind]) };
      return true;
    }
    this.current.count++;
    this.current.kinds.add(alert.kind);
    return false;
  }

  /** The burst in progress (or last one): its first alert and how many alerts it had. */
  get burst(): { first: LogAlert; count: number; kinds: LogAlertKind[] } | undefined {
    return this.current ? { first: this.current.first, count: this.current.count, kinds: [...this.current.kinds] } : undefined;
  }
}

/** Where a server's log comes from. */
export type LogSource = { kind: 'journal'; unit: string } | { kind: 'file'; path: string };

/** The argv that follows a log source, starting with the last `initialLines` lines. */
export function followArgv(src: LogSource, initialLines = 200): string[] {
  const n = String(Math.max(0, Math.floor(initialLines)));
  if (src.kind === 'journal') {
    if (!/^[\w@.:\\-]+$/.test(src.unit)) throw new Error(`Not a systemd unit name: ${JSON.stringify(src.unit)}`);
    return ['journalctl', '-u', src.unit, '-f', '-n', n, '--no-pager', '-o', 'short-iso'];
  }
  if (!src.path.startsWith('/')) throw new Error(`Log file path must be absolute: ${JSON.stringify(src.path)}`);
  return ['tail', '-n', n, '-F', '--', src.path];
}

export function describeLogSource(src: LogSource): string {
  return src.kind === 'journal' ? `journal of ${src.unit}` : src.path;
}
