/**
 * Host options shared by CLI commands that reach a machine (search, env, …):
 *   HOST                      ~/.ssh/config alias, user@host[:port], ssh://user@host:port, or local
 *   --identity FILE           extra private key (repeatable), tried before configured ones
 *   --known-hosts FILE        known_hosts file to check against (and to remember into)
 *   --ssh-config FILE         ssh config instead of ~/.ssh/config
 *   --accept-new-host-key     trust an unknown host key and remember it (a CHANGED key is still refused)
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { openHost, type Host, type UnknownHostKeyInfo } from '../core/hosts/index';
import { UsageError } from './command';

export interface HostArgs {
  identityFiles: string[];
  knownHostsFile?: string;
  sshConfigFile?: string;
  acceptNewHostKey: boolean;
}

export const HOST_OPTIONS_HELP = [
  'HOST is a ~/.ssh/config alias, user@host[:port], ssh://user@host:port, or "local".',
  '  --identity FILE         private key to try first (repeatable)',
  '  --known-hosts FILE      known_hosts file to check host keys against (default ~/.ssh/known_hosts)',
  '  --ssh-config FILE       ssh config file (default ~/.ssh/config)',
  '  --accept-new-host-key   accept and remember a host key seen for the first time',
].join('\n');

// The CLI's one usage error: main.ts turns it into exit 64 with the command's usage text.
export { UsageError };

/** Take the host options out of argv; returns them and the remaining arguments in order. */
export function extractHostArgs(argv: readonly string[]): { hostArgs: HostArgs; rest: string[] } {
  const hostArgs: HostArgs = { identityFiles: [], acceptNewHostKey: false };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const takesValue = ['--identity', '-i', '--known-hosts', '--ssh-config'].includes(name);
    if (!takesValue && a !== '--accept-new-host-key') {
      rest.push(a);
      continue;
    }
    if (a === '--accept-new-host-key') {
      hostArgs.acceptNewHostKey = true;
      continue;
    }
    let value: string | undefined;
    if (name !== a) value = a.slice(eq + 1);
    else {
      value = argv[++i];
      if (value === undefined) throw new UsageError(`${a} needs a FILE argument`);
    }
    if (!value) throw new UsageError(`${name} needs a non-empty FILE argument`);
    if (name === '--identity' || name === '-i') hostArgs.identityFiles.push(value);
    else if (name === '--known-hosts') hostArgs.knownHostsFile = value;
    else hostArgs.sshConfigFile = value;
  }
  return { hostArgs, rest };
}

/** Ask on the terminal without echo (for passphrases / passwords); undefined without a TTY. */
export function promptHidden(question: string): Promise<string | undefined> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    process.stderr.write(question);
    let buf = '';
    stdin.setRawMode(true);
    stdin.resume();
    const onData = (d: Buffer): void => {
      for (const ch of d.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          done(buf);
          return;
        }
        if (ch === '\u0003' || ch === '\u0004') {
          done(undefined);
          return;
        }
        if (ch === '\u007f' || ch === '\b') buf = buf.slice(0, -1);
        else buf += ch;
      }
    };
    const done = (v: string | undefined): void => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      resolve(v);
    };
    stdin.on('data', onData);
  });
}

/** Open the host for a CLI command; messages go to stderr. */
export async function openHostFromArgs(hostInput: string, a: HostArgs, signal?: AbortSignal): Promise<Host> {
  const knownHosts = a.knownHostsFile;
  return openHost(hostInput, {
    config: a.sshConfigFile ? { configFile: a.sshConfigFile } : {},
    identityFiles: a.identityFiles,
    ...(knownHosts ? { knownHostsFiles: [knownHosts] } : {}),
    trustStoreFile: knownHosts ?? join(homedir(), '.ssh', 'known_hosts'),
    ...(signal ? { signal } : {}),
    callbacks: {
      onUnknownHostKey: (k: UnknownHostKeyInfo) => {
        if (!a.acceptNewHostKey) return 'reject';
        process.stderr.write(`Warning: accepting new ${k.keyType} host key ${k.sha256Fingerprint} for ${k.host}:${k.port} (--accept-new-host-key)\n`);
        return 'remember';
      },
      askPassphrase: ({ keyFile }) => promptHidden(`Passphrase for ${keyFile}: `),
      askPassword: ({ prompt }) => promptHidden(prompt),
      log: (m) => {
        if (process.env.INFERENCE_DOCTOR_DEBUG) process.stderr.write(`${m}\n`);
      },
    },
  });
}
