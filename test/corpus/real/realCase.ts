/** One line of test/corpus/real/outputs.jsonl: a real model output pasted in a public thread. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const REAL_OUTPUTS_FILE = join(__dirname, 'outputs.jsonl');

/** Every real output, in file order. */
export function loadRealCases(): RealCase[] {
  return readFileSync(REAL_OUTPUTS_FILE, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RealCase);
}

export const REAL_LABELS = ['nan', 'degenerate', 'healthy'] as const;

export interface RealCase {
  id: string;
  /** `tune` may be looked at while choosing thresholds; `validation` is only scored. */
  split: 'tune' | 'validation';
  label: (typeof REAL_LABELS)[number];
  shape: string;
  /** The thread the output was pasted in. */
  source: string;
  engine: string;
  /** The output as pasted (JSON/Python escapes decoded, quote markers removed). */
  text: string;
  /** `accuracy`: wrong but fluent; needs a reference answer, so the detector is not scored on it. */
  scope?: 'accuracy';
  finish_reason?: string;
  matched_stop?: string;
  /** The paste itself was cut off. */
  truncated?: true;
  /**
   * The prompt, where the thread shows it (a test's prompt list): a probe knows its prompt, so the
   * detector is given it (a loop the prompt makes too is the prompt's pattern carried on).
   */
  prompt?: string;
  note?: string;
}
