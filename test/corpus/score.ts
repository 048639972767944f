/** Recall and false-positive rate of a flagging rule on labelled cases, shared by the corpus tests and the bench. */
import { deflateSync } from 'node:zlib';

export interface Score {
  recall: number;
  fpr: number;
  tp: number;
  fn: number;
  fp: number;
  tn: number;
}

/** `broken`: the case is labelled broken; `flagged`: the rule flagged it. */
export function score(pairs: Iterable<{ broken: boolean; flagged: boolean }>): Score {
  let tp = 0;
  let fn = 0;
  let fp = 0;
  let tn = 0;
  for (const p of pairs) {
    if (!p.broken) {
      if (p.flagged) fp++;
      else tn++;
    } else if (p.flagged) tp++;
    else fn++;
  }
  return { recall: tp / (tp + fn), fpr: fp / (fp + tn), tp, fn, fp, tn };
}

/** Whisper's rule, the baseline: zlib compression ratio of the whole text above 2.4. */
export function whisperFlags(text: string): boolean {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return false;
  return bytes.length / deflateSync(bytes).length > 2.4;
}
