/**
 * `apply_fix` and `sweep`: the two tools that change a server. runTool refuses both unless the
 * caller consented (ctx.allowChanges); both restore the original launch when the server does not
 * come back, and the sweep always restores it at the end.
 */
import { applyAndVerify, waitUntilReady } from '../fix/loop';
import { combinations, MAX_COMBINATIONS, runSweep, type SweepAxis } from '../fix/sweep';
import type { FlagChange } from '../launch/edit';
import { runQuickProbe } from '../probe/quick';
import { checkText } from './guards';
import { CHANGE_TARGET_PROPERTIES, FLAG_NAME, flagName, openChangeTarget, type ChangeTargetInput } from './changes';
import { outputObject, VERDICT_KIND } from './schemaParts';
import { ToolError, type ToolDefinition } from './types';

const VALUE = { type: 'string', minLength: 1, maxLength: 256, pattern: '^[^\\s\'"`$;&|<>\\\\]+$' };

export interface ApplyFixInput extends ChangeTargetInput {
  changes: { flag: string; value: string | boolean }[];
}

export interface SweepInput extends ChangeTargetInput {
  vary: { flag: string; values: string[] }[];
}

/** Flag values land in a launch file: one word each, no quotes or shell syntax. */
function checkValue(v: string): string {
  return checkText('A flag value', v);
}

export const applyFixTool: ToolDefinition<ApplyFixInput> = {
  name: 'apply_fix',
  title: 'Apply a fix to a server and re-probe',
  description:
    "Change flags in a server's launch (a script run by `inference-doctor supervise`, a systemd unit through a drop-in, or a compose service), " +
    'restart it, wait until it answers, and run the Quick Health Probe before and after. A server that does not come back, or exits under the probe, ' +
    'is put back as it was. CHANGES A SERVER: refused unless the user allowed changes.',
  inputSchema: {
    type: 'object',
    properties: {
      ...CHANGE_TARGET_PROPERTIES,
      changes: {
        type: 'array',
        minItems: 1,
        maxItems: 16,
        items: {
          type: 'object',
          properties: { flag: { type: 'string', minLength: 1, maxLength: 128, pattern: FLAG_NAME }, value: { anyOf: [VALUE, { type: 'boolean' }] } },
          required: ['flag', 'value'],
          additionalProperties: false,
        },
        description: 'Flags to set, e.g. [{"flag":"--fp4-gemm-backend","value":"flashinfer_cudnn"}]; true adds a switch, false removes it',
      },
    },
    required: ['launch', 'restart', 'changes'],
    additionalProperties: false,
  },
  outputSchema: outputObject(
    {
      outcome: { type: 'string', enum: ['healthy', 'better', 'same', 'worse', 'did-not-start', 'crashed'] },
      before: VERDICT_KIND,
      after: VERDICT_KIND,
      readySeconds: { type: 'number' },
      restored: { type: 'boolean' },
      error: { type: 'string' },
      logTail: { type: 'string' },
      summary: { type: 'string' },
    },
    ['outcome', 'before', 'restored'],
  ),
  touchesHost: true,
  changesServer: true,
  async run(input, ctx) {
    const changes: FlagChange[] = input.changes.map((c) => ({ flag: flagName(c.flag), value: typeof c.value === 'string' ? checkValue(c.value) : c.value }));
    const t = await openChangeTarget(input, ctx);
    try {
      // The verdict before the change is the baseline: a server still starting would read as healthy.
      ctx.onProgress?.('waiting for the server to answer before the change');
      if ((await waitUntilReady(t.server, Math.min(120_000, ctx.timeLimitMs / 4), 500, ctx.signal)) === undefined)
        throw new ToolError('failed', `${t.server.baseUrl} does not answer /health_generate and /v1/models: nothing was changed`);
      const r = await applyAndVerify(t.target, changes, {
        server: t.server,
        signal: ctx.signal,
        readyTimeoutMs: Math.max(10_000, ctx.timeLimitMs - 30_000),
        probe: (s) => runQuickProbe(s, {}, { signal: ctx.signal }),
        ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
      });
      const summary = r.probe?.summary.message;
      const data = {
        outcome: r.outcome,
        before: r.before,
        ...(r.after ? { after: r.after } : {}),
        ...(r.readySeconds !== undefined ? { readySeconds: r.readySeconds } : {}),
        restored: r.restored,
        ...(r.error ? { error: r.error } : {}),
        ...(r.logTail ? { logTail: r.logTail.slice(-4000) } : {}),
        ...(summary ? { summary } : {}),
      };
      const text = `${t.target.label}: ${r.outcome} (before ${r.before}${r.after ? `, after ${r.after}` : ''})${r.restored ? '; the original launch was restored' : '; the change is in place (roll back by applying the old values)'}${r.error ? `; ${r.error}` : ''}`;
      return { data, text };
    } finally {
      await t.close();
    }
  },
};

