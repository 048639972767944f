/**
 * The service layer behind the Hosts view, without vscode: one connected Host plus what the
 * extension does with it — discovery, search over the installed SGLang and vLLM packages, port forwards to
 * running SGLang and vLLM servers, launch-file lookup and comparison with /server_info, and log following.
 * Integration tests drive this class end to end against a real sshd.
 */
import { discoverEnv, parseServerCommandLine, parseSystemctlCat, type DiscoverOptions, type EnvReport, type RunningServer } from '../discovery/index';
import { searchHost, type SearchSummary } from '../hosts/search';
import { quoteArgv } from '../hosts/quote';
import { HostError, type ExecOptions, type ExecResult, type ForwardedPort, type Host } from '../hosts/types';
import { findLaunchCommands } from '../launch/index';
import { launchSyntaxOfPath } from '../launch/syntax';
import type { LanguageHint, LaunchCommand } from '../launch/types';
import { fetchServerInfo } from '../probe/server-api';
import { compareLaunchWithServerInfo, type Comparison, type FlagFieldResolver } from './compare';
import { BurstNotifier, LogBuffer, classifyLogLine, followArgv, type LogAlert, type LogSource } from './logWatch';
import { SearchResultGroups } from './searchGroups';

export const DEFAULT_MAX_SEARCH_RESULTS = 10_000;

export interface SearchRequest {
  pattern: string;
  fixedStrings?: boolean;
  caseSensitive?: boolean;
  wordRegexp?: boolean;
  /** Directories to search; default: every SGLang and vLLM package directory discovery found. */
  paths?: string[];
  /**
   * Search only these paths under each directory (a preset's `within`), by the engine whose
   * package it is (a directory discovery did not find counts as SGLang's); results stay grouped by directory.
   */
  within?: Readonly<Record<SourceEngine, readonly string[]>>;
  maxResults?: number;
  signal?: AbortSignal;
  /** Called (throttled by the caller if it likes) after each batch of output with the groups that changed. */
  onProgress?(groups: SearchResultGroups): void;
  tool?: 'rg' | 'grep';
}

export interface SearchRun {
  groups: SearchResultGroups;
  summary?: SearchSummary;
  /** Set when the search stopped early; results found before it are kept in `groups`. */
  error?: Error;
  cancelled: boolean;
}

/** Where a server was launched from. */
export type LaunchSource =
  | { kind: 'unit-file'; path: string; unit: string }
  | { kind: 'script'; path: string }
  /** No file found: the process's own command line, as a one-line shell script. */
  | { kind: 'command-line'; text: string };

export interface LaunchText {
  text: string;
  hint: LanguageHint;
  path?: string;
  source: LaunchSource;
}

export interface LogFollowOptions {
  initialLines?: number;
  maxLines?: number;
  /** Quiet period that ends an alert burst (ms). */
  quietMs?: number;
  signal?: AbortSignal;
  /** New complete lines (already in `buffer`). */
  onLines?(lines: { text: string; lineNumber: number }[]): void;
  /** Every alert; `notify` is true for the first problem of a burst (never for an `info` line). */
  onAlert?(alert: LogAlert, notify: boolean): void;
  now?: () => number;
}

export interface LogFollower {
  readonly source: LogSource;
  readonly buffer: LogBuffer;
  readonly alerts: LogAlert[];
  /** Resolves when following stops: cancelled, command ended, or the connection dropped. */
  readonly done: Promise<{ reason: 'stopped' | 'ended' | 'error'; error?: Error; stderr: string }>;
  stop(): void;
}

const ANY_ADDRESS = new Set(['0.0.0.0', '::', '[::]', '*', '']);

/** Host to connect to (from the remote side) for a server bound to `bind`. */
export function forwardTargetHost(bind: string): string {
  return ANY_ADDRESS.has(bind) ? '127.0.0.1' : bind === 'localhost' ? '127.0.0.1' : bind.replace(/^\[(.*)\]$/, '$1');
}

export type SourceEngine = 'sglang' | 'vllm';

/** An installed engine's package directory. */
export interface SourceDir {
  engine: SourceEngine;
  path: string;
}

/** Distinct SGLang, then vLLM, package directories in a discovery report, each in interpreter order. */
export function sourceDirs(report: EnvReport): SourceDir[] {
  const dirs: SourceDir[] = [];
  for (const engine of ['sglang', 'vllm'] as const) {
    for (const it of report.interpreters) {
      const p = it.probe?.packages[engine];
      if (p?.found && p.path && !dirs.some((d) => d.path === p.path)) dirs.push({ engine, path: p.path });
    }
  }
  return dirs;
}

