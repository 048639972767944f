/**
 * The four faces of `inference-doctor check`'s findings: compiler-style text lines, JSON, SARIF
 * 2.1.0 (code scanning) and GitHub Actions workflow commands (annotations). Messages come from
 * workspace files and rule files: the analysis already shows their controls (core/text/foreign),
 * paths get the same here, line breaks cannot start a forged line, and JSON escapes every
 * invisible or reordering character so the parsed value stays exact while the log shows `\u202e`.
 */
import { pathToFileURL } from 'node:url';
import { BIDI_AND_INVISIBLE, showControls } from '../../core/text/foreign';
import type { FileResult, Finding, Severity } from './engine';

export const FORMATS = ['text', 'json', 'sarif', 'github'] as const;
export type Format = (typeof FORMATS)[number];

/** Where the tool is described; the repository of package.json. */
export const INFORMATION_URI = 'https://example.invalid/inference-doctor';
export const TOOL_NAME = 'inference-doctor';

export interface Summary {
  files: number;
  /** Files that could not be read. */
  unreadable: number;
  commands: number;
  errors: number;
  warnings: number;
  info: number;
}

export function summarize(results: readonly FileResult[]): Summary {
  const s: Summary = { files: results.length, unreadable: 0, commands: 0, errors: 0, warnings: 0, info: 0 };
  for (const r of results) {
    if (r.error !== undefined) s.unreadable++;
    s.commands += r.commands;
    for (const f of r.findings) {
      if (f.severity === 'error') s.errors++;
      else if (f.severity === 'warning') s.warnings++;
      else s.info++;
    }
  }
  return s;
}

/** One line: line breaks (and the separators JavaScript counts as such) become spaces. */
function oneLine(s: string): string {
  return s.replace(/\r\n|[\r\n\u2028\u2029\u0085]/g, ' ');
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function summaryLine(s: Summary): string {
  const problems = s.errors + s.warnings + s.info === 0 ? 'no problems' : `${plural(s.errors, 'error')}, ${plural(s.warnings, 'warning')}, ${s.info} info`;
  const unreadable = s.unreadable ? `, ${s.unreadable} unreadable` : '';
  return `${plural(s.files, 'file')}${unreadable}, ${plural(s.commands, 'launch command')}: ${problems}`;
}

// --- text

export function formatText(results: readonly FileResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    const path = oneLine(showControls(r.path));
    for (const f of r.findings) lines.push(`${path}:${f.line}:${f.column}: ${f.severity}: ${oneLine(showControls(f.message))} [${f.code}]`);
  }
  lines.push(summaryLine(summarize(results)));
  return `${lines.join('\n')}\n`;
}

// --- JSON (and SARIF's serialization)

const CONTROLS = new RegExp(BIDI_AND_INVISIBLE.source, 'gu');

/** JSON text in which every invisible or reordering character is a `\uXXXX` escape (the value is unchanged). */
export function safeJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(CONTROLS, (ch) =>
    Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}

export function formatJson(results: readonly FileResult[]): string {
  const files = results.map((r) => ({
    path: r.path,
    ...(r.error !== undefined ? { error: r.error } : {}),
    release: r.release ?? null,
    commands: r.commands,
    findings: r.findings.map((f) => ({
      line: f.line,
      column: f.column,
      endLine: f.endLine,
      endColumn: f.endColumn,
      severity: f.severity,
      code: f.code,
      message: f.message,
      fixes: f.fixes,
      ...(f.href ? { href: f.href } : {}),
    })),
  }));
  return `${safeJson({ files, summary: summarize(results) })}\n`;
}

// --- SARIF 2.1.0

/** One SARIF rule per diagnostic code the analysis gives. */
export const RULE_TEXT: Readonly<Record<string, { short: string; level: SarifLevel }>> = {
  'unknown-flag': { short: 'A flag this SGLang release does not accept.', level: 'error' },
  'renamed-flag': { short: 'A flag under a name this SGLang release does not accept (renamed in another release).', level: 'error' },
  'deprecated-flag': { short: 'A deprecated flag.', level: 'warning' },
  'invalid-choice': { short: "A value that is not one of the flag's choices.", level: 'error' },
  'deprecated-choice': { short: 'A deprecated value of a flag.', level: 'warning' },
  'duplicate-flag': { short: 'A flag given more than once; the last one wins.', level: 'warning' },
  'known-bad': { short: 'A known-bad combination of backend flags, GPU, model or release (NaN, garbage or crashes).', level: 'warning' },
  diagnosis: {
    short: 'A likely cause of broken answers from the diagnosis rules: a kernel path known to fail on this GPU, dtype or release.',
    level: 'warning',
  },
  'release-mismatch': { short: 'The catalog the flags are checked against is of another SGLang release than the file runs.', level: 'note' },
};

