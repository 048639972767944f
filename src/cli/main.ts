/**
 * `inference-doctor`: the command-line face of the extension's core. Each subcommand is its own
 * module in commands/ implementing Command; add new ones to COMMANDS.
 */
import { errorDetail } from '../core/errors';
import { HostError } from '../core/hosts/types';
import { EXIT, UsageError, wantsHelp, type CliIo, type Command } from './command';
import { checkCommand } from './commands/check';
import { compareCommand } from './commands/compare';
import { detectCommand } from './commands/detect';
import { diagnoseCommand } from './commands/diagnose';
import { envCommand } from './commands/env';
import { evalCommand } from './commands/eval';
import { flagsCommand } from './commands/flags';
import { mcpCommand } from './commands/mcp';
import { probeCommand } from './commands/probe';
import { searchCommand } from './commands/search';
import { superviseCommand } from './commands/supervise';
import { sweepCommand } from './commands/sweep';
import { toolCommand } from './commands/tool';

export const COMMANDS: readonly Command[] = [
  probeCommand,
  compareCommand,
  detectCommand,
  flagsCommand,
  searchCommand,
  envCommand,
  superviseCommand,
  sweepCommand,
  checkCommand,
  diagnoseCommand,
  evalCommand,
  mcpCommand,
  toolCommand,
];

function mainUsage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `Usage: inference-doctor <command> [options]

Finds out why an LLM inference server answers !!!!, NaN or nonsense.

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run inference-doctor <command> --help for a command's options.`;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '-h' || name === '--help' || name === 'help') {
    const target = name === 'help' && rest[0] ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    (name ? io.stdout : io.stderr).write(`${target ? target.usage : mainUsage()}\n`);
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(`Unknown command: ${name}\n\n${mainUsage()}\n`);
    return EXIT.usage;
  }
  if (wantsHelp(rest)) {
    io.stdout.write(`${command.usage}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`inference-doctor ${name}: ${error.message}\n\n${command.usage}\n`);
      return EXIT.usage;
    }
    // A host that cannot be reached is the user's situation, not a bug: its message, no stack.
    io.stderr.write(`inference-doctor ${name}: ${error instanceof HostError ? error.message : errorDetail(error)}\n`);
    return EXIT.error;
  }
}

if (require.main === module) {
  const controller = new AbortController();
  let interrupts = 0;
  process.on('SIGINT', () => {
    if (++interrupts > 1) process.exit(EXIT.interrupted);
    controller.abort();
  });
  void runCli(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    signal: controller.signal,
  }).then((code) => {
    process.exitCode = code;
  });
}
