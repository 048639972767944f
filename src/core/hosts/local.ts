/** The machine the extension (or CLI) runs on. No shell anywhere: argv goes straight to spawn. */
import { spawn } from 'node:child_process';
import { open, lstat, readdir, stat, type FileHandle } from 'node:fs/promises';
import { createServer, connect, type Socket } from 'node:net';
import { OutputCollector } from './output';
import {
  HostError,
  abortError,
  checkRange,
  throwIfAborted,
  show,
  type DirEntry,
  type EntryType,
  type ExecOptions,
  type ExecResult,
  type ForwardedPort,
  type Host,
  type RandomAccessFile,
  type StatResult,
} from './types';
import { errorMessage } from '../errors';

function typeOf(s: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): EntryType {
  return s.isSymbolicLink() ? 'symlink' : s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other';
}

function fsError(err: unknown, what: string, path: string): HostError {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return new HostError('not-found', `${what}: no such file or directory: ${show(path)}`, { cause: err });
  return new HostError('io', `${what} ${show(path)} failed: ${errorMessage(err)}`, { cause: err });
}

export class LocalHost implements Host {
  readonly id = 'local';
  readonly label = 'This machine';

  exec(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    if (!Array.isArray(argv) || argv.length === 0) return Promise.reject(new HostError('invalid-argument', 'Empty command'));
    for (const a of argv) {
      if (a.includes('\0')) return Promise.reject(new HostError('invalid-argument', `Argument ${show(a)} contains a NUL byte; remove it.`));
    }
    try {
      throwIfAborted(opts.signal);
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    return new Promise((resolve, reject) => {
      const child = spawn(argv[0], argv.slice(1), {
        cwd: opts.cwd,
        env: opts.env ? { ...process.env, ...opts.env } : process.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
      });
      let failure: Error | undefined;
      const kill = (): void => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      };
      const out = new OutputCollector(opts, kill);
      child.stdout.on('data', (d: Buffer) => out.out(d));
      child.stderr.on('data', (d: Buffer) => out.err(d));
      const onAbort = (): void => {
        failure ??= abortError(opts.signal?.reason);
        kill();
      };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const timer =
        opts.timeoutMs !== undefined
          ? setTimeout(() => {
              failure ??= new HostError('timeout', `${show(argv[0])} did not finish within ${opts.timeoutMs} ms`);
              kill();
            }, opts.timeoutMs)
          : undefined;
      child.on('error', (err: NodeJS.ErrnoException) => {
        failure ??=
          err.code === 'ENOENT'
            ? new HostError('not-found', `Program ${show(argv[0])} was not found on this machine (is it installed and on PATH?)`, { cause: err })
            : new HostError('io', `Could not run ${show(argv[0])}: ${err.message}`, { cause: err });
      });
      child.on('close', (code, signal) => {
        if (timer) clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        out.flush();
        if (failure) {
          reject(failure);
          return;
        }
        resolve({ code, ...(signal ? { signal } : {}), stdout: out.stdout, stderr: out.stderr, truncated: out.truncated });
      });
    });
  }

  async readFile(path: string, opts: { maxBytes?: number; signal?: AbortSignal } = {}): Promise<Uint8Array> {
    throwIfAborted(opts.signal);
    let fh;
    try {
      fh = await open(path, 'r');
    } catch (e) {
      throw fsError(e, 'Read', path);
    }
    try {
      const chunks: Buffer[] = [];
      let total = 0;
      const max = opts.maxBytes ?? Infinity;
      while (total < max) {
        throwIfAborted(opts.signal);
        const want = Math.min(1 << 20, max - total);
        const buf = Buffer.allocUnsafe(want);
        const { bytesRead } = await fh.read(buf, 0, want, null);
        if (bytesRead === 0) break;
        chunks.push(buf.subarray(0, bytesRead));
        total += bytesRead;
      }
      return new Uint8Array(Buffer.concat(chunks, total));
    } catch (e) {
      if (e instanceof HostError) throw e;
      throw fsError(e, 'Read', path);
    } finally {
      await fh.close();
    }
  }

  async openFile(path: string, opts: { signal?: AbortSignal } = {}): Promise<RandomAccessFile> {
    throwIfAborted(opts.signal);
    let fh: FileHandle;
    try {
      fh = await open(path, 'r');
    } catch (e) {
      throw fsError(e, 'Open', path);
    }
    let size: number;
    try {
      size = (await fh.stat()).size;
    } catch (e) {
      await fh.close();
      throw fsError(e, 'Stat', path);
    }
    let closed = false;
    return {
      size,
      read: async (position, length, signal) => {
        checkRange(position, length);
        throwIfAborted(signal);
        if (closed) throw new HostError('invalid-argument', `Read of ${show(path)} after it was closed`);
        const buf = Buffer.allocUnsafe(length);
        let got = 0;
        try {
          // A read may return less than asked before the end of the file: go on until it gives none.
          while (got < length) {
            const { bytesRead } = await fh.read(buf, got, length - got, position + got);
            if (bytesRead === 0) break;
            got += bytesRead;
          }
        } catch (e) {
          throw fsError(e, 'Read', path);
        }
        return new Uint8Array(buf.buffer, buf.byteOffset, got);
      },
      close: async () => {
        if (closed) return;
        closed = true;
        await fh.close();
      },
    };
  }

  async stat(path: string): Promise<StatResult> {
    try {
      const own = await lstat(path);
      if (!own.isSymbolicLink()) return { type: typeOf(own), size: own.size, mtimeMs: own.mtimeMs };
      // Conda, spack, nix and editable installs link their libraries: report the target.
      const target = await stat(path).catch(() => undefined);
      return target
        ? { type: typeOf(target), size: target.size, mtimeMs: target.mtimeMs, symlink: true }
        : { type: 'symlink', size: own.size, mtimeMs: own.mtimeMs, symlink: true };
    } catch (e) {
      throw fsError(e, 'Stat', path);
    }
  }

  async readDir(path: string): Promise<DirEntry[]> {
    try {
      const entries = await readdir(path, { withFileTypes: true });
      return entries.map((d) => ({ name: d.name, type: typeOf(d) }));
    } catch (e) {
      throw fsError(e, 'List', path);
    }
  }

  forwardPort(remotePort: number, remoteHost = '127.0.0.1'): Promise<ForwardedPort> {
    return listenForward((sock) => {
      const up = connect(remotePort, remoteHost);
      sock.pipe(up).pipe(sock);
      up.on('error', () => sock.destroy());
      sock.on('error', () => up.destroy());
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A loopback listener on an ephemeral port; `onSocket` connects each accepted socket onward. */
export function listenForward(onSocket: (sock: Socket) => void): Promise<ForwardedPort> {
  return new Promise((resolve, reject) => {
    const sockets = new Set<Socket>();
    const server = createServer((sock) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
      onSocket(sock);
    });
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      const localPort = typeof addr === 'object' && addr ? addr.port : 0;
      let closed: Promise<void> | undefined;
      resolve({
        localPort,
        close: () =>
          (closed ??= new Promise<void>((res) => {
            for (const s of sockets) s.destroy();
            server.close(() => res());
          })),
      });
    });
  });
}
