// `npm test`: every tier in order. A tier fails the run; all tiers still run so one red
// tier does not hide another. Tiers: unit (plain Node), integration (real HTTP, sshd),
// webview (headless Chromium), e2e (the packaged .vsix in code-server).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const tiers = process.argv.slice(2).length ? process.argv.slice(2) : ['unit', 'integration', 'webview', 'e2e'];
const run = (cmd, args, env = {}) =>
  spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;

if (run('node', ['scripts/build.mjs']) !== 0) process.exit(1);
let failed = [];
for (const tier of tiers) {
  if (!existsSync(`test/${tier}`)) continue;
  if (tier === 'e2e') {
    if (run('node', ['scripts/build.mjs', '--production']) !== 0 || run('npx', ['vsce', 'package', '--no-dependencies', '--out', 'dist/inference-doctor.vsix']) !== 0) {
      failed.push('e2e (package)');
      continue;
    }
    if (run('bash', ['scripts/install-code-server.sh']) !== 0) { failed.push('e2e (code-server install)'); continue; }
  }
  console.log(`\n=== ${tier} tests ===`);
  const status = run('npx', ['mocha', '--node-option', 'import=tsx', '--timeout', tier === 'e2e' ? '300000' : '60000',
    '--reporter', 'spec', `test/${tier}/**/*.test.ts`]);
  if (status !== 0) failed.push(tier);
}
if (failed.length) {
  console.error(`\nFailed tiers: ${failed.join(', ')}`);
  process.exit(1);
}
