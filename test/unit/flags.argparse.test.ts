/**
 * Ground truth: each fixture is run by CPython, its argparse parser dumped (dump_parser.py), and
 * the tree-sitter catalog compared flag by flag.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCatalog, type FlagCatalog, type FlagEntry } from '../../src/core/flags';

const FIXTURES = join(__dirname, '..', 'fixtures', 'server_args');
const ERAS = [
  { file: 'inline_v04.py', era: 'inline', minFlags: 80 },
  { file: 'choices_lists_2025.py', era: 'choices-lists', minFlags: 150 },
  { file: 'dataclass_main.py', era: 'dataclass', minFlags: 200 },
] as const;

interface PyAction {
  option_strings: string[];
  dest: string;
  default: unknown;
  choices: unknown[] | null;
  choices_is_set: boolean;
  nargs: string | number | null;
  help: string | null;
  type: string | null;
  action: string;
  const: unknown;
  required: boolean;
}

function python(): string | undefined {
  for (const exe of ['python3', 'python']) {
    const r = spawnSync(exe, ['--version'], { encoding: 'utf8' });
    if (r.status === 0) return exe;
  }
  return undefined;
}

function dump(exe: string, file: string): PyAction[] {
  const r = spawnSync(exe, [join(FIXTURES, 'dump_parser.py'), join(FIXTURES, file)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`dump_parser failed for ${file}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { actions: PyAction[] }).actions;
}

const sortKey = (xs: unknown[]): string[] => xs.map((x) => JSON.stringify(x)).sort();

function helpMatches(catalogHelp: string | undefined, actual: string | null, action: string): boolean {
  let truth = actual ?? '';
  if (action === 'BooleanOptionalAction') truth = truth.replace(/ \(default: %\(default\)s\)$/, '');
  const mine = catalogHelp ?? '';
  if (mine === truth) return true;
  if (!/\{[^}]*\}/.test(mine)) return false;
  // f-string holes: each {expr} stands for any text.
  const pattern = mine
    .split(/\{[^}]*\}/)
    .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${pattern}$`).test(truth);
}

/** Differences between an entry and the argparse action, plus whether the entry claimed literal values. */
export function diff(e: FlagEntry, a: PyAction): { problems: string[]; unknown: string[]; literal: boolean } {
  const problems: string[] = [];
  const unknown: string[] = [];
  const mine = [e.flag, ...e.aliases, ...e.negations].sort();
  if (JSON.stringify(mine) !== JSON.stringify([...a.option_strings].sort())) problems.push(`options ${mine.join(',')} != ${a.option_strings.join(',')}`);
  if (e.field !== a.dest) problems.push(`dest ${e.field} != ${a.dest}`);
  const literalDefault = e.default !== undefined && e.defaultExpr === undefined;
  if (literalDefault) {
    try {
      assert.deepEqual(e.default, a.default);
    } catch {
      problems.push(`default ${JSON.stringify(e.default)} != ${JSON.stringify(a.default)}`);
    }
  }
  const literalChoices = a.choices === null ? e.choices === undefined && e.choicesExpr === undefined : e.choices !== undefined;
  if (a.choices !== null && e.choices !== undefined) {
    const same = a.choices_is_set
      ? JSON.stringify(sortKey(e.choices)) === JSON.stringify(sortKey(a.choices))
      : JSON.stringify(e.choices) === JSON.stringify(a.choices);
    if (!same) problems.push(`choices ${JSON.stringify(e.choices)} != ${JSON.stringify(a.choices)}`);
  } else if (a.choices === null && e.choices !== undefined) problems.push('choices where argparse has none');
  const customAction =
    e.action !== undefined && !/^(store|store_true|store_false|store_const|append|append_const|count|extend|BooleanOptionalAction)$/.test(e.action);
  if (customAction && e.nargs === undefined && a.nargs !== null) unknown.push('nargs of a custom action');
  if (a.choices !== null && e.choices === undefined) unknown.push(`choices ${e.choicesExpr ?? '?'}`);
  if (!literalDefault) unknown.push(`default ${e.defaultExpr ?? '?'}`);
  if ((e.nargs ?? null) !== a.nargs && !(customAction && e.nargs === undefined)) problems.push(`nargs ${String(e.nargs)} != ${String(a.nargs)}`);
  if ((e.type ?? null) !== a.type) problems.push(`type ${String(e.type)} != ${String(a.type)}`);
  if ((e.action ?? 'store') !== a.action) problems.push(`action ${String(e.action)} != ${a.action}`);
  if (!helpMatches(e.help, a.help, a.action)) problems.push(`help ${JSON.stringify(e.help)} != ${JSON.stringify(a.help)}`);
  return { problems, unknown, literal: literalDefault && literalChoices };
}

describe('flag catalog vs argparse (ground truth from CPython)', function () {
  this.timeout(60_000);
  const exe = python();
  const shares: Record<string, string> = {};

  after(() => {
    if (Object.keys(shares).length) console.log(`      exact-match share per era: ${JSON.stringify(shares)}`);
  });

  for (const { file, era, minFlags } of ERAS) {
    it(`${file}: every literal flag equals argparse (era ${era})`, async function () {
      if (!exe) {
        console.log('      python3 not found: skipping the argparse comparison');
        this.skip();
      }
      const actions = dump(exe, file);
      const catalog: FlagCatalog = await buildCatalog(readFileSync(join(FIXTURES, file), 'utf8'), { keepTree: false });
      assert.equal(catalog.era, era);
      assert.ok(actions.length >= minFlags, `fixture has ${actions.length} flags`);
      const byOption = new Map<string, FlagEntry>();
      for (const e of catalog.entries) for (const s of [e.flag, ...e.aliases, ...e.negations]) byOption.set(s, e);
      let exact = 0;
      const notLiteral: string[] = [];
      const failures: string[] = [];
      for (const a of actions) {
        const e = byOption.get(a.option_strings[0] ?? a.dest);
        if (!e) {
          failures.push(`${a.option_strings[0]}: missing from catalog`);
          continue;
        }
        const { problems, unknown, literal } = diff(e, a);
        if (!problems.length && !unknown.length) exact++;
        else if (!problems.length) notLiteral.push(`${a.option_strings[0]}: ${unknown.join('; ')}`);
        else if (literal) failures.push(`${a.option_strings[0]}: ${problems.join('; ')}`);
        else if (problems.some((p) => !p.startsWith('default') && !p.startsWith('choices')))
          failures.push(`${a.option_strings[0]} (non-literal): ${problems.join('; ')}`);
      }
      if (process.env.FLAGS_VERBOSE) console.log(notLiteral.join('\n'));
      assert.equal(catalog.entries.length, actions.length, 'one catalog entry per argparse action');
      shares[era] = `${exact}/${actions.length} (${((100 * exact) / actions.length).toFixed(1)}%)`;
      assert.deepEqual(failures, []);
    });
  }
});
