/**
 * `inference-doctor`: the command-line face of the extension's core. Each subcommand is its own
 * module implementing Command; add new ones (flags, search, env, ...) to COMMANDS.
 */
import { EXIT, UsageError, type CliIo, type Command } from './command';
import { detectCommand } from './commands/detect';
import { probeCommand } from './commands/probe';
import { envCliCommand, flagsCliCommand, searchCliCommand } from './commands/external';

export const COMMANDS: Command[] = [probeCommand, detectCommand, flagsCliCommand, searchCliCommand, envCliCommand];

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
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      const help = rest.includes('-h') || rest.includes('--help');
      if (help) {
        io.stdout.write(`${command.usage}\n`);
        return EXIT.ok;
      }
      io.stderr.write(`${error.message}\n\n${command.usage}\n`);
      return EXIT.usage;
    }
    io.stderr.write(`inference-doctor ${name}: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
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
