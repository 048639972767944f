/**
 * `inference-doctor flags [PATH] [--release V] [--json] [--family NAME]`: the flags an SGLang
 * install declares. PATH is a server_args.py, an `sglang` package directory or its `srt`
 * directory; a package whose flags are split over `srt/arg_groups/` is read as a whole
 * (core/flags/packageLayout.ts). Without PATH, the bundled catalog of release V (default the newest).
 * With `--python PY [--engine sglang|vllm]`: the runtime catalog of the engine installed in PY
 * (core/flags/runtime: its own parser, built by python/dump_engine_args.py).
 */
import { stat } from 'node:fs/promises';
import { buildPackageCatalog, catalogToJson, familyOf, FLAG_FAMILIES, resolveLocalPackage, type FlagEntry, type FlagFamily } from '../../core/flags';
import { errorMessage } from '../../core/errors';
import { loadBundledCatalog } from '../../core/flags/bundled/load';
import type { BundledCatalog } from '../../core/flags/bundled/query';
import { loadDumpScript, readRuntimeCatalog, type RuntimeCatalog, type RuntimeEngine } from '../../core/flags/runtime';
import { LocalHost } from '../../core/hosts/local';
import { EXIT, UsageError, write, type CliIo, type Command } from '../command';

const USAGE = `Usage: inference-doctor flags [PATH] [--release V] [--json] [--family NAME]
       inference-doctor flags --python PY [--engine sglang|vllm] [--json] [--family NAME]

Lists the backend flags SGLang declares, by family: names and aliases, defaults, choices,
deprecations and renames, and where each is defined. PATH is a server_args.py, an sglang
package directory or its srt directory; when the flags live in srt/arg_groups/ (SGLang's
newest layout) every file server_args.py draws them from is read, and each flag says its file.
Without PATH, the bundled catalog of SGLang releases answers for release V. With --python, the
flags the SGLang (or vLLM) installed in that interpreter accepts, read from its own parser.

Options:
  --release V       without PATH: the bundled catalog of release V (default: the newest;
                    a version between releases gets the nearest older one; "list" lists them)
  --json            print the catalog as JSON
  --family NAME     only one family: ${FLAG_FAMILIES.join('|')}
  --python PY       read the runtime catalog of the engine installed in this interpreter (this
                    machine; it imports the engine's argument modules, never starts a server)
  --engine E        with --python: sglang (default) or vllm

Exit status: 0 listed, 3 the engine in --python cannot be read, 64 bad usage or an unknown release,
66 the file cannot be read.`;

function describe(e: FlagEntry, where: string): string {
  const names = [e.flag, ...e.aliases].join(', ');
  const parts: string[] = [];
  if (e.default !== undefined) parts.push(`default ${JSON.stringify(e.default)}`);
  else if (e.defaultExpr) parts.push(`default = ${e.defaultExpr.length > 40 ? `${e.defaultExpr.slice(0, 37)}...` : e.defaultExpr}`);
  if (e.choices) parts.push(`choices ${e.choices.join('|')}${e.dynamicChoices ? '|…' : ''}`);
  else if (e.choicesExpr) parts.push(`choices from ${e.choicesExpr}`);
  if (e.resolvable) parts.push('resolved at start-up');
  if (e.deprecated) parts.push(`deprecated${e.replacement ? ` → ${e.replacement}` : ''}`);
  if (e.field.replace(/_/g, '-') !== e.flag.replace(/^-+/, '')) parts.push(`field ${e.field}`);
  return `  ${names}  [${where}]${parts.length ? `\n      ${parts.join('; ')}` : ''}`;
}

interface FlagsArgs {
  path?: string;
  release?: string;
  json: boolean;
  family?: FlagFamily;
  python?: string;
  engine?: RuntimeEngine;
}

function parse(argv: string[]): FlagsArgs {
  let path: string | undefined;
  let release: string | undefined;
  let json = false;
  let family: FlagFamily | undefined;
  let python: string | undefined;
  let engine: RuntimeEngine | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') json = true;
    else if (a === '--release') {
      release = argv[++i];
      if (!release || release.startsWith('-')) throw new UsageError('--release needs a version, e.g. 0.5.6, or "list"');
    } else if (a === '--family') {
      const f = argv[++i] as FlagFamily | undefined;
      if (!f || !FLAG_FAMILIES.includes(f)) throw new UsageError(`--family needs one of ${FLAG_FAMILIES.join(', ')}`);
      family = f;
    } else if (a === '--python') {
      python = argv[++i];
      if (!python || python.startsWith('-')) throw new UsageError('--python needs an interpreter path, e.g. /opt/vllm/bin/python');
    } else if (a === '--engine') {
      const e = argv[++i];
      if (e !== 'sglang' && e !== 'vllm') throw new UsageError('--engine needs sglang or vllm');
      engine = e;
    } else if (a.startsWith('-')) throw new UsageError(`Unknown option ${a}`);
    else if (path) throw new UsageError(`Unexpected argument: ${a}`);
    else path = a;
  }
  if (path && release) throw new UsageError('--release picks a bundled release; give it without PATH');
  if (python && (path || release)) throw new UsageError('--python reads an installed engine; give it without PATH or --release');
  if (engine && !python) throw new UsageError('--engine goes with --python');
  return {
    json,
    ...(path ? { path } : {}),
    ...(release ? { release } : {}),
    ...(family ? { family } : {}),
    ...(python ? { python } : {}),
    ...(engine ? { engine } : {}),
  };
}

