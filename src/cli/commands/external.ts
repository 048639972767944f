/**
 * Adapts the flags, search and env modules (which own their parsing and output) to the
 * Command contract of main.ts.
 */
import { EXIT, type Command } from '../command';
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
  usage: `Usage: inference-doctor env HOST [--json]\n${ENV_USAGE}\n${HOST_OPTIONS_HELP}`,
  run: async (argv, io) => {
    const { hostArgs, rest } = extractHostArgs(argv);
    const hostInput = rest.find((a) => !a.startsWith('-'));
    if (!hostInput) {
      io.stderr.write('inference-doctor env: name a HOST (an ~/.ssh/config alias, ssh://user@host:port, or local)\n');
      return EXIT.usage;
    }
    const host = await openHostFromArgs(hostInput, hostArgs, io.signal);
    try {
      return await envCommand(rest.filter((a) => a !== hostInput), host);
    } finally {
      await host.close();
    }
  },
};
