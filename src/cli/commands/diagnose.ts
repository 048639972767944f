/**
 * `inference-doctor diagnose [--launch FILE] [--log FILE] [--url URL] [--host HOST] [--env-report FILE]
 * [--gpu NAME|CC] [--engine E] [--version V] [--model M] [--symptom S] [--json]`: everything known
 * about a deployment, judged by the diagnosis rules, causes best first with their fixes.
 */
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { discoverEnv } from '../../core/discovery';
import { gatherEvidence, type GatherInputs } from '../../core/diagnose/gather';
import { lineStream } from '../../core/diagnose/lines';
import { bundledDiagnosisRules, diagnose, diagnosisJson, formatDiagnosisText, SYMPTOMS, type EvidenceSpec, type Symptom } from '../../core/diagnose/rules';
import { errorMessage } from '../../core/errors';
import { gpuFromArg, NAMED_GPUS } from '../../core/gpu/names';
import { fromSetting } from '../../core/release/detect';
import { showControls } from '../../core/text/foreign';
import { EXIT, UsageError, write, type Command } from '../command';
import { extractHostArgs, HOST_OPTIONS_HELP, openHostFromArgs } from '../hostArgs';

const USAGE = `Usage: inference-doctor diagnose [--launch FILE] [--log FILE] [--url URL] [--host HOST] [options]

Reads what is known about a deployment — launch files, server logs (streamed), a running server
(/v1/models, /server_info and a quick probe), a host's environment over SSH, pasted check_env or
collect_env output, and what you say — and ranks the causes in the diagnosis rules that fit,
each with the evidence for and against it, what is still unknown, and the fix in the order to try.

Evidence:
  --launch FILE       a launch file (shell, systemd unit, compose/Kubernetes YAML, Dockerfile…); repeatable
  --log FILE          an SGLang or vLLM server log; repeatable
  --url URL           a running server: reads /v1/models and /server_info, then probes it
  --no-probe          with --url: do not send the quick probe prompts
  --api-key K         with --url (default: $INFERENCE_DOCTOR_API_KEY)
  --host HOST         inspect a host (GPUs, drivers, packages, kernel architectures) over SSH, or "local"
  --env-report FILE   pasted \`python -m sglang.check_env\` or vLLM collect_env.py output; repeatable
  --model-config FILE the model's config.json (read from --model's folder when it is a local one)
What you know:
  --gpu NAME|CC       the GPU: a name (${NAMED_GPUS.slice(0, 5)
    .map((g) => g.id)
    .join(', ')}, …), a device name or a compute capability (12.0)
  --engine E          sglang or vllm
  --version V         the engine's version
  --model M           the model path or name (its name hints quantization and traits)
  --symptom S         what you saw: ${SYMPTOMS.join(', ')}
Output:
  --json              {"findings":[{"id","title","confidence","score","evidence","missing","fix","sources"}…],…}
  --limit N           at most N causes (default 5)

${HOST_OPTIONS_HELP}

Exit status: 0 no cause matched, 1 a cause matched (or only possible ones with --json), 3 error,
64 bad usage, 66 a FILE cannot be read.`;

interface DiagnoseArgs {
  launch: string[];
  logs: string[];
  envReports: string[];
  modelConfigs: string[];
  url?: string;
  probe: boolean;
  apiKey?: string;
  host?: string;
  spec: EvidenceSpec;
  version?: string;
  symptom?: Symptom;
  json: boolean;
  limit: number;
}

/** At most this much of a launch file or an env report is read (logs are streamed, any size). */
const MAX_TEXT_BYTES = 8 * 1024 * 1024;

function parse(argv: readonly string[]): DiagnoseArgs {
  const args: DiagnoseArgs = { launch: [], logs: [], envReports: [], modelConfigs: [], probe: true, spec: {}, json: false, limit: 5 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    const need = (what: string): string => {
      const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (v === undefined || v === '' || (eq < 0 && v.startsWith('--'))) throw new UsageError(`${name} needs ${what}`);
      return v;
    };
    switch (name) {
      case '--launch':
        args.launch.push(need('a FILE'));
        break;
      case '--log':
        args.logs.push(need('a FILE'));
        break;
      case '--env-report':
        args.envReports.push(need('a FILE'));
        break;
      case '--model-config':
        args.modelConfigs.push(need('a config.json'));
        break;
      case '--url': {
        const u = need('a URL such as http://gpu-box:30000');
        let parsed: URL;
        try {
          parsed = new URL(u);
        } catch {
          throw new UsageError(`--url: ${JSON.stringify(showControls(u))} is not a URL (http://host:port)`);
        }
        if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError('--url must be http:// or https://');
        args.url = u.replace(/\/+$/, '');
        break;
      }
      case '--no-probe':
        args.probe = false;
        break;
      case '--api-key':
        args.apiKey = need('a key');
        break;
      case '--host':
        args.host = need('a HOST');
        break;
      case '--gpu': {
        const g = need('a GPU name or compute capability');
        if (!gpuFromArg(g))
          throw new UsageError(
            `--gpu: unknown GPU ${JSON.stringify(showControls(g))}; give a compute capability (12.0) or one of ${NAMED_GPUS.map((x) => x.id).join(', ')}`,
          );
        args.spec.gpu = g;
        break;
      }
      case '--engine': {
        const e = need('sglang or vllm');
        if (e !== 'sglang' && e !== 'vllm') throw new UsageError('--engine needs sglang or vllm');
        args.spec.engine = e;
        break;
      }
      case '--version': {
        const v = need('a version, e.g. 0.5.6');
        if (!fromSetting(v)) throw new UsageError(`--version: ${JSON.stringify(showControls(v))} is not a version`);
        args.version = v;
        break;
      }
      case '--model':
        args.spec.model = need('a model path or name');
        break;
      case '--symptom': {
        const s = need(SYMPTOMS.join('|'));
        if (!(SYMPTOMS as readonly string[]).includes(s)) throw new UsageError(`--symptom needs one of ${SYMPTOMS.join(', ')}`);
        args.symptom = s as Symptom;
        break;
      }
      case '--json':
        args.json = true;
        break;
      case '--limit': {
        const n = Number(need('a number'));
        if (!Number.isInteger(n) || n < 1 || n > 100) throw new UsageError('--limit needs a whole number from 1 to 100');
        args.limit = n;
        break;
      }
      default:
        throw new UsageError(
          a.startsWith('-') ? `Unknown option ${JSON.stringify(showControls(a))}` : `Unexpected argument ${JSON.stringify(showControls(a))}`,
        );
    }
  }
  // The version belongs to the engine: known only once every option is read.
  if (args.version) {
    if (!args.spec.engine) throw new UsageError('--version needs --engine (whose version it is)');
    args.spec.versions = { [args.spec.engine]: args.version };
  }
  const anything =
    args.launch.length + args.logs.length + args.envReports.length + args.modelConfigs.length > 0 ||
    args.url ||
    args.host ||
    Object.keys(args.spec).length ||
    args.symptom;
  if (!anything) throw new UsageError('give some evidence: --launch, --log, --url, --host, --env-report, --gpu or --symptom');
  return args;
}

