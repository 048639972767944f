/**
 * check_launch's engine for the agent tools: a launch text judged by `inference-doctor check`'s
 * Checker as if it were a file alone in an empty folder, so no file near it (pins, rules) is read
 * from wherever the tool happens to run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundledCatalog } from '../../core/flags/bundled/load';
import { ccNumber, gpuFromArg } from '../../core/gpu/names';
import type { LaunchCheck } from '../../core/tools/types';
import { Checker } from './engine';

export async function checkLaunchText(text: string, fileName: string, opts: { gpu?: string; version?: string }): Promise<LaunchCheck> {
  const gpu = opts.gpu ? gpuFromArg(opts.gpu) : undefined;
  const bundled = await loadBundledCatalog();
  const dir = await mkdtemp(join(tmpdir(), 'inference-doctor-check-'));
  try {
    const checker = new Checker({
      cwd: dir,
      bundled,
      ...(gpu ? { computeCapability: ccNumber(gpu.cc), gpuSource: `the GPU given${gpu.name ? ` (${gpu.name})` : ''}` } : {}),
      ...(opts.version ? { version: opts.version } : {}),
    });
    const r = await checker.checkText(text, join(dir, fileName));
    return {
      release: r.release ?? null,
      commands: r.commands,
      findings: r.findings.map((f) => ({ line: f.line, column: f.column, severity: f.severity, code: f.code, message: f.message, fixes: f.fixes })),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
