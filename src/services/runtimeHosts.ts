/**
 * Hosts "Load Flags from Installed SGLang or vLLM" can read from besides this machine, and whose discovery
 * report Diagnose Server reuses. The remote feature (loaded lazily) provides its connected hosts;
 * the flags and diagnose features read them through the context, so no feature imports another.
 */
import type * as vscode from 'vscode';
import type { EnvReport } from '../core/discovery/report';
import type { Host } from '../core/hosts/types';
import type { HostRuleContext } from '../core/remote/ruleContext';

export interface RuntimeHostInterpreter {
  path: string;
  /** SGLang version discovery found in it; undefined when it has no SGLang. */
  sglangVersion?: string;
  /** The same for vLLM. */
  vllmVersion?: string;
}

/** A discovery report's interpreters, each with the SGLang and vLLM versions found in it. */
export function runtimeInterpreters(report: EnvReport | undefined): RuntimeHostInterpreter[] {
  return (report?.interpreters ?? []).map((i) => ({
    path: i.path,
    ...(i.probe?.packages.sglang.found ? { sglangVersion: i.probe.packages.sglang.version ?? '?' } : {}),
    ...(i.probe?.packages.vllm.found ? { vllmVersion: i.probe.packages.vllm.version ?? '?' } : {}),
  }));
}

export interface RuntimeHostTarget {
  id: string;
  label: string;
  host: Host;
  /** Extra environment the host's commands run with. */
  env?: Record<string, string>;
  interpreters: RuntimeHostInterpreter[];
  /** "This machine" (the Hosts view's local entry), not an SSH host. */
  local?: boolean;
  /** The host's latest discovery report (the Hosts view's, cached), if discovery has run. */
  report?(): EnvReport | undefined;
  /** GPU and package versions for the known-bad rules, for the chosen interpreter. */
  ruleContext(python: string): HostRuleContext | undefined;
  /**
   * A running server's launch file, log tail and port forward: the Hosts view's server row (`key`)
   * or the Servers entry a forward registered (`serverId`). Undefined when the host has no such server.
   */
  serverEvidence?(ref: { key: string } | { serverId: string }, signal?: AbortSignal): Promise<HostServerEvidence | undefined>;
}

/** What a host knows about one of its running servers, for Diagnose Server. */
export interface HostServerEvidence {
  /** The port the server listens on, on the host. */
  port: number;
  report?: EnvReport;
  /** The launch file (a unit, a script) or the command line; `uri` when it is a file Apply and Verify can change. */
  launch?: { text: string; fileName: string; uri?: string };
  /** The last lines of its log (journal or the file its output goes to). */
  log?: { text: string; label: string };
  /** Where this machine reaches it (the port forward), and the Servers entry of that forward. */
  baseUrl?: string;
  serverId?: string;
  /** What could not be read. */
  notes: string[];
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
