/** One line of test/corpus/corpus.jsonl: written by build-corpus.ts, read by the accuracy test. */
export interface CorpusCase {
  id: string;
  label: 'ok' | 'degenerate' | 'nan';
  shape: string;
  source?: string;
  text: string;
  finish_reason?: string | null;
  matched_stop?: string | number | null;
  logprobs?: unknown;
  tool_calls?: unknown;
  token0_text?: string;
}
