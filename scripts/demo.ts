/**
 * `npm run demo`: the incident, from the first `!!!!` to a healthy answer (scripts/lib/demo.ts sets
 * it up); `npm run demo -- --vllm` adds the same incident on vLLM. Loopback only; Ctrl+C stops
 * everything and removes the temp folders.
 */
import { relative } from 'node:path';
import { repoRoot } from './lib/codeServer';
import { startDemo } from './lib/demo';

async function main(): Promise<void> {
  const vllm = process.argv.includes('--vllm');
  const demo = await startDemo({ port: Number(process.env.DEMO_PORT ?? 8080), packageVsix: !!process.env.DEMO_PACKAGE, vllm });
  // In a checkout the CLI is dist/cli.js; `inference-doctor` once it is installed.
  const cli = `node ${relative(process.cwd(), `${repoRoot}/dist/cli.js`) || 'dist/cli.js'}`;
  console.log(
    `\nThe incident's server: ${demo.incidentUrl}${demo.incidentReady ? '' : ' (still starting)'}; its log: ${demo.supervisor.status('sglang').logFile}`,
  );
  console.log(`Simulator (every failure mode): ${demo.allUrl}`);
  console.log(`\nOpen VS Code in your browser: ${demo.codeServer.url}`);
  console.log(
    [
      '1. Inference Doctor icon → "SM120 NVFP4 box" → Run: the answer streams "!!!!" and the verdict says NaN.',
      '2. Open deploy/run.sh: the warning on --fp4-gemm-backend names the known issue and the GPU (hover it).',
      '3. Light bulb → "Apply to Server and Re-probe: Run the MoE layers…" → pick "sglang" → Apply: NaN → OK.',
      '   Or "Inference Doctor: Backend Sweep…" on deploy/run.sh, or in a terminal:',
      `   INFERENCE_DOCTOR_STATE_DIR=${demo.stateDir} ${cli} sweep --launch ${demo.script} --supervise sglang --vary fp4-gemm-backend=flashinfer_cutlass,flashinfer_cudnn`,
      ...(demo.vllm
        ? [
            `vLLM: "vLLM SM120 NVFP4 box" → Run: NaN from vllm:corrupted_requests (Server: …); open deploy/vllm.sh, or in a terminal:`,
            `   INFERENCE_DOCTOR_STATE_DIR=${demo.stateDir} ${cli} sweep --launch ${demo.vllm.script} --supervise vllm --vary moe-backend=flashinfer_cutlass,cutlass,marlin`,
          ]
        : []),
      'Ctrl+C stops everything.',
    ].join('\n'),
  );
  const stop = async (): Promise<void> => {
    await demo.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
