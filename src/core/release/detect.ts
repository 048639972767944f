/**
 * Which SGLang release the user runs, read from each place that can say so: the server's
 * /server_info, the host's installed packages, container image tags (compose, Kubernetes, Helm
 * values, Dockerfiles, shell), requirements files, pyproject.toml, lock files and a setting; then
 * chooseRelease picks the one the flag catalog follows and lists the others that disagree.
 *
 * Pure functions over text a caller read; no I/O except through the callbacks that
 * findWorkspaceReleaseFiles and detectWorkspaceReleases take. Every text is foreign (a workspace
 * file, a server's answer): nothing here throws on it, lines are bounded, and the detail strings
 * are plain text for the surface to escape (text/foreign.ts).
 */

import { LineIndex } from '../lines';
import { parseToml, tomlGet, type TomlNode, type TomlString, type TomlTable } from './toml';
import {
  compareParsed,
  formatVersion,
  nearestKnownRelease,
  newestVersion,
  normalizeVersion,
  parseSpecifierSet,
  parseVersion,
  pickRelease,
  poetryToPep440,
  publicVersion,
  satisfies,
  type SpecifierSet,
} from './version';

export type ReleaseSource = 'server' | 'host' | 'image' | 'requirements' | 'pyproject' | 'lock' | 'setting' | 'default';

/** 0-based, as LSP counts (UTF-16 units); end exclusive. */
export interface TextRange {
  line: number;
  character: number;
  endLine: number;
  endCharacter: number;
}

export interface ReleaseCandidate {
  /**
   * exact: the version, normalized (`0.5.6.post2`). Otherwise a PEP 440 specifier for the releases
   * it allows (`>=0.5.2,<0.6.0`; `''` allows any: an unpinned requirement, a `latest` image);
   * pickRelease resolves it.
   */
  version: string;
  exact: boolean;
  source: ReleaseSource;
  /** Human words: "image tag lmsysorg/sglang:v0.5.12-cu130 in docker-compose.yml line 4". */
  detail: string;
  /** Where the version (an exact pin's version, else the specifier or the image reference) is in the text. */
  range?: TextRange;
}

/** Lines longer than this are not read (no requirement, image line or assignment is so long). */
const MAX_LINE = 8192;
/** Longest reference, tag or requirement quoted in a detail. */
const MAX_QUOTE = 160;
/** JSON texts (server_info, Pipfile.lock) longer than this are not parsed. */
const MAX_JSON = 16 * 1024 * 1024;

const quote = (s: string): string => (s.length > MAX_QUOTE ? `${s.slice(0, MAX_QUOTE)}…` : s);

/** PEP 503 name normalization: case and runs of `-_.` fold (`SGLang` is sglang; `sgl_kernel` is sgl-kernel, another package). */
export function normalizePackageName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

const isSglang = (name: string): boolean => normalizePackageName(name) === 'sglang';

function baseName(fileName: string): string {
  const parts = fileName.split(/[\\/]/);
  return parts[parts.length - 1] || fileName;
}

/** Each line of a text with its index and start offset; `\r` before `\n` dropped; long lines skipped. */
function* lines(text: string): Generator<{ text: string; index: number; start: number }> {
  let start = 0;
  let index = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end - start <= MAX_LINE) {
      let line = text.slice(start, end);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      yield { text: line, index, start };
    }
    if (end >= text.length) return;
    start = end + 1;
    index++;
  }
}

/** The lines holding `sglang` in any case (found by search, not by reading every line), like lines(). */
function* sglangLines(text: string): Generator<{ text: string; index: number; start: number }> {
  const re = /sglang/gi;
  let index = 0;
  let counted = 0; // offset up to which newlines are counted into `index`
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const start = text.lastIndexOf('\n', m.index) + 1;
    for (let nl = text.indexOf('\n', counted); nl >= 0 && nl < start; nl = text.indexOf('\n', nl + 1)) index++;
    counted = start;
    let end = text.indexOf('\n', m.index);
    if (end < 0) end = text.length;
    re.lastIndex = end;
    if (end - start > MAX_LINE) continue;
    let line = text.slice(start, end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    yield { text: line, index, start };
  }
}

const oneLine = (line: number, from: number, to: number): TextRange => ({ line, character: from, endLine: line, endCharacter: to });

function offsetRange(idx: LineIndex, start: number, end: number): TextRange {
  const r = idx.range(start, end);
  return { line: r.start.line, character: r.start.character, endLine: r.end.line, endCharacter: r.end.character };
}

/** A `#` comment's start: at the line start or after whitespace (so `#egg=` and `${A#b}` stay). */
function stripHashComment(line: string): string {
  const m = /(^|\s)#/.exec(line);
  return m ? line.slice(0, m.index + m[1].length) : line;
}

// ---------------------------------------------------------------------------------------------
// The server and the host

/**
 * SGLang's /server_info answer (parsed, or its JSON text): its `version` ("0.5.6.post2").
 * `where` names the server in the detail ("http://gpu1:30000").
 */
export function fromServerInfo(json: unknown, where?: string): ReleaseCandidate | undefined {
  let info = json;
  if (typeof info === 'string') {
    if (info.length > MAX_JSON) return undefined;
    try {
      info = JSON.parse(info);
    } catch {
      return undefined;
    }
  }
  if (typeof info !== 'object' || info === null || Array.isArray(info)) return undefined;
  const raw = (info as Record<string, unknown>).version;
  const version = typeof raw === 'string' ? normalizeVersion(raw) : undefined;
  if (!version) return undefined;
  const by = where ? `/server_info of ${quote(where)}` : "the server's /server_info";
  return { version, exact: true, source: 'server', detail: `SGLang ${version}, reported by ${by}` };
}

export type HostPackageVersions = Record<string, string | { version?: unknown; found?: unknown } | null | undefined>;

/**
 * Package versions that discovery found on a host (`{sglang: "0.5.6"}`, or discovery's
 * `{sglang: {found: true, version: "0.5.6"}}`). Only the `sglang` distribution counts: the
 * kernel packages (`sgl-kernel`, `sgl_kernel`, `sglang-kernel`) are released on their own.
 */
export function fromHostPackages(packages: HostPackageVersions | undefined, where?: string): ReleaseCandidate | undefined {
  if (typeof packages !== 'object' || packages === null) return undefined;
  for (const [name, value] of Object.entries(packages)) {
    if (!isSglang(name)) continue;
    let raw: unknown = value;
    if (typeof value === 'object' && value !== null) {
      if (value.found === false) continue;
      raw = value.version;
    }
    const version = typeof raw === 'string' ? normalizeVersion(raw) : undefined;
    if (!version) continue;
    return { version, exact: true, source: 'host', detail: `sglang ${version} installed on ${where ? quote(where) : 'the host'}` };
  }
  return undefined;
}

