/**
 * Pure analysis of one document: its SGLang launch commands, diagnostics with their quick fixes,
 * known-bad rule matches. No connection, no I/O: the server caches the result per document version
 * and answers hover/completion/code actions from it; benchmarks call it in process.
 */
import { DiagnosticSeverity, type Diagnostic, type Range, type TextEdit } from 'vscode-languageserver';
import { choiceText, fieldFromFlag, type FlagEntry } from '../core/flags';
import { choiceHistoryText, flagHistoryText } from '../core/flags/bundled/query';
import { findLaunchCommands, type FindOptions, type LanguageHint, type LaunchArg, type LaunchCommand } from '../core/launch';
import { envVarStatus } from '../core/flags/vllm/bundled';
import { flagEdits, flagSpan, formatValue, removeEdit, type FlagChange } from '../core/launch/edit';
import { LineIndex } from '../core/lines';
import { competingFixAdvice, matchRules, type KnownBadRule, type RuleFix, type RuleMatchResult } from '../core/rules';
import { DIAGNOSTIC_SOURCE, type DiagnosticCode, type DiagnosticFixData } from '../shared/lspProtocol';
import { closestChoices, type CatalogIndex } from './catalogIndex';
import { showControls } from '../core/text/foreign';
import type { ReleaseContext } from '../core/release/context';
import { fileGpuHint, launchFindings, type CommandFinding, type FileGpuHint } from './launchDiagnosis';

export interface Fix {
  title: string;
  edits: TextEdit[];
  preferred?: boolean;
  /** For a known issue's fix: the same change as flags, so the client can apply it to the running server. */
  changes?: FlagChange[];
  summary?: string;
}
/** What the client reads is typed in lspProtocol; this says the server's fixes are that shape. */
export interface FixData extends DiagnosticFixData {
  fixes: Fix[];
}

export interface RuleEnv {
  rules: KnownBadRule[];
  computeCapability?: number;
  /** Who says the GPU is that one, for "Matches …" in rule messages; default: the selected host. */
  gpuSource?: string;
  versions?: Record<string, string>;
  /** Off: no known-bad diagnostics (hover still lists them). */
  diagnostics?: boolean;
  /** The SGLang release the document is judged against, when known. */
  release?: ReleaseContext;
  /** The document's file name: the GPU it names (image tag, comment, name) stands in for an unknown host's. */
  fileName?: string;
  /** Set by analyzeText from fileName. */
  gpuHint?: FileGpuHint;
  /**
   * Given: the file's vLLM commands are found too, and judged against this vLLM catalog and
   * release (no SGLang rules or diagnosis run on them).
   */
  vllm?: { index?: CatalogIndex; release?: ReleaseContext };
}

export type { ReleaseContext } from '../core/release/context';

export interface ResolvedFlag {
  arg: LaunchArg;
  /** Index of the arg in cmd.args. */
  index: number;
  entry?: FlagEntry;
  abbreviationOf?: string;
  field: string;
}

export interface AnalyzedCommand {
  cmd: LaunchCommand;
  flags: ResolvedFlag[];
  fields: Record<string, unknown>;
  env: Record<string, string>;
  matches: RuleMatchResult[];
  /** Which fix to try first where matched rules disagree (competingFixAdvice), once per analysis. */
  advice?: Map<RuleMatchResult, string>;
  /** Each fully matched built-in rule's fix as flag changes (the first fix that has any), for the hover's Apply link. */
  applicable?: Map<RuleMatchResult, { changes: FlagChange[]; summary: string }>;
  /** Causes from the diagnosis rules whose every condition holds on this command. */
  findings?: CommandFinding[];
  /** A vLLM command's own catalog and release (SGLang commands use the document's). */
  index?: CatalogIndex;
  release?: ReleaseContext;
}

export interface Analysis {
  commands: AnalyzedCommand[];
  diagnostics: Diagnostic[];
  /** The release the document was judged against (for the hover's catalog line). */
  release?: ReleaseContext;
  /** The GPU the checks assumed, for the hover's GPU notes. */
  computeCapability?: number;
}

