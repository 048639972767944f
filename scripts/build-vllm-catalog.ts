/**
 * Builds data/vllm-catalog.json, the bundled catalog of vLLM releases, from vLLM's own sources:
 * each release's vllm/engine/arg_utils.py, the config dataclasses it reads (vllm/config.py or
 * vllm/config/*.py), the OpenAI frontend's cli_args.py and vllm/envs.py, read with the project's
 * static reader (src/core/flags/vllm). Only extracted facts are written; no vLLM file is committed.
 *
 *   npx tsx scripts/build-vllm-catalog.ts --git PATH/TO/vllm.git [--out data/vllm-catalog.json]
 *
 * Each release names the commit it is read from. The mirror this was built from had no tags, so
 * a release is main's last first-parent commit before the release date (the release branch is cut
 * from main a few days before; the few cherry-picks after the cut rarely touch flags). With a
 * clone that has tags, pass --tags v0.11.0,… to read the tags themselves.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { mergeReleaseCatalogs, type ReleaseCatalog } from '../src/core/flags/bundled/merge';
import { sharedPythonParser } from '../src/core/flags/parser';
import { mergeEnvVars } from '../src/core/flags/vllm/bundled';
import { readVllmEnvVars, type VllmEnvVar } from '../src/core/flags/vllm/envs';
import { ENVS, isVllmFlagSource, readVllmFlags } from '../src/core/flags/vllm/reader';
import { normalizeVersion } from '../src/core/release/version';

/** Release → its date (PyPI upload day). "main" is the newest upstream commit of the mirror. */
const RELEASES: [string, string][] = [
  ['0.6.0', '2024-09-05'], ['0.6.3', '2024-10-14'], ['0.6.6', '2024-12-27'],
  ['0.7.0', '2025-01-27'], ['0.7.3', '2025-02-20'],
  ['0.8.0', '2025-03-18'], ['0.8.5', '2025-04-28'],
  ['0.9.0', '2025-05-15'], ['0.9.2', '2025-07-08'],
  ['0.10.0', '2025-07-24'], ['0.10.1', '2025-08-18'], ['0.10.2', '2025-09-13'],
  ['0.11.0', '2025-10-02'], ['0.11.1', '2025-11-18'],
  ['0.12.0', '2025-12-03'], ['0.13.0', '2025-12-18'], ['0.14.0', '2026-01-20'], ['0.15.0', '2026-01-29'],
]; // prettier-ignore

const PATHS = [
  'vllm/engine/arg_utils.py',
  'vllm/config',
  'vllm/config.py',
  'vllm/utils',
  'vllm/utils.py',
  'vllm/entrypoints/openai/cli_args.py',
  'vllm/entrypoints/cli/serve.py',
  ENVS,
];

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function git(repo: string, ...a: string[]): string {
  return execFileSync('git', ['-C', repo, ...a], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

async function main(): Promise<void> {
  const repo = arg('--git');
  const out = arg('--out') ?? 'data/vllm-catalog.json';
  const mainRef = arg('--main');
  if (!repo) throw new Error('Give --git PATH (a clone or mirror of vLLM)');
  const branch = arg('--branch') ?? 'main';
  const points: { version: string; ref: string }[] = [];
  const tags = arg('--tags');
  if (tags) for (const t of tags.split(',')) points.push({ version: normalizeVersion(t) ?? t, ref: t });
  else
    for (const [version, date] of RELEASES) {
      const ref = git(repo, 'rev-list', '-n1', '--first-parent', `--before=${date}T00:00:00Z`, branch).trim();
      points.push({ version, ref });
    }
  if (mainRef) points.push({ version: 'main', ref: mainRef });
  const parser = await sharedPythonParser();
  const list: ReleaseCatalog[] = [];
  const envs: VllmEnvVar[][] = [];
  for (const { version, ref } of points) {
    const files = git(repo, 'ls-tree', '-r', '--name-only', ref, '--', ...PATHS).split('\n');
    const sources: Record<string, string> = {};
    for (const f of files) if (isVllmFlagSource(f) || f === ENVS) sources[f] = git(repo, 'show', `${ref}:${f}`);
    const catalog = readVllmFlags(parser, sources);
    const commit = git(repo, 'rev-list', '-n1', ref).trim();
    const date = git(repo, 'log', '-1', '--format=%cs', ref).trim();
    list.push({ release: { version, date, commit, layout: catalog.era }, catalog });
    envs.push(sources[ENVS] ? readVllmEnvVars(parser, sources[ENVS]) : []);
    process.stderr.write(
      `${version} (${commit.slice(0, 10)} ${date}): ${catalog.entries.length} flags (${catalog.era}), ${envs[envs.length - 1].length} env vars\n`,
    );
  }
  const data = mergeReleaseCatalogs(list, 'vllm');
  data.env = mergeEnvVars(envs);
  const text = JSON.stringify(data);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${text}\n`);
  process.stderr.write(
    `${out}: ${data.releases.length} releases, ${data.flags.length} flags, ${data.env.length} env vars, ${(text.length / 1024).toFixed(0)} KB\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
