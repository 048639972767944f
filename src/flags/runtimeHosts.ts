/**
 * Hosts "Load Flags from Installed SGLang" can read from besides this machine. The remote feature
 * (loaded lazily) registers a provider of its connected hosts; the flags feature asks it without
 * importing the remote feature, so neither loads the other.
 */
import type * as vscode from 'vscode';
import type { Host } from '../core/hosts/types';
import type { HostRuleContext } from '../core/remote/ruleContext';

export interface RuntimeHostInterpreter {
  path: string;
  /** SGLang version discovery found in it; undefined when it has no SGLang. */
  sglangVersion?: string;
}

export interface RuntimeHostTarget {
  id: string;
  label: string;
  host: Host;
  /** Extra environment the host's commands run with. */
  env?: Record<string, string>;
  interpreters: RuntimeHostInterpreter[];
  /** GPU and package versions for the known-bad rules, for the chosen interpreter. */
  ruleContext(python: string): HostRuleContext | undefined;
}

type Provider = () => RuntimeHostTarget[];
let provider: Provider | undefined;

export function setRuntimeHostProvider(p: Provider): vscode.Disposable {
  provider = p;
  return { dispose: () => { if (provider === p) provider = undefined; } };
}

/** Connected hosts with a discovery report (This machine included when it is connected). */
export function runtimeHosts(): RuntimeHostTarget[] {
  return provider?.() ?? [];
}