/** Flag → field map taken from the rules themselves, for checks without a catalog. */
export function ruleFlagFields(rules: KnownBadRule[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const r of rules) {
    for (const f of [r.fix, ...(r.alternatives ?? [])]) {
      for (const s of f.set ?? []) for (const o of [s.flag, ...(s.flagAliases ?? [])]) m.set(o, s.field);
      for (const s of f.remove ?? []) m.set(s.flag, s.field);
    }
  }
  return m;
}

const ruleFieldCache = new WeakMap<KnownBadRule[], { flags: Map<string, string>; fields: Set<string> }>();
function ruleInfo(rules: KnownBadRule[]): { flags: Map<string, string>; fields: Set<string> } {
  let v = ruleFieldCache.get(rules);
  if (!v) {
    const fields = new Set<string>();
    for (const r of rules) for (const k of Object.keys(r.match.fields ?? {})) fields.add(k);
    v = { flags: ruleFlagFields(rules), fields };
    ruleFieldCache.set(rules, v);
  }
  return v;
}

function diag(range: Range, severity: DiagnosticSeverity, code: DiagnosticCode, message: string, fixes: Fix[] = []): Diagnostic {
  // Plain text, but from workspace files and rule files: controls shown so nothing reorders it.
  const d: Diagnostic = { range, severity, code, source: DIAGNOSTIC_SOURCE, message: showControls(message) };
  if (fixes.length) d.data = { fixes } satisfies FixData;
  return d;
}

function renameEdit(f: ResolvedFlag, to: string): TextEdit {
  return { range: f.arg.nameRange ?? f.arg.range, newText: to };
}

/** A rule's fix as flag changes and launch edits: flags are found by dataclass field (any spelling), added under the catalog's name. */
function fixEdits(
  ac: AnalyzedCommand,
  fix: RuleFix,
  index: CatalogIndex | undefined,
  text: string,
  offsetOf: (p: Range['start']) => number,
): { edits: TextEdit[]; changes: FlagChange[] } {
  const fieldOf = new Map<string, string>();
  const changes: FlagChange[] = [];
  for (const s of fix.set ?? []) {
    const flag = index?.byField.get(s.field)?.flag ?? s.flag;
    fieldOf.set(flag, s.field);
    changes.push({
      flag,
      aliases: [s.flag, ...(s.flagAliases ?? [])],
      value: s.value === null ? 'None' : typeof s.value === 'boolean' ? s.value : String(s.value),
    });
  }
  for (const r of fix.remove ?? []) {
    fieldOf.set(r.flag, r.field);
    changes.push({ flag: r.flag, value: false });
  }
  const locate = (c: FlagChange): number | undefined => {
    const field = fieldOf.get(c.flag);
    const names = [c.flag, ...(c.aliases ?? [])];
    let hit: number | undefined;
    for (const f of ac.flags) if (f.field === field || names.includes(f.arg.name ?? '')) hit = f.index;
    return hit;
  };
  return { edits: flagEdits(ac.cmd, text, changes, { locate, offsetOf }), changes };
}

function toValue(f: ResolvedFlag): unknown {
  const vs = f.arg.values ?? [];
  if (vs.some((v) => v.dynamic)) return undefined;
  if (vs.length === 0) {
    if (f.entry?.negations.includes(f.arg.name ?? '')) return false;
    if (f.entry?.action === 'store_false') return false;
    return true;
  }
  return vs.length === 1 ? vs[0].value : vs.map((v) => v.value);
}

/**
 * Known-bad matches judged against the GPU the file names when no host says: a rule for another GPU
 * (an H100 rule on a file for an RTX PRO 6000, any NVIDIA rule on a ROCm image) is dropped; one for
 * this GPU says the file is the reason to believe it.
 */
function judgeByFileGpu(matches: RuleMatchResult[], hint: FileGpuHint, ctx: Parameters<typeof matchRules>[1]): RuleMatchResult[] {
  const out: RuleMatchResult[] = [];
  for (const m of matches) {
    const gpuUnknown = m.unknown.some((u) => u.kind === 'gpu');
    if (!gpuUnknown) {
      out.push(m);
      continue;
    }
    if (hint.family === 'rocm-cdna' || hint.family === 'rocm-rdna') continue;
    if (hint.cc === undefined) {
      out.push(m);
      continue;
    }
    const again = matchRules([m.rule], { ...ctx, computeCapability: hint.cc })[0];
    if (!again) continue;
    const held = { kind: 'gpu' as const, key: 'file-hint', state: 'held' as const, message: `the file is for ${hint.label} (${hint.where})` };
    out.push({ ...m, held: [...m.held, held], unknown: m.unknown.filter((u) => u.kind !== 'gpu') });
  }
  return out;
}