/**
 * A setting that names the release (`0.5.6`, or a specifier such as `>=0.5.2`). Empty, `auto`,
 * `detect`, `latest` and `newest` say "not set": the other sources and the default decide.
 */
export function fromSetting(value: unknown, settingName = 'the release setting'): ReleaseCandidate | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (!text || /^(auto|detect|latest|newest)$/i.test(text)) return undefined;
  const version = normalizeVersion(text);
  if (version) return { version, exact: true, source: 'setting', detail: `SGLang ${version}, set in ${settingName}` };
  const spec = normalizeSpecifier(text);
  if (spec === undefined) return undefined;
  return { version: spec, exact: false, source: 'setting', detail: `${quote(text)}, set in ${settingName}` };
}

// ---------------------------------------------------------------------------------------------
// Requirements (PEP 508)

function formatSpecifierSet(set: SpecifierSet): string {
  return set.map((c) => c.op + (c.op === '===' || !c.version ? c.text : formatVersion(c.version) + (c.wildcard ? '.*' : ''))).join(',');
}

/** A PEP 440 specifier set in canonical spelling (`>= 0.4.6.POST1 , <0.5` → `>=0.4.6.post1,<0.5`). */
function normalizeSpecifier(text: string): string | undefined {
  const set = parseSpecifierSet(text);
  return set && formatSpecifierSet(set);
}

interface Requirement {
  name: string;
  /** The version specifier text and where it starts in the requirement text ('' when none). */
  spec: string;
  specAt: number;
  url?: string;
}

