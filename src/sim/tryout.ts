/**
 * The scenario the extension's "Try the Simulator" command serves: one model name per thing a
 * new user should see the probe catch, the seed's NaN first (the probe panel picks the first
 * model /v1/models lists). Tokens come at a readable pace so the marks appear while they stream.
 */
import type { Scenario } from './scenario';

/** Between tokens: about 60 tokens a second, slow enough to watch the panel mark the stream. */
const TOKEN_DELAY_MS = 16;

export const TRYOUT_SCENARIO: Scenario = {
  name: 'tryout',
  description: 'Inference Doctor tryout: a healthy model and the broken answers the probe catches, on this machine, no GPU.',
  seed: 7,
  models: {
    'broken-nan-logits': { behaviour: 'nan-marker', logprobs: 'nan', tokenDelayMs: TOKEN_DELAY_MS },
    // Healthy text for any prompt, and right answers to the accuracy smoke test's problems.
    healthy: { behaviour: 'arithmetic', wrongRate: 0, tokenDelayMs: TOKEN_DELAY_MS },
    'broken-token-salad': { behaviour: 'token-salad', tokenDelayMs: TOKEN_DELAY_MS },
    'broken-sentence-loop': { behaviour: 'sentence-loop', tokenDelayMs: TOKEN_DELAY_MS },
    'broken-symbol-flood': { behaviour: 'symbol-flood', tokenDelayMs: TOKEN_DELAY_MS },
    'broken-runaway-template': { behaviour: 'runaway-template', tokenDelayMs: TOKEN_DELAY_MS },
    'suspect-spliced-token': { behaviour: 'spliced-token', tokenDelayMs: TOKEN_DELAY_MS },
    // Reads well and answers every accuracy problem wrong: only the accuracy smoke test finds it.
    'fluent-but-wrong': { behaviour: 'arithmetic', wrongRate: 1, tokenDelayMs: TOKEN_DELAY_MS },
  },
};