type SarifLevel = 'error' | 'warning' | 'note';
const LEVEL: Record<Severity, SarifLevel> = { error: 'error', warning: 'warning', info: 'note' };

/** A path as a URI reference: relative ones by segment (`%SRCROOT%`-based), absolute ones as file: URIs. */
function artifactLocation(path: string): { uri: string; uriBaseId?: string } {
  const absolute = path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
  if (absolute) return { uri: pathToFileURL(path).href };
  return { uri: path.split(/[\\/]/).map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
}

export function sarifLog(results: readonly FileResult[], opts: { cwd: string; version: string }): object {
  const codes = new Set<string>(Object.keys(RULE_TEXT));
  for (const r of results) for (const f of r.findings) codes.add(f.code);
  const ruleIds = [...codes];
  const rules = ruleIds.map((id) => ({
    id,
    name: id.replace(/(^|-)([a-z])/g, (_, __: string, c: string) => c.toUpperCase()),
    shortDescription: { text: RULE_TEXT[id]?.short ?? `Inference Doctor diagnostic ${id}.` },
    defaultConfiguration: { level: RULE_TEXT[id]?.level ?? 'warning' },
    helpUri: INFORMATION_URI,
  }));
  const sarifResults = results.flatMap((r) =>
    r.findings.map((f: Finding) => ({
      ruleId: f.code,
      ruleIndex: ruleIds.indexOf(f.code),
      level: LEVEL[f.severity],
      message: { text: f.message },
      locations: [
        {
          physicalLocation: {
            artifactLocation: artifactLocation(r.path),
            region: { startLine: f.line, startColumn: f.column, endLine: f.endLine, endColumn: f.endColumn },
          },
        },
      ],
      ...(f.fixes.length || f.href ? { properties: { ...(f.fixes.length ? { fixes: f.fixes } : {}), ...(f.href ? { source: f.href } : {}) } } : {}),
    })),
  );
  const notifications = results
    .filter((r) => r.error !== undefined)
    .map((r) => ({
      level: 'error',
      message: { text: `Cannot read ${r.path}: ${r.error}` },
      locations: [{ physicalLocation: { artifactLocation: artifactLocation(r.path) } }],
    }));
  const srcroot = pathToFileURL(opts.cwd).href;
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: TOOL_NAME, informationUri: INFORMATION_URI, version: opts.version, rules } },
        originalUriBaseIds: { '%SRCROOT%': { uri: srcroot.endsWith('/') ? srcroot : `${srcroot}/` } },
        invocations: [{ executionSuccessful: notifications.length === 0, ...(notifications.length ? { toolExecutionNotifications: notifications } : {}) }],
        results: sarifResults,
      },
    ],
  };
}

export function formatSarif(results: readonly FileResult[], opts: { cwd: string; version: string }): string {
  return `${safeJson(sarifLog(results, opts))}\n`;
}

// --- GitHub Actions workflow commands

/** A command's message: `%`, CR and LF escaped (actions/toolkit's escapeData). */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A command's property value: escapeData plus `:` and `,` (actions/toolkit's escapeProperty). */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

const COMMAND: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'notice' };

export function formatGithub(results: readonly FileResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    const file = escapeProperty(showControls(r.path));
    if (r.error !== undefined)
      lines.push(`::error file=${file},title=${escapeProperty(`${TOOL_NAME} check`)}::${escapeData(showControls(`Cannot read ${r.path}: ${r.error}`))}`);
    for (const f of r.findings) {
      const props = [
        `file=${file}`,
        `line=${f.line}`,
        `col=${f.column}`,
        `endLine=${f.endLine}`,
        `endColumn=${f.endColumn}`,
        `title=${escapeProperty(`${TOOL_NAME} ${f.code}`)}`,
      ].join(',');
      lines.push(`::${COMMAND[f.severity]} ${props}::${escapeData(showControls(f.message))}`);
    }
  }
  lines.push(summaryLine(summarize(results)));
  return `${lines.join('\n')}\n`;
}
