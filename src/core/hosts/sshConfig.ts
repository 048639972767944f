/**
 * ~/.ssh/config resolution on top of the `ssh-config` package (parser + `compute`). This module
 * adds what the package leaves out: `Include` (relative to ~/.ssh, `~`, globs, nested in Host
 * blocks), `%h %p %r %u %d %%` and `~` expansion, defaults, ProxyJump hop lists, and parsing of
 * the HOST strings users type (`alias`, `user@host:port`, `ssh://user@host:port`, `local`).
 * `Match exec` is never run (a config file must not make the extension execute commands).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { isAbsolute, join, resolve as resolvePath } from 'node:path';
import SSHConfig, { glob as sshGlob, LineType, type Line, type Section } from 'ssh-config';
import { HostError, show } from './types';

export interface SshTarget {
  /** What the user typed (config alias or host name). */
  alias: string;
  hostName: string;
  user: string;
  port: number;
  identityFiles: string[];
  /** True when no IdentityFile was configured and the OpenSSH default list is used. */
  defaultIdentityFiles: boolean;
  identitiesOnly: boolean;
  /** Jump hops in order (first is contacted first); empty for a direct connection. */
  proxyJump: SshTarget[];
  /** Seconds; 0 = off. */
  serverAliveInterval: number;
  serverAliveCountMax: number;
  userKnownHostsFiles: string[];
  connectTimeoutMs?: number;
}

export interface SshConfigOptions {
  /** Config file; default ~/.ssh/config. Missing file = empty config. */
  configFile?: string;
  /** Base directory for relative Include paths; default ~/.ssh. */
  includeBase?: string;
  home?: string;
  localUser?: string;
}

export type HostSpec = { kind: 'local' } | { kind: 'ssh'; host: string; user?: string; port?: number };

const MAX_INCLUDE_DEPTH = 16;

function home(o: SshConfigOptions): string {
  return o.home ?? homedir();
}
function localUser(o: SshConfigOptions): string {
  if (o.localUser) return o.localUser;
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'root';
  }
}

/** `~` and `~/…` as ssh reads them (o.home, default the user's home). */
export function expandTilde(p: string, o: SshConfigOptions = {}): string {
  if (p === '~') return home(o);
  if (p.startsWith('~/')) return join(home(o), p.slice(2));
  return p;
}

function hasGlob(s: string): boolean {
  return /[*?[]/.test(s);
}

function segmentRegExp(seg: string): RegExp {
  let src = '';
  for (let i = 0; i < seg.length; i++) {
    const ch = seg[i];
    if (ch === '*') src += '[^/]*';
    else if (ch === '?') src += '[^/]';
    else if (ch === '[') {
      const end = seg.indexOf(']', i + 1);
      if (end < 0) {
        src += '\\[';
        continue;
      }
      let body = seg.slice(i + 1, end).replace(/\\/g, '\\\\');
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      src += `[${body}]`;
      i = end;
    } else src += ch.replace(/[\\^$.|+(){}]/g, '\\$&');
  }
  return new RegExp(`^${src}$`, 's');
}

/** Minimal glob(3): `*`, `?`, `[...]` in any path segment; hidden files only when asked; sorted. */
export function expandGlob(pattern: string): string[] {
  if (!hasGlob(pattern)) return existsSync(pattern) ? [pattern] : [];
  const abs = resolvePath(pattern);
  const segs = abs.split('/').filter(Boolean);
  let cur = ['/'];
  for (const seg of segs) {
    const next: string[] = [];
    for (const dir of cur) {
      if (!hasGlob(seg)) {
        const p = join(dir, seg);
        if (existsSync(p)) next.push(p);
        continue;
      }
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      const re = segmentRegExp(seg);
      for (const n of names.sort()) if ((!n.startsWith('.') || seg.startsWith('.')) && re.test(n)) next.push(join(dir, n));
    }
    cur = next;
  }
  return cur;
}

function values(v: Line extends infer L ? (L extends { value: infer V } ? V : never) : never): string[] {
  return typeof v === 'string' ? [v] : v.map((x) => x.val);
}

function isDirective(l: Line): l is Exclude<Line, { type: LineType.COMMENT | LineType.EMPTY }> {
  return l.type === LineType.DIRECTIVE;
}
function isSection(l: Line): l is Section {
  return isDirective(l) && /^(host|match)$/i.test(l.param) && 'config' in l;
}

function newSection(from: Section, config: Line[]): Section {
  const cfg = SSHConfig.parse('');
  cfg.push(...config);
  return { ...from, config: cfg };
}

function includeFiles(value: string[], o: SshConfigOptions): string[] {
  const base = o.includeBase ?? join(home(o), '.ssh');
  const out: string[] = [];
  for (const raw of value) {
    const p = expandTilde(raw, o);
    const full = isAbsolute(p) ? p : join(base, p);
    for (const f of expandGlob(full)) {
      try {
        if (statSync(f).isFile()) out.push(f);
      } catch {
        /* vanished */
      }
    }
  }
  return out;
}

function readConfigFile(file: string): SSHConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return SSHConfig.parse('');
    throw new HostError('config', `Cannot read ssh config ${show(file)}: ${(e as Error).message}`);
  }
  try {
    return SSHConfig.parse(text);
  } catch (e) {
    throw new HostError('config', `Cannot parse ssh config ${show(file)}: ${(e as Error).message}. Check the file with \`ssh -G host\`.`);
  }
}

