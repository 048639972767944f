/** Entry point of the host layer: open a Host from what the user typed. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { LocalHost } from './local';
import { connectSsh, type SshCallbacks, type SshConnectOptions } from './ssh';
import { parseHostSpec, resolveSshTarget, type SshConfigOptions } from './sshConfig';
import type { Host } from './types';

export * from './types';
export { quoteArg, quoteArgv } from './quote';
export { LocalHost } from './local';
export {
  SshHost,
  connectSsh,
  loadSsh2,
  type SshCallbacks,
  type SshConnectOptions,
  type UnknownHostKeyInfo,
  type HostKeyDecision,
  type PasswordPromptInfo,
} from './ssh';
export { PasswordSession, isPasswordPrompt, sshPasswordKey, type SecretStore, type SaveOutcome } from './savedPassword';
export { listSshAliases, parseHostSpec, resolveSshTarget, resolveHostString, type SshTarget, type HostSpec, type SshConfigOptions } from './sshConfig';
export { searchHost, hostHasRipgrep, BACKEND_OPTION_PRESETS, type SearchMatch, type SearchOptions, type SearchSummary } from './search';
export { parseKnownHosts, checkHostKey, sha256Fingerprint, appendKnownHost, loadKnownHosts } from './knownHosts';

/** Default extra trust store used when the user says "remember" (kept apart from ~/.ssh). */
export function defaultTrustStore(): string {
  return join(homedir(), '.config', 'inference-doctor', 'known_hosts');
}

export interface OpenHostOptions extends SshConnectOptions {
  config?: SshConfigOptions;
  callbacks?: SshCallbacks;
}

/** `local` → LocalHost; anything else → connected SshHost (alias / user@host:port / ssh://…). */
export async function openHost(input: string, o: OpenHostOptions = {}): Promise<Host> {
  const spec = parseHostSpec(input);
  if (spec.kind === 'local') return new LocalHost();
  const target = resolveSshTarget(spec, o.config ?? {});
  return connectSsh(target, o.callbacks ?? {}, o);
}
