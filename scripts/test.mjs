// `npm test`: every tier in order, then one closing line "N passed, N failed".
// All tiers run even when one fails, so one red tier does not hide another.
// Tiers: unit (plain Node, fast), fuzz (seeded random and stress inputs), integration (real HTTP,
// sshd), webview (headless Chromium), e2e (the packaged .vsix in code-server). Each tier has its
// own mocha config, .mocharc.<tier>.json. `npm test -- unit webview` runs only those.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const requested = process.argv.slice(2);
const tiers = requested.length ? requested : ['unit', 'fuzz', 'integration', 'webview', 'e2e'];
const tallyDir = mkdtempSync(join(tmpdir(), 'id-tally-'));
const tallyFile = join(tallyDir, 'tally.jsonl');
const run = (cmd, args, env = {}) => spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;

const failedTiers = [];
let extraFailures = 0;
if (run('node', ['scripts/build.mjs']) !== 0) {
  console.error('build failed');
  process.exit(1);
}
for (const tier of tiers) {
  if (!existsSync(`test/${tier}`)) continue;
  if (tier === 'e2e') {
    const packaged = run('npm', ['run', '--silent', 'package']) === 0;
    if (!packaged || run('bash', ['scripts/install-code-server.sh']) !== 0) {
      failedTiers.push('e2e (setup)');
      extraFailures++;
      continue;
    }
  }
  console.log(`\n=== ${tier} tests ===`);
  const status = run('npx', ['mocha', '--config', `.mocharc.${tier}.json`, '--reporter', './scripts/mocha-tally.cjs'], { MOCHA_TALLY_FILE: tallyFile });
  if (status !== 0) failedTiers.push(tier);
}

let passed = 0,
  failed = extraFailures,
  skipped = 0;
if (existsSync(tallyFile)) {
  for (const line of readFileSync(tallyFile, 'utf8').split('\n').filter(Boolean)) {
    const t = JSON.parse(line);
    passed += t.passes;
    failed += t.failures;
    skipped += t.pending;
  }
}
rmSync(tallyDir, { recursive: true, force: true });
if (failedTiers.length && failed === 0) failed = failedTiers.length; // a tier that crashed before reporting
if (failedTiers.length) console.error(`\nFailed tiers: ${failedTiers.join(', ')}`);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failedTiers.length ? 1 : 0);