/** Resolve the flags of one command and evaluate the rules against it. */
export function analyzeCommand(cmd: LaunchCommand, index: CatalogIndex | undefined, env: RuleEnv): AnalyzedCommand {
  const info = ruleInfo(env.rules);
  const flags: ResolvedFlag[] = [];
  cmd.args.forEach((arg, i) => {
    if (arg.kind !== 'flag' || !arg.name) return;
    const r = index?.resolve(arg.name);
    const field = r?.entry.field ?? info.flags.get(arg.name) ?? fieldFromFlag(arg.name);
    flags.push({ arg, index: i, entry: r?.entry, abbreviationOf: r?.abbreviationOf, field });
  });
  const fields: Record<string, unknown> = {};
  for (const k of info.fields) fields[k] = null;
  for (const f of flags) {
    const v = toValue(f);
    if (v === undefined) delete fields[f.field];
    else fields[f.field] = v;
  }
  const envRec: Record<string, string> = {};
  for (const e of cmd.env) if (!e.dynamic) envRec[e.name] = e.value;
  const ac: AnalyzedCommand = { cmd, flags, fields, env: envRec, matches: [] };
  if (env.rules.length) {
    const ctx = {
      fields,
      env: envRec,
      engine: 'sglang' as const,
      ...(env.computeCapability !== undefined ? { computeCapability: env.computeCapability } : {}),
      ...(env.versions ? { versions: env.versions } : {}),
    };
    ac.matches = matchRules(env.rules, ctx).filter((m) => m.unknown.every((u) => u.kind === 'gpu' || u.kind === 'version'));
    if (env.computeCapability === undefined && env.gpuHint) ac.matches = judgeByFileGpu(ac.matches, env.gpuHint, ctx);
    ac.advice = competingFixAdvice(ac.matches);
  }
  ac.findings = launchFindings({
    fields,
    env: envRec,
    ...(env.computeCapability !== undefined ? { computeCapability: env.computeCapability } : {}),
    ...(env.versions ? { versions: env.versions } : {}),
    ...(env.gpuHint ? { hint: env.gpuHint } : {}),
  });
  return ac;
}

