/**
 * The "installed SGLang vs server_args.py" (or "installed vLLM vs the bundled facts of its release")
 * markdown document. Its values come from an interpreter on a host (version, install path, warnings
 * that quote Python's stderr) and from flag names and messages built from that parser's output: all
 * of it is escaped, so a markdown preview shows text and no link or image.
 */
import { codeSpan, escapeMarkdown } from '../text/foreign';
import { ENGINE_RUNTIME, type FlagDifference, type RuntimeCatalog } from './runtime';

export function flagDifferencesReport(hostLabel: string, rt: RuntimeCatalog, differences: readonly FlagDifference[], staticLabel = 'server_args.py'): string {
  const { label, helpModule } = ENGINE_RUNTIME[rt.install.engine === 'vllm' ? 'vllm' : 'sglang'];
  const readBy = rt.source === 'dump' ? `${label}'s own parser` : `python -m ${helpModule} --help`;
  const lines = [
    `# Flags of the installed ${label} vs ${escapeMarkdown(staticLabel)}`,
    '',
    `- Interpreter: ${codeSpan(rt.python)} on ${escapeMarkdown(hostLabel)}`,
    `- ${label}: ${escapeMarkdown(rt.version ?? 'unknown version')} (${escapeMarkdown(rt.install.packageDir ?? '?')})`,
    `- Read by: ${readBy}`,
    '',
  ];
  for (const warning of rt.warnings) lines.push(`> ${escapeMarkdown(warning)}`, '');
  if (!differences.length) lines.push('No differences.');
  for (const d of differences) lines.push(`- **${d.kind}** ${codeSpan(d.flag)} — ${escapeMarkdown(d.message)}`);
  return lines.join('\n');
}
