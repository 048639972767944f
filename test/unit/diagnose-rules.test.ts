/**
 * The bundled diagnosis rules: every file loads with no error, the table is large enough and
 * spread over symptoms and engines, and every rule's cases (built from its sources' facts) judge
 * as the rule says — a test per rule.
 */
import assert from 'node:assert/strict';
import { bundledDiagnosisRules, diagnose, evidenceOfSpec, judgeFinding, symptomsOf, SYMPTOMS } from '../../src/core/diagnose/rules';
import type { Symptom } from '../../src/core/diagnose/rules';

const { rules, errors } = bundledDiagnosisRules();

/** The issue's floor: at least 60 sourced rules on mechanisms. */
const MIN_RULES = 60;

describe('bundled diagnosis rules', () => {
  it('load without errors', () => {
    assert.deepEqual(
      errors.map((e) => `${e.source} ${e.rule ?? ''} ${e.path}: ${e.message}`),
      [],
    );
  });

  it(`hold at least ${MIN_RULES} sourced rules, for both engines, across the symptom classes`, () => {
    assert.ok(rules.length >= MIN_RULES, `${rules.length} rules`);
    for (const engine of ['sglang', 'vllm'] as const) assert.ok(rules.filter((r) => r.engine === engine).length >= 20, engine);
    const bySymptom = new Map<Symptom, number>();
    for (const r of rules) for (const s of r.symptoms) bySymptom.set(s, (bySymptom.get(s) ?? 0) + 1);
    for (const s of ['nan', 'token0-flood', 'gibberish', 'repetition', 'accuracy-drop', 'crash'] as const) {
      assert.ok((bySymptom.get(s) ?? 0) >= 3, `${s}: ${bySymptom.get(s) ?? 0} rules`);
    }
    for (const r of rules) assert.ok(r.sources.length > 0, r.id);
  });

  it('name mechanisms, not single models: few rules need an architecture', () => {
    const byArch = rules.filter((r) => r.when.architecture?.length);
    assert.ok(byArch.length <= Math.ceil(rules.length / 4), `${byArch.length} of ${rules.length} rules key on an architecture`);
  });

  describe('each rule on its cases', () => {
    for (const rule of rules) {
      it(`${rule.id}`, () => {
        for (const c of rule.cases) {
          const ev = evidenceOfSpec(c.given);
          const observed = symptomsOf(ev, c.given.symptom);
          const j = judgeFinding(rule, ev, observed);
          const got = j ? j.finding.confidence : 'none';
          assert.equal(
            got,
            c.expect,
            `${rule.id} case "${c.name}": expected ${c.expect}, got ${got}${j ? `\n  missing: ${j.finding.missing.join(' | ')}` : ''}`,
          );
        }
      });
    }
  });

  it('every rule that matches its own case ranks among the findings of a full diagnosis of that case', () => {
    for (const rule of rules) {
      const c = rule.cases.find((x) => x.expect === 'match')!;
      const d = diagnose(evidenceOfSpec(c.given), { rules, symptom: c.given.symptom, limit: 200 });
      assert.ok(
        d.findings.some((f) => f.id === rule.id),
        `${rule.id} missing from its own case's diagnosis`,
      );
    }
  });

  it('spell every fix flag as a CLI flag and every symptom from the vocabulary', () => {
    for (const r of rules) {
      for (const s of r.symptoms) assert.ok((SYMPTOMS as readonly string[]).includes(s), r.id);
      for (const step of r.fix) for (const flag of Object.keys(step.flags ?? {})) assert.match(flag, /^--?[a-zA-Z]/, `${r.id}: ${flag}`);
    }
  });
});
