/**
 * The bundled catalog of SGLang releases: merging per-release catalogs keeps every fact of every
 * release (checked against catalogs built from our own fixtures of each server_args.py shape), the
 * version-range logic (added in, removed in, renamed, a choice's first release), release matching,
 * and the data file the extension ships.
 */
import { strict as assert } from 'node:assert';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildCatalog, choiceText, type FlagCatalog, type FlagEntry } from '../../src/core/flags';
import { bundledCatalogPath, loadBundledCatalog, parseBundledCatalog } from '../../src/core/flags/bundled/load';
import { mergeReleaseCatalogs, type ReleaseCatalog } from '../../src/core/flags/bundled/merge';
import { BundledCatalog, choiceHistoryText, flagHistoryText } from '../../src/core/flags/bundled/query';
import { compareVersions } from '../../src/core/release/version';

const FIXTURES = join(__dirname, '..', 'fixtures', 'server_args');
const read = (f: string): string => readFileSync(join(FIXTURES, f), 'utf8');

/** The facts a bundled entry must keep of a source entry (location and SGLang's help are dropped by design). */
function facts(e: FlagEntry): unknown {
  return {
    flag: e.flag,
    aliases: e.aliases,
    negations: e.negations,
    field: e.field,
    type: e.type,
    action: e.action,
    nargs: e.nargs,
    default: e.default,
    deprecated: !!e.deprecated,
    replacement: e.replacement,
    choices: e.choices?.map(choiceText),
    dynamicChoices: !!e.dynamicChoices,
  };
}

function entry(flag: string, extra: Partial<FlagEntry> = {}): FlagEntry {
  return {
    flag,
    aliases: [],
    negations: [],
    field: flag.replace(/^--/, '').replace(/-/g, '_'),
    source: 'add_argument',
    line: 1,
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    ...extra,
  };
}
const catalog = (entries: FlagEntry[]): FlagCatalog => ({ entries, choiceLists: [], era: 'inline', diagnostics: [] });
const release = (version: string, c: FlagCatalog): ReleaseCatalog => ({ release: { version, date: '2025-01-01', layout: c.era }, catalog: c });

