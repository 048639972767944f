/** Host formats that are line-oriented: shell scripts, systemd units, Dockerfiles, Markdown fences. */
import { type Ctx, analyzeWords, envOf, isVllmImage, tokenOf } from './analyze';
import { type Word, lineEnd } from './source';
import { logicalLineEnd, tokenizeShell } from './shell';
import { parseExecForm } from './execForm';
import type { EnvAssignment, LanguageHint } from './types';

export type Finder = (ctx: Ctx, hint: LanguageHint, from: number, to: number, depth: number) => void;

const ASSIGN = /^[A-Za-z_][A-Za-z0-9_]*=/;

export function findInShell(ctx: Ctx, hint: LanguageHint, from: number, to: number): void {
  const words = tokenizeShell({ s: ctx.text, from, to });
  analyzeWords(ctx, words, { host: hint, form: 'shell' });
}

/** systemd units: `Exec*=` (with `-@+!:|` prefixes) and `Environment=`, continuation lines, comments. */
export function findInSystemd(ctx: Ctx, hint: LanguageHint, from: number, to: number): void {
  const s = ctx.text;
  const env: EnvAssignment[] = [];
  const execs: Word[][] = [];
  let i = from;
  while (i < to) {
    const le = logicalLineEnd(s, i, to, true, '#;');
    const head = s.slice(i, Math.min(le, i + 200));
    const m = /^[ \t]*(Exec[A-Za-z]*|Environment)[ \t]*=[ \t]*/.exec(head);
    if (m) {
      let v = i + m[0].length;
      if (m[1] === 'Environment') {
        for (const w of tokenizeShell({ s, from: v, to: le }, { unitStyle: true, commentChars: '#;' })) {
          if (!w.op && ASSIGN.test(w.value)) env.push(envOf(ctx, w, 'systemd'));
        }
      } else {
        let argv0 = false;
        while (v < le && '-@+!:|'.includes(s[v])) {
          if (s[v] === '@') argv0 = true;
          v++;
        }
        const words = tokenizeShell({ s, from: v, to: le }, { unitStyle: true, commentChars: '#;' });
        if (argv0 && words.length > 1) words.splice(1, 1);
        execs.push(words);
      }
    }
    i = le + 1;
  }
  for (const words of execs) analyzeWords(ctx, words, { host: hint, form: 'shell', env });
}

interface Instr {
  words: Word[];
  exec: boolean;
}

