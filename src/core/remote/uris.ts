/**
 * Host ids inside URIs. A URI authority cannot hold `@`, `:` or `/` unambiguously, so host ids
 * (`ssh:root@gpu1:2222`, `config:gpu1`, `local`) are encoded reversibly: every byte outside
 * [a-z0-9.-] becomes `_XX` (hex). No vscode import.
 */

export const REMOTE_SCHEME = 'inference-doctor-remote';

export function encodeHostAuthority(hostId: string): string {
  let out = '';
  for (const b of Buffer.from(hostId, 'utf8')) {
    const c = String.fromCharCode(b);
    // Upper case is encoded too: VS Code lower-cases the host part of an authority.
    out += /[a-z0-9.-]/.test(c) ? c : `_${b.toString(16).padStart(2, '0')}`;
  }
  return out;
}

export function decodeHostAuthority(authority: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < authority.length; i++) {
    const c = authority[i];
    if (c === '_' && /^[0-9a-f]{2}$/i.test(authority.slice(i + 1, i + 3))) {
      bytes.push(parseInt(authority.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(c.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** `inference-doctor-remote://<encoded host id>/<absolute path>` as a string. */
export function remoteUriString(hostId: string, absPath: string): string {
  if (!absPath.startsWith('/')) throw new Error(`Remote paths must be absolute: ${JSON.stringify(absPath)}`);
  const path = absPath
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
  return `${REMOTE_SCHEME}://${encodeHostAuthority(hostId)}${path}`;
}