function flagDiagnostics(ac: AnalyzedCommand, index: CatalogIndex, out: Diagnostic[], release?: ReleaseContext): void {
  const { cmd } = ac;
  const engine = index.meta.engine === 'vllm' ? 'vLLM' : 'SGLang';
  const seen = new Map<FlagEntry | string, ResolvedFlag[]>();
  for (const f of ac.flags) {
    const name = f.arg.name!;
    const nameRange = f.arg.nameRange ?? f.arg.range;
    const key: FlagEntry | string = f.entry ?? name;
    if (!seen.has(key)) seen.set(key, []);
    seen.get(key)!.push(f);
    if (!f.entry) {
      if (/^-\d/.test(name) || name === '--') continue;
      if (historyDiagnostic(f, release, out)) continue;
      // vLLM's fields are per config class (`backend` is in several): no rename guess from a field name
      const renamed = index.meta.engine === 'vllm' ? undefined : index.byField.get(fieldFromFlag(name));
      if (renamed && renamed.flag !== name && !renamed.deprecated) {
        out.push(
          diag(
            nameRange,
            DiagnosticSeverity.Error,
            'renamed-flag',
            `${name} was renamed to ${renamed.flag} in this catalog (${index.meta.label}); this ${engine} rejects the old name.`,
            [{ title: `Rename to ${renamed.flag}`, edits: [renameEdit(f, renamed.flag)], preferred: true }],
          ),
        );
        continue;
      }
      const suggestions = index.suggest(name);
      const hint = suggestions.length ? ` Did you mean ${suggestions.map((s) => `'${s}'`).join(', ')}?` : '';
      out.push(
        diag(
          nameRange,
          DiagnosticSeverity.Error,
          'unknown-flag',
          `Unknown flag ${name} (catalog: ${index.meta.label}).${hint}`,
          suggestions.map((s, i) => ({ title: `Change to ${s}`, edits: [renameEdit(f, s)], preferred: i === 0 })),
        ),
      );
      continue;
    }
    const e = f.entry;
    if (e.deprecated) {
      const repl = e.replacement && /^--?[A-Za-z]/.test(e.replacement) ? e.replacement.split(/\s+/)[0] : undefined;
      out.push(
        diag(
          nameRange,
          DiagnosticSeverity.Warning,
          'deprecated-flag',
          `${name} is deprecated${e.replacement ? `; use ${e.replacement}` : ''}.${e.help ? ` ${firstSentence(e.help)}` : ''}`,
          repl && repl !== name ? [{ title: `Rename to ${repl}`, edits: [renameEdit(f, repl)], preferred: true }] : [],
        ),
      );
    }
    const values = f.arg.values ?? [];
    if (!e.choices?.length) continue;
    const allowed = new Set(e.choices.map(choiceText));
    for (const v of values) {
      if (v.dynamic || v.value === '') continue;
      const dep = e.deprecatedChoices?.find((d) => choiceText(d.value) === v.value);
      if (dep) {
        out.push(
          diag(
            v.range,
            DiagnosticSeverity.Warning,
            'deprecated-choice',
            `${JSON.stringify(v.value)} is a deprecated value of ${e.flag}${dep.replacement ? `; use ${JSON.stringify(dep.replacement)}` : ''}.`,
            dep.replacement
              ? [{ title: `Replace with ${dep.replacement}`, edits: [{ range: v.range, newText: formatValue(dep.replacement, v, cmd.form) }], preferred: true }]
              : [],
          ),
        );
        continue;
      }
      if (allowed.has(v.value)) continue;
      const ranked = closestChoices(v.value, e.choices);
      const severity = e.dynamicChoices ? DiagnosticSeverity.Warning : DiagnosticSeverity.Error;
      const tail = e.dynamicChoices ? ' (this list can grow at run time; check the installed server)' : '';
      const note = release?.bundled && release.releaseIndex !== undefined ? release.bundled.explainChoice(e.field, v.value, release.releaseIndex) : undefined;
      const head = note
        ? `${choiceHistoryText(e.flag, v.value, release!.version, note, engine)} Choose from`
        : `${JSON.stringify(v.value)} is not a valid choice for ${e.flag}: choose from`;
      out.push(
        diag(
          v.range,
          severity,
          'invalid-choice',
          `${head} ${ranked.map(choiceText).join(', ')}${tail}.`,
          ranked.map((c, i) => ({
            title: `Replace with ${choiceText(c)}`,
            edits: [{ range: v.range, newText: formatValue(choiceText(c), v, cmd.form) }],
            preferred: i === 0,
          })),
        ),
      );
    }
  }
  for (const list of seen.values()) duplicates(ac, list, out);
}

/** An unknown flag that another SGLang release has: say which, and offer the rename when there is one. */
function historyDiagnostic(f: ResolvedFlag, release: ReleaseContext | undefined, out: Diagnostic[]): boolean {
  if (!release?.bundled || release.releaseIndex === undefined) return false;
  const name = f.arg.name!;
  const note = release.bundled.explainMissing(name, release.releaseIndex);
  if (!note) return false;
  const to = note.kind === 'renamed' ? note.to : note.kind === 'not-yet-renamed' ? note.from : undefined;
  const code: DiagnosticCode = to ? 'renamed-flag' : 'unknown-flag';
  const fixes = to ? [{ title: `Rename to ${to}`, edits: [renameEdit(f, to)], preferred: true }] : [];
  const text = flagHistoryText(name, release.version, note, release.bundled.engineLabel);
  out.push(diag(f.arg.nameRange ?? f.arg.range, DiagnosticSeverity.Error, code, `${text} (${release.detail})`, fixes));
  return true;
}

