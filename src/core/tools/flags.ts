/** `flags`: SGLang's backend flags in one bundled release, by name or family, with choices and defaults. */
import { bundledHelpFor } from '../flags/bundledHelp';
import { loadBundledCatalog } from '../flags/bundled/load';
import { FLAG_FAMILIES, familyOf } from '../flags/family';
import { choiceText, type FlagEntry, type FlagFamily } from '../flags/types';
import { checkText, shown } from './guards';
import { outputObject } from './schemaParts';
import { ToolError, type ToolDefinition } from './types';

export interface FlagsInput {
  name?: string;
  family?: FlagFamily;
  release?: string;
  limit?: number;
}

const NOTE = {
  type: 'object',
  properties: {
    kind: { type: 'string' },
    addedIn: { type: 'string' },
    removedIn: { type: 'string' },
    lastIn: { type: 'string' },
    to: { type: 'string' },
    from: { type: 'string' },
    renamedIn: { type: 'string' },
  },
  required: ['kind'],
};

function describe(e: FlagEntry, since: string | undefined): Record<string, unknown> {
  const help = bundledHelpFor(e.flag);
  return {
    flag: e.flag,
    aliases: e.aliases,
    family: familyOf(e),
    field: e.field,
    ...(e.default !== undefined ? { default: e.default } : e.defaultExpr ? { defaultExpr: e.defaultExpr } : {}),
    ...(e.choices ? { choices: e.choices.map(choiceText) } : {}),
    ...(e.dynamicChoices ? { dynamicChoices: true } : {}),
    ...(e.resolvable ? { resolvedAtStartup: true } : {}),
    ...(e.deprecated ? { deprecated: true } : {}),
    ...(e.replacement ? { replacement: e.replacement } : {}),
    ...(since ? { since } : {}),
    ...(help ? { summary: help.summary } : {}),
  };
}

const dashed = (name: string): string => `--${name.trim().replace(/^-+/, '').replace(/_/g, '-')}`;

export const flagsTool: ToolDefinition<FlagsInput> = {
  name: 'flags',
  title: 'Look up SGLang flags',
  description:
    'Look up SGLang server flags in the bundled catalog of SGLang releases (0.3 to 0.5.x): one flag by name (with or without dashes, ' +
    'underscores allowed) or every flag of a family (attention, moe, gemm, kv-cache, sampling, grammar, speculative, lora, disaggregation), ' +
    'each with its choices, default, aliases, deprecation and the release it first appeared in. A flag missing from the release says when it was added, renamed or removed.',
  inputSchema: {
    type: 'object',
    properties: {
      name: {
        type: 'string',
        minLength: 1,
        maxLength: 128,
        pattern: '^-{0,2}[A-Za-z0-9][A-Za-z0-9_-]*$',
        description: 'A flag such as --fp4-gemm-backend or moe_runner_backend',
      },
      family: { type: 'string', enum: [...FLAG_FAMILIES] },
      release: {
        type: 'string',
        minLength: 1,
        maxLength: 32,
        pattern: '^(main|v?[0-9]+(\\.[0-9]+){0,3}([.+-]?[A-Za-z0-9.]+)?)$',
        description: 'SGLang release (default: the newest bundled)',
      },
      limit: { type: 'integer', minimum: 1, maximum: 500, description: 'At most this many flags (default 100)' },
    },
    additionalProperties: false,
  },
  outputSchema: outputObject(
    {
      release: {
        type: 'object',
        properties: { version: { type: 'string' }, date: { type: 'string' }, exact: { type: 'boolean' } },
        required: ['version', 'exact'],
      },
      flags: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            flag: { type: 'string' },
            aliases: { type: 'array', items: { type: 'string' } },
            family: { type: 'string' },
            field: { type: 'string' },
            defaultExpr: { type: 'string' },
            choices: { type: 'array', items: { type: 'string' } },
            since: { type: 'string' },
            summary: { type: 'string' },
          },
          required: ['flag', 'aliases', 'family', 'field'],
        },
      },
      total: { type: 'integer' },
      missing: NOTE,
      releases: { type: 'array', items: { type: 'string' } },
    },
    ['release', 'flags', 'total'],
  ),
  touchesHost: false,
  changesServer: false,
  async run(input) {
    if (input.name === undefined && input.family === undefined) throw new ToolError('invalid-input', 'Give a flag name or a family');
    const bundled = await loadBundledCatalog();
    const match = input.release ? bundled.match(checkText('The release', input.release).replace(/^v/, '')) : bundled.newest();
    if (!match) {
      const v = bundled.releases.map((r) => r.version);
      throw new ToolError('invalid-input', `No bundled release for ${shown(input.release ?? '')}: the catalog holds ${v[0]} to ${v[v.length - 1]}`);
    }
    const catalog = bundled.catalogFor(match.index);
    const since = (e: FlagEntry): string | undefined => bundled.releasesOf(e.flag)[0];
    let entries = catalog.entries;
    let missing: object | undefined;
    if (input.name !== undefined) {
      const option = dashed(input.name);
      entries = entries.filter(
        (e) => e.flag === option || e.aliases.includes(option) || e.negations.includes(option) || e.field === option.slice(2).replace(/-/g, '_'),
      );
      if (!entries.length) missing = bundled.explainMissing(option, match.index) ?? { kind: 'unknown' };
    }
    if (input.family) entries = entries.filter((e) => familyOf(e) === input.family);
    const limit = input.limit ?? 100;
    const flags = entries.slice(0, limit).map((e) => describe(e, since(e)));
    const release = { version: match.release.version, date: match.release.date, exact: match.exact };
    const data = {
      release,
      flags,
      total: entries.length,
      ...(missing ? { missing, releases: bundled.releasesOf(dashed(input.name ?? '')) } : {}),
      ...(entries.length > limit ? { truncated: true, note: `${entries.length - limit} more flags left out: raise limit or narrow by name` } : {}),
    };
    const lines = [`SGLang ${release.version}${match.exact ? '' : ` (nearest bundled release to ${input.release ?? ''})`}: ${entries.length} flag(s)`];
    for (const f of flags) {
      const bits = [f.flag as string];
      if ('default' in f) bits.push(`default ${JSON.stringify(f.default)}`);
      if (Array.isArray(f.choices)) bits.push(`choices ${(f.choices as string[]).join('|')}`);
      if (f.deprecated) bits.push(`deprecated${typeof f.replacement === 'string' ? ` → ${f.replacement}` : ''}`);
      lines.push(`- ${bits.join('; ')}`);
    }
    if (missing) lines.push(`${dashed(input.name ?? '')} is not in ${release.version}: ${JSON.stringify(missing)}`);
    return { data, text: lines.join('\n') };
  },
};
