/** Groups flags into the families a diagnosis talks about. Order matters: first match wins. */
import type { FlagEntry, FlagFamily } from './types';

const RULES: [FlagFamily, RegExp][] = [
  ['lora', /lora/],
  ['speculative', /speculative|(^|-)spec-|draft|eagle|mtp|ngram|dflash/],
  ['disaggregation', /disagg|(^|-)pd-|bootstrap|transfer-backend|encoder-transfer|(^|-)mooncake|(^|-)nixl|kv-transfer|(^|-)ec-transfer/],
  ['moe', /moe|expert|(^|-)ep-|deepep|a2a|all2all|eplb|(^|-)ep$/],
  [
    'kv-cache',
    /kv-cache|kvcache|hicache|radix|page-size|mem-fraction|max-total-tokens|swa-|mamba|cache-dtype|prefix-cach|^block-size|gpu-memory-utilization|gpu-blocks|swap-space|kv-offloading|kv-scales|kv-sharing/,
  ],
  ['gemm', /gemm|fp4|fp8|bf16|cublas|cutlass-|deep-gemm|quantization|linear-backend/],
  ['grammar', /grammar|constrained|xgrammar|outlines|llguidance|json-schema|structured|reasoning-parser|tool-call-parser|guided-decoding/],
  ['sampling', /sampling|sampler|temperature|top-k|top-p|min-p|penalt|logit|logprob|nan/],
  ['attention', /attention|attn|(^|-)mla|(^|-)dsa|(^|-)nsa|flashmla|flashinfer|triton-attention|sliding|window|prefill-backend|decode-backend|dsv4/],
];

function slug(entry: Pick<FlagEntry, 'flag' | 'field'>): string {
  return `${entry.flag.replace(/^-+/, '')} ${entry.field.replace(/_/g, '-')}`.toLowerCase();
}

export function familyOf(entry: Pick<FlagEntry, 'flag' | 'field'>): FlagFamily {
  const s = slug(entry);
  for (const [family, re] of RULES) if (re.test(s)) return family;
  return 'other';
}

export const FLAG_FAMILIES: readonly FlagFamily[] = [
  'attention',
  'moe',
  'gemm',
  'kv-cache',
  'sampling',
  'grammar',
  'speculative',
  'lora',
  'disaggregation',
  'other',
];
