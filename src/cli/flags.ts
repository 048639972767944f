/**
 * `inference-doctor flags PATH [--json] [--family NAME]`: list the flags a server_args.py declares.
 * Exit codes: 0 ok, 1 unreadable file, 2 usage error.
 */
import { readFile } from 'node:fs/promises';
import { buildCatalog, catalogToJson, familyOf, FLAG_FAMILIES, type FlagEntry, type FlagFamily } from '../core/flags';
import { EXIT } from './command';

const USAGE = 'usage: inference-doctor flags PATH/TO/server_args.py [--json] [--family attention|moe|gemm|kv-cache|sampling|grammar|speculative|lora|disaggregation|other]';

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

export async function flagsCommand(argv: string[]): Promise<number> {
  let path: string | undefined;
  let json = false;
  let family: FlagFamily | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') json = true;
    else if (a === '--family') {
      const f = argv[++i] as FlagFamily | undefined;
      if (!f || !FLAG_FAMILIES.includes(f)) { process.stderr.write(`${USAGE}\n`); return EXIT.usage; }
      family = f;
    } else if (a === '-h' || a === '--help') { process.stdout.write(`${USAGE}\n`); return 0; }
    else if (!path && !a.startsWith('-')) path = a;
    else { process.stderr.write(`${USAGE}\n`); return EXIT.usage; }
  }
  if (!path) { process.stderr.write(`${USAGE}\n`); return EXIT.usage; }
  let source: string;
  try {
    source = await readFile(path, 'utf8');
  } catch (error) {
    process.stderr.write(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.noInput;
  }
  const catalog = await buildCatalog(source, { keepTree: false });
  const entries = family ? catalog.entries.filter((e) => familyOf(e) === family) : catalog.entries;
  if (json) {
    const out = catalogToJson({ ...catalog, entries });
    process.stdout.write(`${JSON.stringify({ path, ...out, families: Object.fromEntries(entries.map((e) => [e.flag, familyOf(e)])) }, null, 2)}\n`);
    return 0;
  }
  const lines = [`${path}: ${entries.length} flags (era ${catalog.era})`];
  for (const f of FLAG_FAMILIES) {
    const group = entries.filter((e) => familyOf(e) === f);
    if (!group.length) continue;
    lines.push('', `${f} (${group.length})`, ...group.map(describe));
  }
  for (const d of catalog.diagnostics) lines.push(`${path}:${d.line}: ${d.severity}: ${d.message}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
