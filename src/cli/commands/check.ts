/**
 * `inference-doctor check FILE… [--gpu NAME|CC] [--version V] [--catalog PATH] [--format F]`: the
 * language server's launch-file diagnostics for people and CI. Every launch command in every FILE
 * is judged as the editor judges it (unknown, renamed and deprecated flags, invalid choices,
 * duplicates, known-bad combinations, release notes), against the release the file runs.
 */
import { version as toolVersion } from '../../../package.json';
import { errorMessage } from '../../core/errors';
import { loadBundledCatalog, VLLM_BUNDLED_FILE } from '../../core/flags/bundled/load';
import type { BundledCatalog } from '../../core/flags/bundled/query';
import { ccNumber, gpuFromArg, NAMED_GPUS } from '../../core/gpu/names';
import { fromSetting } from '../../core/release/detect';
import { showControls } from '../../core/text/foreign';
import { Checker, readCatalog, type FileResult } from '../check/engine';
import { FORMATS, formatGithub, formatJson, formatSarif, formatText, summarize, type Format } from '../check/formats';
import { EXIT, UsageError, write, type CliIo, type Command } from '../command';

const USAGE = `Usage: inference-doctor check FILE... [--gpu NAME|CC] [--version V] [--catalog PATH] [--format text|json|sarif|github]

Checks the SGLang launch commands in each FILE (shell scripts, systemd units, compose and
Kubernetes YAML, Dockerfiles, Python, Markdown; the syntax follows the file name) the way the
editor does: unknown, renamed and deprecated flags, invalid choices, duplicate flags, known-bad
backend combinations (the built-in rules and the nearest .inference-doctor/rules.json above the
file), and flags or choices of another SGLang release. Each file is judged against the release it
runs: an image tag in it, else a pin near it (requirements*.txt, pyproject.toml, lock files,
Dockerfiles, compose files), else the newest bundled release. vLLM commands (vllm serve, the
api_server module, the vllm/vllm-openai image's arguments) are checked against the bundled vLLM
catalog of the release a vllm/vllm-openai tag or a vllm== pin names, in the file or next to it;
the known-bad rules and --version are SGLang's.

Options:
  --gpu NAME|CC     the GPU the server runs on, for the known-bad rules: a name
                    (${NAMED_GPUS.filter((g) => ['rtx-pro-6000', 'b200', 'h100', 'a100', 'mi300x'].includes(g.id))
                      .map((g) => g.id)
                      .join(', ')}, …) or a compute capability (12.0)
  --version V       judge every file against SGLang V instead of detecting its release
  --catalog PATH    check against this server_args.py (or sglang package / srt directory)
                    instead of the bundled catalog of SGLang releases
  --format F        text (default): path:line:col: severity: message [code]
                    json, sarif (SARIF 2.1.0, for code scanning), github (workflow annotations)

Exit status: 0 no error or warning, 1 errors or warnings found, 64 bad usage,
66 a FILE (or the catalog) cannot be read.`;

interface CheckArgs {
  files: string[];
  /** The GPU's compute capability, and how rule messages name it. */
  gpu?: { cc: number; source: string };
  version?: string;
  catalog?: string;
  format: Format;
}

function value(argv: string[], i: number, option: string, what: string): string {
  const v = argv[i];
  if (v === undefined || (v.startsWith('-') && v !== '-')) throw new UsageError(`${option} needs ${what}`);
  return v;
}

