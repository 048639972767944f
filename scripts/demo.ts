/** Starts the simulator and code-server for a person to try the extension; Ctrl+C stops both. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startCodeServer } from './lib/codeServer';
import { startSimulator } from '../src/sim/server';

async function main(): Promise<void> {
  const port = Number(process.env.DEMO_PORT ?? 8080);
  const sim = await startSimulator({ port: 0, scenario: join(repoRoot, 'test/fixtures/scenarios/all.json') });
  const nan = await startSimulator({ port: 0, scenario: join(repoRoot, 'test/fixtures/scenarios/nan.json') });
  const workspace = mkdtempSync(join(tmpdir(), 'inference-doctor-demo-'));
  mkdirSync(join(workspace, '.vscode'));
  writeFileSync(
    join(workspace, '.vscode', 'settings.json'),
    JSON.stringify(
      {
        'inferenceDoctor.servers': [
          { name: 'SM120 NVFP4 box (simulated NaN incident)', url: nan.url },
          { name: 'Simulator: every failure mode (pick a model)', url: sim.url },
        ],
      },
      null,
      2,
    ),
  );
  const codeServer = await startCodeServer({ workspace, port, keep: true });
  console.log(`\nSimulator (NaN incident): ${nan.url}\nSimulator (all scenarios): ${sim.url}`);
  console.log(`\nOpen VS Code in your browser: ${codeServer.url}`);
  console.log('Click the Inference Doctor icon in the activity bar, then a server, then Run.\nCtrl+C stops everything.');
  const stop = async () => {
    await codeServer.close();
    await Promise.all([sim.close(), nan.close()]);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
