/**
 * vLLM's environment variables, read statically from a release's `vllm/envs.py`: the annotated
 * names of its `if TYPE_CHECKING:` block (name, type, default), which is where every `VLLM_*`
 * variable is declared with its type. Which variable a flag replaced is our own table (below).
 */
import type { Node, Parser } from 'web-tree-sitter';
import { evaluate, toJson, UNRESOLVED } from '../pyvalue';

export interface VllmEnvVar {
  name: string;
  /** The annotation as written, e.g. "bool", "Optional[str]", 'Literal["auto", "x"]'. */
  type: string;
  default?: unknown;
  /** Literal choices of the annotation, when it has them. */
  choices?: (string | number | boolean | null)[];
  /** 1-based line in envs.py. */
  line: number;
}

/**
 * Backend choices that moved from environment variables to flags (facts read in vLLM's history):
 * the variable keeps working, with a warning, for some releases after the flag exists, and is then
 * removed from envs.py (ignored).
 */
export const VLLM_ENV_REPLACED_BY: Readonly<Record<string, string>> = Object.freeze({
  VLLM_ATTENTION_BACKEND: '--attention-backend',
  VLLM_USE_FLASHINFER_MOE_FP4: '--moe-backend',
  VLLM_USE_FLASHINFER_MOE_FP8: '--moe-backend',
  VLLM_USE_FLASHINFER_MOE_FP16: '--moe-backend',
  VLLM_FLASHINFER_MOE_BACKEND: '--moe-backend',
});

function literalChoices(ann: Node): VllmEnvVar['choices'] {
  // `Literal[…]` reads as a subscript in some positions and as a generic type in annotations
  const sub = ann.descendantsOfType('subscript').find((s) => s?.childForFieldName('value')?.text === 'Literal');
  const gen = ann.descendantsOfType('generic_type').find((g) => g?.namedChildren[0]?.text === 'Literal');
  const args = sub
    ? sub.childrenForFieldName('subscript')
    : (gen?.namedChildren.find((c) => c?.type === 'type_parameter')?.namedChildren.map((t) => (t?.type === 'type' ? t.namedChildren[0] : t)) ?? []);
  if (!args.length) return undefined;
  const out: NonNullable<VllmEnvVar['choices']> = [];
  for (const a of args) {
    if (!a) continue;
    const v = evaluate(a, { lookup: () => UNRESOLVED });
    if (v === UNRESOLVED || (typeof v === 'object' && v !== null)) return undefined;
    out.push(v);
  }
  return out;
}

/** The variables envs.py declares, in file order. */
export function readVllmEnvVars(parser: Parser, source: string): VllmEnvVar[] {
  const tree = parser.parse(source);
  if (!tree) return [];
  const out: VllmEnvVar[] = [];
  try {
    for (const stmt of tree.rootNode.namedChildren) {
      if (stmt?.type !== 'if_statement' || stmt.childForFieldName('condition')?.text !== 'TYPE_CHECKING') continue;
      const body = stmt.childForFieldName('consequence');
      for (const s of body?.namedChildren ?? []) {
        const a = s?.type === 'expression_statement' ? s.namedChildren[0] : undefined;
        if (a?.type !== 'assignment') continue;
        const left = a.childForFieldName('left');
        const ann = a.childForFieldName('type');
        if (left?.type !== 'identifier' || !ann) continue;
        const v: VllmEnvVar = { name: left.text, type: ann.text.replace(/\s+/g, ' '), line: a.startPosition.row + 1 };
        const right = a.childForFieldName('right');
        if (right) {
          const d = evaluate(right, { lookup: () => UNRESOLVED });
          if (d !== UNRESOLVED) v.default = toJson(d);
        }
        const choices = literalChoices(ann);
        if (choices?.length) v.choices = choices;
        out.push(v);
      }
    }
  } finally {
    tree.delete();
  }
  return out;
}
