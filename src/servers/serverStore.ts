import * as vscode from 'vscode';
import { normaliseBaseUrl, type ServerConfig } from '../core/servers';
import type { ServerTarget } from '../core/probe/types';

const SERVERS_KEY = 'inferenceDoctor.servers';
const secretKey = (id: string) => `inferenceDoctor.apiKey.${id}`;

/**
 * Registered endpoints. The list lives in globalState (no secrets); API keys live in
 * SecretStorage, keyed by server id, and are read only when a request needs them.
 */
export class ServerStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly state: vscode.Memento, private readonly secrets: vscode.SecretStorage) {}

  list(): ServerConfig[] {
    const stored = this.state.get<unknown>(SERVERS_KEY);
    return Array.isArray(stored) ? stored.filter(isServerConfig) : [];
  }

  get(id: string): ServerConfig | undefined {
    return this.list().find((server) => server.id === id);
  }

  async add(input: { label?: string; baseUrl: string; apiKey?: string; hostId?: string }): Promise<ServerConfig> {
    const baseUrl = normaliseBaseUrl(input.baseUrl);
    const server: ServerConfig = {
      id: `srv-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
      label: input.label?.trim() || new URL(baseUrl).host,
      baseUrl,
      ...(input.hostId ? { hostId: input.hostId } : {}),
    };
    if (input.apiKey) await this.secrets.store(secretKey(server.id), input.apiKey);
    await this.state.update(SERVERS_KEY, [...this.list(), server]);
    this.changed.fire();
    return server;
  }

  async update(id: string, patch: { label?: string; baseUrl?: string }): Promise<void> {
    const servers = this.list().map((server) =>
      server.id === id
        ? { ...server, ...(patch.label ? { label: patch.label } : {}), ...(patch.baseUrl ? { baseUrl: normaliseBaseUrl(patch.baseUrl) } : {}) }
        : server,
    );
    await this.state.update(SERVERS_KEY, servers);
    this.changed.fire();
  }

  async remove(id: string): Promise<void> {
    await this.state.update(SERVERS_KEY, this.list().filter((server) => server.id !== id));
    await this.secrets.delete(secretKey(id));
    this.changed.fire();
  }

  async setApiKey(id: string, apiKey: string | undefined): Promise<void> {
    if (apiKey) await this.secrets.store(secretKey(id), apiKey);
    else await this.secrets.delete(secretKey(id));
    this.changed.fire();
  }

  async target(id: string): Promise<ServerTarget> {
    const server = this.get(id);
    if (!server) throw new Error('That server was removed. Pick another one in the Servers view.');
    const apiKey = await this.secrets.get(secretKey(id));
    return apiKey ? { baseUrl: server.baseUrl, apiKey } : { baseUrl: server.baseUrl };
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function isServerConfig(value: unknown): value is ServerConfig {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === 'string' && typeof v.label === 'string' && typeof v.baseUrl === 'string';
}
