/**
 * Hosts "Load Flags from Installed SGLang" can read from besides this machine. The remote feature
 * (loaded lazily) provides its connected hosts; the flags feature reads them through the context,
 * so neither feature imports the other.
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

export class RuntimeHosts {
  private provider: Provider | undefined;

  /** The remote feature's list of connected hosts; disposing the result withdraws it. */
  provide(provider: Provider): vscode.Disposable {
    this.provider = provider;
    return {
      dispose: () => {
        if (this.provider === provider) this.provider = undefined;
      },
    };
  }

  /** Connected hosts with a discovery report (This machine included when it is connected). */
  connected(): RuntimeHostTarget[] {
    return this.provider?.() ?? [];
  }
}