/** Families, each flag with its facts: the text form of a catalog. */
function familyLines(entries: FlagEntry[], where: (e: FlagEntry) => string): string[] {
  const lines: string[] = [];
  for (const f of FLAG_FAMILIES) {
    const group = entries.filter((e) => familyOf(e) === f);
    if (!group.length) continue;
    lines.push('', `${f} (${group.length})`, ...group.map((e) => describe(e, where(e))));
  }
  return lines;
}

/** Without PATH: the bundled catalog of one release, or the list of releases. */
async function runBundled(args: FlagsArgs, io: CliIo): Promise<number> {
  let bundled: BundledCatalog;
  try {
    bundled = await loadBundledCatalog();
  } catch (error) {
    await write(io.stderr, `${errorMessage(error)}\n`);
    return EXIT.noInput;
  }
  if (args.release === 'list') {
    const rows = bundled.releases.map((r) => ({ version: r.version, date: r.date, layout: r.layout, flags: r.flags }));
    await write(
      io.stdout,
      args.json
        ? `${JSON.stringify({ releases: rows }, null, 2)}\n`
        : `${rows.map((r) => `${r.version}\t${r.date}\t${r.flags} flags\t${r.layout}`).join('\n')}\n`,
    );
    return EXIT.ok;
  }
  const match = args.release ? bundled.match(args.release) : bundled.newest();
  if (!match) {
    const known = bundled.releases.map((r) => r.version);
    await write(
      io.stderr,
      `No bundled release for ${args.release}: the bundled catalog holds ${known[0]} to ${known[known.length - 1]} (see --release list)\n`,
    );
    return EXIT.usage;
  }
  const catalog = bundled.catalogFor(match.index);
  const entries = args.family ? catalog.entries.filter((e) => familyOf(e) === args.family) : catalog.entries;
  const release = { version: match.release.version, date: match.release.date, exact: match.exact, ...(args.release ? { asked: args.release } : {}) };
  if (args.json) {
    const out = catalogToJson({ ...catalog, entries });
    await write(
      io.stdout,
      `${JSON.stringify({ path: null, release, ...out, families: Object.fromEntries(entries.map((e) => [e.flag, familyOf(e)])) }, null, 2)}\n`,
    );
    return EXIT.ok;
  }
  const near = match.exact || !args.release ? '' : ` (the nearest bundled release to ${args.release})`;
  const since = (e: FlagEntry): string => `since ${bundled.releasesOf(e.flag)[0] ?? '?'}`;
  const lines = [`bundled catalog of SGLang ${match.release.version}${near}: ${entries.length} flags`, ...familyLines(entries, since)];
  await write(io.stdout, `${lines.join('\n')}\n`);
  return EXIT.ok;
}

/** With --python: the runtime catalog of the engine installed in that interpreter, on this machine. */
async function runRuntime(args: FlagsArgs & { python: string }, io: CliIo): Promise<number> {
  const engine = args.engine ?? 'sglang';
  let rt: RuntimeCatalog;
  try {
    rt = await readRuntimeCatalog(new LocalHost(), args.python, { script: await loadDumpScript(), engine });
  } catch (error) {
    await write(io.stderr, `${errorMessage(error)}\n`);
    return EXIT.error;
  }
  const entries = args.family ? rt.catalog.entries.filter((e) => familyOf(e) === args.family) : rt.catalog.entries;
  if (args.json) {
    const out = catalogToJson({ ...rt.catalog, entries });
    const source = { engine, python: rt.python, version: rt.version ?? null, source: rt.source, warnings: rt.warnings };
    await write(
      io.stdout,
      `${JSON.stringify({ path: null, runtime: source, ...out, families: Object.fromEntries(entries.map((e) => [e.flag, familyOf(e)])) }, null, 2)}\n`,
    );
    return EXIT.ok;
  }
  const label = engine === 'vllm' ? 'vLLM' : 'SGLang';
  const how = rt.source === 'help' ? 'its --help' : 'its parser';
  const lines = [`runtime catalog of ${label}${rt.version ? ` ${rt.version}` : ''} in ${rt.python} (read from ${how}): ${entries.length} flags`];
  lines.push(...familyLines(entries, (e) => e.group ?? 'run time'), ...rt.warnings.map((w) => `note: ${w}`));
  await write(io.stdout, `${lines.join('\n')}\n`);
  return EXIT.ok;
}

export const flagsCommand: Command = {
  name: 'flags',
  summary: 'list the backend flags a server_args.py declares (choices, defaults, renames)',
  usage: USAGE,
  inputFile: true,
  async run(argv: string[], io: CliIo): Promise<number> {
    const args = parse(argv);
    const { path, json, family, python } = args;
    if (python) return runRuntime({ ...args, python }, io);
    if (!path) return runBundled(args, io);
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
    const where = (e: FlagEntry): string => (split && e.file ? `${e.file.replace(/^.*?\/srt\//, '')}:${e.line}` : `line ${e.line}`);
    lines.push(...familyLines(entries, where));
    for (const d of catalog.diagnostics) lines.push(`${d.file && split ? d.file : path}:${d.line}: ${d.severity}: ${d.message}`);
    await write(io.stdout, `${lines.join('\n')}\n`);
    return EXIT.ok;
  },
};