/** Dockerfiles: `RUN`, `CMD`, `ENTRYPOINT` in shell and exec (JSON) form, `ENV`, stages. */
export function findInDockerfile(ctx: Ctx, hint: LanguageHint, from: number, to: number): void {
  const s = ctx.text;
  let env: EnvAssignment[] = [];
  let entrypoint: Instr | null = null;
  let cmd: Instr | null = null;
  /** The stage's base image when it is vllm/vllm-openai: a CMD alone is then its entrypoint's arguments. */
  let image: Word | undefined;
  const flushStage = (): void => {
    const site = (form: 'shell' | 'argv') => ({ host: hint, form, env });
    if (!entrypoint && cmd && image) analyzeWords(ctx, cmd.words, { ...site(cmd.exec ? 'argv' : 'shell'), image });
    else if (entrypoint && cmd && entrypoint.exec && cmd.exec) {
      if (analyzeWords(ctx, [...entrypoint.words, ...cmd.words], site('argv')) === 0) analyzeWords(ctx, cmd.words, site('argv'));
    } else {
      if (entrypoint) analyzeWords(ctx, entrypoint.words, site(entrypoint.exec ? 'argv' : 'shell'));
      if (cmd) analyzeWords(ctx, cmd.words, site(cmd.exec ? 'argv' : 'shell'));
    }
    entrypoint = null;
    cmd = null;
    image = undefined;
  };
  let i = from;
  while (i < to) {
    // Docker drops comment (and empty) lines inside a `\` continuation: they do not end the instruction
    const le = logicalLineEnd(s, i, to, true);
    const head = s.slice(i, Math.min(le, i + 40));
    const m = /^[ \t]*([A-Za-z]+)([ \t]+|$)/.exec(head);
    if (m) {
      const instr = m[1].toUpperCase();
      let v = i + m[0].length;
      while (v < le && (s[v] === ' ' || s[v] === '\t')) v++;
      if (instr === 'FROM') {
        flushStage();
        env = [];
        const ref = tokenizeShell({ s, from: v, to: le }).find((w) => !w.op && !w.value.startsWith('--'));
        if (ref && isVllmImage(ref.value)) image = ref;
      } else if (instr === 'RUN' || instr === 'CMD' || instr === 'ENTRYPOINT') {
        const exec = s[v] === '[';
        const words = exec ? parseExecForm(s, v, le).items : tokenizeShell({ s, from: v, to: le }, { dropCommentLines: true });
        if (instr === 'RUN') analyzeWords(ctx, words, { host: hint, form: exec ? 'argv' : 'shell', env: [...env] });
        else if (instr === 'CMD') cmd = { words, exec };
        else entrypoint = { words, exec };
      } else if (instr === 'ENV') {
        const words = tokenizeShell({ s, from: v, to: le }, { dropCommentLines: true }).filter((w) => !w.op);
        if (words.length && ASSIGN.test(words[0].value)) {
          for (const w of words) if (ASSIGN.test(w.value)) env.push(envOf(ctx, w, 'dockerfile'));
        } else if (words.length >= 2) {
          // legacy `ENV NAME value`
          const name = words[0];
          const last = words[words.length - 1];
          const value = words
            .slice(1)
            .map((w) => w.value)
            .join(' ');
          env.push({
            name: name.value,
            value,
            range: ctx.lines.range(name.start, last.end),
            nameRange: tokenOf(ctx, name).range,
            valueRange: ctx.lines.range(words[1].start, last.end),
            source: 'dockerfile',
          });
        }
      }
    }
    i = le + 1;
  }
  flushStage();
}

const FENCE_LANG: Record<string, LanguageHint> = {
  sh: 'shellscript',
  bash: 'shellscript',
  shell: 'shellscript',
  zsh: 'shellscript',
  console: 'shellscript',
  'shell-session': 'shellscript',
  shellscript: 'shellscript',
  terminal: 'shellscript',
  '': 'plaintext',
  text: 'plaintext',
  txt: 'plaintext',
  plaintext: 'plaintext',
  yaml: 'yaml',
  yml: 'yaml',
  dockerfile: 'dockerfile',
  docker: 'dockerfile',
  containerfile: 'dockerfile',
  python: 'python',
  py: 'python',
  python3: 'python',
  json: 'python',
  jsonc: 'python',
  ini: 'systemd',
  systemd: 'systemd',
  service: 'systemd',
  desktop: 'systemd',
  md: 'markdown',
  markdown: 'markdown',
};

/** Markdown: recurse into fenced code blocks by their language. */
export function findInMarkdown(ctx: Ctx, _hint: LanguageHint, from: number, to: number, depth: number, find: Finder): void {
  const s = ctx.text;
  let i = from;
  while (i < to) {
    const le = lineEnd(s, i, to);
    const head = s.slice(i, Math.min(le, i + 100));
    const m = /^([ \t]*)(`{3,}|~{3,})[ \t]*([^\s`{]*)/.exec(head);
    if (!m) {
      i = le + 1;
      continue;
    }
    const fence = m[2];
    const lang = m[3].toLowerCase().replace(/^\./, '');
    const contentStart = Math.min(le + 1, to);
    let j = contentStart;
    let contentEnd = to;
    let next = to;
    while (j < to) {
      const e = lineEnd(s, j, to);
      const h = s.slice(j, Math.min(e, j + 100)).trimEnd();
      const c = /^[ \t]*(`{3,}|~{3,})$/.exec(h);
      if (c && c[1][0] === fence[0] && c[1].length >= fence.length) {
        contentEnd = j;
        next = e + 1;
        break;
      }
      j = e + 1;
    }
    const target = FENCE_LANG[lang];
    if (target && contentEnd > contentStart && depth < 3) find(ctx, target, contentStart, contentEnd, depth + 1);
    i = next;
  }
}
