/**
 * Runs one agent tool in the bundled CLI (`inference-doctor tool NAME`): the request, API keys
 * included, goes on stdin, never in argv; cancelling kills the child; its answer is read with a
 * size cap. No vscode import, so the integration tier runs it as the extension does.
 */
import { fork } from 'node:child_process';

export interface ToolRequest {
  input: unknown;
  servers: { name: string; url: string; apiKey?: string }[];
}

export type ToolAnswer = { ok: true; data: Record<string, unknown>; text: string } | { ok: false; error: { code: string; message: string } };

export interface RunnerOptions {
  cliPath: string;
  allowChanges: boolean;
  signal: AbortSignal;
  sshConfigFile?: string;
  knownHostsFile?: string;
  stateDir?: string;
  onStderr?: (line: string) => void;
}

const MAX_STDOUT = 16 * 1024 * 1024;

export function runToolInCli(name: string, request: ToolRequest, o: RunnerOptions): Promise<ToolAnswer> {
  const args = [
    'tool',
    name,
    ...(o.allowChanges ? ['--allow-changes'] : []),
    ...(o.sshConfigFile ? ['--ssh-config', o.sshConfigFile] : []),
    ...(o.knownHostsFile ? ['--known-hosts', o.knownHostsFile] : []),
    ...(o.stateDir ? ['--state-dir', o.stateDir] : []),
  ];
  return new Promise<ToolAnswer>((resolve, reject) => {
    if (o.signal.aborted) {
      reject(new Error(`${name} was cancelled`));
      return;
    }
    // fork: the extension host's own Node (Electron as Node in VS Code), no shell.
    const child = fork(o.cliPath, args, { stdio: ['pipe', 'pipe', 'pipe', 'ipc'], execArgv: [] });
    let out = '';
    let err = '';
    const onAbort = (): void => void child.kill('SIGTERM');
    o.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (out.length > MAX_STDOUT) child.kill('SIGKILL');
    });
    child.stderr?.on('data', (d: Buffer) => {
      const text = d.toString('utf8');
      err = (err + text).slice(-4000);
      for (const line of text.split('\n')) if (line.trim()) o.onStderr?.(line);
    });
    child.on('error', (e) => {
      o.signal.removeEventListener('abort', onAbort);
      reject(e);
    });
    child.on('exit', (code) => {
      o.signal.removeEventListener('abort', onAbort);
      if (o.signal.aborted) return reject(new Error(`${name} was cancelled`));
      try {
        const answer = JSON.parse(out.trim().split('\n').pop() ?? '') as ToolAnswer;
        if (typeof answer?.ok === 'boolean') return resolve(answer);
      } catch {
        /* reported below */
      }
      reject(new Error(`${name} failed (exit ${String(code)}): ${err.trim() || 'no answer'}`));
    });
    child.stdin?.end(JSON.stringify(request));
  });
}
