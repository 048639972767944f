/**
 * What a backend sweep can vary, without VS Code: the flags the known issues on a launch file
 * name (from its diagnostics' fix data), the catalog's backend flags with their choices, each
 * flag's value in the launch command, and the edit that writes a swept row into the file.
 */
import type { BundledCatalog } from '../core/flags/bundled/query';
import { familyOf } from '../core/flags/family';
import { vllmReleaseContext } from '../core/flags/vllm/bundled';
import { chooseRelease } from '../core/release/detect';
import { vllmReleasesInText } from '../core/release/vllm';
import { choiceText, type FlagEntry } from '../core/flags/types';
import { findLaunchCommands, flagValue, type LanguageHint, type LaunchCommand } from '../core/launch';
import { EDITABLE_ENGINES, launchEdits, type FlagChange, type TextEdit } from '../core/launch/edit';
import type { SweepAxis, SweepRow } from '../core/fix/sweep';
import { DIAGNOSTIC_SOURCE, type DiagnosticFix } from '../shared/lspProtocol';
import type { SweepAxisView } from '../shared/sweepProtocol';

/** The part of a diagnostic this module reads (vscode.Diagnostic and LSP's both fit). */
export interface DiagnosticLike {
  source?: string;
  code?: string | number | { value: string | number } | undefined;
  data?: unknown;
}

/** A flag a known issue's fix changes, with the values its fixes set and why. */
export interface FlagSuggestion {
  flag: string;
  aliases: string[];
  values: string[];
  /** The fixes' one-line summaries ("Use the cuDNN FP4 GEMM"). */
  why: string[];
}

const codeOf = (d: DiagnosticLike): string | number | undefined => (typeof d.code === 'object' ? d.code.value : d.code);

function isFlagChange(v: unknown): v is FlagChange {
  const c = v as Partial<FlagChange> | null;
  return !!c && typeof c.flag === 'string' && (typeof c.value === 'string' || typeof c.value === 'boolean');
}

/** The fixes of a diagnostic's data; anything malformed is left out (the data crossed a process boundary). */
function fixesOf(data: unknown): DiagnosticFix[] {
  const fixes = (data as { fixes?: unknown } | null)?.fixes;
  if (!Array.isArray(fixes)) return [];
  return fixes.filter((f): f is DiagnosticFix => !!f && typeof (f as DiagnosticFix).title === 'string');
}

/** The flags that known-bad diagnostics' fixes set to a value, in the order the diagnostics come. */
export function knownIssueSuggestions(diagnostics: readonly DiagnosticLike[]): FlagSuggestion[] {
  const out = new Map<string, FlagSuggestion>();
  for (const d of diagnostics) {
    if (d.source !== DIAGNOSTIC_SOURCE || codeOf(d) !== 'known-bad') continue;
    for (const fix of fixesOf(d.data)) {
      const changes: unknown[] = Array.isArray(fix.changes) ? fix.changes : [];
      for (const c of changes) {
        // A sweep varies values; adding or removing a bare flag is not a choice of backend.
        if (!isFlagChange(c) || typeof c.value !== 'string') continue;
        const s = out.get(c.flag) ?? { flag: c.flag, aliases: [], values: [], why: [] };
        for (const a of Array.isArray(c.aliases) ? c.aliases : []) if (typeof a === 'string' && !s.aliases.includes(a)) s.aliases.push(a);
        if (!s.values.includes(c.value)) s.values.push(c.value);
        if (typeof fix.summary === 'string' && !s.why.includes(fix.summary)) s.why.push(fix.summary);
        out.set(c.flag, s);
      }
    }
  }
  return [...out.values()];
}

/** One flag the sweep can vary. */
export interface SweepFlagOption {
  flag: string;
  aliases: string[];
  /** Every value the user may pick: the catalog's choices, else what the fixes and the file name. */
  choices: string[];
  /** Its value in the launch command now (absent: not written, the server's default). */
  current?: string;
  /** Values a known issue's fix sets; non-empty means the flag is suggested. */
  suggestedValues: string[];
  why: string[];
  help?: string;
}

const BACKEND_FAMILIES = new Set(['attention', 'moe', 'gemm', 'kv-cache', 'sampling', 'grammar', 'speculative']);

/** A flag with a choice of backends or kernels (what a sweep is for), not a size or a path. */
function isBackendFlag(e: FlagEntry): boolean {
  const choices = e.choices ?? [];
  if (choices.length < 2 || choices.every((c) => typeof c === 'boolean')) return false;
  return /backend|runner|kernel|algorithm|impl/.test(e.flag) || BACKEND_FAMILIES.has(familyOf(e));
}

/**
 * The flags of the bundled vLLM release a vLLM launch file runs (its image tag or `vllm==` pin in
 * the file, else the newest snapshot), as the language server judges it: what a vLLM sweep offers.
 */
