/**
 * `inference-doctor check`'s engine: each file's launch commands judged exactly as the language
 * server judges an open document (lsp/analysis.ts analyzeText), against the catalog of the release
 * the file runs (core/release/context.ts, the language server's own choice) or a given
 * server_args.py, with the built-in known-bad rules merged with the nearest
 * `.inference-doctor/rules.json` above the file. Files near a launch file are read once per
 * directory, so a thousand scripts in one folder cost one scan.
 */
import { promises as fsp } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import { errorMessage } from '../../core/errors';
import { buildPackageCatalog, resolveLocalPackage } from '../../core/flags';
import type { BundledCatalog } from '../../core/flags/bundled/query';
import { launchSyntaxOfPath, type LanguageHint } from '../../core/launch';
import { chooseBundledRelease, pinnedRelease, releaseContext, type CatalogInUse, type ReleaseContext } from '../../core/release/context';
import { chooseRelease, detectWorkspaceReleases, fromImageTags, fromSetting, type ReleaseCandidate, type ReleaseChoice } from '../../core/release/detect';
import { readVllmPins, vllmReleasesInText } from '../../core/release/vllm';
import { vllmReleaseContext, vllmReleaseLabel } from '../../core/flags/vllm/bundled';
import { VllmCatalogIndex } from '../../lsp/vllmIndex';
import { builtinRules, mergeRules, parseRulesText, type KnownBadRule, type RuleError } from '../../core/rules';
import { analyzeText, type FixData } from '../../lsp/analysis';
import { CatalogIndex } from '../../lsp/catalogIndex';

/** Files larger than this are not read (no launch file is): such a file is an input error. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** Where the workspace rules live, relative to a directory above the file. */
export const RULES_FILE = join('.inference-doctor', 'rules.json');

export type Severity = 'error' | 'warning' | 'info';

/** One diagnostic, 1-based; `endColumn` is the column just after the range (as SARIF counts). Columns count UTF-16 units. */
export interface Finding {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: Severity;
  code: string;
  message: string;
  /** The quick fixes' titles, preferred first as the editor offers them. */
  fixes: string[];
  /** A documentation link of the diagnostic (a known issue's source). */
  href?: string;
}

export interface FileRelease {
  /** The release judged against; null when a given catalog says none. */
  version: string | null;
  /** `image`, `requirements`, `lock`, `pyproject`, `setting` (--version), `default`, or `catalog` (--catalog). */
  source: string;
  detail: string;
}

export interface FileResult {
  /** As shown: relative to the working directory when inside it, else absolute. */
  path: string;
  absolute: string;
  /** Why the file could not be read; then nothing else is set. */
  error?: string;
  release?: FileRelease;
  commands: number;
  findings: Finding[];
}

export interface CheckerOptions {
  cwd: string;
  /** --gpu: the compute capability the rules compare. */
  computeCapability?: number;
  /** How rule messages name that GPU ("the GPU given with --gpu, …"). */
  gpuSource?: string;
  /** --version: the release every file is judged against (no detection). */
  version?: string;
  /** --catalog: a server_args.py or package, read already. */
  catalog?: { index: CatalogIndex; version?: string };
  /** Undefined when it could not be read and a catalog was given. */
  bundled?: BundledCatalog;
  /** The bundled vLLM catalog: vLLM commands are checked against it (undefined: they are not looked for). */
  vllmBundled?: BundledCatalog;
  /** Told once per workspace rules file that has errors. */
  onRulesError?: (file: string, errors: string[]) => void;
}