/**
 * Inline Include directives. With `alias`, an Include inside a Host block is followed only when
 * that block matches the alias (OpenSSH semantics); without it (listing aliases) all are followed.
 */
function flatten(lines: readonly Line[], o: SshConfigOptions, alias: string | undefined, depth: number): Line[] {
  if (depth > MAX_INCLUDE_DEPTH) throw new HostError('config', `ssh config Include nesting deeper than ${MAX_INCLUDE_DEPTH}: is a file including itself?`);
  const out: Line[] = [];
  for (const line of lines) {
    if (isSection(line)) {
      const active = alias === undefined || !/^host$/i.test(line.param) || sshGlob(values(line.value), alias);
      let body: Line[] = [];
      const hoisted: Line[] = [];
      for (const sub of line.config) {
        if (isDirective(sub) && /^include$/i.test(sub.param)) {
          if (!active) continue;
          const inner = includeFiles(values(sub.value), o).flatMap((f) => flatten(readConfigFile(f), o, alias, depth + 1));
          const firstSection = inner.findIndex(isSection);
          const head = firstSection < 0 ? inner : inner.slice(0, firstSection);
          body.push(...head);
          if (firstSection >= 0) {
            // Sections inside the included file: they apply only while the outer block matched,
            // which is why they are hoisted only for an active block. The outer block resumes after.
            hoisted.push(newSection(line, body), ...inner.slice(firstSection));
            body = [];
          }
        } else body.push(sub);
      }
      out.push(...hoisted, newSection(line, body));
    } else if (isDirective(line) && /^include$/i.test(line.param)) {
      for (const f of includeFiles(values(line.value), o)) out.push(...flatten(readConfigFile(f), o, alias, depth + 1));
    } else out.push(line);
  }
  return out;
}

function configPath(o: SshConfigOptions): string {
  return o.configFile ?? join(home(o), '.ssh', 'config');
}

function loadFlat(o: SshConfigOptions, alias: string | undefined): SSHConfig {
  const cfg = SSHConfig.parse('');
  cfg.push(...flatten(readConfigFile(configPath(o)), o, alias, 0));
  return cfg;
}

