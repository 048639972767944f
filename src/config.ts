/**
 * Every setting the extension reads: its type, default and scope, in one table. `Config.get` is the
 * only way glue code reads a setting; `test/unit/config.test.ts` holds the table against
 * package.json's `contributes.configuration` (keys, defaults, scopes) both ways.
 * Only a type import of vscode: the table loads in plain Node for that test.
 */
import type * as vscode from 'vscode';
import type { Suite } from './core/eval/problems';

export const CONFIG_ROOT = 'inferenceDoctor';

/** Setting keys below `inferenceDoctor.` and the type of each value. */
export interface Settings {
  'health.intervalSeconds': number;
  'health.checkGenerate': boolean;
  'probe.timeoutSeconds': number;
  'probe.maxTokens': number;
  'probe.earlyStop': boolean;
  'history.maxEntries': number;
  'eval.suite': Suite;
  'eval.problems': number;
  'eval.concurrency': number;
  'compare.prompts': number;
  'compare.topLogprobs': number;
  servers: unknown[];
  'flags.serverArgsPath': string;
  'flags.sglangVersion': string;
  'flags.ruleDiagnostics': boolean;
  'flags.python': string;
  'ssh.configFile': string;
  'ssh.knownHostsFile': string;
  'remote.pythonPaths': string[];
  'remote.maxSearchResults': number;
  'remote.logMaxLines': number;
  'fix.superviseStateDir': string;
  'fix.readyTimeoutSeconds': number;
  'fix.remoteCli': string;
  'fix.probeSet': 'quick' | 'accuracy';
  'gpu.nvidiaSmiPath': string;
}

export type SettingKey = keyof Settings;

/**
 * VS Code's setting scopes as package.json spells them. `machine`: user or remote settings only
 * (a path on this computer); `machine-overridable`: a workspace may override it when trusted;
 * `window`: user or workspace; `resource`: per folder too.
 */
export type SettingScope = 'application' | 'machine' | 'machine-overridable' | 'window' | 'resource';

interface SettingSpec<T> {
  default: T;
  scope: SettingScope;
}

export const SETTINGS: { [K in SettingKey]: SettingSpec<Settings[K]> } = {
  'health.intervalSeconds': { default: 30, scope: 'window' },
  'health.checkGenerate': { default: true, scope: 'window' },
  'probe.timeoutSeconds': { default: 120, scope: 'window' },
  'probe.maxTokens': { default: 256, scope: 'window' },
  'probe.earlyStop': { default: true, scope: 'window' },
  'history.maxEntries': { default: 200, scope: 'machine' },
  'eval.suite': { default: 'mixed', scope: 'window' },
  'eval.problems': { default: 100, scope: 'window' },
  'eval.concurrency': { default: 16, scope: 'window' },
  'compare.prompts': { default: 12, scope: 'window' },
  'compare.topLogprobs': { default: 5, scope: 'window' },
  servers: { default: [], scope: 'window' },
  'flags.serverArgsPath': { default: '', scope: 'resource' },
  'flags.sglangVersion': { default: '', scope: 'resource' },
  'flags.ruleDiagnostics': { default: true, scope: 'resource' },
  'flags.python': { default: '', scope: 'machine-overridable' },
  'ssh.configFile': { default: '', scope: 'machine' },
  'ssh.knownHostsFile': { default: '', scope: 'machine' },
  'remote.pythonPaths': { default: [], scope: 'machine-overridable' },
  'remote.maxSearchResults': { default: 10000, scope: 'window' },
  'remote.logMaxLines': { default: 5000, scope: 'window' },
  'fix.superviseStateDir': { default: '', scope: 'machine' },
  'fix.readyTimeoutSeconds': { default: 900, scope: 'window' },
  'fix.remoteCli': { default: 'inference-doctor', scope: 'machine' },
  'fix.probeSet': { default: 'quick', scope: 'window' },
  'gpu.nvidiaSmiPath': { default: '', scope: 'machine' },
};

/** The part of `vscode.workspace` the reader needs (injected, so this module has no vscode value import). */
export interface ConfigurationSource {
  getConfiguration(section?: string, scope?: vscode.ConfigurationScope | null): { get<T>(key: string): T | undefined };
  onDidChangeConfiguration: vscode.Event<vscode.ConfigurationChangeEvent>;
}

/** Typed reader over the workspace configuration; a value of the wrong type reads as the default. */
export class Config {
  constructor(private readonly source: ConfigurationSource) {}

  get<K extends SettingKey>(key: K, scope?: vscode.ConfigurationScope): Settings[K] {
    const spec = SETTINGS[key];
    const value = this.source.getConfiguration(CONFIG_ROOT, scope).get<unknown>(key);
    return sameShape(value, spec.default) ? (value as Settings[K]) : spec.default;
  }

  /** A trimmed string setting, or undefined when it is empty. */
  text(key: { [K in SettingKey]: Settings[K] extends string ? K : never }[SettingKey], scope?: vscode.ConfigurationScope): string | undefined {
    return String(this.get(key, scope)).trim() || undefined;
  }

  /** Calls `listener` when any of `keys` (or a section such as `health`) changes. */
  onDidChange(keys: (SettingKey | 'health' | 'probe' | 'flags' | 'ssh' | 'remote' | 'fix')[], listener: () => void): vscode.Disposable {
    return this.source.onDidChangeConfiguration((e) => {
      if (keys.some((k) => e.affectsConfiguration(`${CONFIG_ROOT}.${k}`))) listener();
    });
  }
}

function sameShape(value: unknown, fallback: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(fallback)) return Array.isArray(value);
  return typeof value === typeof fallback && (typeof value !== 'number' || Number.isFinite(value));
}
