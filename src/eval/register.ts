/**
 * The eval feature: "Run Accuracy Smoke Test" (core/eval: seeded problems with exact answers, the
 * detector on every answer, judged against a baseline or floors) and "Compare with Reference
 * Server…" (core/compare: the same greedy prompts to a known-good server, identical / drift /
 * broken), each in its own panel. Only the commands are registered here; the runners and the
 * panels load on first use.
 */
import { COMMANDS } from '../commands';
import type { Ctx } from '../context';
import { Lazy } from '../ui/lazy';

export function register(ctx: Ctx): void {
  const tests = new Lazy(async () => new (await import('./accuracyTest')).AccuracyTests(ctx));
  const checks = new Lazy(async () => new (await import('./referenceCheck')).ReferenceChecks(ctx));
  ctx.registerCommand(COMMANDS.runAccuracyTest, async (arg) => (await tests.get()).start(arg));
  ctx.registerCommand(COMMANDS.compareWithReference, async (arg) => (await checks.get()).start(arg));
}
