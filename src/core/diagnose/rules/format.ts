/**
 * A diagnosis as text for a terminal, an agent or a notification, and as the JSON the CLI prints
 * (`{"findings":[{"id","title","confidence","score","evidence","missing","fix","sources"}]}`).
 */
import type { Diagnosis, Finding } from './engine';

function fixLine(step: Finding['fix']['steps'][number]): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(step.flags ?? {})) parts.push(v === true ? k : `${k} ${String(v)}`);
  for (const [k, v] of Object.entries(step.env ?? {})) parts.push(v === null ? `unset ${k}` : `${k}=${v}`);
  for (const p of step.packages ?? []) parts.push(`${p.action} ${p.name}${p.specifier ? ` ${p.specifier}` : ''}`);
  return parts.length ? `${parts.join(' ')} — ${step.note}` : step.note;
}

export function formatDiagnosisText(d: Diagnosis, notes: readonly string[] = []): string {
  const lines: string[] = [];
  lines.push(d.symptoms.length ? `Symptoms: ${d.symptoms.map((s) => `${s.symptom} (${s.from})`).join(', ')}` : 'Symptoms: none seen or given (say one with --symptom)');
  for (const n of notes) lines.push(`Note: ${n}`);
  if (!d.findings.length) {
    lines.push('', `No cause in the ${d.rulesJudged} rules fits what is known.`);
    lines.push('Give more evidence: the startup log (--log), the GPU (--gpu or --host), the launch file (--launch), or a running server (--url).');
    return `${lines.join('\n')}\n`;
  }
  d.findings.forEach((f, i) => {
    lines.push('', `${i + 1}. [${f.confidence} ${f.score.toFixed(2)}] ${f.title}  (${f.id})`);
    lines.push(`   Why: ${f.mechanism}`);
    for (const e of f.evidence) lines.push(`   ${e.stance === 'for' ? '+' : '-'} ${e.text}`);
    for (const m of f.missing) lines.push(`   ? ${m}`);
    lines.push('   Fix, in order:');
    f.fix.steps.forEach((s, k) => lines.push(`     ${k + 1}. ${fixLine(s)}`));
    lines.push(`   Not this if: ${f.ruleOut.join(' ')}`);
    lines.push(`   Sources: ${f.sources.join(' ')}`);
  });
  if (d.nextCheck) lines.push('', `Next check: ${d.nextCheck}`);
  return `${lines.join('\n')}\n`;
}

/** The CLI's JSON: findings best first, plus the symptoms, the next check and notes. */
export function diagnosisJson(d: Diagnosis, notes: readonly string[] = []): Record<string, unknown> {
  return {
    symptoms: d.symptoms,
    findings: d.findings.map((f) => ({
      id: f.id,
      title: f.title,
      confidence: f.confidence,
      score: f.score,
      engine: f.engine,
      mechanism: f.mechanism,
      evidence: f.evidence,
      missing: f.missing,
      fix: f.fix,
      ruleOut: f.ruleOut,
      sources: f.sources,
    })),
    ...(d.nextCheck ? { nextCheck: d.nextCheck } : {}),
    rulesJudged: d.rulesJudged,
    notes: [...notes],
  };
}