/** Concrete `Host` names (no wildcards, no negation) in file order, Includes followed. */
export function listSshAliases(o: SshConfigOptions = {}): string[] {
  const seen = new Set<string>();
  for (const line of loadFlat(o, undefined)) {
    if (!isSection(line) || !/^host$/i.test(line.param)) continue;
    for (const v of values(line.value)) if (!/[*?!]/.test(v)) seen.add(v);
  }
  return [...seen];
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function expandTokens(s: string, t: { host: string; alias: string; port: number; user: string }, o: SshConfigOptions): string {
  const out = s.replace(/%([%hnprud])/g, (_m, c: string) => {
    switch (c) {
      case '%':
        return '%';
      case 'h':
        return t.host;
      case 'n':
        return t.alias;
      case 'p':
        return String(t.port);
      case 'r':
        return t.user;
      case 'u':
        return localUser(o);
      case 'd':
        return home(o);
      default:
        return _m;
    }
  });
  return expandTilde(out, o);
}

function yes(v: string | undefined): boolean {
  return /^(yes|true)$/i.test(v ?? '');
}

/** Parse a typed HOST: `local`, `ssh://[user@]host[:port]`, `[user@]host[:port]`, `[v6]:port`. */
export function parseHostSpec(input: string): HostSpec {
  const s = input.trim();
  if (!s) throw new HostError('invalid-argument', 'Empty HOST: use a ~/.ssh/config alias, user@host[:port], ssh://user@host:port or "local"');
  if (s === 'local' || s === 'localhost:local') return { kind: 'local' };
  let rest = s;
  if (/^ssh:\/\//i.test(rest)) {
    rest = rest.slice(6).replace(/\/+$/, '');
    if (rest.includes('/')) throw new HostError('invalid-argument', `Unexpected path in ${show(s)}: an ssh:// HOST is ssh://user@host:port`);
  }
  let user: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    user = decodeURIComponent(rest.slice(0, at));
    rest = rest.slice(at + 1);
    if (!user) throw new HostError('invalid-argument', `Empty user name in ${show(s)}`);
  }
  let host = rest;
  let port: number | undefined;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest);
  if (v6) {
    host = v6[1];
    if (v6[2]) port = Number(v6[2]);
  } else {
    const colon = rest.lastIndexOf(':');
    if (colon >= 0 && rest.indexOf(':') === colon) {
      host = rest.slice(0, colon);
      const p = rest.slice(colon + 1);
      if (!/^\d+$/.test(p)) throw new HostError('invalid-argument', `Bad port ${show(p)} in ${show(s)}`);
      port = Number(p);
    }
  }
  if (port !== undefined && (port < 1 || port > 65535)) throw new HostError('invalid-argument', `Port ${port} out of range in ${show(s)}`);
  if (!host || /[\s/\\'"`$;&|<>]/.test(host) || host.startsWith('-')) throw new HostError('invalid-argument', `Bad host name ${show(host)} in ${show(s)}`);
  return { kind: 'ssh', host, ...(user !== undefined ? { user } : {}), ...(port !== undefined ? { port } : {}) };
}

/** Resolve one host (alias or name) through the config, as `ssh -G` would (subset). */
export function resolveSshTarget(spec: { host: string; user?: string; port?: number }, o: SshConfigOptions = {}, depth = 0): SshTarget {
  if (depth > 8) throw new HostError('config', `ProxyJump chain for ${show(spec.host)} is longer than 8 hops (a loop?)`);
  const cfg = loadFlat(o, spec.host);
  const c = cfg.compute(spec.user !== undefined ? { Host: spec.host, User: spec.user } : { Host: spec.host }, { ignoreCase: true, matchExec: false });
  const hostNameRaw = first(c.hostname) ?? spec.host;
  const user = spec.user ?? first(c.user) ?? localUser(o);
  const portStr = spec.port !== undefined ? String(spec.port) : first(c.port);
  const port = portStr !== undefined ? Number(portStr) : 22;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new HostError('config', `Bad Port ${show(String(portStr))} for ${show(spec.host)} in ssh config`);
  const hostName = hostNameRaw.replace(/%h/g, spec.host).replace(/%%/g, '%');
  const tok = { host: hostName, alias: spec.host, port, user };
  const ids = Array.isArray(c.identityfile) ? c.identityfile : c.identityfile ? [c.identityfile] : [];
  const defaultIds = ids.length === 0;
  const identityFiles = (defaultIds ? ['~/.ssh/id_rsa', '~/.ssh/id_ecdsa', '~/.ssh/id_ed25519'] : ids)
    .map((f) => expandTokens(f, tok, o))
    .map((f) => (isAbsolute(f) ? f : join(home(o), f)));
  const khRaw = c.userknownhostsfile;
  const known = (Array.isArray(khRaw) ? khRaw : khRaw ? khRaw.split(/\s+/) : ['~/.ssh/known_hosts', '~/.ssh/known_hosts2'])
    .filter((f) => f && f !== 'none')
    .map((f) => expandTokens(f, tok, o));
  const jump = first(c.proxyjump);
  const proxyJump: SshTarget[] = [];
  if (jump && jump.toLowerCase() !== 'none') {
    for (const hop of jump.split(',')) {
      const h = parseHostSpec(hop.trim());
      if (h.kind !== 'ssh') throw new HostError('config', `ProxyJump hop ${show(hop)} is not an ssh host`);
      const resolved = resolveSshTarget(h, o, depth + 1);
      // A hop's own ProxyJump comes before it.
      proxyJump.push(...resolved.proxyJump, { ...resolved, proxyJump: [] });
    }
  }
  const alive = Number(first(c.serveraliveinterval) ?? 0);
  const aliveMax = Number(first(c.serveralivecountmax) ?? 3);
  const ct = first(c.connecttimeout);
  return {
    alias: spec.host,
    hostName,
    user,
    port,
    identityFiles,
    defaultIdentityFiles: defaultIds,
    identitiesOnly: yes(first(c.identitiesonly)),
    proxyJump,
    serverAliveInterval: Number.isFinite(alive) && alive > 0 ? alive : 0,
    serverAliveCountMax: Number.isFinite(aliveMax) && aliveMax > 0 ? aliveMax : 3,
    userKnownHostsFiles: known,
    ...(ct && Number(ct) > 0 ? { connectTimeoutMs: Number(ct) * 1000 } : {}),
  };
}

/** Convenience: parse a HOST string and resolve it (undefined for `local`). */
export function resolveHostString(input: string, o: SshConfigOptions = {}): SshTarget | undefined {
  const spec = parseHostSpec(input);
  return spec.kind === 'local' ? undefined : resolveSshTarget(spec, o);
}
