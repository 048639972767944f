/**
 * The agent tools as VS Code knows them (package.json `contributes.languageModelTools`): names and
 * what each may do, kept apart from src/core/tools so the extension never loads the tools
 * themselves (they run in the CLI, ./runner.ts). A unit test holds this table against the core's
 * TOOLS and against package.json.
 */
export interface AgentToolInfo {
  name: string;
  title: string;
  touchesHost: boolean;
  changesServer: boolean;
}

export const AGENT_TOOLS: readonly AgentToolInfo[] = [
  { name: 'probe', title: 'Probe an inference server', touchesHost: false, changesServer: false },
  { name: 'diagnose', title: 'Diagnose a deployment', touchesHost: false, changesServer: false },
  { name: 'eval', title: 'Run an accuracy smoke test', touchesHost: false, changesServer: false },
  { name: 'compare', title: 'Compare a server with a known-good one', touchesHost: false, changesServer: false },
  { name: 'flags', title: 'Look up SGLang flags', touchesHost: false, changesServer: false },
  { name: 'check_launch', title: 'Check a launch command', touchesHost: false, changesServer: false },
  { name: 'judge_answer', title: 'Judge a model answer', touchesHost: false, changesServer: false },
  { name: 'search_source', title: 'Search source on a host', touchesHost: true, changesServer: false },
  { name: 'environment', title: 'Inspect a GPU host', touchesHost: true, changesServer: false },
  { name: 'server_info', title: 'Read a server’s status', touchesHost: false, changesServer: false },
  { name: 'apply_fix', title: 'Apply a fix to a server and re-probe', touchesHost: true, changesServer: true },
  { name: 'sweep', title: 'Sweep backend flag combinations on a server', touchesHost: true, changesServer: true },
];

/** `probe` → `inferenceDoctor_probe`: the contributed tool's name. */
export function vscodeToolName(name: string): string {
  return `inferenceDoctor_${name}`;
}
