/** JSON Schema pieces the tools' input and output schemas share, and the values they describe. */
import type { Verdict } from '../detect/types';
import type { Schema } from '../rules/schema';

/** Every output may say it was cut to fit the output limit. */
export const CUT_FIELDS: Record<string, Schema> = {
  truncated: { type: 'boolean', description: 'true when the output was shortened to fit the size limit' },
  note: { type: 'string', description: 'why and how the output was shortened' },
};

export const SERVER_INPUT: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  description: 'A known server name, or the server URL (http:// or https://, e.g. http://gpu-box:30000)',
};

export const HOST_INPUT: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description: '"local", an ~/.ssh/config alias, user@host[:port] or ssh://user@host:port (its host key must already be in known_hosts)',
};

export const REASON: Schema = {
  type: 'object',
  properties: {
    code: { type: 'string' },
    kind: { type: 'string', enum: ['nan', 'degenerate', 'suspect'] },
    message: { type: 'string' },
    offset: { type: 'integer' },
  },
  required: ['code', 'kind', 'message', 'offset'],
};

/** A verdict's reasons as REASON describes them. */
export function reasonsOut(verdict: Verdict): { code: string; kind: string; message: string; offset: number }[] {
  return verdict.reasons.map((r) => ({ code: r.code, kind: r.kind, message: r.message, offset: r.offset }));
}

export const VERDICT_KIND: Schema = { type: 'string', enum: ['ok', 'degenerate', 'nan'] };

/** An output schema: an object with the given properties, `required` listed, plus the cut fields. */
export function outputObject(properties: Record<string, Schema>, required: string[]): Schema {
  return { type: 'object', properties: { ...properties, ...CUT_FIELDS }, required };
}
