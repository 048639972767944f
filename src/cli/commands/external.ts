/**
 * Adapts the flags, search and env modules (which own their parsing and output) to the
 * Command contract of main.ts.
 */
import { UsageError, type Command } from '../command';
import { flagsCommand } from '../flags';
import { searchCommand } from '../search';
import { envCommand, ENV_USAGE } from '../env';
import { extractHostArgs, openHostFromArgs, HOST_OPTIONS_HELP } from '../hostArgs';

export const flagsCliCommand: Command = {
  name: 'flags',
  summary: 'List the backend flags a server_args.py declares (choices, defaults, renames).',
  usage: 'Usage: inference-doctor flags PATH/TO/server_args.py [--json] [--family NAME]',
  run: (argv) => flagsCommand(argv),
};

export const searchCliCommand: Command = {
  name: 'search',
  summary: 'Search the installed SGLang source on a host (local or over SSH) as JSON lines.',
  usage: `Usage: inference-doctor search HOST PATTERN --path DIR [--fixed-strings] [--json]\n${HOST_OPTIONS_HELP}`,
  run: (argv) => searchCommand(argv),
};

export const envCliCommand: Command = {
  name: 'env',
  summary: 'Report Python, SGLang, sgl-kernel, FlashInfer, torch, the GPU and missing sm_XX kernels on a host.',
  usage: `${ENV_USAGE}\n${HOST_OPTIONS_HELP}`,
  run: async (argv, io) => {
    const { hostArgs, rest } = extractHostArgs(argv);
    // HOST is the first argument that is neither an option nor the value of --python / --max-lib-mb.
    const hostIndex = rest.findIndex((a, i) => !a.startsWith('-') && rest[i - 1] !== '--python' && rest[i - 1] !== '--max-lib-mb');
    // A UsageError lets main.ts print the usage (and answer `env --help` with exit 0).
    if (hostIndex < 0) throw new UsageError('Name a HOST (an ~/.ssh/config alias, ssh://user@host:port, or local)');
    const host = await openHostFromArgs(rest[hostIndex], hostArgs, io.signal);
    try {
      return await envCommand(rest.filter((_a, i) => i !== hostIndex), host, {
        out: (s) => { io.stdout.write(s); },
        err: (s) => { io.stderr.write(s); },
        signal: io.signal,
      });
    } finally {
      await host.close();
    }
  },
};
