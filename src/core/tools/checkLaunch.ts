/** `check_launch`: the editor's launch-file diagnostics for a launch text (what `inference-doctor check` prints). */
import { gpuFromArg, NAMED_GPUS } from '../gpu/names';
import { checkText, shown } from './guards';
import { outputObject } from './schemaParts';
import { ToolError, type ToolDefinition } from './types';

export interface CheckLaunchInput {
  text: string;
  fileName?: string;
  gpu?: string;
  version?: string;
}

export const checkLaunchTool: ToolDefinition<CheckLaunchInput> = {
  name: 'check_launch',
  title: 'Check a launch command',
  description:
    'Check an SGLang launch command or launch file (shell script, systemd unit, compose or Kubernetes YAML, Dockerfile, Python argv list, Markdown) ' +
    'the way the editor does: unknown, renamed and deprecated flags, invalid choices, duplicates, flags the release does not have, ' +
    'known-bad backend combinations for the GPU and diagnosis rules whose conditions all hold, each with its quick fixes. Read-only.',
  inputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1, maxLength: 1024 * 1024, description: 'The launch file or command text' },
      fileName: {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]*$',
        description: 'Its file name (run.sh, sglang.service, compose.yaml, Dockerfile…): decides how the text is read (default run.sh)',
      },
      gpu: { type: 'string', minLength: 1, maxLength: 128, description: 'The GPU (rtx-pro-6000, b200, h100, … or a compute capability such as 12.0)' },
      version: {
        type: 'string',
        minLength: 1,
        maxLength: 32,
        description: 'SGLang release to check against (default: what the text says, else the newest bundled)',
      },
    },
    required: ['text'],
    additionalProperties: false,
  },
  outputSchema: outputObject(
    {
      release: { type: ['object', 'null'], properties: { version: { type: ['string', 'null'] }, source: { type: 'string' }, detail: { type: 'string' } } },
      commands: { type: 'integer' },
      findings: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            line: { type: 'integer' },
            column: { type: 'integer' },
            severity: { type: 'string', enum: ['error', 'warning', 'info'] },
            code: { type: 'string' },
            message: { type: 'string' },
            fixes: { type: 'array', items: { type: 'string' } },
          },
          required: ['line', 'column', 'severity', 'code', 'message', 'fixes'],
        },
      },
    },
    ['release', 'commands', 'findings'],
  ),
  touchesHost: false,
  changesServer: false,
  async run(input, ctx) {
    const check = ctx.services.checkLaunch;
    if (!check) throw new ToolError('failed', 'check_launch is not available here');
    checkText('The launch text', input.text);
    if (input.gpu !== undefined && !gpuFromArg(checkText('The GPU', input.gpu)))
      throw new ToolError(
        'invalid-input',
        `Unknown GPU ${shown(input.gpu)}: give a compute capability (12.0) or one of ${NAMED_GPUS.map((g) => g.id).join(', ')}`,
      );
    if (input.version !== undefined) checkText('The version', input.version);
    const r = await check(input.text, input.fileName ?? 'run.sh', {
      ...(input.gpu ? { gpu: input.gpu } : {}),
      ...(input.version ? { version: input.version } : {}),
    });
    const data = { release: r.release, commands: r.commands, findings: r.findings };
    const lines = [
      `${r.commands} launch command(s)${r.release ? `, checked against SGLang ${r.release.version ?? '?'} (${r.release.source})` : ''}: ${r.findings.length} finding(s)`,
      ...r.findings.map((f) => `${f.line}:${f.column} ${f.severity}: ${f.message} [${f.code}]${f.fixes.length ? ` — fix: ${f.fixes[0]}` : ''}`),
    ];
    return { data, text: lines.join('\n') };
  },
};