const REQ_RE = /^(\s*)([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(\s*\[[^\]]{0,200}\])?(\s*)(.*)$/;

/** A PEP 508 requirement: name, extras, then a specifier (maybe in parentheses) or `@ url`, then `; markers`. */
function parseRequirement(text: string): Requirement | undefined {
  const m = REQ_RE.exec(text);
  if (!m) return undefined;
  const [, lead, name, extras = '', gap, rest] = m;
  const restAt = lead.length + name.length + extras.length + gap.length;
  if (rest.startsWith('@')) {
    const url = /^@\s*(\S+)/.exec(rest)?.[1];
    return { name, spec: '', specAt: restAt, url };
  }
  const semi = rest.indexOf(';');
  let spec = semi >= 0 ? rest.slice(0, semi) : rest;
  let specAt = restAt;
  const t = spec.trim();
  if (t.startsWith('(') && t.endsWith(')')) {
    const inner = t.slice(1, -1);
    if (/[()]/.test(inner)) return undefined;
    specAt += spec.indexOf('(') + 1 + (inner.length - inner.trimStart().length);
    spec = inner.trim();
  }
  const trimmed = spec.trimEnd();
  if (!/^\s*$|^\s*(~=|===|==|!=|<=|>=|<|>)/.test(trimmed)) return undefined; // `sglang-router`: not a name followed by a specifier
  specAt += trimmed.length - trimmed.trimStart().length;
  return { name, spec: trimmed.trim(), specAt };
}

/** The release a direct reference names: a git ref `@v0.5.6`, or a wheel/sdist file name. */
function versionFromUrl(url: string): { version: string; text: string; at: number } | undefined {
  const wheel = /(?:^|[/=])sglang-(\d[0-9A-Za-z.+!_]*?)(?:-py\d|-cp\d|\.tar\.gz|\.zip|\.whl)/i.exec(url);
  if (wheel) {
    const version = normalizeVersion(wheel[1]);
    if (version) return { version, text: wheel[1], at: wheel.index + wheel[0].indexOf(wheel[1]) };
  }
  const ref = /\.git@(v?\d[0-9A-Za-z.+!_-]*?)(?=$|[#?&])/i.exec(url) ?? /[?&]rev=(v?\d[0-9A-Za-z.+!_-]*?)(?=$|[#&])/i.exec(url);
  if (ref) {
    const version = normalizeVersion(ref[1]);
    if (version) return { version, text: ref[1], at: ref.index + ref[0].indexOf(ref[1]) };
  }
  return undefined;
}

interface Found {
  version: string;
  exact: boolean;
  /** What to quote in the detail. */
  quoted: string;
  /** Offsets in the requirement text of the range to report. */
  from: number;
  to: number;
}

/** A requirement's release: exact for one `==`/`===` pin, else its specifier. Undefined when not sglang. */
function requirementRelease(text: string): Found | undefined {
  const req = parseRequirement(text);
  if (!req || !isSglang(req.name)) return undefined;
  const quoted = quote(text.trim());
  if (req.url !== undefined) {
    const v = versionFromUrl(req.url);
    if (!v) return undefined; // a local path or a branch: no release to name
    const at = text.indexOf(req.url) + v.at;
    return { version: v.version, exact: true, quoted, from: at, to: at + v.text.length };
  }
  if (!req.spec) {
    const at = text.indexOf(req.name);
    return { version: '', exact: false, quoted: `${quoted} (no version pinned)`, from: at, to: at + req.name.length };
  }
  const set = parseSpecifierSet(req.spec);
  if (!set) return undefined;
  const only = set.length === 1 ? set[0] : undefined;
  if (only && ((only.op === '==' && !only.wildcard) || only.op === '===') && only.version) {
    const at = req.specAt + req.spec.indexOf(only.text, only.op.length);
    return { version: formatVersion(only.version), exact: true, quoted, from: at, to: at + only.text.length };
  }
  return { version: formatSpecifierSet(set), exact: false, quoted, from: req.specAt, to: req.specAt + req.spec.length };
}

const PIP_COMPILE_HEADER = /^#\s*This file (?:is|was) autogenerated by (?:pip-compile|uv)/im;

function requirementsLines(text: string, fileName: string, source: ReleaseSource): ReleaseCandidate[] {
  const out: ReleaseCandidate[] = [];
  for (const { text: raw, index } of sglangLines(text)) {
    let line = stripHashComment(raw).trimEnd();
    if (line.endsWith('\\')) line = line.slice(0, -1).trimEnd();
    let at = 0;
    const editable = /^\s*(?:-e|--editable)(?:\s+|=)/.exec(line);
    if (editable) {
      // `-e git+https://…/sglang.git@v0.5.6#egg=sglang&subdirectory=python`: the egg names the project.
      at = editable[0].length;
      const url = line.slice(at).trim().split(/\s/)[0];
      if (!/[#&]egg=sglang(?:$|[&[])/i.test(url)) continue;
      const v = versionFromUrl(url);
      if (!v) continue;
      const from = line.indexOf(url, at) + v.at;
      out.push({
        version: v.version,
        exact: true,
        source,
        detail: `${quote(line.trim())} in ${fileName} line ${index + 1}`,
        range: oneLine(index, from, from + v.text.length),
      });
      continue;
    }
    if (/^\s*-/.test(line)) continue; // -r, -c, --index-url, --hash continuation lines
    const option = /\s--?[A-Za-z]/.exec(line); // trailing per-requirement options (--hash=…)
    if (option) line = line.slice(0, option.index).trimEnd();
    const found = requirementRelease(line);
    if (!found) continue;
    out.push({
      version: found.version,
      exact: found.exact,
      source,
      detail: `${found.quoted} in ${fileName} line ${index + 1}`,
      range: oneLine(index, found.from, found.to),
    });
  }
  return out;
}

/**
 * `sglang==0.5.6`, `sglang[all]>=0.4.6.post1`, `sglang[srt] ~= 0.5.2 ; python_version >= "3.10"`,
 * `sglang @ git+https://…@v0.5.6`, `-e git+…@v0.5.6#egg=sglang` in a requirements file. Comments,
 * options and other packages are skipped. A pip-compile / `uv pip compile` output counts as a lock.
 */
export function fromRequirements(text: string, fileName = 'requirements.txt'): ReleaseCandidate[] {
  if (typeof text !== 'string') return [];
  const name = baseName(fileName);
  return requirementsLines(text, name, PIP_COMPILE_HEADER.test(text.slice(0, 4096)) ? 'lock' : 'requirements');
}

// ---------------------------------------------------------------------------------------------
// pyproject.toml

function readToml(text: string): TomlTable | undefined {
  try {
    return parseToml(text);
  } catch {
    return undefined;
  }
}

function entriesOf(node: TomlNode | undefined): [string, TomlNode][] {
  return node?.kind === 'table' ? [...node.entries] : [];
}

/** The range of [from, to) inside a string's value: exact when the value is its text, else the whole string. */
function stringRange(idx: LineIndex, s: TomlString, from: number, to: number): TextRange {
  return s.verbatim ? offsetRange(idx, s.contentStart + from, s.contentStart + to) : offsetRange(idx, s.contentStart, s.end - 1);
}

/**
 * pyproject.toml: PEP 621 `[project] dependencies` and `optional-dependencies`, PEP 735
 * `[dependency-groups]`, and Poetry's `[tool.poetry.dependencies]` (and dev/group tables):
 * `sglang = "^0.5.2"`, `{version = "0.5.2", extras = […]}`, `{git = …, tag = "v0.5.6"}`, a list of
 * those. `^`/`~` are turned into PEP 440 ranges. `[tool.uv.sources]` says where sglang comes from,
 * not which release, and is ignored. A file that is not TOML gives nothing.
 */
export function fromPyproject(text: string, fileName = 'pyproject.toml'): ReleaseCandidate[] {
  if (typeof text !== 'string' || !/sglang/i.test(text)) return [];
  const doc = readToml(text);
  if (!doc) return [];
  const name = baseName(fileName);
  const idx = new LineIndex(text);
  const out: ReleaseCandidate[] = [];
  const line = (s: TomlString): number => idx.pos(s.contentStart).line + 1;

  const pep508 = (list: TomlNode | undefined, where: string): void => {
    if (list?.kind !== 'array') return;
    for (const item of list.items) {
      if (item.kind !== 'string' || item.value.length > MAX_LINE) continue;
      const found = requirementRelease(item.value);
      if (!found) continue;
      out.push({
        version: found.version,
        exact: found.exact,
        source: 'pyproject',
        detail: `${found.quoted} in ${name} ${where}, line ${line(item)}`,
        range: stringRange(idx, item, found.from, found.to),
      });
    }
  };
  pep508(tomlGet(doc, 'project', 'dependencies'), '[project] dependencies');
  for (const [extra, list] of entriesOf(tomlGet(doc, 'project', 'optional-dependencies'))) {
    pep508(list, `[project.optional-dependencies] ${quote(extra)}`);
  }
  for (const [group, list] of entriesOf(tomlGet(doc, 'dependency-groups'))) pep508(list, `[dependency-groups] ${quote(group)}`);

  const poetry = (deps: TomlNode | undefined, where: string): void => {
    for (const [key, value] of entriesOf(deps)) {
      if (!isSglang(key)) continue;
      for (const item of value.kind === 'array' ? value.items : [value]) {
        const c = poetryDependency(item, idx, `${name} ${where}`);
        if (c) out.push(c);
      }
    }
  };
  poetry(tomlGet(doc, 'tool', 'poetry', 'dependencies'), '[tool.poetry.dependencies]');
  poetry(tomlGet(doc, 'tool', 'poetry', 'dev-dependencies'), '[tool.poetry.dev-dependencies]');
  for (const [group, table] of entriesOf(tomlGet(doc, 'tool', 'poetry', 'group'))) {
    poetry(tomlGet(table, 'dependencies'), `[tool.poetry.group.${quote(group)}.dependencies]`);
  }
  return out;
}

function poetryDependency(node: TomlNode, idx: LineIndex, where: string): ReleaseCandidate | undefined {
  let constraint: TomlString | undefined;
  if (node.kind === 'string') constraint = node;
  else if (node.kind === 'table') {
    const v = node.entries.get('version');
    if (v?.kind === 'string') constraint = v;
    else {
      // A git dependency pinned to a release tag.
      for (const key of ['tag', 'rev']) {
        const ref = node.entries.get(key);
        if (ref?.kind !== 'string') continue;
        const version = /^v?\d/.test(ref.value) ? normalizeVersion(ref.value) : undefined;
        if (!version) continue;
        return {
          version,
          exact: true,
          source: 'pyproject',
          detail: `sglang ${key} = "${quote(ref.value)}" in ${where}, line ${idx.pos(ref.contentStart).line + 1}`,
          range: stringRange(idx, ref, 0, ref.value.length),
        };
      }
      return undefined;
    }
  }
  if (!constraint) return undefined;
  const pep = poetryToPep440(constraint.value);
  if (!pep) return undefined;
  const lineNo = idx.pos(constraint.contentStart).line + 1;
  const written = quote(constraint.value);
  const range = stringRange(idx, constraint, 0, constraint.value.length);
  if (pep.exact) {
    const version = pep.specifier.replace(/^===?/, '');
    const at = constraint.value.indexOf(/^[=\s]*(.*)$/.exec(constraint.value)![1]);
    return {
      version: normalizeVersion(version) ?? version,
      exact: true,
      source: 'pyproject',
      detail: `sglang = "${written}" in ${where}, line ${lineNo}`,
      range: stringRange(idx, constraint, at, constraint.value.trimEnd().length),
    };
  }
  const meaning = pep.specifier && pep.specifier !== constraint.value.replace(/\s+/g, '') ? ` (Poetry's ${written} is ${pep.specifier})` : '';
  return { version: pep.specifier, exact: false, source: 'pyproject', detail: `sglang = "${written}" in ${where}, line ${lineNo}${meaning}`, range };
}

// ---------------------------------------------------------------------------------------------
// Lock files

/**
 * A lock file's sglang entry, exact: uv.lock, poetry.lock and pdm.lock (`[[package]] name =
 * "sglang" version = "0.5.6"`), Pipfile.lock (JSON, `default.sglang.version "==0.5.6"`), and
 * pip-tools / `requirements*.lock` output (`sglang==0.5.6 \` then hashes).
 */
export function fromLockFile(text: string, fileName: string): ReleaseCandidate[] {
  if (typeof text !== 'string' || !/sglang/i.test(text)) return [];
  const name = baseName(fileName);
  const lower = name.toLowerCase();
  if (lower === 'pipfile.lock' || (!/\.toml$|^(uv|poetry|pdm)\.lock$/.test(lower) && /^\s*\{/.test(text))) return pipfileLock(text, name);
  if (/^(uv|poetry|pdm)\.lock$/.test(lower) || /^\s*\[\[package\]\]\s*$/m.test(text.slice(0, 1 << 20))) return tomlLock(text, name);
  return requirementsLines(text, name, 'lock');
}

function tomlLock(text: string, name: string): ReleaseCandidate[] {
  const doc = readToml(text);
  if (!doc) return tomlLockLines(text, name);
  const idx = new LineIndex(text);
  const out: ReleaseCandidate[] = [];
  const packages = tomlGet(doc, 'package');
  for (const pkg of packages?.kind === 'array' ? packages.items : []) {
    const pname = tomlGet(pkg, 'name');
    const v = tomlGet(pkg, 'version');
    if (pname?.kind !== 'string' || !isSglang(pname.value) || v?.kind !== 'string') continue;
    const version = normalizeVersion(v.value);
    if (!version) continue;
    out.push({
      version,
      exact: true,
      source: 'lock',
      detail: `sglang ${version} locked in ${name} line ${idx.pos(v.contentStart).line + 1}`,
      range: stringRange(idx, v, 0, v.value.length),
    });
  }
  return out;
}

/** The same, line by line, for a lock file the TOML reader refused (one bad line elsewhere). */
function tomlLockLines(text: string, name: string): ReleaseCandidate[] {
  const out: ReleaseCandidate[] = [];
  let isPkg = false;
  let pending: ReleaseCandidate | undefined;
  let named = false;
  const flush = (): void => {
    if (named && pending) out.push(pending);
    named = false;
    pending = undefined;
  };
  for (const { text: line, index } of lines(text)) {
    if (/^\s*\[/.test(line)) {
      flush();
      isPkg = /^\s*\[\[\s*package\s*\]\]\s*$/.test(line);
      continue;
    }
    if (!isPkg) continue;
    const kv = /^\s*(name|version)\s*=\s*(["'])([^"'\n]*)\2\s*(?:#.*)?$/.exec(line);
    if (!kv) continue;
    if (kv[1] === 'name') named = isSglang(kv[3]);
    else {
      const version = normalizeVersion(kv[3]);
      const at = line.indexOf(kv[2] + kv[3]) + 1;
      if (version)
        pending = {
          version,
          exact: true,
          source: 'lock',
          detail: `sglang ${version} locked in ${name} line ${index + 1}`,
          range: oneLine(index, at, at + kv[3].length),
        };
    }
  }
  flush();
  return out;
}

function pipfileLock(text: string, name: string): ReleaseCandidate[] {
  if (text.length > MAX_JSON) return [];
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  if (typeof doc !== 'object' || doc === null) return [];
  const out: ReleaseCandidate[] = [];
  let idx: LineIndex | undefined;
  for (const section of ['default', 'develop']) {
    const deps = (doc as Record<string, unknown>)[section];
    if (typeof deps !== 'object' || deps === null) continue;
    for (const [key, entry] of Object.entries(deps as Record<string, unknown>)) {
      if (!isSglang(key) || typeof entry !== 'object' || entry === null) continue;
      const raw = (entry as Record<string, unknown>).version;
      if (typeof raw !== 'string') continue;
      const m = /^\s*===?\s*(.+?)\s*$/.exec(raw);
      const version = m ? normalizeVersion(m[1]) : undefined;
      if (!version || !m) continue;
      // Where: the "version" after this section's "sglang" key (the JSON is read for truth, the text for the place).
      idx ??= new LineIndex(text);
      let range: TextRange | undefined;
      const sectionAt = text.search(new RegExp(`"${section}"\\s*:`));
      const keyRe = new RegExp(`"${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\s*:\\s*\\{`, 'g');
      keyRe.lastIndex = Math.max(0, sectionAt);
      const keyAt = keyRe.exec(text);
      if (keyAt) {
        const verRe = /"version"\s*:\s*"\s*===?\s*/g;
        verRe.lastIndex = keyAt.index;
        const vm = verRe.exec(text);
        if (vm && vm.index - keyAt.index < 20000 && text.startsWith(m[1], vm.index + vm[0].length)) {
          const at = vm.index + vm[0].length;
          range = offsetRange(idx, at, at + m[1].length);
        }
      }
      const line = range ? ` line ${range.line + 1}` : '';
      out.push({ version, exact: true, source: 'lock', detail: `sglang ${version} locked in ${name} (${section})${line}`, ...(range ? { range } : {}) });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Container images

/** `lmsysorg/sglang`, `docker.io/lmsysorg/sglang`, `ghcr.io/x/sglang`, `host:5000/a/b/sglang`: a path ending in /sglang. */
const IMAGE_RE = /(?:(?<=docker:\/\/|\}\/)|(?<![A-Za-z0-9._/$]))((?:[a-z0-9][a-z0-9._-]*(?::[0-9]{1,5})?\/)+sglang)$/;
/** Longest image name looked at (Docker allows 255). */
const MAX_IMAGE_NAME = 300;
/** `/sglang` occurrences looked at in one line, and in one file. */
const MAX_REFS_PER_LINE = 16;
const MAX_REFS_PER_FILE = 2000;
/** A tag: literal characters and ${VAR…} / $VAR references. */
const TAG_RE = /(?:[A-Za-z0-9_.-]|\$\{[^}\s'"]{1,200}\}|\$[A-Za-z_][A-Za-z0-9_]*)+/y;
const DIGEST_RE = /@sha256:[a-f0-9]{64}/y;
/** The leading version of a tag: v0.5.12-cu130 → v0.5.12, v0.5.3rc0-cu126-b200 → v0.5.3rc0. */
const TAG_VERSION_RE = /^v?\d+(?:\.\d+)+(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?(?=$|[-_+])/i;
/** A line where an untagged reference is still an image: an image: key, FROM, a container tool. */
const IMAGE_CONTEXT_RE = /(?:^|[\s"'{,-])image\s*[:=]|--image\b|^\s*FROM\s|\b(?:docker|podman|nerdctl|apptainer|singularity|enroot|skopeo|crictl|ctr)\b/i;

interface Assignment {
  name: string;
  value: string;
  /** Offset of the value in the text. */
  at: number;
  line: number;
}

const ASSIGN_RE = /^\s*(?:(?:export|readonly|local|declare(?:\s+-\w+)*)\s+|(?:ARG|ENV)\s+)?([A-Za-z_][A-Za-z0-9_]*)(=|\s+(?=\S))("[^"]*"|'[^']*'|[^\s#]*)/;

/** Variable assignments a tag can use: shell `X=…` / `export X=…`, Dockerfile `ARG X=…` / `ENV X=…` / `ENV X …`. */
function assignments(text: string): Assignment[] {
  const out: Assignment[] = [];
  if (!text.includes('$')) return out;
  for (const { text: line, index, start } of lines(text)) {
    if (!line.includes('=') && !/^\s*ENV\s/i.test(line)) continue;
    const m = ASSIGN_RE.exec(line);
    if (!m) continue;
    if (m[2] !== '=' && !/^\s*ENV\s/i.test(line)) continue; // `NAME value` is only ENV's form
    let value = m[3];
    let at = start + m.index + m[0].length - value.length;
    if (/^(["']).*\1$/.test(value)) {
      value = value.slice(1, -1);
      at++;
    }
    out.push({ name: m[1], value, at, line: index });
  }
  return out;
}

interface Expanded {
  text: string;
  /** The source offset of each character of `text` (-1: none). */
  at: number[];
  /** Assignments read on the way (for the detail). */
  used: Assignment[];
}

/** Expand ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:=default} and $VAR from the assignments before `before`. */
function expand(text: string, offset: number, before: number, vars: Assignment[], depth = 0): Expanded | undefined {
  if (depth > 4) return undefined;
  const out: Expanded = { text: '', at: [], used: [] };
  const push = (e: Expanded): void => {
    out.text += e.text;
    out.at.push(...e.at);
    out.used.push(...e.used);
  };
  let i = 0;
  while (i < text.length) {
    if (text[i] !== '$') {
      out.text += text[i];
      out.at.push(offset + i);
      i++;
      continue;
    }
    const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=])([^}]*))?\}/.exec(text.slice(i));
    const plain = braced ? undefined : /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(i));
    const m = braced ?? plain;
    if (!m) return undefined; // ${X:?err}, ${X#pat}: not a value this can know
    const name = m[1];
    let assigned: Assignment | undefined;
    for (const a of vars) if (a.name === name && a.at < before && (!assigned || a.at > assigned.at)) assigned = a;
    const emptyIsUnset = braced?.[2]?.startsWith(':') ?? false;
    let part: Expanded | undefined;
    if (assigned && !(emptyIsUnset && assigned.value === '')) {
      part = expand(assigned.value, assigned.at, assigned.at, vars, depth + 1);
      if (part) part.used.unshift(assigned);
    } else if (braced?.[2] !== undefined) {
      const wordAt = i + m[0].length - 1 - braced[3].length;
      part = expand(braced[3], offset + wordAt, before, vars, depth + 1);
    }
    if (!part) return undefined;
    push(part);
    i += m[0].length;
  }
  return out;
}

interface ImageRef {
  ref: string;
  /** The tag as written (maybe with variables), and its offset in the text; undefined when untagged. */
  tag?: string;
  tagAt?: number;
  digest: boolean;
  /** Offsets of the whole reference. */
  from: number;
  to: number;
  line: number;
}

function classifyTag(
  image: ImageRef,
  vars: Assignment[],
  idx: () => LineIndex,
  where: string,
): Pick<ReleaseCandidate, 'version' | 'exact' | 'detail' | 'range'> | undefined {
  const written = `${image.ref}${image.tag !== undefined ? ':' + image.tag : ''}`;
  const refRange = (): TextRange => offsetRange(idx(), image.from, image.to);
  if (image.tag === undefined) {
    if (image.digest) return undefined; // pinned by digest alone: the digest does not say which release
    return { version: '', exact: false, detail: `image ${quote(written)} (no tag: latest) in ${where}`, range: refRange() };
  }
  const tagAt = image.tagAt!;
  const e = expand(image.tag, tagAt, tagAt, vars);
  if (!e) return undefined; // a tag set outside this file
  const via = e.used.length ? ` (${e.used.map((a) => `${a.name}=${quote(a.value)} on line ${a.line + 1}`).join(', ')})` : '';
  const tagWords = e.used.length ? `${quote(written)} = ${quote(image.ref)}:${quote(e.text)}` : quote(written);
  const m = TAG_VERSION_RE.exec(e.text);
  const version = m ? normalizeVersion(m[0]) : undefined;
  if (m && version) {
    // The range when the version text came from one place (a literal tag, one variable's value);
    // `v${SGLANG_VERSION}` points at the variable's value, the `v` being the tag's own.
    const span = (skip: number): TextRange | undefined => {
      const from = e.at[skip];
      const to = e.at[m[0].length - 1];
      return from >= 0 && to - from === m[0].length - 1 - skip ? offsetRange(idx(), from, to + 1) : undefined;
    };
    const range = span(0) ?? (/^v/i.test(m[0]) ? span(1) : undefined) ?? refRange();
    return { version, exact: true, detail: `image tag ${tagWords} in ${where}${via}`, range };
  }
  if (/^latest(?:$|[-_])/i.test(e.text)) {
    return { version: '', exact: false, detail: `image tag ${tagWords} in ${where}${via} (latest: a release, but not which one)`, range: refRange() };
  }
  if (/^(?:dev|nightly|main)(?:$|[-_])/i.test(e.text)) {
    return { version: '', exact: false, detail: `image tag ${tagWords} in ${where}${via} (a development build, not a release)`, range: refRange() };
  }
  return undefined; // a tag of someone's own (prod, blackwell): not a version
}

function findImageRefs(line: string, lineStart: number, lineIndex: number, inContainerCommand: boolean, budget: { refs: number }): ImageRef[] {
  const out: ImageRef[] = [];
  const context = inContainerCommand || IMAGE_CONTEXT_RE.test(line);
  // Each `/sglang` is matched backwards within a bounded window: linear in the line, whatever it holds.
  for (let at = line.indexOf('/sglang'), n = 0; at >= 0 && n < MAX_REFS_PER_LINE && budget.refs > 0; at = line.indexOf('/sglang', at + 1), n++) {
    budget.refs--;
    let end = at + '/sglang'.length;
    if (line[end] !== undefined && /[A-Za-z0-9_./-]/.test(line[end])) continue; // sglang-router, sglang.git, sglang/python
    const from = Math.max(0, end - MAX_IMAGE_NAME);
    const m = IMAGE_RE.exec(line.slice(from, end));
    if (!m) continue;
    const refAt = from + m.index;
    let tag: string | undefined;
    let tagAt: number | undefined;
    if (line[end] === ':') {
      TAG_RE.lastIndex = end + 1;
      const t = TAG_RE.exec(line);
      if (!t || /^[.-]/.test(t[0])) continue; // `models/sglang:/models`: a volume, not an image
      tag = t[0];
      tagAt = lineStart + end + 1;
      end = end + 1 + t[0].length;
    }
    DIGEST_RE.lastIndex = end;
    const d = DIGEST_RE.exec(line);
    if (d) end += d[0].length;
    if (tag === undefined && !d && !context) continue; // an untagged path elsewhere is likely a directory
    if (line[end] !== undefined && /[A-Za-z0-9_./:@-]/.test(line[end])) continue; // part of something longer
    out.push({ ref: m[1], tag, tagAt, digest: !!d, from: lineStart + refAt, to: lineStart + end, line: lineIndex });
  }
  return out;
}

/** Helm values: `repository: lmsysorg/sglang` with a sibling `tag:` key in the same mapping. */
function helmTag(all: string[], at: number, keyColumn: number, startsItem: boolean): { value: string; line: number; column: number } | undefined {
  const keyCol = (l: string): { col: number; dash: number } | undefined => {
    const m = /^(\s*)((?:-\s+)*)(?=[^\s#-])/.exec(l);
    return m ? { col: m[1].length + m[2].length, dash: m[2] ? m[1].length : -1 } : undefined;
  };
  const tagAt = (i: number): { value: string; line: number; column: number } | undefined => {
    const m = /^(\s*(?:-\s+)*)tag\s*:\s*(["']?)([^"'#\s]*)\2/.exec(all[i]);
    if (!m || m[1].length !== keyColumn) return undefined;
    return { value: m[3], line: i, column: m[0].length - m[3].length - m[2].length };
  };
  for (const step of startsItem ? [1] : [1, -1]) {
    for (let i = at + step, n = 0; i >= 0 && i < all.length && n < 200; i += step, n++) {
      const l = all[i];
      if (!l.trim() || /^\s*#/.test(l)) continue;
      const k = keyCol(l);
      if (!k || k.col < keyColumn || (k.dash >= 0 && k.dash < keyColumn && step > 0)) break;
      if (k.col === keyColumn) {
        const t = tagAt(i);
        if (t) return t;
      }
      if (k.dash >= 0 && k.dash < keyColumn) break; // the list item's first line (going up)
    }
  }
  return undefined;
}

/**
 * SGLang container images named in a file: compose and Kubernetes `image:`, Dockerfile `FROM`
 * (with `ARG SGLANG_VERSION=0.5.6` used as `${SGLANG_VERSION}`), Helm values (`repository:` and
 * `tag:` keys), shell (`docker run … lmsysorg/sglang:v0.4.6.post1-cu124`, a tag in a variable).
 * Only images whose path ends in `/sglang` count (`lmsysorg/sglang-router` does not). A version tag
 * is exact; `latest`, no tag, `dev` and `nightly-…` give an inexact candidate allowing any release;
 * a digest alone, a tag of the user's own and a tag set outside the file give nothing.
 */
export function fromImageTags(text: string, fileName: string): ReleaseCandidate[] {
  if (typeof text !== 'string' || !text.includes('sglang')) return [];
  const name = baseName(fileName);
  let index: LineIndex | undefined;
  const idx = (): LineIndex => (index ??= new LineIndex(text));
  const vars = assignments(text);
  const out: ReleaseCandidate[] = [];
  let all: string[] | undefined;
  let continued = false; // inside a container command continued with `\`
  const budget = { refs: MAX_REFS_PER_FILE };
  for (const { text: raw, index: lineIndex, start } of lines(text)) {
    const line = stripHashComment(raw);
    const wasContinued: boolean = continued;
    continued = /\\\s*$/.test(line) && (wasContinued || IMAGE_CONTEXT_RE.test(line));
    if (!line.includes('sglang')) continue;
    const where = `${name} line ${lineIndex + 1}`;
    const helm =
      /(?:^(\s*(?:-\s+)*)|[{,]\s*)repository\s*:\s*(["']?)((?:[a-z0-9][a-z0-9._-]*(?::[0-9]{1,5})?\/)+sglang)\2(?=\s*(?:$|#|,|\}))\s*(?:,\s*tag\s*:\s*(["']?)([^"',}\s]+)\4)?/.exec(
        line,
      );
    if (helm) {
      all ??= text.split('\n').map((l) => (l.length > MAX_LINE ? '' : l.replace(/\r$/, '')));
      const same = helm[5] !== undefined ? { value: helm[5], line: lineIndex, column: line.lastIndexOf(helm[5]) } : undefined;
      // A flow mapping (`image: {repository: …, tag: …}`) holds its tag on the same line.
      const t = same ?? (helm[1] !== undefined ? helmTag(all, lineIndex, helm[1].length, helm[1].includes('-')) : undefined);
      if (!t) continue; // no tag here: the chart's own default, which this file does not say
      const tagLineStart = idx().offset({ line: t.line, character: 0 });
      const image: ImageRef = {
        ref: helm[3],
        tag: t.value,
        tagAt: tagLineStart + t.column,
        digest: false,
        from: start + line.indexOf(helm[3]),
        to: start + line.indexOf(helm[3]) + helm[3].length,
        line: lineIndex,
      };
      const c = classifyTag(image, vars, idx, t.line === lineIndex ? where : `${name} lines ${lineIndex + 1}-${t.line + 1}`);
      if (c) out.push({ ...c, detail: c.detail.replace(/^image tag /, 'Helm image '), source: 'image' });
      continue;
    }
    for (const image of findImageRefs(line, start, lineIndex, wasContinued, budget)) {
      const c = classifyTag(image, vars, idx, where);
      if (c) out.push({ ...c, source: 'image' });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Workspace files

export type ReleaseFileKind = 'requirements' | 'pyproject' | 'lock' | 'image';

/** Which reader a file name calls for, or undefined when it is not one looked at. */
export function releaseFileKind(fileName: string): ReleaseFileKind | undefined {
  const n = baseName(fileName);
  if (/^requirements.*\.txt$/i.test(n)) return 'requirements';
  if (/^requirements.*\.lock$/i.test(n) || /^(uv|poetry|pdm)\.lock$/.test(n) || n === 'Pipfile.lock') return 'lock';
  if (n === 'pyproject.toml') return 'pyproject';
  if (/^(Dockerfile|Containerfile)/i.test(n) || /\.(dockerfile|containerfile)$/i.test(n)) return 'image';
  if (/^(docker-)?compose.*\.ya?ml$/i.test(n)) return 'image';
  return undefined;
}

/**
 * The release candidates of one file, by its name: requirements, pyproject.toml, a lock file; any
 * other file (a Dockerfile, compose, a Kubernetes manifest, Helm values, a launch script) is read
 * for image tags.
 */
export function fromFile(text: string, fileName: string): ReleaseCandidate[] {
  switch (releaseFileKind(fileName)) {
    case 'requirements':
      return fromRequirements(text, fileName);
    case 'pyproject':
      return fromPyproject(text, fileName);
    case 'lock':
      return fromLockFile(text, fileName);
    default:
      return fromImageTags(text, fileName);
  }
}

export interface PathApi {
  dirname(p: string): string;
  join(a: string, b: string): string;
  relative(from: string, to: string): string;
  isAbsolute(p: string): boolean;
}

export interface ReleaseFile {
  path: string;
  kind: ReleaseFileKind;
  /** 0: the start directory, 1: its parent, … */
  level: number;
}

export interface FindReleaseFilesOptions {
  /** The workspace root: no directory above it is looked at. Without one, `maxLevels` bounds the walk. */
  root?: string;
  /** Directories looked at, the start one included (default 6). */
  maxLevels?: number;
  /** Files returned at most (default 32). */
  maxFiles?: number;
  /** Names read from one directory listing at most (default 5000). */
  maxEntries?: number;
  /** Path functions (default: POSIX paths, or Windows ones when the start directory looks like one). */
  path?: PathApi;
}

export interface ReleaseIo {
  /** Names in a directory (files and folders alike); may throw or return undefined for an unreadable one. */
  listDir(dir: string): Promise<readonly string[] | undefined> | readonly string[] | undefined;
  /** A file's text; may throw or return undefined. */
  readFile?(path: string): Promise<string | undefined> | string | undefined;
}

const KIND_ORDER: Record<ReleaseFileKind, number> = { lock: 0, requirements: 1, pyproject: 2, image: 3 };

function defaultPath(startDir: string): PathApi {
  // Kept free of node:path so the language server bundle and a browser build alike can use it.
  const win = /^[A-Za-z]:[\\/]|^\\\\/.test(startDir) || (startDir.includes('\\') && !startDir.includes('/'));
  const sep = win ? '\\' : '/';
  const trim = (p: string): string => {
    const t = p.replace(win ? /[\\/]+$/ : /\/+$/, '');
    return t === '' ? sep : /^[A-Za-z]:$/.test(t) ? t + sep : t;
  };
  const norm = (p: string): string => (win ? trim(p).toLowerCase().replace(/\//g, '\\') : trim(p));
  return {
    dirname: (p) => {
      const t = trim(p);
      const i = Math.max(t.lastIndexOf('/'), win ? t.lastIndexOf('\\') : -1);
      if (i < 0) return '.';
      const d = t.slice(0, i);
      return d === '' ? sep : /^[A-Za-z]:$/.test(d) ? d + sep : d;
    },
    join: (a, b) => (trim(a).endsWith(sep) ? trim(a) + b : trim(a) + sep + b),
    relative: (from, to) => {
      const f = norm(from);
      const t = norm(to);
      if (t === f) return '';
      const prefix = f.endsWith(sep) ? f : f + sep;
      return t.startsWith(prefix) ? t.slice(prefix.length) : '..';
    },
    isAbsolute: (p) => (win ? /^[A-Za-z]:[\\/]|^\\\\/.test(p) : p.startsWith('/')),
  };
}

/**
 * The files near a launch file that can say which release it runs: in its directory and each
 * parent up to the workspace root, requirements*.txt, requirements*.lock, pyproject.toml,
 * uv.lock, poetry.lock, Pipfile.lock, pdm.lock, Dockerfile*, *.dockerfile, docker-compose*.y*ml,
 * compose*.y*ml. Nearest directory first; in one directory lock files, then requirements,
 * pyproject, images. Bounded in directories, names and files; an unreadable directory is skipped.
 */
export async function findWorkspaceReleaseFiles(
  io: Pick<ReleaseIo, 'listDir'>,
  startDir: string,
  options: FindReleaseFilesOptions = {},
): Promise<ReleaseFile[]> {
  const path = options.path ?? defaultPath(startDir);
  const maxLevels = Math.max(1, Math.min(options.maxLevels ?? 6, 64));
  const maxFiles = Math.max(0, options.maxFiles ?? 32);
  const maxEntries = Math.max(0, options.maxEntries ?? 5000);
  const root = options.root;
  const inside = (dir: string): boolean => {
    if (root === undefined) return true;
    const rel = path.relative(root, dir);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  const out: ReleaseFile[] = [];
  let dir = startDir;
  for (let level = 0; level < maxLevels && out.length < maxFiles; level++) {
    let names: readonly string[] | undefined;
    try {
      names = await io.listDir(dir);
    } catch {
      names = undefined;
    }
    const found: ReleaseFile[] = [];
    for (const n of Array.isArray(names) ? names.slice(0, maxEntries) : []) {
      if (typeof n !== 'string' || n.length > 255) continue;
      const kind = releaseFileKind(n);
      if (kind) found.push({ path: path.join(dir, n), kind, level });
    }
    found.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    out.push(...found.slice(0, maxFiles - out.length));
    const parent = path.dirname(dir);
    if (parent === dir || !inside(dir) || (root !== undefined && path.relative(root, dir) === '') || !inside(parent)) break;
    dir = parent;
  }
  return out;
}

/**
 * The candidates of the release files near `startDir`, nearest first (findWorkspaceReleaseFiles,
 * then each file read through `io.readFile`; a file that cannot be read, or is longer than
 * `maxChars` (default 8 MiB), is skipped).
 */
export async function detectWorkspaceReleases(
  io: Required<ReleaseIo>,
  startDir: string,
  options: FindReleaseFilesOptions & { maxChars?: number } = {},
): Promise<ReleaseCandidate[]> {
  const files = await findWorkspaceReleaseFiles(io, startDir, options);
  const maxChars = options.maxChars ?? 8 * 1024 * 1024;
  const out: ReleaseCandidate[] = [];
  for (const f of files) {
    let text: string | undefined;
    try {
      text = await io.readFile(f.path);
    } catch {
      text = undefined;
    }
    if (typeof text !== 'string' || text.length > maxChars) continue;
    out.push(...fromFile(text, f.path));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The choice

/** Which source wins: what runs (server, host, image) over what a file pins, over a setting. */
export const SOURCE_PRIORITY: readonly ReleaseSource[] = ['server', 'host', 'image', 'lock', 'requirements', 'pyproject', 'setting', 'default'];

export interface ResolvedCandidate extends ReleaseCandidate {
  /**
   * The known release whose catalog applies: the version when it is known, else the newest known
   * release before it (the oldest known when it is older than all); for a specifier, pickRelease's
   * answer. Undefined when no known release fits (a specifier nothing known satisfies).
   */
  release?: string;
  /** True when `release` is not the version itself. */
  approximate: boolean;
}

export interface ReleaseChoice {
  chosen: ResolvedCandidate;
  /** Every other candidate, resolved, by priority (and, within a source, in the order given). */
  others: ResolvedCandidate[];
  /** Those of `others` that disagree: another version, or a specifier the chosen release does not satisfy. */
  conflicts: ResolvedCandidate[];
}

function resolve(c: ReleaseCandidate, known: readonly string[]): ResolvedCandidate {
  const concrete = c.exact || (c.version !== '' && parseVersion(c.version) !== undefined);
  if (concrete) {
    if (!known.length) return { ...c, release: normalizeVersion(c.version) ?? c.version, approximate: false };
    let release = nearestKnownRelease(c.version, known);
    if (release === undefined && parseVersion(c.version)) {
      // Older than every known release: the oldest one is the nearest catalog.
      release = [...known].filter((k) => parseVersion(k)).sort((a, b) => compareParsed(parseVersion(a)!, parseVersion(b)!))[0];
    }
    const same = release !== undefined && compareParsed(publicVersion(parseVersion(release)!), publicVersion(parseVersion(c.version)!)) === 0;
    return { ...c, release, approximate: !same };
  }
  return { ...c, release: pickRelease(c.version, known), approximate: true };
}

/** The version a resolved candidate stands for: its own when exact, else its release. */
function standsFor(c: ResolvedCandidate): string | undefined {
  return c.exact || parseVersion(c.version) ? c.version : c.release;
}

function agrees(chosen: ResolvedCandidate, other: ResolvedCandidate): boolean {
  const v = standsFor(chosen);
  if (v === undefined) return true;
  if (other.exact || parseVersion(other.version)) {
    const a = parseVersion(v);
    const b = parseVersion(other.version);
    return !!a && !!b && compareParsed(publicVersion(a), publicVersion(b)) === 0;
  }
  return satisfies(v, other.version);
}

/**
 * The release the flag catalog follows: the first candidate by SOURCE_PRIORITY (server > host >
 * image > lock > requirements > pyproject > setting) that resolves to a known release, a specifier
 * resolved with pickRelease against `knownReleases`; when none does, `newest` (source 'default').
 * Also every other candidate, and which of them disagree, so the surface can say "the catalog in
 * use (0.5.6, from the server) differs from the file's pinned 0.4.6" (describeConflict).
 */
export function chooseRelease(candidates: readonly (ReleaseCandidate | undefined)[], knownReleases: readonly string[], newest?: string): ReleaseChoice {
  const known = (Array.isArray(knownReleases) ? knownReleases : []).filter((k): k is string => typeof k === 'string' && parseVersion(k) !== undefined);
  const newestKnown = newest ?? newestVersion(known, { prereleases: false }) ?? newestVersion(known) ?? '';
  const list = candidates.filter((c): c is ReleaseCandidate => !!c && typeof c.version === 'string' && SOURCE_PRIORITY.includes(c.source));
  const ordered = list
    .map((c, i) => ({ c, i }))
    .sort((a, b) => SOURCE_PRIORITY.indexOf(a.c.source) - SOURCE_PRIORITY.indexOf(b.c.source) || a.i - b.i)
    .map(({ c }) => resolve(c, known));
  let at = ordered.findIndex((r) => r.release !== undefined);
  let chosen: ResolvedCandidate;
  if (at >= 0) chosen = ordered[at];
  else {
    const release = newestKnown ? (nearestKnownRelease(newestKnown, known) ?? newestKnown) : undefined;
    chosen = {
      version: newestKnown,
      exact: false,
      source: 'default',
      detail: newestKnown
        ? `no SGLang release was found for this file; the newest known release, ${newestKnown}`
        : 'no SGLang release was found and none is known',
      release,
      approximate: false,
    };
    at = -1;
  }
  const others = ordered.filter((_, i) => i !== at);
  return { chosen, others, conflicts: others.filter((o) => !agrees(chosen, o)) };
}

/** One sentence for a conflict: "Flags are judged against SGLang 0.5.6 (…), which differs from sglang==0.4.6 in requirements.txt line 3." */
export function describeConflict(chosen: ResolvedCandidate, other: ResolvedCandidate): string {
  const v = chosen.release ?? chosen.version;
  const relation = other.exact || parseVersion(other.version) ? 'differs from' : 'is not allowed by';
  return `Flags are judged against SGLang ${v} (${chosen.detail}), which ${relation} ${other.detail}.`;
}
