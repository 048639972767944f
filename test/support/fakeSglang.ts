/**
 * A stand-in for an SGLang install, for fix-loop tests: a `python` that starts the simulator and
 * answers like the incident (token-0 run + "NaN happened") unless the FP4 GEMM backend is
 * flashinfer_cudnn. `--attention-backend crash` or `--sim-crash` make it fail at start with a CUDA
 * style error. This is the tests' own double: it shares nothing with the extension's rules.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** Writes `<dir>/bin/python` serving on `port`; returns its path. */
export function writeFakePython(dir: string, port: number): string {
  const scenarios = join(ROOT, 'test', 'fixtures', 'scenarios');
  mkdirSync(join(dir, 'bin'), { recursive: true });
  const python = join(dir, 'bin', 'python');
  writeFileSync(
    python,
    [
      '#!/bin/sh',
      `scenario='${join(scenarios, 'nan.json')}'`,
      'prev=',
      'for a in "$@"; do',
      '  if [ "$a" = --sim-crash ] || { [ "$prev" = --attention-backend ] && [ "$a" = crash ]; }; then',
      '    echo "RuntimeError: CUDA error: no kernel image is available for execution on the device" >&2; exit 1',
      '  fi',
      `  [ "$prev" = --fp4-gemm-backend ] && [ "$a" = flashinfer_cudnn ] && scenario='${join(scenarios, 'healthy.json')}'`,
      '  prev=$a',
      'done',
      `exec "${process.execPath}" "${join(ROOT, 'dist', 'sim.js')}" --port ${port} --scenario "$scenario"`,
      '',
    ].join('\n'),
  );
  chmodSync(python, 0o755);
  return python;
}
