/** `inference-doctor flags PATH [--json] [--family NAME]`: the flags a server_args.py declares. */
import { readFile } from 'node:fs/promises';
import { buildCatalog, catalogToJson, familyOf, FLAG_FAMILIES, type FlagEntry, type FlagFamily } from '../../core/flags';
import { errorMessage } from '../../core/errors';
import { EXIT, UsageError, write, type CliIo, type Command } from '../command';

const USAGE = `Usage: inference-doctor flags PATH/TO/server_args.py [--json] [--family NAME]

Lists the backend flags a server_args.py declares, by family: names and aliases, defaults,
choices, deprecations and renames, and where each is defined.

Options:
  --json            print the catalog as JSON
  --family NAME     only one family: ${FLAG_FAMILIES.join('|')}

Exit status: 0 listed, 64 bad usage, 66 the file cannot be read.`;

function describe(e: FlagEntry): string {
  const names = [e.flag, ...e.aliases].join(', ');
  const parts: string[] = [];
  if (e.default !== undefined) parts.push(`default ${JSON.stringify(e.default)}`);
  else if (e.defaultExpr) parts.push(`default = ${e.defaultExpr.length > 40 ? `${e.defaultExpr.slice(0, 37)}...` : e.defaultExpr}`);
  if (e.choices) parts.push(`choices ${e.choices.join('|')}${e.dynamicChoices ? '|…' : ''}`);
  else if (e.choicesExpr) parts.push(`choices from ${e.choicesExpr}`);
  if (e.resolvable) parts.push('resolved at start-up');
  if (e.deprecated) parts.push(`deprecated${e.replacement ? ` → ${e.replacement}` : ''}`);
  if (e.field.replace(/_/g, '-') !== e.flag.replace(/^-+/, '')) parts.push(`field ${e.field}`);
  return `  ${names}  [line ${e.line}]${parts.length ? `\n      ${parts.join('; ')}` : ''}`;
}

function parse(argv: string[]): { path: string; json: boolean; family?: FlagFamily } {
  let path: string | undefined;
  let json = false;
  let family: FlagFamily | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') json = true;
    else if (a === '--family') {
      const f = argv[++i] as FlagFamily | undefined;
      if (!f || !FLAG_FAMILIES.includes(f)) throw new UsageError(`--family needs one of ${FLAG_FAMILIES.join(', ')}`);
      family = f;
    } else if (a.startsWith('-')) throw new UsageError(`Unknown option ${a}`);
    else if (path) throw new UsageError(`Unexpected argument: ${a}`);
    else path = a;
  }
  if (!path) throw new UsageError('Missing the server_args.py path');
  return { path, json, ...(family ? { family } : {}) };
}

export const flagsCommand: Command = {
  name: 'flags',
  summary: 'list the backend flags a server_args.py declares (choices, defaults, renames)',
  usage: USAGE,
  inputFile: true,
  async run(argv: string[], io: CliIo): Promise<number> {
    const { path, json, family } = parse(argv);
    let source: string;
    try {
      source = await readFile(path, 'utf8');
    } catch (error) {
      await write(io.stderr, `Cannot read ${path}: ${errorMessage(error)}\n`);
      return EXIT.noInput;
    }
    const catalog = await buildCatalog(source, { keepTree: false });
    const entries = family ? catalog.entries.filter((e) => familyOf(e) === family) : catalog.entries;
    if (json) {
      const out = catalogToJson({ ...catalog, entries });
      await write(io.stdout, `${JSON.stringify({ path, ...out, families: Object.fromEntries(entries.map((e) => [e.flag, familyOf(e)])) }, null, 2)}\n`);
      return EXIT.ok;
    }
    const lines = [`${path}: ${entries.length} flags (era ${catalog.era})`];
    for (const f of FLAG_FAMILIES) {
      const group = entries.filter((e) => familyOf(e) === f);
      if (!group.length) continue;
      lines.push('', `${f} (${group.length})`, ...group.map(describe));
    }
    for (const d of catalog.diagnostics) lines.push(`${path}:${d.line}: ${d.severity}: ${d.message}`);
    await write(io.stdout, `${lines.join('\n')}\n`);
    return EXIT.ok;
  },
};
