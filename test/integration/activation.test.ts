/**
 * What activation costs: activate() may load only the small part of the extension that registers
 * commands and views. The detector and its stopword lists, the diagnosis rules and every vendor
 * library (language client, ssh2, tree-sitter, yaml) load on first use. Checked twice: on the
 * import graph esbuild sees (nothing heavy reachable from src/extension.ts through static imports)
 * and on the built bundle in a fresh Node process (no vendor or data file required by activate()).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { buildBundles } from './helpers';
import { ACTIVATION_SCRIPT, type ActivationReport } from '../support/activation';

const root = join(__dirname, '..', '..');

/**
 * Files of the built extension bundle reachable from its entry through static imports and
 * requires (dynamic import() excluded), read from the import graph scripts/build.mjs writes
 * beside the bundle, so the check follows the real build's vendor and data mappings.
 */
function staticClosure(entry: string): { files: Set<string>; bytes: number } {
  const meta = JSON.parse(readFileSync(join(root, 'dist', 'extension.meta.json'), 'utf8')) as Metafile;
  const files = new Set([entry]);
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift()!;
    for (const imp of meta.inputs[file]?.imports ?? []) {
      if (imp.external || (imp.kind !== 'import-statement' && imp.kind !== 'require-call')) continue;
      if (!files.has(imp.path)) {
        files.add(imp.path);
        queue.push(imp.path);
      }
    }
  }
  let bytes = 0;
  for (const file of files) bytes += meta.inputs[file]?.bytes ?? 0;
  return { files, bytes };
}

describe('activation loads only what registers commands and views', function () {
  this.timeout(120_000);

  it('reaches no detector, diagnosis rules, probe runner or vendor library through static imports', () => {
    buildBundles('extension');
    const { files, bytes } = staticClosure('src/extension.ts');
    const heavy = [...files].filter((f) =>
      /^src\/core\/(detect|diagnose|eval|compare|fix)\/|^src\/core\/probe\/runner\.ts$|^rules\/diagnosis\/|node_modules\/stopword\//.test(f),
    );
    assert.deepEqual(heavy, [], `statically imported at activation:\n${heavy.join('\n')}`);
    // The eager part is the registration code and what it needs; the whole extension is ten times that.
    assert.ok(bytes < 300_000, `${bytes} bytes of source reachable at activation`);
  });

  it('requires no vendor library or data file while activating the built bundle', () => {
    buildBundles('extension');
    const r = spawnSync(process.execPath, ['-e', ACTIVATION_SCRIPT, join(root, 'dist', 'extension.js'), '1'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout) as ActivationReport;
    assert.equal(report.runs.length, 1);
    const loaded = report.loaded.filter((f) => f.startsWith(join(root, 'dist')));
    assert.deepEqual(
      loaded.map((f) => f.slice(root.length + 1)),
      ['dist/extension.js'],
    );
  });
});
