/**
 * Read-only FileSystemProvider for `inference-doctor-remote://<host>/<absolute path>` over a
 * connected Host. Opening `…/sglang/srt/server_args.py` gets the Python language by extension,
 * so language features registered for Python (and `file`-less schemes) work on it.
 */
import * as vscode from 'vscode';
import { HostError } from '../core/hosts/types';
import { decodeHostAuthority, remoteUriString } from '../core/remote/uris';
import type { HostManager } from './hostManager';
import { errorMessage } from '../core/errors';

const MAX_FILE_BYTES = 64 * 1024 * 1024;

export function remoteUri(hostId: string, absPath: string): vscode.Uri {
  return vscode.Uri.parse(remoteUriString(hostId, absPath));
}

/** The reading half of the provider; register.ts adds the read-only rest (writes refused). */
export class RemoteFileSystem {
  constructor(private readonly hosts: HostManager) {}

  private async hostOf(uri: vscode.Uri) {
    const id = decodeHostAuthority(uri.authority);
    // This machine needs no prompt: connect it on demand.
    const session = this.hosts.session(id) ?? (id === 'local' ? await this.hosts.connect(id) : undefined);
    if (!session) {
      const label = this.hosts.get(id)?.label ?? id;
      throw vscode.FileSystemError.Unavailable(`${label} is not connected. Connect it in the Hosts view (Inference Doctor), then reopen ${uri.path}.`);
    }
    return session.host;
  }

  private mapError(e: unknown, uri: vscode.Uri): Error {
    if (e instanceof vscode.FileSystemError) return e;
    if (e instanceof HostError && e.kind === 'not-found') return vscode.FileSystemError.FileNotFound(uri);
    return vscode.FileSystemError.Unavailable(errorMessage(e));
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const host = await this.hostOf(uri);
    try {
      const s = await host.stat(uri.path);
      // Links are followed by stat; a broken one stays Unknown.
      let type = s.type === 'dir' ? vscode.FileType.Directory : s.type === 'file' ? vscode.FileType.File : vscode.FileType.Unknown;
      if (s.symlink) type |= vscode.FileType.SymbolicLink;
      return { type, ctime: s.mtimeMs, mtime: s.mtimeMs, size: s.size, permissions: vscode.FilePermission.Readonly };
    } catch (e) {
      throw this.mapError(e, uri);
    }
  }

  async readDirectory(uri: vscode.Uri): Promise<[string, vscode.FileType][]> {
    const host = await this.hostOf(uri);
    try {
      const entries = await host.readDir(uri.path);
      return entries.map((e) => [
        e.name,
        e.type === 'dir'
          ? vscode.FileType.Directory
          : e.type === 'file'
            ? vscode.FileType.File
            : e.type === 'symlink'
              ? vscode.FileType.SymbolicLink
              : vscode.FileType.Unknown,
      ]);
    } catch (e) {
      throw this.mapError(e, uri);
    }
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const host = await this.hostOf(uri);
    try {
      return await host.readFile(uri.path, { maxBytes: MAX_FILE_BYTES });
    } catch (e) {
      throw this.mapError(e, uri);
    }
  }
}
