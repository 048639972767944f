/**
 * The bundled diagnosis rules (rules/diagnosis/*.json), checked against rule.schema.json and a
 * few things a schema cannot say: version specifiers parse, patterns compile, ids are unique, each
 * rule has a case that matches and one that rules it out. A bad rule is dropped with an error; the
 * others load.
 */
import kernelRules from '../../../../rules/diagnosis/kernels.json';
import sglangRules from '../../../../rules/diagnosis/sglang.json';
import vllmRules from '../../../../rules/diagnosis/vllm.json';
import schemaData from '../../../../rules/diagnosis/rule.schema.json';
import { parseSpecifier } from '../../release/version';
import { validate, type Schema } from '../../rules/schema';
import { safeRegex } from './judge';
import type { DiagnosisRule } from './types';

export const diagnosisRuleSchema = schemaData as Schema;

export interface DiagnosisRuleError {
  source: string;
  rule?: string;
  path: string;
  message: string;
}

function semanticErrors(rule: DiagnosisRule): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  for (const [pkg, spec] of Object.entries(rule.when.versions ?? {})) {
    if (typeof spec === 'string' && !parseSpecifier(spec)) out.push({ path: `/when/versions/${pkg}`, message: `cannot parse specifier ${JSON.stringify(spec)}` });
  }
  for (const [i, re] of (rule.when.architecture ?? []).entries()) {
    if (!safeRegex(re)) out.push({ path: `/when/architecture/${i}`, message: `pattern ${JSON.stringify(re)} does not compile` });
  }
  const cc = rule.when.gpu?.cc;
  if (cc?.min && cc.max && Number(cc.min) > Number(cc.max)) out.push({ path: '/when/gpu/cc', message: `min ${cc.min} is above max ${cc.max}` });
  if (!rule.cases.some((c) => c.expect === 'match')) out.push({ path: '/cases', message: 'no case that matches' });
  if (!rule.cases.some((c) => c.expect === 'none')) out.push({ path: '/cases', message: 'no case that rules the cause out' });
  for (const [i, step] of rule.fix.entries()) {
    if (!step.flags && !step.env && !step.packages && step.note.length < 10) out.push({ path: `/fix/${i}`, message: 'a step with nothing to do' });
  }
  return out;
}

/** Validates a parsed rule file: each rule on its own, so one bad rule is dropped and the rest load. */
export function loadDiagnosisRules(data: unknown, source: string): { rules: DiagnosisRule[]; errors: DiagnosisRuleError[] } {
  const errors: DiagnosisRuleError[] = [];
  const rules: DiagnosisRule[] = [];
  if (!Array.isArray(data)) return { rules, errors: [{ source, path: '/', message: 'a rule file is a JSON array of rules' }] };
  const ruleSchema = { ...diagnosisRuleSchema, $ref: '#/$defs/rule' } as Schema;
  delete (ruleSchema as Record<string, unknown>).type;
  delete (ruleSchema as Record<string, unknown>).items;
  const ids = new Set<string>();
  data.forEach((raw, i) => {
    const id = typeof (raw as { id?: unknown })?.id === 'string' ? (raw as { id: string }).id : String(i);
    const schemaErrors = validate(ruleSchema, raw);
    if (schemaErrors.length) {
      for (const e of schemaErrors) errors.push({ source, rule: id, path: `/${i}${e.path === '/' ? '' : e.path}`, message: e.message });
      return;
    }
    const rule = raw as DiagnosisRule;
    const sem = semanticErrors(rule);
    if (ids.has(rule.id)) sem.push({ path: '/id', message: `duplicate id ${rule.id}` });
    if (sem.length) {
      for (const e of sem) errors.push({ source, rule: id, path: `/${i}${e.path}`, message: e.message });
      return;
    }
    ids.add(rule.id);
    rules.push(rule);
  });
  return { rules, errors };
}

let bundled: { rules: DiagnosisRule[]; errors: DiagnosisRuleError[] } | undefined;

/** The rules shipped with the extension, loaded once. */
export function bundledDiagnosisRules(): { rules: DiagnosisRule[]; errors: DiagnosisRuleError[] } {
  if (!bundled) {
    const files: [unknown, string][] = [
      [kernelRules, 'rules/diagnosis/kernels.json'],
      [sglangRules, 'rules/diagnosis/sglang.json'],
      [vllmRules, 'rules/diagnosis/vllm.json'],
    ];
    const seen = new Set<string>();
    bundled = { rules: [], errors: [] };
    for (const [data, source] of files) {
      const r = loadDiagnosisRules(data, source);
      bundled.errors.push(...r.errors);
      for (const rule of r.rules) {
        if (seen.has(rule.id)) bundled.errors.push({ source, rule: rule.id, path: '/id', message: `duplicate id ${rule.id}` });
        else {
          seen.add(rule.id);
          bundled.rules.push(rule);
        }
      }
    }
  }
  return bundled;
}
