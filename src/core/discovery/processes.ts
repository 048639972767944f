/**
 * Running SGLang and vLLM servers: `ps -eo pid,args`, systemd units whose ExecStart runs the
 * server, and listening TCP sockets from `ss -ltnp`. Pure parsers plus small guarded gatherers.
 */

export const DEFAULT_SGLANG_PORT = 30000;
export const DEFAULT_SGLANG_HOST = '127.0.0.1';
/** vLLM's `--port` default; without `--host` it listens on every address. */
export const DEFAULT_VLLM_PORT = 8000;
export const DEFAULT_VLLM_HOST = '0.0.0.0';

export type ServerEngine = 'sglang' | 'vllm';

export interface ProcessRow {
  pid: number;
  args: string;
}

export interface ServerCommand {
  engine: ServerEngine;
  /** `launch_server` / `serve`: SGLang's module and CLI; `vllm_serve` / `vllm_api_server`: vLLM's CLI and its OpenAI server module. */
  kind: 'launch_server' | 'serve' | 'vllm_serve' | 'vllm_api_server';
  argv: string[];
  /** The Python interpreter when the command line names one (argv[0] like /venv/bin/python3). */
  interpreter?: string;
  /** A console script such as /venv/bin/sglang or /venv/bin/vllm whose shebang names the interpreter. */
  script?: string;
  port: number;
  portIsDefault: boolean;
  host: string;
  modelPath?: string;
}

export interface RunningServer extends ServerCommand {
  source: 'process' | 'systemd';
  pid?: number;
  unit?: string;
  /** Ports this process listens on (from ss), when known. */
  listening?: number[];
  /**
   * The variables of the process's environment that choose backends (`VLLM_*`, `SGLANG_*`,
   * FlashInfer's, CUDA_VISIBLE_DEVICES…), from /proc/PID/environ when readable; secret-looking
   * names are left out.
   */
  env?: Record<string, string>;
}

/** Environment variables that change what an inference server runs. */
const SERVER_ENV_NAME = /^(?:VLLM_|SGLANG_|SGL_|FLASHINFER_|NCCL_|TORCH_CUDA_ARCH_LIST$|CUDA_VISIBLE_DEVICES$|PYTORCH_CUDA_ALLOC_CONF$)/;
/** Environment variables whose values are secrets (kept as a name only, or left out). */
export const SECRET_ENV_NAME = /(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL)/i;

/** The backend-choosing variables of a `/proc/PID/environ` text (NUL-separated), bounded. */
export function serverEnvOf(environ: string): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const entry of environ.split('\0')) {
    const eq = entry.indexOf('=');
    const name = eq > 0 ? entry.slice(0, eq) : '';
    if (!SERVER_ENV_NAME.test(name) || SECRET_ENV_NAME.test(name) || Object.prototype.hasOwnProperty.call(out, name)) continue;
    out[name] = entry.slice(eq + 1, eq + 1 + 1000);
    if (++n >= 64) break;
  }
  return out;
}

export interface ListeningSocket {
  address: string;
  port: number;
  pids: number[];
  processes: string[];
}

/** `ps -eo pid,args` → rows (header and junk skipped). */
export function parsePs(text: string): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(\d+)\s+(.+?)\s*$/.exec(line);
    if (m) rows.push({ pid: Number(m[1]), args: m[2] });
  }
  return rows;
}

/** Split a unit-file style command line: whitespace, single and double quotes, backslash escapes. */
export function splitCommandLine(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let q: '"' | "'" | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) {
      if (c === q) q = null;
      else if (c === '\\' && q === '"' && i + 1 < s.length) cur += s[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      q = c;
      has = true;
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else cur += c;
  }
  if (has || cur) out.push(cur);
  return out;
}

const base = (p: string): string => p.slice(p.lastIndexOf('/') + 1);
const PYTHON_NAME = /^python(\d+(\.\d+)?)?$/;

function flagValue(argv: string[], names: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    for (const n of names) {
      if (a === n && i + 1 < argv.length) return argv[i + 1];
      if (a.startsWith(`${n}=`)) return a.slice(n.length + 1);
    }
  }
  return undefined;
}

function portOf(argv: string[]): number | undefined {
  const text = flagValue(argv, ['--port']);
  return text !== undefined && /^\d{1,5}$/.test(text) && Number(text) <= 65535 ? Number(text) : undefined;
}

/**
 * The command's port, host and interpreter. `scriptAt` is the console script's index (`sglang`,
 * `vllm`), -1 for a module run by an interpreter; argv[0] may be `env`, `numactl ...`, so the
 * interpreter is the first word before the script that looks like one.
 */
function serverCommand(engine: ServerEngine, kind: ServerCommand['kind'], argv: string[], scriptAt: number): ServerCommand {
  const port = portOf(argv);
  const cmd: ServerCommand = {
    engine,
    kind,
    argv,
    port: port ?? (engine === 'vllm' ? DEFAULT_VLLM_PORT : DEFAULT_SGLANG_PORT),
    portIsDefault: port === undefined,
    host: flagValue(argv, ['--host']) ?? (engine === 'vllm' ? DEFAULT_VLLM_HOST : DEFAULT_SGLANG_HOST),
  };
  const py = argv.find((a, i) => PYTHON_NAME.test(base(a)) && (scriptAt < 0 || i < scriptAt));
  if (py) cmd.interpreter = py;
  else if (scriptAt >= 0 && argv[scriptAt].startsWith('/')) cmd.script = argv[scriptAt];
  return cmd;
}

