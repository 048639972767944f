/**
 * `inference-doctor check` over 1,000 generated launch files (shell, compose, Kubernetes, systemd,
 * Python, Markdown; typos, pins and a known-bad combination among them), in 20 directories: the
 * whole CLI run (goal ≤ 2 s), beside a Node process that only reads the same files; and the
 * checker in process beside reading the files in process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, promises as fsp, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Checker } from '../src/cli/check/engine';
import { loadBundledCatalog } from '../src/core/flags/bundled/load';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const FILES = 1000;
const DIRS = 20;
const median = (xs: number[]): number => Number([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(1));

const launch = (i: number): string =>
  `python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-${i % 3 ? 7 : 14}B-Instruct --tp-size ${1 + (i % 4)} ` +
  `--kv-cache-dtype ${i % 7 === 0 ? 'fp8_e5m3' : 'auto'} --mem-fraction-static 0.8${i % 10} ` +
  `${i % 11 === 0 ? '--speculative-magic 3 ' : ''}${i % 13 === 0 ? '--quantization modelopt_fp4 --fp4-gemm-backend flashinfer_cutlass ' : ''}--port ${30000 + i}`;

function generate(dir: string): string[] {
  const files: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const d = join(dir, `svc${i % DIRS}`);
    if (i < DIRS) {
      mkdirSync(d, { recursive: true });
      if (i % 2 === 0) writeFileSync(join(d, 'requirements.txt'), `sglang[all]==0.5.${6 + (i % 8)}\n`);
    }
    const cmd = launch(i);
    const [name, text] = (
      [
        [`serve-${i}.sh`, `#!/bin/sh\nset -e\nexport CUDA_VISIBLE_DEVICES=0\nexec ${cmd.replace(/ --/g, ' \\\n  --')}\n`],
        [
          `k8s-${i}.yaml`,
          `apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: llm\n          image: lmsysorg/sglang:v0.5.${6 + (i % 12)}-cu129\n          command: [${cmd
            .split(' ')
            .map((w) => JSON.stringify(w))
            .join(', ')}]\n`,
        ],
        [`llm-${i}.service`, `[Unit]\nDescription=SGLang\n\n[Service]\nExecStart=/opt/venv/bin/${cmd.replace(/ --/g, ' \\\n    --')}\nRestart=always\n`],
        [
          `launch-${i}.py`,
          `import subprocess\n\nsubprocess.run([${cmd
            .split(' ')
            .map((w) => JSON.stringify(w))
            .join(', ')}], check=True)\n`,
        ],
        [`notes-${i}.md`, `# Server ${i}\n\n\`\`\`bash\n${cmd}\n\`\`\`\n`],
      ] as const
    )[i % 5];
    const path = join(d, name);
    writeFileSync(path, text);
    files.push(path);
  }
  return files;
}

export async function run(): Promise<Record<string, unknown>> {
  if (!existsSync(CLI)) {
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--only', 'cli'], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`cli build failed: ${build.stderr}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'id-check-bench-'));
  try {
    const files = generate(dir);
    const names = files.map((f) => f.slice(dir.length + 1));
    // A Node process that reads the same files, as the baseline of the whole run.
    const readScript = `const fs=require('fs');let n=0;for(const f of process.argv.slice(1))n+=fs.readFileSync(f,'utf8').length;console.log(n)`;
    const cliMs: number[] = [];
    const readMs: number[] = [];
    let findings = 0;
    let exit: number | null = null;
    for (let i = 0; i < 5; i++) {
      let t = performance.now();
      const r = spawnSync(process.execPath, [CLI, 'check', ...names, '--format', 'json'], { cwd: dir, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
      cliMs.push(performance.now() - t);
      exit = r.status;
      if (r.status !== 1) throw new Error(`check exited ${r.status}: ${r.stderr.slice(0, 500)}`);
      findings = (JSON.parse(r.stdout) as { summary: { errors: number; warnings: number; info: number } }).summary.errors;
      t = performance.now();
      spawnSync(process.execPath, ['-e', readScript, ...names], { cwd: dir, encoding: 'utf8' });
      readMs.push(performance.now() - t);
    }
    // In process: the checker (bundled catalog loaded once, as the CLI does) beside reading the files.
    const bundled = await loadBundledCatalog();
    const checkMs: number[] = [];
    const readInMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const checker = new Checker({ cwd: dir, bundled });
      let t = performance.now();
      for (const f of files) await checker.checkFile(f);
      checkMs.push(performance.now() - t);
      t = performance.now();
      for (const f of files) await fsp.readFile(f, 'utf8');
      readInMs.push(performance.now() - t);
    }
    const cli = median(cliMs);
    return {
      files: FILES,
      directories: DIRS,
      errorsFound: findings,
      exitStatus: exit,
      cliMs: cli,
      readFilesProcessMs: median(readMs),
      goalCliMs: 2000,
      withinGoal: cli <= 2000,
      inProcessCheckMs: median(checkMs),
      inProcessReadMs: median(readInMs),
      perFileMs: Number((median(checkMs) / FILES).toFixed(3)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
