import * as vscode from 'vscode';
import { normaliseBaseUrl, type ServerConfig } from '../core/servers';
import type { ServerTarget } from '../core/probe/types';
import type { Config } from '../config';

const SERVERS_KEY = 'inferenceDoctor.servers';
const SETTINGS_ID_PREFIX = 'settings:';
const SESSION_ID_PREFIX = 'session:';
const secretKey = (id: string) => `inferenceDoctor.apiKey.${id}`;

/**
 * Registered endpoints. The list lives in globalState (no secrets); API keys live in
 * SecretStorage, keyed by server id, and are read only when a request needs them.
 */
export class ServerStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  private readonly configWatcher: vscode.Disposable;

  constructor(
    private readonly state: vscode.Memento,
    private readonly secrets: vscode.SecretStorage,
    private readonly config: Config,
  ) {
    this.configWatcher = config.onDidChange(['servers'], () => this.changed.fire());
  }

  /** Servers this window runs itself (the tryout simulator): listed until they stop, never saved. */
  private readonly session = new Map<string, ServerConfig>();

  /** Servers from settings (shareable in a workspace, read-only here), those added in the view, and this window's own. */
  list(): ServerConfig[] {
    return [...this.fromSettings(), ...this.stored(), ...this.session.values()];
  }

  isFromSettings(id: string): boolean {
    return id.startsWith(SETTINGS_ID_PREFIX);
  }

  isSession(id: string): boolean {
    return id.startsWith(SESSION_ID_PREFIX);
  }

  /** Lists a server this window started until removeSession (or the window closes); `key` names it among them. */
  addSession(key: string, label: string, baseUrl: string): ServerConfig {
    const server: ServerConfig = { id: `${SESSION_ID_PREFIX}${key}`, label, baseUrl: normaliseBaseUrl(baseUrl) };
    this.session.set(server.id, server);
    this.changed.fire();
    return server;
  }

  removeSession(id: string): void {
    if (this.session.delete(id)) this.changed.fire();
  }

  private stored(): ServerConfig[] {
    const stored = this.state.get<unknown>(SERVERS_KEY);
    return Array.isArray(stored) ? stored.filter(isServerConfig) : [];
  }

  private fromSettings(): ServerConfig[] {
    const entries = this.config.get('servers');
    const servers: ServerConfig[] = [];
    for (const entry of entries) {
      if (typeof entry !== 'object' || entry === null) continue;
      const { url, name } = entry as { url?: unknown; name?: unknown };
      if (typeof url !== 'string') continue;
      try {
        const baseUrl = normaliseBaseUrl(url);
        servers.push({ id: `${SETTINGS_ID_PREFIX}${baseUrl}`, label: typeof name === 'string' && name ? name : new URL(baseUrl).host, baseUrl });
      } catch {
        // An invalid URL in settings is shown by the settings editor's schema; skip it here.
      }
    }
    return servers;
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
    await this.state.update(SERVERS_KEY, [...this.stored(), server]);
    this.changed.fire();
    return server;
  }

  async update(id: string, patch: { label?: string; baseUrl?: string }): Promise<void> {
    this.assertEditable(id);
    const servers = this.stored().map((server) =>
      server.id === id
        ? { ...server, ...(patch.label ? { label: patch.label } : {}), ...(patch.baseUrl ? { baseUrl: normaliseBaseUrl(patch.baseUrl) } : {}) }
        : server,
    );
    await this.state.update(SERVERS_KEY, servers);
    this.changed.fire();
  }

  async remove(id: string): Promise<void> {
    this.assertEditable(id);
    await this.state.update(
      SERVERS_KEY,
      this.stored().filter((server) => server.id !== id),
    );
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

  private assertEditable(id: string): void {
    if (this.isFromSettings(id)) {
      throw new Error(`This server comes from the "inferenceDoctor.servers" setting: change it in your settings.`);
    }
    if (this.isSession(id)) throw new Error('This window runs that server itself: it goes from the list when it stops.');
  }

  dispose(): void {
    this.configWatcher.dispose();
    this.changed.dispose();
  }
}

function isServerConfig(value: unknown): value is ServerConfig {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === 'string' && typeof v.label === 'string' && typeof v.baseUrl === 'string';
}