/** Recognise `python -m sglang.launch_server ...`, `.../sglang/launch_server.py ...` and `sglang serve ...`. */
function parseSglangArgv(argv: string[]): ServerCommand | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === 'sglang.launch_server' && argv[i - 1] === '-m') || a === '-msglang.launch_server' || /(^|\/)sglang\/launch_server\.py$/.test(a)) {
      return withModel(serverCommand('sglang', 'launch_server', argv, -1), flagValue(argv, ['--model-path', '--model']));
    }
    if (base(a) === 'sglang' && argv[i + 1] === 'serve')
      return withModel(serverCommand('sglang', 'serve', argv, i), flagValue(argv, ['--model-path', '--model']));
  }
  return undefined;
}

const VLLM_API_SERVER = 'vllm.entrypoints.openai.api_server';

/**
 * Recognise `vllm serve MODEL ...` (the model positional, or `--model` as older releases and the
 * image's entrypoint arguments write it), `python -m vllm.entrypoints.openai.api_server ...` and
 * that module's file.
 */
function parseVllmArgv(argv: string[]): ServerCommand | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === VLLM_API_SERVER && argv[i - 1] === '-m') || a === `-m${VLLM_API_SERVER}` || /(^|\/)vllm\/entrypoints\/openai\/api_server\.py$/.test(a)) {
      return withModel(serverCommand('vllm', 'vllm_api_server', argv, -1), flagValue(argv, ['--model']));
    }
    if (base(a) === 'vllm' && argv[i + 1] === 'serve') {
      const positional = argv[i + 2] !== undefined && !argv[i + 2].startsWith('-') ? argv[i + 2] : undefined;
      return withModel(serverCommand('vllm', 'vllm_serve', argv, i), positional ?? flagValue(argv, ['--model']));
    }
  }
  return undefined;
}

function withModel(cmd: ServerCommand, model: string | undefined): ServerCommand {
  if (model) cmd.modelPath = model;
  return cmd;
}

/** An SGLang or vLLM server command in argv, else undefined. */
export function parseServerCommand(argv: string[]): ServerCommand | undefined {
  return parseSglangArgv(argv) ?? parseVllmArgv(argv);
}

/** `ss -ltnp` → listening sockets with owning pids (pids need privileges; may be empty). */
export function parseSs(text: string): ListeningSocket[] {
  const out: ListeningSocket[] = [];
  for (const line of text.split(/\r?\n/)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 4 || !/^LISTEN$/i.test(cols[0])) continue;
    const local = cols.find((c, i) => i >= 3 && /:(\d+)$/.test(c));
    if (!local) continue;
    const m = /^(.*):(\d+)$/.exec(local);
    if (!m) continue;
    const pids = [...line.matchAll(/pid=(\d+)/g)].map((x) => Number(x[1]));
    const processes = [...line.matchAll(/\("([^"]*)"/g)].map((x) => x[1]);
    out.push({ address: m[1], port: Number(m[2]), pids: [...new Set(pids)], processes: [...new Set(processes)] });
  }
  return out;
}

/** `systemctl list-units --type=service --no-legend --plain` → unit names. */
export function parseUnitList(text: string): string[] {
  const units: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const first = line.replace(/^[\s●*×]+/u, '').split(/\s+/)[0];
    if (first && /^[\w@.:\\-]+\.service$/.test(first)) units.push(first);
  }
  return [...new Set(units)];
}

export interface UnitExec {
  unit: string;
  file: string;
  execStart: string;
}

/**
 * `systemctl cat A B ...` prints each unit file (and drop-ins) after a `# /path/to/file` line.
 * Returns every ExecStart= command, continuation lines joined.
 */
export function parseSystemctlCat(text: string): UnitExec[] {
  const out: UnitExec[] = [];
  let file = '';
  let unit = '';
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const h = /^# (\/\S+)\s*$/.exec(line);
    if (h) {
      file = h[1];
      const m = /\/([^/]+\.service)(?:\.d\/[^/]+)?$/.exec(file);
      unit = m ? m[1] : base(file);
      continue;
    }
    const m = /^\s*ExecStart\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    let cmd = m[1];
    while (cmd.endsWith('\\') && i + 1 < lines.length) cmd = `${cmd.slice(0, -1)} ${lines[++i].trim()}`;
    cmd = cmd.replace(/^[-@+!:|]+/, '').trim();
    if (cmd) out.push({ unit, file, execStart: cmd });
  }
  return out;
}

/**
 * Parse a whole command line, also looking inside `sh -c "…"` / `bash -lc '…'` wrappers, which
 * systemd units and containers often use to activate a venv first.
 */
export function parseServerCommandLine(line: string): ServerCommand | undefined {
  const argv = splitCommandLine(line);
  const direct = parseServerCommand(argv);
  if (direct) return direct;
  for (const a of argv) {
    if (!/\s/.test(a) || !/sglang|vllm/.test(a)) continue;
    let venv: string | undefined;
    for (const part of a.split(/&&|\|\||;/)) {
      const act = /^\s*(?:source|\.)\s+(\/\S+)\/bin\/activate\s*$/.exec(part);
      if (act) venv = act[1];
      const inner = parseServerCommand(splitCommandLine(part.replace(/^\s*exec\s+/, '')));
      if (inner) {
        if (venv && inner.interpreter && !inner.interpreter.includes('/')) inner.interpreter = `${venv}/bin/${inner.interpreter}`;
        return inner;
      }
    }
  }
  return undefined;
}

/** parseServerCommandLine for SGLang only (the simulator's process title is checked with it). */
export function parseSglangCommandLine(line: string): ServerCommand | undefined {
  const cmd = parseServerCommandLine(line);
  return cmd?.engine === 'sglang' ? cmd : undefined;
}
