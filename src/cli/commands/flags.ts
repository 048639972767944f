/**
 * `inference-doctor flags PATH [--json] [--family NAME]`: the flags an SGLang install declares.
 * PATH is a server_args.py, an `sglang` package directory or its `srt` directory; a package whose
 * flags are split over `srt/arg_groups/` is read as a whole (core/flags/packageLayout.ts).
 */
import { stat } from 'node:fs/promises';
import { buildPackageCatalog, catalogToJson, familyOf, FLAG_FAMILIES, resolveLocalPackage, type FlagEntry, type FlagFamily } from '../../core/flags';
import { errorMessage } from '../../core/errors';
import { EXIT, UsageError, write, type CliIo, type Command } from '../command';

const USAGE = `Usage: inference-doctor flags PATH [--json] [--family NAME]

Lists the backend flags SGLang declares, by family: names and aliases, defaults, choices,
deprecations and renames, and where each is defined. PATH is a server_args.py, an sglang
package directory or its srt directory; when the flags live in srt/arg_groups/ (SGLang's
newest layout) every file server_args.py draws them from is read, and each flag says its file.

Options:
  --json            print the catalog as JSON
  --family NAME     only one family: ${FLAG_FAMILIES.join('|')}

Exit status: 0 listed, 64 bad usage, 66 the file cannot be read.`;

function describe(e: FlagEntry, split: boolean): string {
  const names = [e.flag, ...e.aliases].join(', ');
  const parts: string[] = [];
  if (e.default !== undefined) parts.push(`default ${JSON.stringify(e.default)}`);
  else if (e.defaultExpr) parts.push(`default = ${e.defaultExpr.length > 40 ? `${e.defaultExpr.slice(0, 37)}...` : e.defaultExpr}`);
  if (e.choices) parts.push(`choices ${e.choices.join('|')}${e.dynamicChoices ? '|…' : ''}`);
  else if (e.choicesExpr) parts.push(`choices from ${e.choicesExpr}`);
  if (e.resolvable) parts.push('resolved at start-up');
  if (e.deprecated) parts.push(`deprecated${e.replacement ? ` → ${e.replacement}` : ''}`);
  if (e.field.replace(/_/g, '-') !== e.flag.replace(/^-+/, '')) parts.push(`field ${e.field}`);
  const where = split && e.file ? `${e.file.replace(/^.*?\/srt\//, '')}:${e.line}` : `line ${e.line}`;
  return `  ${names}  [${where}]${parts.length ? `\n      ${parts.join('; ')}` : ''}`;
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
  // PATH is kept optional in the grammar (a bundled catalog may answer without one); for now it is required.
  if (!path) throw new UsageError('Missing PATH: a server_args.py, an sglang package directory or its srt directory');
  return { path, json, ...(family ? { family } : {}) };
}

export const flagsCommand: Command = {
  name: 'flags',
  summary: 'list the backend flags a server_args.py declares (choices, defaults, renames)',
  usage: USAGE,
  inputFile: true,
  async run(argv: string[], io: CliIo): Promise<number> {
    const { path, json, family } = parse(argv);
    let pkg: Awaited<ReturnType<typeof resolveLocalPackage>>;
    try {
      await stat(path);
      pkg = await resolveLocalPackage(path);
    } catch (error) {
      await write(io.stderr, `Cannot read ${path}: ${errorMessage(error)}\n`);
      return EXIT.noInput;
    }
    if (!pkg) {
      await write(io.stderr, `Cannot read ${path}: no server_args.py there (give the file, the sglang package or its srt directory)\n`);
      return EXIT.noInput;
    }
    const catalog = await buildPackageCatalog(pkg.serverArgs, pkg.readFile);
    const split = catalog.package.layout === 'split';
    const entries = family ? catalog.entries.filter((e) => familyOf(e) === family) : catalog.entries;
    if (json) {
      const out = catalogToJson({ ...catalog, entries });
      await write(io.stdout, `${JSON.stringify({ path, ...out, families: Object.fromEntries(entries.map((e) => [e.flag, familyOf(e)])) }, null, 2)}\n`);
      return EXIT.ok;
    }
    const lines = [`${path}: ${entries.length} flags (era ${catalog.era}${split ? `, ${catalog.package.files.length} files` : ''})`];
    for (const f of FLAG_FAMILIES) {
      const group = entries.filter((e) => familyOf(e) === f);
      if (!group.length) continue;
      lines.push('', `${f} (${group.length})`, ...group.map((e) => describe(e, split)));
    }
    for (const d of catalog.diagnostics) lines.push(`${d.file && split ? d.file : path}:${d.line}: ${d.severity}: ${d.message}`);
    await write(io.stdout, `${lines.join('\n')}\n`);
    return EXIT.ok;
  },
};
