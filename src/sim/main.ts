/**
 * `node dist/sim.js --port N --scenario FILE [--api-key K] [--host H]`: runs the SGLang simulator
 * until interrupted and prints its URL.
 * `node dist/sim.js serve --model-path M [SGLang flags] [--sim-* options]`: launch mode (launch/serve.ts).
 * `node dist/sim.js wrapper DIR`: writes DIR/python3, so `python3 -m sglang.launch_server …` runs launch mode.
 */
import { parseArgs } from 'node:util';
import { startSimulator } from './server';
import { errorMessage } from '../core/errors';
import { serve } from './launch/serve';
import { writePythonWrapper, writeVllmWrapper } from './launch/title';
import { serveVllm } from './launch/vllmServe';

const USAGE = `Usage: sim --scenario FILE [--port N] [--host 127.0.0.1] [--api-key KEY] [--engine sglang|vllm]
       sim serve --model-path MODEL [SGLang flags...] [--sim-gpu NAME] [--sim-* ...]   (sim serve --help)
       sim wrapper DIR [--sim-gpu NAME] [--sim-* ...]
       sim vllm serve MODEL [vLLM flags...] [--sim-gpu NAME] [--sim-* ...]   (sim vllm serve --help)
       sim vllm wrapper DIR [--sim-gpu NAME] [--sim-* ...]

Scenario mode serves an SGLang look-alike (OpenAI routes, /generate, /health, /server_info, ...)
whose answers per model come from the scenario file. Port 0 picks a free port. --engine vllm (or
"engine": "vllm" in the scenario) plays vLLM's OpenAI server instead (/version, /metrics, no native routes).
Launch mode starts like python -m sglang.launch_server on a simulated GPU; its behaviour follows
rules over the GPU, the resolved flags, the model and the environment.
wrapper writes DIR/python3: with DIR first in PATH, python3 -m sglang.launch_server runs launch mode;
--sim-* options given to wrapper describe the simulated machine for every launch through it.
vllm serve starts like vLLM's \`vllm serve\` (its flags, its routes, its log); vllm wrapper writes DIR/vllm.`;

async function main(): Promise<void> {
  const command = process.argv[2];
  if (command === 'serve') return serve(process.argv.slice(3));
  if (command === '-m' && process.argv[3] === 'sglang.launch_server') return serve(process.argv.slice(2));
  if (command === 'vllm' && process.argv[3] === 'serve') return serveVllm(process.argv.slice(4));
  const vllmWrapper = command === 'vllm' && process.argv[3] === 'wrapper';
  if (command === 'wrapper' || vllmWrapper) {
    const at = vllmWrapper ? 4 : 3;
    const dir = process.argv[at];
    if (!dir) {
      process.stderr.write(`wrapper needs a folder\n\n${USAGE}\n`);
      process.exit(64);
    }
    const machine = process.argv.slice(at + 1);
    if (machine.some((a, i) => i % 2 === 0 && !a.startsWith('--sim-')) || machine.length % 2 !== 0) {
      process.stderr.write(`wrapper takes --sim-* options with their values (got ${machine.join(' ')})\n\n${USAGE}\n`);
      process.exit(64);
    }
    process.stdout.write(`${(vllmWrapper ? writeVllmWrapper : writePythonWrapper)(dir, machine)}\n`);
    return;
  }
  let values: { port?: string; scenario?: string; 'api-key'?: string; host?: string; engine?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string', short: 'p' },
        scenario: { type: 'string', short: 's' },
        'api-key': { type: 'string' },
        host: { type: 'string' },
        engine: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${errorMessage(error)}\n\n${USAGE}\n`);
    process.exit(64);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!values.scenario) {
    process.stderr.write(`--scenario is required\n\n${USAGE}\n`);
    process.exit(64);
  }
  const engine = values.engine;
  if (engine !== undefined && engine !== 'sglang' && engine !== 'vllm') {
    process.stderr.write(`--engine must be sglang or vllm\n`);
    process.exit(64);
  }
  const port = values.port === undefined ? 30000 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port must be an integer from 0 to 65535\n`);
    process.exit(64);
  }
  try {
    const sim = await startSimulator({ port, host: values.host, scenario: values.scenario, apiKey: values['api-key'], ...(engine ? { engine } : {}) });
    process.stdout.write(`${sim.engine === 'vllm' ? 'vLLM' : 'SGLang'} simulator listening on ${sim.url}\n`);
    const stop = (): void => {
      void sim.close().then(() => process.exit(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (error) {
    process.stderr.write(`Cannot start the simulator: ${errorMessage(error)}\n`);
    process.exit(1);
  }
}

void main();