/** Once per command: the catalog in use is of another release than the one the file pins. */
function mismatchDiagnostic(ac: AnalyzedCommand, release: ReleaseContext | undefined, out: Diagnostic[]): void {
  if (!release?.mismatch) return;
  out.push(diag(ac.cmd.entryRange, DiagnosticSeverity.Information, 'release-mismatch', release.mismatch));
}

function duplicates(ac: AnalyzedCommand, list: ResolvedFlag[], out: Diagnostic[]): void {
  if (list.length < 2) return;
  const action = list[0].entry?.action;
  if (action === 'append' || action === 'extend' || action === 'count' || action === 'append_const') return;
  // vLLM merges a JSON config flag's parts (`-O3`, `--compilation-config.x=…`) into one value
  if (ac.cmd.engine === 'vllm' && list[0].entry?.type === 'json') return;
  const last = list[list.length - 1];
  for (const f of list.slice(0, -1)) {
    out.push(
      diag(
        f.arg.nameRange ?? f.arg.range,
        DiagnosticSeverity.Warning,
        'duplicate-flag',
        `${f.arg.name} is given again as ${last.arg.name} on line ${last.arg.range.start.line + 1}; the last one wins.`,
        [{ title: `Remove this ${f.arg.name}`, edits: [removeEdit(ac.cmd, f.index)], preferred: true }],
      ),
    );
  }
}

/** A rule source as a URL (`github.com/…` gets https://), or undefined when it is prose. */
export function sourceUrl(source: string | undefined): string | undefined {
  if (!source) return undefined;
  if (/^https?:\/\/\S+$/.test(source)) return source;
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)+\/\S*$/i.test(source)) return `https://${source}`;
  return undefined;
}

function firstSentence(s: string): string {
  const m = /^(.{1,200}?[.!?])(\s|$)/.exec(s);
  return m ? m[1] : s.slice(0, 200);
}

/** Human text of a rule match, shared by the diagnostic and the hover. */
export function ruleMessage(m: RuleMatchResult, advice?: string, gpuSource = 'the selected host'): string {
  const r = m.rule;
  const parts = [`Known issue: ${r.title}. Symptom: ${r.symptom}`];
  const unknown = m.unknown.map((u) => u.message);
  if (unknown.length) parts.push(`Only if: ${unknown.join('; ')}.`);
  // With a GPU known (a selected host, or --gpu), say that it is the one the rule is about.
  const gpu = m.held.find((h) => h.kind === 'gpu');
  if (gpu?.key === 'file-hint') parts.push(`Applies: ${gpu.message}.`);
  else if (gpu) parts.push(`Matches ${gpuSource}: ${gpu.message}.`);
  parts.push(`Fix: ${r.fix.summary}`);
  if (advice) parts.push(advice);
  return parts.join(' ').replace(/\.\./g, '.');
}

function ruleDiagnostics(
  ac: AnalyzedCommand,
  index: CatalogIndex | undefined,
  text: string,
  offsetOf: (p: Range['start']) => number,
  out: Diagnostic[],
  gpuSource: string | undefined,
): void {
  const advice = ac.advice ?? new Map<RuleMatchResult, string>();
  for (const [rank, m] of ac.matches.entries()) {
    let range = ac.cmd.entryRange;
    for (const h of m.held) {
      if (h.kind !== 'field') continue;
      let hit: ResolvedFlag | undefined;
      for (const f of ac.flags) if (f.field === h.key) hit = f;
      if (hit) {
        range = flagSpan(hit.arg);
        break;
      }
    }
    const fixes: Fix[] = [];
    for (const [i, fix] of [m.rule.fix, ...(m.rule.alternatives ?? [])].entries()) {
      const { edits, changes } = fixEdits(ac, fix, index, text, offsetOf);
      // Of rules that disagree, only the one to try first offers the preferred fix.
      const preferred = i === 0 && (!advice.has(m) || rank === ac.matches.findIndex((x) => advice.has(x)));
      if (edits.length) fixes.push({ title: `Apply fix: ${fix.summary}`, edits, preferred, changes, summary: fix.summary });
    }
    // Only a full match of a built-in rule gets the hover's one-click link: a workspace's rule text
    // may be anyone's, and a rule that only might apply is for reading first.
    const withChanges = fixes.find((f) => f.changes?.length);
    if (withChanges?.changes && m.rule.origin === 'builtin' && m.status === 'match')
      (ac.applicable ??= new Map()).set(m, { changes: withChanges.changes, summary: withChanges.summary ?? '' });
    const d = diag(range, DiagnosticSeverity.Warning, 'known-bad', ruleMessage(m, advice.get(m), gpuSource), fixes);
    const href = sourceUrl(m.rule.sources[0]);
    if (href) d.codeDescription = { href };
    out.push(d);
  }
}