class InputError extends Error {}

/** The first `bytes` of a file as UTF-8 (a cut character at the end is replaced, never fatal). */
async function readHead(path: string, bytes: number): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}

function inputError(path: string, error: unknown): InputError {
  return error instanceof InputError ? error : new InputError(`Cannot read ${showControls(path)}: ${showControls(errorMessage(error))}`);
}

/** A launch file or an env report, at most MAX_TEXT_BYTES of it. */
async function readText(path: string): Promise<string> {
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new InputError(`${showControls(path)} is not a file`);
    return s.size <= MAX_TEXT_BYTES ? await readFile(path, 'utf8') : await readHead(path, MAX_TEXT_BYTES);
  } catch (error) {
    throw inputError(path, error);
  }
}

/** The first 64 KB of a log, to tell SGLang's from vLLM's. */
async function headOf(path: string): Promise<string> {
  try {
    return await readHead(path, 64 * 1024);
  } catch (error) {
    throw inputError(path, error);
  }
}

/** `--model` naming a local checkpoint folder: its config.json (and hf_quant_config.json), if there. */
async function localModelConfig(model: string): Promise<{ text: string; where: string; quantText?: string } | undefined> {
  const path = join(model, 'config.json');
  try {
    if (!(await stat(model)).isDirectory()) return undefined;
    const text = await readText(path);
    const quantText = await readText(join(model, 'hf_quant_config.json')).catch(() => undefined);
    return { text, where: path, ...(quantText ? { quantText } : {}) };
  } catch {
    return undefined;
  }
}

export const diagnoseCommand: Command = {
  name: 'diagnose',
  summary: 'rank the causes that fit a deployment (launch file, log, server, host) with their fixes',
  usage: USAGE,
  async run(argv, io) {
    const { hostArgs, rest } = extractHostArgs(argv);
    const args = parse(rest);
    const inputs: GatherInputs = { spec: args.spec };
    try {
      inputs.launch = await Promise.all(args.launch.map(async (f) => ({ text: await readText(f), fileName: f })));
      inputs.envText = await Promise.all(args.envReports.map(async (f) => ({ text: await readText(f), label: f })));
      inputs.modelConfig = await Promise.all(args.modelConfigs.map(async (f) => ({ text: await readText(f), where: f })));
      const local = args.spec.model ? await localModelConfig(args.spec.model) : undefined;
      if (local) inputs.modelConfig.push(local);
      inputs.logs = await Promise.all(
        args.logs.map(async (f) => ({ head: await headOf(f), label: f, lines: lineStream(createReadStream(f, { signal: io.signal })) })),
      );
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      await write(io.stderr, `inference-doctor diagnose: ${error.message}\n`);
      return EXIT.noInput;
    }
    if (args.url) {
      const key = args.apiKey ?? io.env.INFERENCE_DOCTOR_API_KEY;
      inputs.server = { target: { baseUrl: args.url, ...(key ? { apiKey: key } : {}) }, probe: args.probe };
    }
    if (args.host) {
      const host = await openHostFromArgs(args.host, hostArgs, io.signal);
      try {
        await write(io.stderr, `Inspecting ${showControls(args.host)}…\n`);
        inputs.discovery = [await discoverEnv(host, { torch: 'no', signal: io.signal })];
      } finally {
        await host.close();
      }
    }
    const progress = args.json ? undefined : (m: string) => void write(io.stderr, `${showControls(m)}…\n`);
    const { evidence, notes } = await gatherEvidence(inputs, { signal: io.signal, ...(progress ? { onProgress: progress } : {}) });
    const { rules, errors } = bundledDiagnosisRules();
    for (const e of errors.slice(0, 5)) await write(io.stderr, `warning: rule ${e.rule ?? ''} in ${e.source} ignored: ${e.message}\n`);
    const d = diagnose(evidence, { rules, limit: args.limit, ...(args.symptom ? { symptom: args.symptom } : {}) });
    await write(io.stdout, args.json ? `${JSON.stringify(diagnosisJson(d, notes), null, 2)}\n` : showControls(formatDiagnosisText(d, notes)));
    return d.findings.some((f) => f.confidence === 'match') ? EXIT.findings : EXIT.ok;
  },
};
