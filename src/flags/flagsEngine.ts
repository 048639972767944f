/**
 * Which engine's flags the Backend Flags view shows, and how its title names the catalog. No VS
 * Code here: the view and its commands decide with these, and unit tests hold them.
 */
import type { CatalogSourceInfo, LaunchEngine } from '../shared/lspProtocol';

export const ENGINE_LABELS: Record<LaunchEngine, string> = { sglang: 'SGLang', vllm: 'vLLM' };

export function isLaunchEngine(value: unknown): value is LaunchEngine {
  return value === 'sglang' || value === 'vllm';
}

export interface EngineHints {
  /** What the user chose with Show SGLang/vLLM Flags in this workspace (workspaceState, so checked). */
  chosen?: unknown;
  /** What the selected server says it is ('unknown' when /v1/models did not say). */
  server?: string;
  /** The engines the active editor's launch commands start. */
  editor?: readonly LaunchEngine[];
}

/** The user's choice, else the selected server's engine, else the active launch file's when it starts one engine only, else SGLang. */
export function viewEngine(h: EngineHints): LaunchEngine {
  if (isLaunchEngine(h.chosen)) return h.chosen;
  if (isLaunchEngine(h.server)) return h.server;
  if (h.editor?.length === 1) return h.editor[0];
  return 'sglang';
}

/** "SGLang · bundled release 0.5.6", "vLLM · installed at gpu-box · /usr/bin/python3 (0.11.0)", "SGLang · workspace file server_args.py". */
export function catalogTitle(engine: LaunchEngine, source: CatalogSourceInfo | null | undefined): string {
  const name = ENGINE_LABELS[engine];
  if (!source) return name;
  switch (source.kind) {
    case 'bundled':
      return source.version === 'main' ? `${name} · bundled main snapshot` : `${name} · bundled release ${source.version ?? ''}`.trimEnd();
    case 'runtime':
      return `${name} · installed at ${source.label}${source.version ? ` (${source.version})` : ''}`;
    case 'workspace':
    case 'settings':
      return `${name} · ${source.kind} file ${source.label.split(/[\\/]/).pop() ?? source.label}`;
  }
}