/** The first fix step of a diagnosis finding as a known-bad fix, for the same edits and changes. */
function stepAsFix(step: CommandFinding['finding']['fix']['steps'][number], index: CatalogIndex | undefined): RuleFix | undefined {
  const set: NonNullable<RuleFix['set']> = [];
  for (const [flag, value] of Object.entries(step.flags ?? {})) {
    const field = index?.resolve(flag)?.entry.field ?? fieldFromFlag(flag);
    set.push({ flag, field, value: typeof value === 'number' ? String(value) : value });
  }
  return set.length ? { summary: step.note, set } : undefined;
}

/** Text of a finding as a diagnostic: the cause, why, and the first thing to try. */
export function findingMessage(f: CommandFinding['finding']): string {
  const first = f.fix.steps[0];
  const change = first
    ? Object.entries(first.flags ?? {})
        .map(([k, v]) => (v === true ? k : `${k} ${String(v)}`))
        .join(' ')
    : '';
  const guessed = f.evidence.filter((e) => e.stance === 'against' && e.text.startsWith('only guessed')).map((e) => e.text.replace(/^only guessed: /, ''));
  const parts = [`Likely cause of ${f.symptoms.join('/')} answers: ${f.title}.`, firstSentence(f.mechanism)];
  if (guessed.length) parts.push(`Read from hints: ${guessed.join('; ')}.`);
  if (first) parts.push(`Try first: ${change ? `${change} (${first.note})` : first.note}`);
  return parts.join(' ');
}

function findingDiagnostics(
  ac: AnalyzedCommand,
  index: CatalogIndex | undefined,
  text: string,
  offsetOf: (p: Range['start']) => number,
  out: Diagnostic[],
): void {
  for (const cf of ac.findings ?? []) {
    let hit: ResolvedFlag | undefined;
    for (const f of ac.flags) if (cf.fields.includes(f.field)) hit = f;
    const range = hit ? flagSpan(hit.arg) : ac.cmd.entryRange;
    // A known-bad warning on the same flag already says it: one warning per flag.
    if (out.some((d) => d.code === 'known-bad' && d.range.start.line === range.start.line && d.range.start.character === range.start.character)) continue;
    const fixes: Fix[] = [];
    const step = cf.finding.fix.steps.find((s) => s.flags && Object.keys(s.flags).length);
    const fix = step ? stepAsFix(step, index) : undefined;
    if (fix) {
      const { edits, changes } = fixEdits(ac, fix, index, text, offsetOf);
      if (edits.length)
        fixes.push({
          title: `Apply fix: ${Object.entries(step!.flags!)
            .map(([k, v]) => `${k} ${String(v)}`)
            .join(' ')}`,
          edits,
          changes,
          summary: fix.summary,
        });
    }
    const d = diag(range, DiagnosticSeverity.Warning, 'diagnosis', findingMessage(cf.finding), fixes);
    const href = sourceUrl(cf.finding.sources[0]);
    if (href) d.codeDescription = { href };
    out.push(d);
  }
}

/** A vLLM command's flags resolved against its catalog; no rules (they are written for SGLang). */
function analyzeVllmCommand(cmd: LaunchCommand, index: CatalogIndex | undefined, release: ReleaseContext | undefined): AnalyzedCommand {
  const flags: ResolvedFlag[] = [];
  cmd.args.forEach((arg, i) => {
    if (arg.kind !== 'flag' || !arg.name) return;
    const r = index?.resolve(arg.name);
    flags.push({ arg, index: i, entry: r?.entry, abbreviationOf: r?.abbreviationOf, field: r?.entry.field ?? fieldFromFlag(arg.name) });
  });
  const fields: Record<string, unknown> = {};
  for (const f of flags) {
    const v = toValue(f);
    if (v !== undefined) fields[f.field] = v;
  }
  const envRec: Record<string, string> = {};
  for (const e of cmd.env) if (!e.dynamic) envRec[e.name] = e.value;
  return { cmd, flags, fields, env: envRec, matches: [], ...(index ? { index } : {}), ...(release ? { release } : {}) };
}

