/** The reference check: one suspect server against a known-good one on the same greedy prompts. */
export { alignAnswers, countNonFinite, firstDifference, tokenAt, tokenStarts, topKJaccard, NEAR_TIE_NATS } from './align';
export { sideBySide } from './format';
export { COMPARE_PROMPTS, promptSet } from './prompts';
export { askGreedy, greedyBody, judgeAnswer, readAnswer, readTokens } from './request';
export { COMPARE_DEFAULTS, comparePair, runCompare, type CompareOptions, type CompareResult } from './run';
export * from './types';
export { divergenceToken, earlyNeeded, isEarly, judgeRun, runNumbers, THRESHOLDS } from './verdict';
