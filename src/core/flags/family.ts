/** Groups flags into the families a diagnosis talks about. Order matters: first match wins. */
import type { FlagEntry, FlagFamily } from './types';

const RULES: [FlagFamily, RegExp][] = [
  ['lora', /lora/],
  ['speculative', /speculative|(^|-)spec-|draft|eagle|mtp|ngram|dflash/],
  ['disaggregation', /disagg|(^|-)pd-|bootstrap|transfer-backend|encoder-transfer|(^|-)mooncake|(^|-)nixl/],
  ['moe', /moe|expert|(^|-)ep-|deepep|a2a|eplb|(^|-)ep$/],
  ['kv-cache', /kv-cache|kvcache|hicache|radix|page-size|mem-fraction|max-total-tokens|swa-|mamba|cache-dtype|prefix-cache/],
  ['gemm', /gemm|fp4|fp8|bf16|cublas|cutlass-|deep-gemm|quantization/],
  ['grammar', /grammar|constrained|xgrammar|outlines|llguidance|json-schema|structured|reasoning-parser|tool-call-parser/],
  ['sampling', /sampling|sampler|temperature|top-k|top-p|min-p|penalt|logit|nan/],
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
