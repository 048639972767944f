/**
 * The agent tools' names as VS Code knows them (package.json `contributes.languageModelTools`),
 * kept apart from src/core/tools so activation registers them without loading the tools. A unit
 * test holds this list against the core's TOOLS and against package.json.
 */
export const AGENT_TOOL_NAMES = ['probe', 'diagnose', 'flags', 'check_launch', 'search_source', 'environment', 'server_info', 'apply_fix', 'sweep'] as const;

export type AgentToolName = (typeof AGENT_TOOL_NAMES)[number];

/** `probe` → `inferenceDoctor_probe`: the contributed tool's name. */
export function vscodeToolName(name: string): string {
  return `inferenceDoctor_${name}`;
}
