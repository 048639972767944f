/**
 * known_hosts reading and host-key decisions, written from the sshd(8) "SSH_KNOWN_HOSTS FILE
 * FORMAT" description. Supported: plain host patterns (comma lists, `*`/`?` wildcards, `!`
 * negation, `[host]:port`), hashed `|1|salt|hash` names (HMAC-SHA1), `@revoked`. Lines with
 * `@cert-authority` are kept aside and reported as ignored: certificate host keys are not checked.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export type KnownHostsMarker = 'revoked' | 'cert-authority';

export interface KnownHostEntry {
  file: string;
  line: number;
  marker?: KnownHostsMarker;
  /** Plain pattern list (comma-separated in the file), or undefined for a hashed entry. */
  patterns?: string[];
  hashed?: { salt: Buffer; hash: Buffer };
  keyType: string;
  key: Buffer;
}

export interface ParsedKnownHosts {
  entries: KnownHostEntry[];
  /** Human-readable notes: malformed lines, ignored @cert-authority lines. */
  notes: string[];
}

export function parseKnownHosts(text: string, file = '<known_hosts>'): ParsedKnownHosts {
  const entries: KnownHostEntry[] = [];
  const notes: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (!raw || raw.startsWith('#')) continue;
    const fields = raw.split(/[ \t]+/);
    let marker: KnownHostsMarker | undefined;
    if (fields[0].startsWith('@')) {
      const m = fields.shift()!.toLowerCase();
      if (m === '@revoked') marker = 'revoked';
      else if (m === '@cert-authority') marker = 'cert-authority';
      else {
        notes.push(`${file}:${i + 1}: unknown marker ${m}; line ignored`);
        continue;
      }
    }
    if (fields.length < 3) {
      notes.push(`${file}:${i + 1}: malformed line (need hosts, key type, key); ignored`);
      continue;
    }
    const [hostField, keyType, keyB64] = fields;
    const key = Buffer.from(keyB64, 'base64');
    if (key.length === 0 || keyTypeOfBlob(key) !== keyType) {
      notes.push(`${file}:${i + 1}: key does not decode as ${keyType}; line ignored`);
      continue;
    }
    if (marker === 'cert-authority') {
      notes.push(`${file}:${i + 1}: @cert-authority line ignored (SSH certificate host keys are not supported; trust the plain host key instead)`);
      continue;
    }
    const entry: KnownHostEntry = { file, line: i + 1, keyType, key, ...(marker ? { marker } : {}) };
    if (hostField.startsWith('|1|')) {
      const parts = hostField.split('|');
      const salt = Buffer.from(parts[2] ?? '', 'base64');
      const hash = Buffer.from(parts[3] ?? '', 'base64');
      if (parts.length !== 4 || salt.length !== 20 || hash.length !== 20) {
        notes.push(`${file}:${i + 1}: malformed hashed host name; line ignored`);
        continue;
      }
      entry.hashed = { salt, hash };
    } else {
      entry.patterns = hostField.split(',').filter(Boolean);
    }
    entries.push(entry);
  }
  return { entries, notes };
}

/** The name OpenSSH looks up: `host` on port 22, else `[host]:port`; lower-cased. */
export function hostKeyName(host: string, port = 22): string {
  const h = host.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}

function wildcardToRegExp(pattern: string): RegExp {
  let src = '';
  for (const ch of pattern) {
    if (ch === '*') src += '.*';
    else if (ch === '?') src += '.';
    else src += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${src}$`, 'is');
}

/** OpenSSH pattern-list semantics: a matching negated pattern vetoes; else any positive match wins. */
export function matchPatternList(name: string, patterns: readonly string[]): boolean {
  let positive = false;
  for (const p of patterns) {
    const negated = p.startsWith('!');
    const body = negated ? p.slice(1) : p;
    if (wildcardToRegExp(body).test(name)) {
      if (negated) return false;
      positive = true;
    }
  }
  return positive;
}

export function hashHostName(name: string, salt: Buffer = randomBytes(20)): string {
  const hash = createHmac('sha1', salt).update(name).digest();
  return `|1|${salt.toString('base64')}|${hash.toString('base64')}`;
}

export function entryMatchesHost(entry: KnownHostEntry, host: string, port = 22): boolean {
  const name = hostKeyName(host, port);
  if (entry.hashed) {
    const h = createHmac('sha1', entry.hashed.salt).update(name).digest();
    return h.equals(entry.hashed.hash);
  }
  return matchPatternList(name, entry.patterns ?? []);
}

/** `SHA256:` + unpadded base64 of the SHA-256 of the key blob, as `ssh-keygen -l` prints it. */
export function sha256Fingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** The key type string at the start of an SSH public key blob (e.g. `ssh-ed25519`). */
export function keyTypeOfBlob(key: Buffer): string | undefined {
  if (key.length < 4) return undefined;
  const len = key.readUInt32BE(0);
  if (len === 0 || len > 64 || 4 + len > key.length) return undefined;
  return key.subarray(4, 4 + len).toString('latin1');
}

export type HostKeyVerdict =
  | { status: 'known'; entry: KnownHostEntry }
  | { status: 'revoked'; entry: KnownHostEntry }
  | { status: 'changed'; expected: KnownHostEntry[] }
  | { status: 'unknown'; otherTypes: string[] };

export function checkHostKey(entries: readonly KnownHostEntry[], host: string, port: number, key: Buffer): HostKeyVerdict {
  const keyType = keyTypeOfBlob(key) ?? 'unknown';
  const matching = entries.filter((e) => entryMatchesHost(e, host, port));
  const revoked = matching.find((e) => e.marker === 'revoked' && e.key.equals(key));
  if (revoked) return { status: 'revoked', entry: revoked };
  const plain = matching.filter((e) => !e.marker);
  const same = plain.find((e) => e.key.equals(key));
  if (same) return { status: 'known', entry: same };
  const expected = plain.filter((e) => e.keyType === keyType);
  if (expected.length) return { status: 'changed', expected };
  return { status: 'unknown', otherTypes: [...new Set(plain.map((e) => e.keyType))] };
}

/** Read and parse several known_hosts files; missing files count as empty. */
export async function loadKnownHosts(files: readonly string[]): Promise<ParsedKnownHosts> {
  const all: ParsedKnownHosts = { entries: [], notes: [] };
  for (const f of files) {
    let text: string;
    try {
      text = await readFile(f, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') all.notes.push(`${f}: could not read (${(e as Error).message})`);
      continue;
    }
    const p = parseKnownHosts(text, f);
    all.entries.push(...p.entries);
    all.notes.push(...p.notes);
  }
  return all;
}

export function formatKnownHostsLine(host: string, port: number, key: Buffer, hashed = true): string {
  const name = hostKeyName(host, port);
  const keyType = keyTypeOfBlob(key) ?? 'unknown';
  return `${hashed ? hashHostName(name) : name} ${keyType} ${key.toString('base64')}`;
}

/** Append one entry to a trust-store file (created with its directory if missing, mode 0600). */
export async function appendKnownHost(file: string, host: string, port: number, key: Buffer, hashed = true): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  let prefix = '';
  try {
    const cur = await readFile(file, 'utf8');
    if (cur.length && !cur.endsWith('\n')) prefix = '\n';
  } catch {
    /* new file */
  }
  await appendFile(file, `${prefix}${formatKnownHostsLine(host, port, key, hashed)}\n`, { mode: 0o600 });
}
