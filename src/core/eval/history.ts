/**
 * Accuracy smoke tests kept beside the probe history (`<dir>/eval-history/`, one file per run,
 * ../history.ts): the report of each finished run, with the answers it names cut to a bound.
 */
import { EntryFiles, type EntryFilesOptions } from '../history';
import { isObj } from '../probe/answer';
import type { EvalReport } from './report';

export interface EvalHistoryEntry {
  id: string;
  serverId: string;
  serverLabel: string;
  startedAt: number;
  report: EvalReport;
  /** The baseline file the run was judged against (its name), when there was one. */
  baselineLabel?: string;
}

export interface EvalHistorySummary {
  id: string;
  serverLabel: string;
  startedAt: number;
  suite: EvalReport['suite'];
  n: number;
  model: string | null;
  accuracy: number | null;
  /** null: not judged (cancelled, failed, nothing graded). */
  pass: boolean | null;
  status: EvalReport['status'];
}

/** Wrong and invalid answers kept per entry (the counts keep the rest). */
export const MAX_NAMED_ANSWERS = 100;

function looksLikeEntry(value: unknown): value is EvalHistoryEntry {
  if (!isObj(value) || !isObj(value.report)) return false;
  const r = value.report;
  return (
    typeof value.id === 'string' &&
    typeof value.serverId === 'string' &&
    typeof value.serverLabel === 'string' &&
    typeof value.startedAt === 'number' &&
    Number.isFinite(value.startedAt) &&
    typeof r.suite === 'string' &&
    typeof r.n === 'number' &&
    typeof r.status === 'string' &&
    isObj(r.counts) &&
    isObj(r.byDifficulty) &&
    isObj(r.interval) &&
    Array.isArray(r.wrongAnswers) &&
    Array.isArray(r.invalidAnswers)
  );
}

export function summariseEval(entry: EvalHistoryEntry): EvalHistorySummary {
  const r = entry.report;
  return {
    id: entry.id,
    serverLabel: entry.serverLabel,
    startedAt: entry.startedAt,
    suite: r.suite,
    n: r.n,
    model: r.model,
    accuracy: r.accuracy,
    pass: r.judgement ? r.judgement.pass : null,
    status: r.status,
  };
}

/** The report with at most MAX_NAMED_ANSWERS wrong and invalid answers each. */
export function boundReport(report: EvalReport): EvalReport {
  return { ...report, wrongAnswers: report.wrongAnswers.slice(0, MAX_NAMED_ANSWERS), invalidAnswers: report.invalidAnswers.slice(0, MAX_NAMED_ANSWERS) };
}

export class EvalHistoryStore extends EntryFiles<EvalHistoryEntry, EvalHistorySummary> {
  constructor(rootDir: string, options: EntryFilesOptions = {}) {
    super(
      rootDir,
      {
        folder: 'eval-history',
        what: 'accuracy test history',
        looksLike: looksLikeEntry,
        summarise: summariseEval,
        bound: (entry) => ({ ...entry, report: boundReport(entry.report) }),
      },
      options,
    );
  }
}
