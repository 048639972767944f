/**
 * The Quick Health Probe's markdown report. Everything in it but the headings comes from elsewhere: the
 * server's label (typed by the user or taken from a remote host), the server's error messages and the
 * model's answers. Labels, prompts, reasons and errors are escaped so that a markdown preview shows them as
 * text; answers go in a text fence longer than any backtick run in them.
 */
import { codeSpan, escapeMarkdown, longestBacktickRun, showControls } from '../text/foreign';
import type { QuickProbeResult } from './quick';
import { serverWatchText } from './serverText';
import { runOutcome, type RunOutcome } from './outcome';

/** Headings read "Greeting: NaN", "Counting: request failed". */
const HEADING: Record<RunOutcome, string> = { ok: 'OK', degenerate: 'Degenerate', nan: 'NaN', failed: 'request failed', stopped: 'stopped' };

/** How much of each answer the report keeps. */
const REPORT_ANSWER_CHARS = 4000;

export function quickProbeReport(server: { label: string; baseUrl: string }, result: QuickProbeResult): string {
  const lines = [`# Quick Health Probe: ${escapeMarkdown(server.label)}`, '', `${codeSpan(server.baseUrl)} — ${escapeMarkdown(result.summary.message)}`, ''];
  if (result.server) lines.push(`Server: ${escapeMarkdown(serverWatchText(result.server))}`, '');
  for (const item of result.items) {
    const { verdict } = item.result;
    // A failed request has a verdict only on what arrived (often nothing): it says it failed, not "OK".
    lines.push(`## ${escapeMarkdown(item.label)}: ${HEADING[runOutcome(verdict.kind, item.result.status)]}`, '', `Prompt: ${escapeMarkdown(item.prompt)}`, '');
    for (const reason of verdict.reasons) lines.push(`- ${escapeMarkdown(reason.message)} (at character ${reason.offset})`);
    if (item.result.error) lines.push(`- Request problem: ${escapeMarkdown(item.result.error.message)}`);
    const content = showControls(item.result.content.slice(0, REPORT_ANSWER_CHARS));
    const fence = '`'.repeat(Math.max(3, longestBacktickRun(content) + 1));
    lines.push('', fence + 'text', content, fence, '');
  }
  return lines.join('\n');
}