/** `VLLM_ATTENTION_BACKEND=…` where the release has the flag that replaced it: deprecated, or no longer read at all. */
function vllmEnvDiagnostics(ac: AnalyzedCommand, release: ReleaseContext | undefined, seen: Set<string>, out: Diagnostic[]): void {
  const b = release?.bundled;
  if (!b || release.releaseIndex === undefined) return;
  for (const e of ac.cmd.env) {
    if (!e.name.startsWith('VLLM_')) continue;
    const key = `${e.nameRange.start.line}:${e.nameRange.start.character}`;
    if (seen.has(key)) continue;
    const st = envVarStatus(b, e.name, release.releaseIndex);
    if (st.state !== 'deprecated' && st.state !== 'ignored') continue;
    seen.add(key);
    const message =
      st.state === 'deprecated'
        ? `${e.name} is deprecated in vLLM ${release.version}: use ${st.replacement} (a flag since ${st.flagSince}). (${release.detail})`
        : `vLLM ${release.version} no longer reads ${e.name} (last read in ${st.lastIn}): it is ignored; use ${st.replacement}. (${release.detail})`;
    out.push(diag(e.nameRange, DiagnosticSeverity.Warning, 'deprecated-env', message));
  }
}

/** Launch commands of `text` with diagnostics. Never throws (returns what it has). */
export function analyzeText(text: string, hint: LanguageHint, index: CatalogIndex | undefined, env: RuleEnv): Analysis {
  const vllm = env.vllm;
  const options: FindOptions = vllm
    ? { engines: ['sglang', 'vllm'], flagArity: (n, engine) => (engine === 'vllm' ? vllm.index?.arity(n) : index?.arity(n)) }
    : index
      ? { flagArity: (n) => index.arity(n) }
      : {};
  const commands = findLaunchCommands(text, hint, options);
  if (commands.length && env.computeCapability === undefined && env.fileName && !env.gpuHint) {
    const gpuHint = fileGpuHint(text, env.fileName);
    if (gpuHint) env = { ...env, gpuHint };
  }
  const out: Analysis = {
    commands: [],
    diagnostics: [],
    ...(env.release ? { release: env.release } : {}),
    ...(env.computeCapability !== undefined ? { computeCapability: env.computeCapability } : {}),
  };
  let offsetOf: ((p: Range['start']) => number) | undefined;
  const envSeen = new Set<string>();
  for (const cmd of commands) {
    if (cmd.engine === 'vllm') {
      try {
        const ac = analyzeVllmCommand(cmd, vllm?.index, vllm?.release);
        out.commands.push(ac);
        if (vllm?.index) flagDiagnostics(ac, vllm.index, out.diagnostics, vllm.release);
        vllmEnvDiagnostics(ac, vllm?.release, envSeen, out.diagnostics);
      } catch {
        // keep the other commands
      }
      continue;
    }
    try {
      const ac = analyzeCommand(cmd, index, env);
      out.commands.push(ac);
      if (index) flagDiagnostics(ac, index, out.diagnostics, env.release);
      mismatchDiagnostic(ac, env.release, out.diagnostics);
      if (env.diagnostics !== false && ac.matches.length) {
        if (!offsetOf) {
          const lines = new LineIndex(text);
          offsetOf = (p) => lines.offset(p);
        }
        ruleDiagnostics(ac, index, text, offsetOf, out.diagnostics, env.gpuSource);
      }
      if (env.diagnostics !== false && ac.findings?.length) {
        if (!offsetOf) {
          const lines = new LineIndex(text);
          offsetOf = (p) => lines.offset(p);
        }
        findingDiagnostics(ac, index, text, offsetOf, out.diagnostics);
      }
    } catch {
      // keep the other commands
    }
  }
  return out;
}
