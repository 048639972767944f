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

/** A GPU by name (see NAMED_GPUS, else a device name as nvidia-smi prints it) or a compute capability (`12.0`, `sm_120`, `120`). */
export function gpuFromArg(text: string): { cc: ComputeCap; label: string; name?: string } | undefined {
  const k = key(text);
  const named = NAMED_GPUS.find((x) => x.id === k);
  if (named) return { cc: named.cc, label: `${named.name} (compute capability ${ccText(named.cc)})`, name: named.name };
  const cc = parseComputeCap(text) ?? parseComputeCap(computeCapabilityOfName(text));
  return cc ? { cc, label: `compute capability ${ccText(cc)}` } : undefined;
}

/** The capability as the rules read it: 12.0 → 12, 10.3 → 10.3. */
export function ccNumber(cc: ComputeCap): number {
  return cc.major + cc.minor / 10;
}

/* Device names as nvidia-smi, torch and logs print them (free text, not the ids above). */

/** Name patterns → compute capability, most specific first (`RTX PRO 6000 Blackwell` before `RTX 6000`). */
const NAME_CC: readonly [RegExp, string][] = [
  [/\bGB10\b|DGX Spark/i, '12.1'],
  [/Quadro\s*RTX\s*\d{4}|TITAN\s*RTX/i, '7.5'],
  [/RTX\s*[2-6]000\s*Ada/i, '8.9'],
  [/RTX\s*PRO\s*\d{4}\s*Blackwell|Blackwell\s+(?:Workstation|Server|Max-Q)|RTX\s*5\d{3}\b|\bRTX\s*50\d0\b/i, '12.0'],
  [/\bG?B300\b/i, '10.3'],
  [/\bG?B200\b|\bB100\b/i, '10.0'],
  [/\bG?H100\b|\bH200\b|\bH800\b|\bH20\b|\bGH200\b/i, '9.0'],
  [/\bL40S?\b|\bL4\b|\bL20\b|RTX\s*40\d0\b|RTX\s*4\d{3}\b/i, '8.9'],
  [/\bA100\b|\bA800\b|\bA30\b/i, '8.0'],
  [/RTX\s*A\d{4}\b|\bA40\b|\bA10G?\b|\bA16\b|\bA2\b|RTX\s*30\d0\b|RTX\s*3\d{3}\b/i, '8.6'],
  [/\bT4\b|RTX\s*20\d0\b/i, '7.5'],
  [/\bV100\b|TITAN\s*V\b/i, '7.0'],
];

export const ROCM_CDNA = /\bMI\s?(?:50|60|100|210|250X?|300[AX]?|308X?|325X?|350X?|355X?)\b|Instinct|\bgfx9(?:08|0a|4[0-9]|50)\b/i;
export const ROCM_RDNA = /Radeon|\bRX\s?\d{4}|\bgfx1[012]\d\d\b|W7[89]00/i;

/** The compute capability a device name implies ("NVIDIA H100 80GB HBM3" → "9.0"), or undefined. */
export function computeCapabilityOfName(name: string | undefined | null): string | undefined {
  if (typeof name !== 'string' || !name) return undefined;
  const n = name.slice(0, 200);
  if (ROCM_CDNA.test(n) || ROCM_RDNA.test(n)) return undefined;
  for (const [re, cc] of NAME_CC) if (re.test(n)) return cc;
  return undefined;
}

/** Is this an AMD name (ROCm reports its own "capabilities" such as 9.4 for gfx942: never read those as NVIDIA's)? */
export function isRocmName(name: string | undefined | null): boolean {
  return typeof name === 'string' && (ROCM_CDNA.test(name) || ROCM_RDNA.test(name) || /\bAMD\b/.test(name));
}
