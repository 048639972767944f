/**
 * The diagnose feature: "Diagnose Server…" gathers what is known about a server (its API and a
 * probe, its launch file and log, the host's environment, its latest probe), ranks the causes the
 * diagnosis rules (core/diagnose/rules) find, and shows them in a panel whose buttons run Apply to
 * Server and Re-probe or the backend sweep. Only the command is registered here; the gatherer,
 * the rules and the panel load on first use.
 */
import { COMMANDS } from '../commands';
import type { Ctx } from '../context';
import { Lazy } from '../ui/lazy';

export function register(ctx: Ctx): void {
  // One Diagnoses per window: it holds the panel and the diagnosis it shows.
  const diagnoses = new Lazy(async () => new (await import('./diagnoseCommand')).Diagnoses(ctx));
  ctx.registerCommand(COMMANDS.diagnoseServer, async (arg) => (await diagnoses.get()).start(arg));
}
