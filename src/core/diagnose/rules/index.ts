/** The diagnosis engine: rules on mechanisms judged on Evidence, ranked. No vscode import. */
export * from './types';
export { diagnose, judgeFinding, type Diagnosis, type DiagnoseOptions, type Finding, type FindingEvidence } from './engine';
export { judgeRule, judgeContext, flagValue, type ConditionOutcome, type ConditionKind } from './judge';
export { symptomsOf, symptomFit, type ObservedSymptom } from './symptoms';
export { evidenceOfSpec, gpuOfSpec } from './spec';
export { bundledDiagnosisRules, loadDiagnosisRules, diagnosisRuleSchema, type DiagnosisRuleError } from './load';
export { formatDiagnosisText, diagnosisJson } from './format';
