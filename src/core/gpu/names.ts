/**
 * GPU names a user types (`rtx-pro-6000`, `b200`, `mi300x`) → the compute capability the known-issue
 * rules compare. AMD Instinct parts carry the value ROCm's PyTorch reports as the device capability
 * (gfx942 → 9.4, gfx950 → 9.5), which is what discovery reads on such a host; no rule names those.
 */
import { ccText, parseComputeCap, type ComputeCap } from './gpus';

export interface NamedGpu {
  /** What `--gpu` takes (lower case, dashes). */
  id: string;
  /** Marketing name, for messages. */
  name: string;
  cc: ComputeCap;
  vendor: 'nvidia' | 'amd';
}

const g = (id: string, name: string, major: number, minor: number, vendor: NamedGpu['vendor'] = 'nvidia'): NamedGpu => ({
  id,
  name,
  cc: { major, minor },
  vendor,
});

export const NAMED_GPUS: readonly NamedGpu[] = [
  g('v100', 'Tesla V100', 7, 0),
  g('t4', 'Tesla T4', 7, 5),
  g('a100', 'A100', 8, 0),
  g('a30', 'A30', 8, 0),
  g('a10', 'A10', 8, 6),
  g('a10g', 'A10G', 8, 6),
  g('a40', 'A40', 8, 6),
  g('rtx-a6000', 'RTX A6000', 8, 6),
  g('rtx-3090', 'GeForce RTX 3090', 8, 6),
  g('l4', 'L4', 8, 9),
  g('l40', 'L40', 8, 9),
  g('l40s', 'L40S', 8, 9),
  g('rtx-4090', 'GeForce RTX 4090', 8, 9),
  g('rtx-6000-ada', 'RTX 6000 Ada', 8, 9),
  g('h100', 'H100', 9, 0),
  g('h200', 'H200', 9, 0),
  g('h20', 'H20', 9, 0),
  g('h800', 'H800', 9, 0),
  g('gh200', 'GH200', 9, 0),
  g('b200', 'B200', 10, 0),
  g('gb200', 'GB200', 10, 0),
  g('b300', 'B300', 10, 3),
  g('gb300', 'GB300', 10, 3),
  g('rtx-pro-6000', 'RTX PRO 6000 Blackwell', 12, 0),
  g('rtx-5090', 'GeForce RTX 5090', 12, 0),
  g('rtx-5080', 'GeForce RTX 5080', 12, 0),
  g('dgx-spark', 'DGX Spark (GB10)', 12, 1),
  g('gb10', 'GB10', 12, 1),
  g('mi300x', 'Instinct MI300X', 9, 4, 'amd'),
  g('mi300a', 'Instinct MI300A', 9, 4, 'amd'),
  g('mi325x', 'Instinct MI325X', 9, 4, 'amd'),
  g('mi350x', 'Instinct MI350X', 9, 5, 'amd'),
  g('mi355x', 'Instinct MI355X', 9, 5, 'amd'),
];

/** `RTX PRO 6000`, `rtx_pro_6000`, `NVIDIA H100` → the table's spelling. */
function key(s: string): string {
  return s
    .trim()
    .toLowerCase()
    .replace(/^(nvidia|amd)[\s_-]+/, '')
    .replace(/[\s_]+/g, '-');
}

/** A GPU by name (see NAMED_GPUS) or a compute capability (`12.0`, `sm_120`, `120`). */
export function gpuFromArg(text: string): { cc: ComputeCap; label: string } | undefined {
  const k = key(text);
  const named = NAMED_GPUS.find((x) => x.id === k);
  if (named) return { cc: named.cc, label: `${named.name} (compute capability ${ccText(named.cc)})` };
  const cc = parseComputeCap(text);
  return cc ? { cc, label: `compute capability ${ccText(cc)}` } : undefined;
}

/** The capability as the rules read it: 12.0 → 12, 10.3 → 10.3. */
export function ccNumber(cc: ComputeCap): number {
  return cc.major + cc.minor / 10;
}