export const sweepTool: ToolDefinition<SweepInput> = {
  name: 'sweep',
  title: 'Sweep backend flag combinations on a server',
  description:
    'Try every combination of the given flag values on a real server: change the launch, restart, wait, probe, record; ' +
    `then put the original launch back byte for byte (at most ${MAX_COMBINATIONS} combinations, one restart each). ` +
    'CHANGES A SERVER: refused unless the user allowed changes.',
  inputSchema: {
    type: 'object',
    properties: {
      ...CHANGE_TARGET_PROPERTIES,
      vary: {
        type: 'array',
        minItems: 1,
        maxItems: 6,
        items: {
          type: 'object',
          properties: {
            flag: { type: 'string', minLength: 1, maxLength: 128, pattern: FLAG_NAME },
            values: { type: 'array', minItems: 1, maxItems: 16, items: VALUE },
          },
          required: ['flag', 'values'],
          additionalProperties: false,
        },
        description: 'Flags and the values to try, e.g. [{"flag":"--fp4-gemm-backend","values":["flashinfer_cudnn","marlin"]}]',
      },
    },
    required: ['launch', 'restart', 'vary'],
    additionalProperties: false,
  },
  outputSchema: outputObject(
    {
      rows: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            flags: { type: 'object', additionalProperties: { type: 'string' } },
            started: { type: 'boolean' },
            verdict: { type: 'string', enum: ['ok', 'degenerate', 'nan', 'error'] },
            reasons: { type: 'array', items: { type: 'string' } },
            ttftMs: { type: ['number', 'null'] },
            error: { type: 'string' },
          },
          required: ['flags', 'started', 'verdict', 'reasons'],
        },
      },
      complete: { type: 'boolean' },
      restored: { type: 'boolean' },
      restoreError: { type: 'string' },
    },
    ['rows', 'complete', 'restored'],
  ),
  touchesHost: true,
  changesServer: true,
  async run(input, ctx) {
    const axes: SweepAxis[] = input.vary.map((v) => ({ flag: flagName(v.flag), values: [...new Set(v.values.map(checkValue))] }));
    if (new Set(axes.map((a) => a.flag)).size !== axes.length) throw new ToolError('invalid-input', 'A flag is varied twice');
    const total = combinations(axes).length;
    if (total > MAX_COMBINATIONS) throw new ToolError('invalid-input', `${total} combinations: at most ${MAX_COMBINATIONS} (each restarts the server)`);
    const t = await openChangeTarget(input, ctx);
    try {
      const r = await runSweep(t.target, axes, {
        server: t.server,
        signal: ctx.signal,
        readyTimeoutMs: Math.max(10_000, Math.floor(ctx.timeLimitMs / (total + 1))),
        ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
      });
      const rows = r.rows.map((row) => ({
        flags: row.flags,
        started: row.started,
        verdict: row.verdict,
        reasons: row.reasons,
        ttftMs: row.ttftMs,
        ...(row.error ? { error: row.error } : {}),
      }));
      const data = { rows, complete: r.complete, restored: r.restored, ...(r.restoreError ? { restoreError: r.restoreError } : {}) };
      const lines = rows.map(
        (row) =>
          `${Object.entries(row.flags)
            .map(([k, v]) => `${k} ${v}`)
            .join(' ')}: ${row.started ? row.verdict : `did not start${row.error ? ` (${row.error})` : ''}`}`,
      );
      lines.push(r.restored ? 'The original launch was restored.' : `The original launch was NOT restored: ${r.restoreError ?? ''}`);
      return { data, text: lines.join('\n') };
    } finally {
      await t.close();
    }
  },
};
