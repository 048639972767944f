/**
 * Shapes returned by the launch-command finder. Positions follow LSP conventions: 0-based line,
 * 0-based UTF-16 character, end exclusive, and always point into the ORIGINAL document text
 * (across `\` continuations, YAML folding, quotes and nested `sh -c` strings).
 */

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export type LanguageHint = 'shellscript' | 'systemd' | 'yaml' | 'dockerfile' | 'python' | 'markdown' | 'plaintext';

/** One word of a command as the program will receive it. */
export interface LaunchToken {
  /** The raw source text of the token, quotes and escapes included. */
  text: string;
  /** The token after quote removal and escape processing (what argv will hold). */
  value: string;
  /** Span of `text` in the original document. */
  range: Range;
  /** True when the value is not known statically: `$VAR`, `$(…)`, a Python expression, an f-string. */
  dynamic?: boolean;
}

export interface LaunchArg extends LaunchToken {
  /**
   * `flag`: a token starting with `-` (`--tp`, `--fp4-gemm-backend=x`).
   * `value`: a token owned by the flag at `flagIndex`.
   * `positional`: a token before any flag, or after a flag that takes no value.
   */
  kind: 'flag' | 'value' | 'positional';
  /** Flag name without any `=value` part, e.g. `--fp4-gemm-backend`. Flags only. */
  name?: string;
  /** Span of the name alone (differs from `range` for `--flag=value`). Flags only. */
  nameRange?: Range;
  /** Value tokens of the flag: the inline part of `--flag=value`, or the following words. Flags only. */
  values?: LaunchToken[];
  /** True for `--flag=value`. Flags only. */
  inline?: boolean;
  /** Index into `args` of the flag owning this value. Values only. */
  flagIndex?: number;
}

export type EnvSource =
  | 'prefix' // `A=1 python -m …` or `env A=1 python …`
  | 'export' // an earlier `export A=1` in the same shell script
  | 'systemd' // `Environment=` in the same unit
  | 'dockerfile' // an earlier `ENV A=1` in the same Dockerfile
  | 'yaml'; // `environment:` / `env:` next to the command in compose / Kubernetes YAML

export interface EnvAssignment {
  name: string;
  value: string;
  /** Span of the whole assignment (for YAML `- name: X / value: Y` pairs, the name token). */
  range: Range;
  nameRange: Range;
  valueRange: Range;
  source: EnvSource;
  dynamic?: boolean;
}

/** Which server a command starts. */
export type LaunchEngine = 'sglang' | 'vllm';

export interface LaunchCommand {
  /**
   * `launch_server` for `python -m sglang.launch_server`, `serve` for `sglang serve` / `vllm serve`,
   * `api_server` for `python -m vllm.entrypoints.openai.api_server`, `image` for the arguments of
   * the vllm/vllm-openai image's own entrypoint (compose `command:`, Kubernetes `args:`, Dockerfile `CMD`).
   */
  entry: 'launch_server' | 'serve' | 'api_server' | 'image';
  engine: LaunchEngine;
  /** From the first prefix env assignment (or the interpreter) to the end of the last argument. */
  range: Range;
  /** From the interpreter / `sglang` / `vllm` word to the module / `serve` word (the image reference for `image`). */
  entryRange: Range;
  /** The interpreter (`python3`, `/opt/venv/bin/python`, `sys.executable`) or the `sglang` executable. */
  executable: LaunchToken;
  env: EnvAssignment[];
  args: LaunchArg[];
  /** Which host syntax the command was found in (markdown fences report the fence's language). */
  host: LanguageHint;
  /** `shell`: parsed from a command line; `argv`: an explicit list (YAML/JSON/Python). */
  form: 'shell' | 'argv';
}

export interface FindOptions {
  /**
   * How many values a flag takes: 0 (store_true), 1, or 'many' (nargs="+"). Unknown flags (undefined)
   * take every following non-flag word. The language server passes the flag catalog's answer here.
   */
  flagArity?: (name: string, engine: LaunchEngine) => 0 | 1 | 'many' | undefined;
  /**
   * Which servers' commands to return (default `['sglang']`: the callers that act on SGLang flags,
   * the fix loop and the sweep, never see a vLLM command). The language server asks for both.
   */
  engines?: readonly LaunchEngine[];
  /** Stop after this many commands (default 1000). */
  maxCommands?: number;
  /** Keep at most this many arguments per command (default 5000; real launches have a few dozen). */
  maxArgs?: number;
}
