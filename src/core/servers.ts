/**
 * An OpenAI-compatible endpoint the user registered. `hostId` is empty for endpoints reached
 * directly; an SSH host will own endpoints it forwards (remote issue), keyed by that id.
 */
import type { RunOutcome } from './probe/outcome';
export interface ServerConfig {
  id: string;
  label: string;
  baseUrl: string;
  hostId?: string;
}

export type HealthState = 'unknown' | 'checking' | 'healthy' | 'unhealthy' | 'unreachable';

export interface ServerStatus {
  health: HealthState;
  /** /health_generate result; a NaN server can still be "healthy" here. */
  generateHealth?: HealthState;
  models?: string[];
  version?: string;
  /** A few resolved backends from /server_info, keyed by field name. */
  backends?: Record<string, string>;
  lastError?: string;
  checkedAt?: number;
  /**
   * The last probe's outcome (panel or Quick Health Probe): /health can say "healthy" of a server that
   * answers NaN, so the row must show what a real answer looked like.
   */
  lastProbe?: { outcome: RunOutcome; at: number };
}

/** Normalises what a user types into a base URL without a trailing slash or /v1. */
export function normaliseBaseUrl(input: string): string {
  let text = input.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `http://${text}`;
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`Use an http:// or https:// URL, not ${url.protocol}`);
  }
  let path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/v1')) path = path.slice(0, -3);
  return `${url.protocol}//${url.host}${path}`;
}