describe('bundled catalog of SGLang releases', function () {
  this.timeout(30_000);

  it('keeps every fact of each release, for fixtures of three shapes (inline, *_CHOICES lists, dataclass)', async () => {
    const sources = [
      ['0.4.0', 'inline_v04.py'],
      ['0.5.0', 'choices_lists_2025.py'],
      ['0.5.9', 'dataclass_main.py'],
    ] as const;
    const built = await Promise.all(sources.map(async ([v, f]) => release(v, await buildCatalog(read(f), { keepTree: false }))));
    const b = new BundledCatalog(mergeReleaseCatalogs(built));
    assert.deepEqual(
      b.releases.map((r) => [r.version, r.flags]),
      built.map((r) => [r.release.version, new Set(r.catalog.entries.map((e) => e.flag)).size]),
    );
    built.forEach((r, i) => {
      const firsts = r.catalog.entries.filter((e, k, all) => all.findIndex((x) => x.flag === e.flag) === k);
      const byFlag = (a: FlagEntry, z: FlagEntry): number => (a.flag < z.flag ? -1 : a.flag > z.flag ? 1 : 0);
      assert.deepEqual([...b.catalogFor(i).entries].sort(byFlag).map(facts), [...firsts].sort(byFlag).map(facts), `release ${r.release.version}`);
      assert.ok(
        b.catalogFor(i).entries.every((e) => e.help === undefined),
        'no help text of SGLang is shipped',
      );
    });
    // A fact shared by releases is stored once.
    const data = mergeReleaseCatalogs(built);
    const modelPath = data.flags.find((f) => f.flag === '--model-path')!;
    assert.ok(modelPath.variants.length <= 3);
  });

  it('says when a flag was added, removed or renamed, and when a choice first appears', () => {
    const r1 = catalog([entry('--a'), entry('--old-name', { field: 'x' }), entry('--backend', { choices: ['one', 'two'] })]);
    const r2 = catalog([entry('--a'), entry('--b'), entry('--new-name', { field: 'x' }), entry('--backend', { choices: ['one', 'two', 'three'] })]);
    const r3 = catalog([entry('--b'), entry('--new-name', { field: 'x' }), entry('--backend', { choices: ['two', 'three'] })]);
    const b = new BundledCatalog(mergeReleaseCatalogs([release('0.4.0', r1), release('0.5.0', r2), release('0.5.2', r3)]));
    assert.deepEqual(b.explainMissing('--b', 0), { kind: 'added-later', addedIn: '0.5.0' });
    assert.deepEqual(b.explainMissing('--a', 2), { kind: 'removed', removedIn: '0.5.2', lastIn: '0.5.0' });
    assert.deepEqual(b.explainMissing('--old-name', 2), { kind: 'renamed', to: '--new-name', renamedIn: '0.5.0' });
    assert.deepEqual(b.explainMissing('--new-name', 0), { kind: 'not-yet-renamed', to: '--new-name', from: '--old-name', renamedIn: '0.5.0' });
    assert.equal(b.explainMissing('--a', 1), undefined, 'present: nothing to explain');
    assert.equal(b.explainMissing('--never', 1), undefined, 'never existed: the catalog says unknown, not history');
    // A name no release has that spells out a field a later release sets under another flag.
    assert.deepEqual(b.explainMissing('--x', 0), undefined, 'the field is there in 0.4.0 (as --old-name): the rename check names it');
    const late = new BundledCatalog(mergeReleaseCatalogs([release('0.4.0', r1), release('0.5.0', catalog([entry('--short', { field: 'long_field_name' })]))]));
    assert.deepEqual(late.explainMissing('--long-field-name', 0), { kind: 'field-added-later', as: '--short', addedIn: '0.5.0' });
    assert.equal(late.explainMissing('--long-field-name', 1), undefined, 'the release has the field: the rename check names it');
    assert.equal(
      flagHistoryText('--long-field-name', '0.4.0', late.explainMissing('--long-field-name', 0)!),
      '--long-field-name does not exist in SGLang 0.4.0: SGLang 0.5.0 added this setting, as --short.',
    );
    assert.deepEqual(b.explainChoice('backend', 'three', 0), { kind: 'added-later', addedIn: '0.5.0' });
    assert.deepEqual(b.explainChoice('backend', 'one', 2), { kind: 'removed', removedIn: '0.5.2', lastIn: '0.5.0' });
    assert.equal(b.explainChoice('backend', 'two', 2), undefined);
    assert.equal(flagHistoryText('--b', '0.4.0', b.explainMissing('--b', 0)!), '--b does not exist in SGLang 0.4.0 (added in 0.5.0).');
    assert.equal(flagHistoryText('--old-name', '0.5.2', b.explainMissing('--old-name', 2)!), '--old-name was renamed in SGLang 0.5.0: use --new-name.');
    assert.match(choiceHistoryText('--backend', 'three', '0.4.0', b.explainChoice('backend', 'three', 0)!), /needs SGLang ≥ 0\.5\.0/);
    assert.deepEqual(b.releasesOf('--a'), ['0.4.0', '0.5.0']);
  });

  it('matches a version to its release, else the nearest older one; "main" only on request', () => {
    const c = catalog([entry('--a')]);
    const b = new BundledCatalog(
      mergeReleaseCatalogs([
        release('0.4.6', c),
        release('0.5.0rc2', c),
        release('0.5.2', c),
        release('0.5.10', c),
        { ...release('main', c), release: { version: 'main', date: '2026-08-01', layout: 'split' } },
      ]),
    );
    assert.deepEqual(b.match('0.5.2') && [b.match('0.5.2')!.release.version, b.match('0.5.2')!.exact], ['0.5.2', true]);
    assert.equal(b.match('0.5.3')?.release.version, '0.5.2');
    assert.equal(b.match('0.5.3')?.exact, false);
    assert.equal(b.match('0.5.9')?.release.version, '0.5.2', '0.5.9 < 0.5.10');
    assert.equal(b.match('0.5.0')?.release.version, '0.5.0rc2', 'a final release is after its rc');
    assert.equal(b.match('0.4.6.post4')?.release.version, '0.4.6');
    assert.equal(b.match('0.3.0'), undefined, 'older than every bundled release');
    assert.equal(b.match('main')?.release.version, 'main');
    assert.equal(b.newest().release.version, '0.5.10', 'an unreleased snapshot is never the default');
    assert.equal(b.match('not a version'), undefined);
  });

  it('ships a compact catalog of at least ten releases from 0.3 to the newest, in order, with known facts', async () => {
    const path = bundledCatalogPath();
    assert.ok(path, 'data/sglang-catalog.json is there');
    assert.ok(statSync(path).size <= 400 * 1024, `${statSync(path).size} bytes`);
    const b = await loadBundledCatalog();
    const versions = b.releases.map((r) => r.version).filter((v) => v !== 'main');
    assert.ok(versions.length >= 10);
    assert.match(versions[0], /^0\.3\./);
    for (let i = 1; i < versions.length; i++) assert.equal(compareVersions(versions[i - 1], versions[i]), -1, `${versions[i - 1]} < ${versions[i]}`);
    // Facts read from SGLang's own releases.
    const v046 = b.match('0.4.6')!.index;
    assert.deepEqual(b.explainMissing('--moe-runner-backend', v046), { kind: 'added-later', addedIn: '0.5.1' });
    const newest = b.newest().index;
    assert.equal(b.explainMissing('--enable-ep-moe', newest)?.kind, 'removed');
    const fp4 = b.catalogFor(newest).entries.find((e) => e.flag === '--fp4-gemm-backend');
    assert.ok(fp4?.choices?.includes('flashinfer_cudnn'));
    assert.equal(fp4?.field, 'fp4_gemm_runner_backend');
    // The seed's flag on a release before the setting existed: which release added it, under which name.
    assert.deepEqual(b.explainMissing('--fp4-gemm-runner-backend', b.match('0.5.6')!.index), {
      kind: 'field-added-later',
      as: '--fp4-gemm-backend',
      addedIn: '0.5.8',
    });
    assert.ok(!fp4?.deprecated, 'a help text naming a deprecated environment variable does not deprecate the flag');
    assert.ok(b.catalogFor(newest).entries.length > b.catalogFor(0).entries.length * 4);
  });

  it('rejects a damaged or foreign data file with a message that says so', () => {
    assert.throws(() => parseBundledCatalog('{"schema": 1, "releases": '), /not valid JSON/);
    assert.throws(() => parseBundledCatalog('{"schema": 99, "releases": [], "flags": [], "choiceSets": []}'), /unknown shape \(schema 99/);
    assert.throws(() => parseBundledCatalog('[]'), /unknown shape/);
  });
});