/** "SGLang", "vLLM" or "SGLang and vLLM": whose source these directories are (none: SGLang, the default). */
export function sourceName(dirs: readonly SourceDir[]): string {
  const vllm = dirs.some((d) => d.engine === 'vllm');
  return vllm ? (dirs.some((d) => d.engine === 'sglang') ? 'SGLang and vLLM' : 'vLLM') : 'SGLang';
}

/** A stable key for a discovered server (unit, else pid, else port). */
export function serverKey(s: RunningServer): string {
  return s.unit ? `unit:${s.unit}` : s.pid !== undefined ? `pid:${s.pid}` : `port:${s.port}`;
}

export function launchHintForPath(path: string): LanguageHint {
  return launchSyntaxOfPath(path) ?? 'shellscript';
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh']);

export class HostSession {
  report?: EnvReport;
  private readonly forwards = new Map<string, ForwardedPort>();
  private readonly followers = new Set<LogFollower>();

  constructor(
    readonly host: Host,
    readonly hostId: string,
    private readonly discoverDefaults: DiscoverOptions = {},
  ) {}

  async discover(opts: DiscoverOptions = {}): Promise<EnvReport> {
    const merged: DiscoverOptions = { ...this.discoverDefaults, ...opts, env: { ...this.discoverDefaults.env, ...opts.env } };
    if (merged.env && Object.keys(merged.env).length === 0) delete merged.env;
    this.report = await discoverEnv(this.host, merged);
    return this.report;
  }

  /** The SGLang and vLLM packages discovery found (none before it ran). */
  sourceDirs(): SourceDir[] {
    return this.report ? sourceDirs(this.report) : [];
  }

  /** exec with the session's extra environment (tests put stub tools on PATH this way). */
  private run(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    const env = this.discoverDefaults.env;
    return this.host.exec(argv, env && Object.keys(env).length ? { ...opts, env: { ...env, ...opts.env } } : opts);
  }

  /** Search; never throws for host trouble: the error is returned beside the partial results. */
  async search(req: SearchRequest): Promise<SearchRun> {
    const found = this.sourceDirs();
    const paths = req.paths ?? found.map((d) => d.path);
    if (paths.length === 0) {
      throw new HostError(
        'not-found',
        `No SGLang or vLLM installation was found on ${this.host.label}. Run discovery (Refresh) or give a directory to search.`,
      );
    }
    const within = req.within;
    const searched = within
      ? paths.flatMap((p) => within[found.find((d) => d.path === p)?.engine ?? 'sglang'].map((w) => `${p.replace(/\/+$/, '')}/${w}`))
      : paths;
    const max = req.maxResults ?? DEFAULT_MAX_SEARCH_RESULTS;
    const groups = new SearchResultGroups(paths, max);
    const run: SearchRun = { groups, cancelled: false };
    let lastProgress = 0;
    let trailing: NodeJS.Timeout | undefined;
    const progress = (): void => {
      if (!req.onProgress) return;
      const now = Date.now();
      if (now - lastProgress >= 50) {
        lastProgress = now;
        req.onProgress(groups);
      } else {
        // Deliver the last batch too when output pauses (e.g. grep blocked on a slow file).
        trailing ??= setTimeout(() => {
          trailing = undefined;
          lastProgress = Date.now();
          req.onProgress?.(groups);
        }, 60);
      }
    };
    try {
      run.summary = await searchHost(this.host, {
        pattern: req.pattern,
        paths: searched,
        ...(req.fixedStrings !== undefined ? { fixedStrings: req.fixedStrings } : {}),
        ...(req.caseSensitive !== undefined ? { caseSensitive: req.caseSensitive } : {}),
        ...(req.wordRegexp !== undefined ? { wordRegexp: req.wordRegexp } : {}),
        ...(req.signal ? { signal: req.signal } : {}),
        ...(req.tool ? { tool: req.tool } : {}),
        maxResults: max,
        globs: ['!*.pyc', '!__pycache__'],
        onMatch: (m) => {
          groups.add(m);
          progress();
        },
      });
      if (run.summary.limited) groups.limited = true;
    } catch (e) {
      run.error = e instanceof Error ? e : new Error(String(e));
      run.cancelled = e instanceof HostError && e.kind === 'aborted';
    }
    if (trailing) clearTimeout(trailing);
    req.onProgress?.(groups);
    return run;
  }

  // ---- port forwards ----------------------------------------------------------------------

  /** Forward a local port to a server on the host (one forward per key; reused). */
  async forward(key: string, remotePort: number, remoteHost = '127.0.0.1'): Promise<ForwardedPort> {
    const existing = this.forwards.get(key);
    if (existing) return existing;
    const fwd = await this.host.forwardPort(remotePort, forwardTargetHost(remoteHost));
    this.forwards.set(key, fwd);
    return fwd;
  }

  forwardFor(key: string): ForwardedPort | undefined {
    return this.forwards.get(key);
  }

  async closeForward(key: string): Promise<void> {
    const f = this.forwards.get(key);
    this.forwards.delete(key);
    await f?.close().catch(() => undefined);
  }

  // ---- launch files -------------------------------------------------------------------------

  /** Find the unit file or script that starts `server`, else its command line. */
  async launchSource(server: RunningServer): Promise<LaunchSource | undefined> {
    if (server.unit) {
      const cat = await this.run(['systemctl', 'cat', '--', server.unit], { timeoutMs: 15_000, maxOutputBytes: 1 << 20 }).catch(() => undefined);
      if (cat?.code === 0) {
        const execs = parseSystemctlCat(cat.stdout).filter((u) => u.unit === server.unit || u.unit === `${server.unit}.service`);
        const withServer = execs.filter((u) => parseServerCommandLine(u.execStart));
        const pick = withServer[withServer.length - 1] ?? execs[execs.length - 1];
        if (pick?.file) return { kind: 'unit-file', path: pick.file, unit: server.unit };
      }
      const show = await this.run(['systemctl', 'show', '-p', 'FragmentPath', '--value', '--', server.unit], {
        timeoutMs: 15_000,
        maxOutputBytes: 65536,
      }).catch(() => undefined);
      const p = show?.stdout.trim();
      if (p?.startsWith('/')) return { kind: 'unit-file', path: p, unit: server.unit };
    }
    if (server.pid !== undefined) {
      const script = await this.parentScript(server.pid);
      if (script) return { kind: 'script', path: script };
    }
    if (server.argv.length)
      return {
        kind: 'command-line',
        text: `#!/bin/sh\n# Command line of ${server.pid !== undefined ? `process ${server.pid}` : 'the server'} (no launch file found)\n${quoteArgv(server.argv)}\n`,
      };
    return undefined;
  }

  /** A shell script among the process's ancestors (`bash run.sh` → /abs/run.sh), if any. */
  private async parentScript(pid: number): Promise<string | undefined> {
    let cur = pid;
    for (let depth = 0; depth < 4; depth++) {
      const stat = await this.readProc(`/proc/${cur}/stat`);
      if (!stat) return undefined;
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!Number.isInteger(ppid) || ppid <= 1) return undefined;
      const cmdline = await this.readProc(`/proc/${ppid}/cmdline`);
      if (!cmdline) return undefined;
      const argv = cmdline.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1);
      const shell = argv[0]?.slice(argv[0].lastIndexOf('/') + 1);
      if (shell && SHELLS.has(shell)) {
        const script = argv.slice(1).find((a) => !a.startsWith('-'));
        if (script && argv[argv.indexOf(script) - 1] !== '-c') {
          if (script.startsWith('/')) return script;
          const cwd = await this.run(['readlink', `/proc/${ppid}/cwd`], { timeoutMs: 10_000, maxOutputBytes: 8192 }).catch(() => undefined);
          const dir = cwd?.stdout.trim();
          if (dir?.startsWith('/')) return `${dir.replace(/\/+$/, '')}/${script.replace(/^\.\//, '')}`;
        }
      }
      cur = ppid;
    }
    return undefined;
  }

  private async readProc(path: string): Promise<string | undefined> {
    const r = await this.run(['cat', '--', path], { timeoutMs: 10_000, maxOutputBytes: 1 << 20 }).catch(() => undefined);
    return r?.code === 0 ? r.stdout : undefined;
  }

  async readLaunchText(src: LaunchSource, maxBytes = 4 << 20): Promise<LaunchText> {
    if (src.kind === 'command-line') return { text: src.text, hint: 'shellscript', source: src };
    const bytes = await this.host.readFile(src.path, { maxBytes });
    const text = new TextDecoder().decode(bytes);
    return { text, hint: src.kind === 'unit-file' ? 'systemd' : launchHintForPath(src.path), path: src.path, source: src };
  }

  /** The launch command in `launch` that starts the server on `port` (or the only/last one). */
  static pickLaunchCommand(cmds: LaunchCommand[], port: number): LaunchCommand | undefined {
    const onPort = cmds.filter((c) => {
      let v: string | undefined;
      for (const a of c.args) if (a.kind === 'flag' && a.name === '--port') v = a.values?.[0]?.value;
      return v === undefined ? port === 30000 : Number(v) === port;
    });
    return onPort[onPort.length - 1] ?? cmds[cmds.length - 1];
  }

  /**
   * Fetch /server_info through `baseUrl` and compare it with the server's launch file. `fields`
   * maps flags to fields (from a flag catalog); without it the built-in table is used.
   */
  async compareWithLaunch(
    server: RunningServer,
    baseUrl: string,
    opts: { apiKey?: string; signal?: AbortSignal; launch?: LaunchText; fields?: FlagFieldResolver } = {},
  ): Promise<{ comparison: Comparison; launch: LaunchText; command: LaunchCommand; info: Record<string, unknown> }> {
    if (server.engine === 'vllm')
      throw new HostError(
        'invalid-argument',
        `The server on port ${server.port} is vLLM: the comparison reads SGLang's /server_info fields, which vLLM does not have (its /server_info exists only with VLLM_SERVER_DEV_MODE=1). Diagnose Server reads a vLLM server's log and launch file instead.`,
      );
    const launch =
      opts.launch ??
      (await (async () => {
        const src = await this.launchSource(server);
        if (!src) throw new HostError('not-found', `No launch file or command line found for the server on port ${server.port}.`);
        return this.readLaunchText(src);
      })());
    const cmds = findLaunchCommands(launch.text, launch.hint);
    const command = HostSession.pickLaunchCommand(cmds, server.port);
    if (!command)
      throw new HostError('not-found', `${launch.path ?? 'The command line'} has no SGLang launch command (python -m sglang.launch_server / sglang serve).`);
    const info = await fetchServerInfo({ baseUrl, ...(opts.apiKey ? { apiKey: opts.apiKey } : {}) }, opts.signal ? { signal: opts.signal } : {});
    return { comparison: compareLaunchWithServerInfo(command, info, opts.fields ?? {}), launch, command, info };
  }

  // ---- logs ---------------------------------------------------------------------------------

  /** Where `server` logs: its systemd journal, or the file its stdout/stderr goes to. */
  async logSourceFor(server: RunningServer): Promise<LogSource | undefined> {
    if (server.unit) return { kind: 'journal', unit: server.unit };
    if (server.pid === undefined) return undefined;
    for (const fd of [2, 1]) {
      const r = await this.run(['readlink', `/proc/${server.pid}/fd/${fd}`], { timeoutMs: 10_000, maxOutputBytes: 8192 }).catch(() => undefined);
      const p = r?.stdout.trim();
      if (r?.code === 0 && p?.startsWith('/') && !p.startsWith('/dev/') && !p.includes(' (deleted)')) return { kind: 'file', path: p };
    }
    return undefined;
  }

  /** Follow a log: bounded buffer, classified alerts, burst-limited notifications. */
  followLog(source: LogSource, opts: LogFollowOptions = {}): LogFollower {
    const argv = followArgv(source, opts.initialLines ?? 200);
    const buffer = new LogBuffer(opts.maxLines ?? 5000);
    const burst = new BurstNotifier(opts.quietMs ?? 30_000, opts.now ?? Date.now);
    const alerts: LogAlert[] = [];
    const ac = new AbortController();
    const onOuter = (): void => ac.abort('stopped');
    opts.signal?.addEventListener('abort', onOuter, { once: true });
    let stderr = '';
    const handle = (lines: { text: string; lineNumber: number }[]): void => {
      if (lines.length === 0) return;
      for (const l of lines) {
        const c = classifyLogLine(l.text);
        if (!c) continue;
        const alert: LogAlert = { ...c, line: l.text.slice(0, 500), lineNumber: l.lineNumber };
        if (alerts.length >= 1000) alerts.shift();
        alerts.push(alert);
        opts.onAlert?.(alert, alert.level === 'problem' && burst.offer(alert));
      }
      opts.onLines?.(lines);
    };
    const done = this.run(argv, {
      signal: ac.signal,
      keepOutput: false,
      onStdout: (chunk) => handle(buffer.push(chunk)),
      onStderr: (chunk) => {
        if (stderr.length < 8192) stderr += chunk;
      },
    })
      .then(
        (r) => {
          handle(buffer.flush());
          const err =
            r.code === 0 || r.code === null
              ? undefined
              : new HostError(
                  r.code === 127 ? 'not-found' : 'io',
                  `${argv[0]} exited with code ${r.code}${stderr.trim() ? `: ${stderr.trim().split('\n')[0]}` : ''}`,
                );
          return err ? { reason: 'error' as const, error: err, stderr } : { reason: 'ended' as const, stderr };
        },
        (e: unknown) => {
          handle(buffer.flush());
          if (ac.signal.aborted) return { reason: 'stopped' as const, stderr };
          return { reason: 'error' as const, error: e instanceof Error ? e : new Error(String(e)), stderr };
        },
      )
      .finally(() => {
        opts.signal?.removeEventListener('abort', onOuter);
        this.followers.delete(follower);
      });
    const follower: LogFollower = { source, buffer, alerts, done, stop: () => ac.abort('stopped') };
    this.followers.add(follower);
    return follower;
  }

  /** Stop log follows and close forwards (the Host itself is closed by its owner). */
  async dispose(): Promise<void> {
    for (const f of [...this.followers]) f.stop();
    const fwds = [...this.forwards.values()];
    this.forwards.clear();
    await Promise.all(fwds.map((f) => f.close().catch(() => undefined)));
  }
}
