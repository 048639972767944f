/**
 * NaN / degenerate-output detector: plain Node, no VS Code API.
 *
 * - createDetector(): streaming, bounded memory, verdicts never go back to ok.
 * - detect(): one-shot, built on the streaming detector.
 * - detectRecords(): the answers of one JSONL line of `inference-doctor detect FILE.jsonl` (a record or a saved response); detectRecord(), the first.
 */
export { createDetector, detect, REASON_KIND } from './detector';
export type { Detector } from './detector';
export { detectRecord, detectRecords, parseJsonLenient, recordResult, tokensFromLogprobs } from './record';
export type { DetectRecordError, DetectRecordOk, DetectRecordResult } from './record';
export { LIMITS } from './limits';
export * from './types';