export function vllmSweepEntries(bundled: BundledCatalog, text: string, fileName: string): FlagEntry[] {
  const known = bundled.releases.map((r) => r.version).filter((v) => v !== 'main');
  const choice = chooseRelease(vllmReleasesInText(text, fileName), known, bundled.newest().release.version);
  return bundled.catalogFor(vllmReleaseContext(bundled, choice).match.index).entries;
}

/** The first launch command of a file's text, if any. */
export function launchCommandOf(text: string, hint: LanguageHint): LaunchCommand | undefined {
  return findLaunchCommands(text, hint, { engines: EDITABLE_ENGINES })[0];
}

/** A flag's value in the command under any of its spellings (the last occurrence wins, as in argparse). */
export function currentValue(cmd: LaunchCommand | undefined, names: string[]): string | undefined {
  const v = cmd ? flagValue(cmd, ...names) : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** The flags to offer, suggested ones first (in the order their issues come), then the catalog's backend flags by name. */
export function sweepFlagOptions(entries: readonly FlagEntry[], suggestions: readonly FlagSuggestion[], cmd: LaunchCommand | undefined): SweepFlagOption[] {
  const names = (e: Pick<FlagEntry, 'flag' | 'aliases'>): string[] => [e.flag, ...e.aliases];
  const entryOf = (s: FlagSuggestion): FlagEntry | undefined => entries.find((e) => names(e).some((n) => n === s.flag || s.aliases.includes(n)));
  const out: SweepFlagOption[] = [];
  const seen = new Set<string>();
  for (const s of suggestions) {
    const e = entryOf(s);
    const flag = e?.flag ?? s.flag;
    if (seen.has(flag)) continue;
    seen.add(flag);
    const aliases = [...new Set([...(e?.aliases ?? []), ...s.aliases, ...(e && e.flag !== s.flag ? [s.flag] : [])])];
    const current = currentValue(cmd, [flag, ...aliases]);
    const known = (e?.choices ?? []).map(choiceText);
    const choices = [...new Set([...known, ...s.values, ...(current !== undefined ? [current] : [])])];
    out.push({
      flag,
      aliases,
      choices,
      ...(current !== undefined ? { current } : {}),
      suggestedValues: s.values,
      why: s.why,
      ...(e?.help ? { help: e.help } : {}),
    });
  }
  const rest = entries.filter((e) => !seen.has(e.flag) && !e.deprecated && isBackendFlag(e)).sort((a, b) => a.flag.localeCompare(b.flag));
  for (const e of rest) {
    const current = currentValue(cmd, names(e));
    const choices = [...new Set([...(e.choices ?? []).map(choiceText), ...(current !== undefined ? [current] : [])])];
    out.push({
      flag: e.flag,
      aliases: e.aliases,
      choices,
      ...(current !== undefined ? { current } : {}),
      suggestedValues: [],
      why: [],
      ...(e.help ? { help: e.help } : {}),
    });
  }
  return out;
}

/** The values preselected for a flag: the current one (the baseline row) and what the fixes suggest. */
export function preselectedValues(option: SweepFlagOption): string[] {
  return option.choices.filter((c) => c === option.current || option.suggestedValues.includes(c));
}

/** The matrix's column heads: each axis with its value in the launch command before the sweep. */
export function axisViews(axes: readonly SweepAxis[], cmd: LaunchCommand | undefined): SweepAxisView[] {
  return axes.map((a) => {
    const current = currentValue(cmd, [a.flag, ...(a.aliases ?? [])]);
    return { flag: a.flag, values: [...a.values], ...(current !== undefined ? { current } : {}) };
  });
}

/** A row's flags as changes to the launch command (each under its axis's spellings). */
export function rowChanges(axes: readonly SweepAxis[], row: Pick<SweepRow, 'flags'>): FlagChange[] {
  return axes.flatMap((a) => {
    const value = row.flags[a.flag];
    return typeof value === 'string' ? [{ flag: a.flag, ...(a.aliases?.length ? { aliases: a.aliases } : {}), value }] : [];
  });
}

/**
 * The edits that write `changes` into the launch command of `text`, through the launch parser;
 * empty when the command already says so. Throws when the text holds no launch command.
 */
export function proposedLaunchEdits(text: string, hint: LanguageHint, changes: FlagChange[]): TextEdit[] {
  const cmd = launchCommandOf(text, hint);
  if (!cmd) throw new Error('No SGLang or vLLM launch command in the file any more');
  const needed = changes.filter((c) => typeof c.value !== 'string' || currentValue(cmd, [c.flag, ...(c.aliases ?? [])]) !== c.value);
  return needed.length ? launchEdits(cmd, text, needed) : [];
}
