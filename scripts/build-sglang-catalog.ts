/**
 * Builds data/sglang-catalog.json, the bundled catalog of SGLang releases, from SGLang's own
 * sources: each release's python/sglang/srt/server_args.py (and for the split layout its
 * arg_groups/ package) read with the project's static reader, merged by mergeReleaseCatalogs.
 * Only extracted facts are written; no SGLang file is committed.
 *
 *   npx tsx scripts/build-sglang-catalog.ts --git PATH/TO/sglang.git [--tags v0.3.0,v0.4.6,…]
 *       [--main DIR] [--out data/sglang-catalog.json]
 *
 * --git: a clone (or bare mirror) with SGLang's release tags. --tags: which tags (default: the
 * list below). --main: a source tree (…/python/sglang/srt) of an unreleased snapshot, added last
 * as "main" with --main-date and --main-commit.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildCatalog, type FlagCatalog } from '../src/core/flags';
import { mergeReleaseCatalogs, type ReleaseCatalog } from '../src/core/flags/bundled/merge';
import { buildPackageCatalog, resolveLocalPackage } from '../src/core/flags/packageLayout';
import { normalizeVersion } from '../src/core/release/version';

/** One tag per minor line early on, every release of the 0.5 line (where the backends changed most). */
const DEFAULT_TAGS = [
  'v0.3.0', 'v0.3.2', 'v0.3.4', 'v0.3.6',
  'v0.4.0', 'v0.4.1', 'v0.4.2', 'v0.4.3', 'v0.4.4', 'v0.4.5', 'v0.4.6', 'v0.4.7', 'v0.4.8', 'v0.4.9', 'v0.4.10',
  'v0.5.0rc2', 'v0.5.1', 'v0.5.2', 'v0.5.3', 'v0.5.4', 'v0.5.5', 'v0.5.6', 'v0.5.7', 'v0.5.8', 'v0.5.9',
  'v0.5.10', 'v0.5.11', 'v0.5.12', 'v0.5.13', 'v0.5.14', 'v0.5.15', 'v0.5.16', 'v0.5.17', 'v0.5.18',
]; // prettier-ignore

const SRT = 'python/sglang/srt';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function git(repo: string, ...a: string[]): string {
  return execFileSync('git', ['-C', repo, ...a], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

/** A package tree's catalog: the split-layout reader when it has arg_groups/fields, else the one file. */
async function catalogOfTree(srtDir: string): Promise<{ catalog: FlagCatalog; split: boolean }> {
  const split = existsSync(join(srtDir, 'arg_groups', 'fields'));
  if (split) {
    const pkg = await resolveLocalPackage(srtDir);
    if (!pkg) throw new Error(`no server_args.py in ${srtDir}`);
    return { catalog: await buildPackageCatalog(pkg.serverArgs, pkg.readFile), split };
  }
  return { catalog: await buildCatalog(readFileSync(join(srtDir, 'server_args.py'), 'utf8'), { keepTree: false }), split };
}

/** Writes the tag's srt/ python files to a temp dir (only what the reader needs). */
function checkoutSrt(repo: string, tag: string, into: string): string {
  const files = git(repo, 'ls-tree', '-r', '--name-only', tag, '--', `${SRT}/server_args.py`, `${SRT}/arg_groups`)
    .split('\n')
    .filter((f) => f.endsWith('.py'));
  for (const f of files) {
    const dest = join(into, f);
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, execFileSync('git', ['-C', repo, 'show', `${tag}:${f}`], { maxBuffer: 64 << 20 }));
  }
  return join(into, SRT);
}

async function main(): Promise<void> {
  const repo = arg('--git');
  const mainDir = arg('--main');
  const out = arg('--out') ?? 'data/sglang-catalog.json';
  if (!repo && !mainDir) throw new Error('Give --git PATH (a clone with release tags) and/or --main DIR');
  const list: ReleaseCatalog[] = [];
  const tmp = mkdtempSync(join(tmpdir(), 'sglang-catalog-'));
  try {
    for (const tag of repo ? (arg('--tags')?.split(',') ?? DEFAULT_TAGS) : []) {
      const srt = checkoutSrt(repo!, tag, join(tmp, tag));
      const { catalog, split } = await catalogOfTree(srt);
      const commit = git(repo!, 'rev-list', '-n1', tag).trim();
      const date = git(repo!, 'log', '-1', '--format=%cs', tag).trim();
      list.push({ release: { version: normalizeVersion(tag) ?? tag, date, commit, layout: split ? 'split' : catalog.era }, catalog });
      process.stderr.write(`${tag}: ${catalog.entries.length} flags (${split ? 'split' : catalog.era})\n`);
    }
    if (mainDir) {
      const srt = existsSync(join(mainDir, SRT)) ? join(mainDir, SRT) : mainDir;
      const { catalog, split } = await catalogOfTree(srt);
      const date = arg('--main-date') ?? new Date().toISOString().slice(0, 10);
      const commit = arg('--main-commit');
      list.push({ release: { version: 'main', date, ...(commit ? { commit } : {}), layout: split ? 'split' : catalog.era }, catalog });
      process.stderr.write(`main: ${catalog.entries.length} flags (${split ? 'split' : catalog.era})\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const data = mergeReleaseCatalogs(list);
  const text = JSON.stringify(data);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${text}\n`);
  process.stderr.write(`${out}: ${data.releases.length} releases, ${data.flags.length} flags, ${(text.length / 1024).toFixed(0)} KB\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