function parse(argv: string[]): CheckArgs {
  const args: CheckArgs = { files: [], format: 'text' };
  let operands = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (operands || !a.startsWith('-') || a === '-') {
      if (a === '-') throw new UsageError('check reads files, not standard input: name each FILE');
      args.files.push(a);
    } else if (a === '--') operands = true;
    else if (a === '--gpu') {
      const text = value(argv, ++i, '--gpu', 'a GPU name (rtx-pro-6000, b200, h100, …) or a compute capability such as 12.0');
      const gpu = gpuFromArg(text);
      if (!gpu)
        throw new UsageError(
          `--gpu: unknown GPU ${JSON.stringify(showControls(text))}; give a compute capability (12.0) or one of ${NAMED_GPUS.map((g) => g.id).join(', ')}`,
        );
      args.gpu = { cc: ccNumber(gpu.cc), source: `the GPU given with --gpu${gpu.name ? ` (${gpu.name})` : ''}` };
    } else if (a === '--version') {
      const v = value(argv, ++i, '--version', 'an SGLang version, e.g. 0.5.6');
      if (!fromSetting(v)) throw new UsageError(`--version: ${JSON.stringify(showControls(v))} is not a version, e.g. 0.5.6`);
      args.version = v;
    } else if (a === '--catalog') args.catalog = value(argv, ++i, '--catalog', 'a server_args.py, an sglang package or its srt directory');
    else if (a === '--format') {
      const f = value(argv, ++i, '--format', FORMATS.join('|')) as Format;
      if (!FORMATS.includes(f)) throw new UsageError(`--format needs one of ${FORMATS.join(', ')}`);
      args.format = f;
    } else throw new UsageError(`Unknown option ${a}`);
  }
  if (!args.files.length) throw new UsageError('name at least one FILE to check');
  return args;
}

export const checkCommand: Command = {
  name: 'check',
  summary: 'lint launch files as the editor does (flags, choices, known-bad combinations, releases)',
  usage: USAGE,
  inputFile: true,
  async run(argv: string[], io: CliIo): Promise<number> {
    const args = parse(argv);
    const cwd = process.cwd();
    let bundled: BundledCatalog | undefined;
    try {
      bundled = await loadBundledCatalog();
    } catch (error) {
      // With a catalog of its own, a missing bundle costs only the release notes.
      if (!args.catalog) {
        await write(io.stderr, `${errorMessage(error)}\n`);
        return EXIT.noInput;
      }
    }
    // vLLM commands are checked when the vLLM catalog is there (a missing one leaves them out)
    const vllmBundled = await loadBundledCatalog(undefined, VLLM_BUNDLED_FILE).catch(() => undefined);
    if (bundled && args.version) {
      const release = fromSetting(args.version)!;
      if (release.exact && !bundled.match(release.version)) {
        const known = bundled.releases.map((r) => r.version).filter((v) => v !== 'main');
        throw new UsageError(`--version ${args.version}: the bundled catalog holds ${known[0]} to ${known[known.length - 1]}`);
      }
    }
    let catalog: Awaited<ReturnType<typeof readCatalog>> | undefined;
    if (args.catalog) {
      try {
        catalog = await readCatalog(args.catalog);
      } catch (error) {
        await write(io.stderr, `Cannot read ${showControls(args.catalog)}: ${showControls(errorMessage(error))}\n`);
        return EXIT.noInput;
      }
      for (const e of catalog.errors.slice(0, 5)) await write(io.stderr, `${showControls(args.catalog)}: warning: ${showControls(e)}\n`);
    }
    const rulesErrors: string[] = [];
    const checker = new Checker({
      cwd,
      ...(args.gpu ? { computeCapability: args.gpu.cc, gpuSource: args.gpu.source } : {}),
      ...(args.version ? { version: args.version } : {}),
      ...(catalog ? { catalog: { index: catalog.index, ...(catalog.version ? { version: catalog.version } : {}) } } : {}),
      ...(bundled ? { bundled } : {}),
      ...(vllmBundled ? { vllmBundled } : {}),
      onRulesError: (file, errors) => {
        for (const e of errors) rulesErrors.push(`${file}: warning: rules ignored: ${e}`);
      },
    });
    // A few files at a time: reads overlap, the analysis (synchronous) runs one file after another.
    const results: FileResult[] = new Array<FileResult>(args.files.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < args.files.length) {
        const i = next++;
        results[i] = await checker.checkFile(args.files[i]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, args.files.length) }, worker));
    for (const e of rulesErrors) await write(io.stderr, `${showControls(e)}\n`);
    for (const r of results) if (r.error !== undefined) await write(io.stderr, `Cannot read ${showControls(r.path)}: ${showControls(r.error)}\n`);
    const out =
      args.format === 'json'
        ? formatJson(results)
        : args.format === 'sarif'
          ? formatSarif(results, { cwd, version: toolVersion })
          : args.format === 'github'
            ? formatGithub(results)
            : formatText(results);
    await write(io.stdout, out);
    const s = summarize(results);
    if (s.unreadable) return EXIT.noInput;
    return s.errors + s.warnings > 0 ? EXIT.findings : EXIT.ok;
  },
};
