/**
 * NaN / degenerate-output detector: plain Node, no VS Code API.
 *
 * - createDetector(): streaming, bounded memory, verdicts never go back to ok.
 * - detect(): one-shot, built on the streaming detector.
 * - detectRecord(): one JSONL record of `inference-doctor detect FILE.jsonl`.
 */
export { createDetector, detect, REASON_KIND } from './detector';
export type { Detector } from './detector';
export { detectRecord, parseJsonLenient, tokensFromLogprobs } from './record';
export type { DetectRecordError, DetectRecordOk, DetectRecordResult } from './record';
export { LIMITS } from './limits';
export * from './types';
