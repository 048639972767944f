/**
 * Python interpreters on a host: configured paths, servers' interpreters, `which -a`, and
 * conda/venv environments under the usual roots (listed with readDir, never shell globs).
 * Paths are deduplicated literally and never resolved: a venv's bin/python is a symlink to the
 * base interpreter, yet it sees different site-packages.
 */
import type { HostLike } from '../gpu/hostLike';
import { runGuarded, type RunOptions } from './run';

export interface InterpreterCandidate {
  path: string;
  sources: string[];
}

export interface EnvRoots {
  /** Directories whose children are environments (`/opt/conda/envs`). `~` is the home directory. */
  envsDirs: string[];
  /** Directories that are environments themselves (`/root/.venv`). */
  envDirs: string[];
  /** Directories whose children may hold `venv` / `.venv` (`/workspace`). */
  projectDirs: string[];
}

export const DEFAULT_ROOTS: EnvRoots = {
  envsDirs: ['/opt/conda/envs', '/opt/miniconda3/envs', '~/miniconda3/envs', '~/anaconda3/envs', '~/miniforge3/envs', '~/mambaforge/envs', '~/.conda/envs'],
  envDirs: [
    '/opt/conda',
    '/opt/miniconda3',
    '~/miniconda3',
    '~/anaconda3',
    '~/miniforge3',
    '/root/.venv',
    '~/.venv',
    '~/venv',
    '/opt/venv',
    '/venv',
    '/workspace/venv',
    '/workspace/.venv',
  ],
  projectDirs: ['/workspace', '~'],
};

const MAX_DIR_ENTRIES = 200;

export interface FindInterpretersOptions {
  configured?: string[];
  /** Interpreters seen in server command lines, with a label such as "server pid 1234". */
  fromServers?: { path: string; source: string }[];
  home?: string;
  roots?: EnvRoots;
  run?: RunOptions;
}

function expand(p: string, home: string | undefined): string | undefined {
  if (p === '~' || p.startsWith('~/')) return home ? home.replace(/\/+$/, '') + p.slice(1) : undefined;
  return p;
}

async function isFile(host: HostLike, p: string): Promise<boolean> {
  try {
    const s = await host.stat(p);
    // stat follows links: 'symlink' is only a dangling one, which cannot run.
    return s.type === 'file';
  } catch {
    return false;
  }
}

async function childDirs(host: HostLike, dir: string): Promise<string[]> {
  try {
    const entries = await host.readDir(dir);
    return entries
      .filter((e) => (e.type === 'dir' || e.type === 'symlink') && !e.name.startsWith('.'))
      .slice(0, MAX_DIR_ENTRIES)
      .map((e) => `${dir.replace(/\/+$/, '')}/${e.name}`);
  } catch {
    return [];
  }
}

/** The interpreter of an environment directory, if it has one. */
async function envPython(host: HostLike, envDir: string): Promise<string | undefined> {
  for (const name of ['python3', 'python']) {
    const p = `${envDir}/bin/${name}`;
    if (await isFile(host, p)) return p;
  }
  return undefined;
}

export async function findInterpreters(host: HostLike, opts: FindInterpretersOptions = {}): Promise<{ candidates: InterpreterCandidate[]; notes: string[] }> {
  const notes: string[] = [];
  const found = new Map<string, InterpreterCandidate>();
  const add = (path: string, source: string): void => {
    const p = path.trim();
    if (!p) return;
    const c = found.get(p);
    if (c) {
      if (!c.sources.includes(source)) c.sources.push(source);
    } else found.set(p, { path: p, sources: [source] });
  };
  for (const p of opts.configured ?? []) add(p, 'configured');
  for (const s of opts.fromServers ?? []) add(s.path, s.source);

  const which = await runGuarded(host, ['which', '-a', 'python3', 'python'], opts.run);
  if (which.missing) notes.push('`which` is not available; interpreters on PATH were not listed');
  for (const line of which.stdout.split(/\r?\n/)) if (line.startsWith('/')) add(line, 'PATH');

  const roots = opts.roots ?? DEFAULT_ROOTS;
  const home = opts.home;
  const envDirs: { dir: string; source: string }[] = [];
  for (const d of roots.envDirs) {
    const e = expand(d, home);
    if (e) envDirs.push({ dir: e, source: 'environment' });
  }
  const listed = await Promise.all([
    ...roots.envsDirs.map(async (d) => {
      const e = expand(d, home);
      return e ? (await childDirs(host, e)).map((dir) => ({ dir, source: 'conda env' })) : [];
    }),
    ...roots.projectDirs.map(async (d) => {
      const e = expand(d, home);
      if (!e) return [];
      return (await childDirs(host, e)).flatMap((dir) => [
        { dir: `${dir}/venv`, source: 'project venv' },
        { dir: `${dir}/.venv`, source: 'project venv' },
      ]);
    }),
  ]);
  for (const l of listed) envDirs.push(...l);
  const pythons = await Promise.all(envDirs.map(async (e) => ({ e, py: await envPython(host, e.dir) })));
  for (const { e, py } of pythons) if (py) add(py, e.source);
  return { candidates: [...found.values()], notes };
}
