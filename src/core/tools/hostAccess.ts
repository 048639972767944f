/**
 * Hosts for the agent tools, read as the CLI reads them: ~/.ssh/config (or a given file) for
 * aliases, known_hosts for host keys. An unknown or changed host key is refused and nothing asks
 * for a passphrase or a password: an agent cannot answer such a question for the user.
 */
import { openHost } from '../hosts/index';
import { listSshAliases } from '../hosts/sshConfig';
import { HostError } from '../hosts/types';
import { checkHost } from './guards';
import { ToolError, type HostAccess } from './types';

export interface HostAccessOptions {
  sshConfigFile?: string;
  knownHostsFile?: string;
  identityFiles?: string[];
}

export function sshHostAccess(o: HostAccessOptions = {}): HostAccess {
  const config = o.sshConfigFile ? { configFile: o.sshConfigFile } : {};
  return {
    known() {
      try {
        return ['local', ...listSshAliases(config)];
      } catch {
        return ['local'];
      }
    },
    async open(spec, signal) {
      checkHost(spec);
      try {
        return await openHost(spec, {
          config,
          identityFiles: o.identityFiles ?? [],
          // The target's UserKnownHostsFile list unless a file is named; nothing is ever added to it.
          ...(o.knownHostsFile ? { knownHostsFiles: [o.knownHostsFile] } : {}),
          signal,
          callbacks: {
            onUnknownHostKey: () => 'reject',
            askPassphrase: () => Promise.resolve(undefined),
            askPassword: () => Promise.resolve(undefined),
          },
        });
      } catch (error) {
        if (error instanceof HostError && error.kind === 'invalid-argument') throw new ToolError('invalid-input', error.message);
        if (error instanceof HostError && error.kind === 'host-key-unknown')
          throw new ToolError('refused', `${error.message} (the tools never trust a new host key: connect once with ssh or the Hosts view first)`);
        throw error;
      }
    },
  };
}
