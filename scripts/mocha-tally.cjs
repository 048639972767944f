// Mocha reporter: the usual spec output, plus the tier's pass/fail counts appended to the file
// named by MOCHA_TALLY_FILE so scripts/test.mjs can print one closing line for all tiers.
const Mocha = require('mocha');
const { appendFileSync } = require('node:fs');

class Tally extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const file = process.env.MOCHA_TALLY_FILE;
      if (!file) return;
      const { passes = 0, failures = 0, pending = 0 } = runner.stats ?? {};
      appendFileSync(file, `${JSON.stringify({ passes, failures, pending })}\n`);
    });
  }
}
module.exports = Tally;