/** Reads a --catalog PATH (server_args.py, an sglang package or its srt directory). Throws when there is none. */
export async function readCatalog(path: string): Promise<{ index: CatalogIndex; version?: string; errors: string[] }> {
  await fsp.stat(path);
  const pkg = await resolveLocalPackage(path);
  if (!pkg) throw new Error('no server_args.py there (give the file, the sglang package or its srt directory)');
  const catalog = await buildPackageCatalog(pkg.serverArgs, pkg.readFile);
  // sglang/version.py beside srt/, when the catalog is a package's.
  const at = pkg.serverArgs.indexOf('/srt/');
  const versionText = at > 0 ? await pkg.readFile(`${pkg.serverArgs.slice(0, at)}/version.py`) : undefined;
  const version = versionText ? /__version__\s*=\s*["']([^"']+)["']/.exec(versionText)?.[1] : undefined;
  const label = path;
  const index = new CatalogIndex(catalog, { kind: 'settings', label, ...(version ? { version } : {}) });
  const errors = catalog.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.file ?? pkg.serverArgs}:${d.line}: ${d.message}`);
  return { index, ...(version ? { version } : {}), errors };
}

const SEVERITY: Record<number, Severity> = {
  [DiagnosticSeverity.Error]: 'error',
  [DiagnosticSeverity.Warning]: 'warning',
  [DiagnosticSeverity.Information]: 'info',
  [DiagnosticSeverity.Hint]: 'info',
};

function toFinding(d: Diagnostic): Finding {
  const fixes = (d.data as FixData | undefined)?.fixes ?? [];
  const ordered = [...fixes.filter((f) => f.preferred), ...fixes.filter((f) => !f.preferred)];
  return {
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    endLine: d.range.end.line + 1,
    endColumn: d.range.end.character + 1,
    severity: SEVERITY[d.severity ?? DiagnosticSeverity.Error] ?? 'error',
    code: typeof d.code === 'string' || typeof d.code === 'number' ? String(d.code) : 'inference-doctor',
    message: d.message,
    fixes: ordered.map((f) => f.title),
    ...(d.codeDescription?.href ? { href: d.codeDescription.href } : {}),
  };
}

/** The syntax a file holds by its name; a name that says nothing is read as shell (a script without an extension). */
export function syntaxOf(path: string): LanguageHint {
  return launchSyntaxOfPath(path) ?? 'plaintext';
}

export class Checker {
  private readonly bundledIndexes = new Map<number, CatalogIndex>();
  private readonly nearby = new Map<string, Promise<ReleaseCandidate[]>>();
  private readonly rulesFileOf = new Map<string, Promise<string | undefined>>();
  private readonly rulesOf = new Map<string, Promise<KnownBadRule[]>>();
  private readonly versionCandidate?: ReleaseCandidate;
  private readonly choices = new Map<string, ReleaseChoice>();
  private readonly contexts = new WeakMap<ReleaseChoice, ReturnType<Checker['judgeOnce']>>();

  constructor(private readonly opts: CheckerOptions) {
    if (opts.version) this.versionCandidate = fromSetting(opts.version, 'the --version option');
  }

  /** A path as shown: relative to the working directory when inside it, else absolute. */
  display(absolute: string): string {
    const rel = relative(this.opts.cwd, absolute);
    const shown = rel && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel) ? rel : absolute;
    return sep === '\\' ? shown.split(sep).join('/') : shown;
  }

  async checkFile(path: string): Promise<FileResult> {
    const absolute = resolve(this.opts.cwd, path);
    const shown = this.display(absolute);
    let text: string;
    try {
      const st = await fsp.stat(absolute);
      if (st.isDirectory()) throw new Error('it is a directory');
      if (st.size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB`);
      text = await fsp.readFile(absolute, 'utf8');
    } catch (error) {
      return { path: shown, absolute, error: errorMessage(error), commands: 0, findings: [] };
    }
    return this.checkText(text, absolute);
  }

  /** The findings of one file's text (`absolute` names it: its syntax, the files near it, its rules). */
  async checkText(text: string, absolute: string): Promise<FileResult> {
    const dir = dirname(absolute);
    const [choice, rules] = await Promise.all([this.choose(text, absolute), this.rulesFor(dir)]);
    const { index, release, shown } = this.judge(choice);
    const pinned = pinnedRelease(choice);
    const vllm = this.opts.vllmBundled && text.includes('vllm') ? await this.vllmFor(text, absolute, this.opts.vllmBundled) : undefined;
    // An editor drops a byte order mark before the language server sees the text: columns count without it.
    const analysis = analyzeText(text.startsWith('\uFEFF') ? text.slice(1) : text, syntaxOf(absolute), index, {
      rules,
      ...(this.opts.computeCapability !== undefined ? { computeCapability: this.opts.computeCapability } : {}),
      ...(this.opts.gpuSource ? { gpuSource: this.opts.gpuSource } : {}),
      ...(pinned ? { versions: { sglang: pinned } } : {}),
      diagnostics: true,
      ...(release ? { release } : {}),
      ...(vllm ? { vllm } : {}),
      fileName: absolute,
    });
    const findings = analysis.diagnostics.map(toFinding).sort((a, b) => a.line - b.line || a.column - b.column || a.code.localeCompare(b.code));
    return { path: this.display(absolute), absolute, ...(shown ? { release: shown } : {}), commands: analysis.commands.length, findings };
  }

  private readonly vllmNearby = new Map<string, Promise<ReleaseCandidate[]>>();
  private readonly vllmIndexes = new Map<number, CatalogIndex>();

  /** The vLLM catalog and release of a file's vLLM commands: a tag or pin in it or next to it, else the newest snapshot. */
  private async vllmFor(text: string, absolute: string, b: BundledCatalog): Promise<{ index: CatalogIndex; release: ReleaseContext }> {
    const dir = dirname(absolute);
    let near = this.vllmNearby.get(dir);
    if (!near) {
      near = readVllmPins(dir, absolute).catch(() => []);
      this.vllmNearby.set(dir, near);
    }
    const candidates = [...vllmReleasesInText(text, absolute), ...(await near)];
    const known = b.releases.map((r) => r.version).filter((v) => v !== 'main');
    const { match, release } = vllmReleaseContext(b, chooseRelease(candidates, known, b.newest().release.version));
    let index = this.vllmIndexes.get(match.index);
    if (!index) {
      index = new VllmCatalogIndex(b.catalogFor(match.index), {
        kind: 'bundled',
        label: `bundled catalog of vLLM ${vllmReleaseLabel(match)}`,
        version: match.release.version,
        engine: 'vllm',
      });
      this.vllmIndexes.set(match.index, index);
    }
    return { index, release };
  }

  /** The release choice for one file: --version alone, else what the file and the files near it say. */
  private async choose(text: string, absolute: string): Promise<ReleaseChoice | undefined> {
    const bundled = this.opts.bundled;
    if (!bundled) return undefined;
    let candidates: ReleaseCandidate[];
    if (this.versionCandidate) candidates = [this.versionCandidate];
    else {
      let own: ReleaseCandidate[] = [];
      try {
        own = fromImageTags(text, absolute);
      } catch {
        own = [];
      }
      candidates = [...own, ...(await this.nearbyOf(dirname(absolute)))];
    }
    // Files of one directory mostly share their candidates (the pins near them): choose once for each set.
    const key = JSON.stringify(candidates);
    let choice = this.choices.get(key);
    if (!choice) {
      choice = chooseBundledRelease(bundled, candidates);
      if (this.choices.size > 10_000) this.choices.clear();
      this.choices.set(key, choice);
    }
    return choice;
  }

  /** The catalog a choice judges against, the analysis context and the release as reported (once per choice). */
  private judge(choice: ReleaseChoice | undefined): { index?: CatalogIndex; release?: ReleaseContext; shown?: FileRelease } {
    if (!choice) return this.judgeOnce(choice);
    let hit = this.contexts.get(choice);
    if (!hit) {
      hit = this.judgeOnce(choice);
      this.contexts.set(choice, hit);
    }
    return hit;
  }

  private judgeOnce(choice: ReleaseChoice | undefined): { index?: CatalogIndex; release?: ReleaseContext; shown?: FileRelease } {
    const { bundled, catalog } = this.opts;
    const real: CatalogInUse | undefined = catalog ? { label: catalog.index.meta.label, ...(catalog.version ? { version: catalog.version } : {}) } : undefined;
    if (catalog) {
      const release =
        bundled && choice ? releaseContext(bundled, choice, real) : { version: catalog.version ?? 'unknown', detail: `the catalog in use: ${real!.label}` };
      return { index: catalog.index, release, shown: { version: catalog.version ?? null, source: 'catalog', detail: release.detail } };
    }
    if (!bundled || !choice) return {};
    const release = releaseContext(bundled, choice);
    return {
      index: this.bundledIndex(bundled, choice.chosen.release ?? choice.chosen.version),
      release,
      shown: { version: release.version, source: choice.chosen.source, detail: release.detail },
    };
  }

  /** The bundled catalog of a release (the newest when it is not known), indexed once per release. */
  private bundledIndex(bundled: BundledCatalog, version: string | undefined): CatalogIndex {
    const match = (version ? bundled.match(version) : undefined) ?? bundled.newest();
    let index = this.bundledIndexes.get(match.index);
    if (!index) {
      const v = match.release.version;
      index = new CatalogIndex(bundled.catalogFor(match.index), { kind: 'bundled', label: `bundled catalog of SGLang ${v}`, version: v });
      this.bundledIndexes.set(match.index, index);
    }
    return index;
  }

  /** Release pins in the files near a directory (requirements, lock files, pyproject, images), read once per directory. */
  private nearbyOf(dir: string): Promise<ReleaseCandidate[]> {
    let hit = this.nearby.get(dir);
    if (!hit) {
      const rel = relative(this.opts.cwd, dir);
      const inside = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
      hit = detectWorkspaceReleases(
        {
          listDir: async (p) => fsp.readdir(p),
          readFile: async (p) => {
            const st = await fsp.stat(p);
            return st.isFile() && st.size <= 2 * 1024 * 1024 ? fsp.readFile(p, 'utf8') : undefined;
          },
        },
        dir,
        // As the language server: up to the workspace (here the working directory) when inside it, else three levels.
        { ...(inside ? { root: this.opts.cwd } : { maxLevels: 3 }), maxFiles: 16 },
      ).catch(() => []);
      this.nearby.set(dir, hit);
    }
    return hit;
  }

  /** The nearest `.inference-doctor/rules.json` at or above a directory. */
  private rulesFile(dir: string): Promise<string | undefined> {
    let hit = this.rulesFileOf.get(dir);
    if (!hit) {
      const candidate = join(dir, RULES_FILE);
      hit = fsp.stat(candidate).then(
        (st) => (st.isFile() ? candidate : this.above(dir)),
        () => this.above(dir),
      );
      this.rulesFileOf.set(dir, hit);
    }
    return hit;
  }

  private above(dir: string): Promise<string | undefined> {
    const parent = dirname(dir);
    return parent === dir ? Promise.resolve(undefined) : this.rulesFile(parent);
  }

  /** The built-in rules merged with the workspace's, as the language server merges a folder's file. */
  private async rulesFor(dir: string): Promise<KnownBadRule[]> {
    const file = await this.rulesFile(dir);
    if (!file) return builtinRules().rules;
    let hit = this.rulesOf.get(file);
    if (!hit) {
      hit = fsp.readFile(file, 'utf8').then(
        (text) => {
          const merged = mergeRules(builtinRules(), [parseRulesText(text, file)]);
          const own = merged.errors.filter((e) => e.source !== 'builtin');
          if (own.length) this.opts.onRulesError?.(file, own.map(ruleErrorText));
          return merged.rules;
        },
        (error) => {
          this.opts.onRulesError?.(file, [`cannot read it: ${errorMessage(error)}`]);
          return builtinRules().rules;
        },
      );
      this.rulesOf.set(file, hit);
    }
    return hit;
  }
}

function ruleErrorText(e: RuleError): string {
  return `${e.path}${e.rule ? ` (${e.rule})` : ''}: ${e.message}`;
}
