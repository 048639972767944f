/**
 * Foreign text → VS Code surfaces (src/core/text/foreign.ts). Handwritten cases pin the exact strings;
 * seeded fuzz checks the safety properties on thousands of hostile mixes; where markdown-it is present
 * (it comes with @vscode/vsce, nothing installs it for this test) the markdown output is rendered and
 * compared with the literal text it must show.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  BIDI_AND_INVISIBLE,
  codeSpan,
  escapeMarkdown,
  escapeIcons,
  isolate,
  isolateLabel,
  notificationText,
  safeLink,
  showControls,
} from '../../src/core/text/foreign';
import { seededRandom } from '../../src/core/random';

const FSI = '\u2068';
const PDI = '\u2069';
const FUZZ_COUNT = 3000;

// ---- an oracle for "invisible", written from the spec list rather than from the module's regex ----

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const BIDI = [0x061c, 0x200e, 0x200f, ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)];
const ZERO_WIDTH = [...range(0x200b, 0x200d), ...range(0x2060, 0x2064), 0xfeff, 0x00ad, 0x034f, 0x180e];
const C0_C1 = [...range(0x00, 0x1f), ...range(0x7f, 0x9f)].filter((c) => c !== 0x09 && c !== 0x0a && c !== 0x0d);
const SPEC_LIST = [...BIDI, ...ZERO_WIDTH, ...C0_C1, 0xfffc];
const ALWAYS_SHOWN = new Set(SPEC_LIST.filter((c) => c !== 0x200d));
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const EMOJI_TAIL = /[\u{FE0F}\u{1F3FB}-\u{1F3FF}]/u;

/** Raw invisible characters left in `s`: the spec list, bare CR, lone surrogates, ZWJ outside emoji. */
function rawInvisible(s: string): string[] {
  const found: string[] = [];
  const cps = Array.from(s);
  cps.forEach((ch, i) => {
    const cp = ch.codePointAt(0)!;
    if (ALWAYS_SHOWN.has(cp)) found.push(ch);
    else if (cp >= 0xd800 && cp <= 0xdfff) found.push(ch);
    else if (cp === 0x0d && cps[i + 1] !== '\n') found.push(ch);
    else if (cp === 0x200d) {
      const prev = cps[i - 1] !== undefined && EMOJI_TAIL.test(cps[i - 1]) ? cps[i - 2] : cps[i - 1];
      const joins = prev !== undefined && PICTOGRAPH.test(prev) && cps[i + 1] !== undefined && PICTOGRAPH.test(cps[i + 1]);
      if (!joins) found.push(ch);
    }
  });
  return found;
}

const hex = (cp: number): string => cp.toString(16).toUpperCase().padStart(4, '0');
const codePoints = (s: string): number => Array.from(s).length;

// ---- hostile input generator ----

const FRAGMENTS = [
  '`',
  '``',
  '```',
  '````',
  '[[a](b)](c)',
  '![img](https://x/y.png)',
  '<https://x>',
  '<img src=x onerror=alert(1)>',
  '&lt;',
  '&#x41;',
  '&amp;',
  'command:foo?%5B%5D',
  '[run](command:foo?%5B%5D)',
  'https://evil.example/x',
  'HTTPS://EVIL.COM/A',
  'http://a.b',
  'www.example.com',
  'WWW.EXAMPLE.COM',
  'mailto:a@b',
  'a@b.com',
  'evil.com',
  'ftp://x.y',
  'file:///etc/passwd',
  'javascript:alert(1)',
  '](https://x)',
  '](command:x)',
  '*a*',
  '**b**',
  '_c_',
  '~~d~~',
  '# h',
  '- li',
  '+ li',
  '1. x',
  '2) y',
  '> q',
  '| t |',
  '---',
  '===',
  '$(zap)',
  '$x$',
  '\\',
  '\\[',
  '\\`',
  '[x]: https://y',
  '<!-- c -->',
  '<div>',
  '</a>',
  '"q"',
  "'s'",
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '!',
  '<',
  '>',
  '|',
  '    code',
  '\t',
  '\n',
  '\n\n',
  '\r\n',
  '\r',
  '\u2028',
  '\u2029',
  '  ',
  ' ',
  'plain',
  '42',
  '中文字符',
  '日本語',
  'مرحبا بالعالم',
  'שלום',
  '😀',
  '👩‍💻',
  '🏳️‍🌈',
  '👍🏽',
  '🏴󠁧󠁢󠁳󠁣󠁴󠁿',
  'e\u0301',
  '\u{1F600}'.slice(0, 1),
  '\u{1F600}'.slice(1),
  '⟨U+202E⟩',
  'evil。com',
  'ｗｗｗ．ｅｘａｍｐｌｅ．ｃｏｍ',
  '…',
];
const INVISIBLES = [...SPEC_LIST, 0x0d, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0x2028, 0x2029, 0xe0041, 0xe007f, 0xe0001].map((cp) => String.fromCodePoint(cp));
const CODE_POINT_RANGES: [number, number][] = [
  [0x20, 0x7e],
  [0x4e00, 0x9fff],
  [0x0590, 0x05ff],
  [0x0600, 0x06ff],
  [0x1f300, 0x1faff],
  [0x0300, 0x036f],
  [0xac00, 0xd7a3],
  [0xff01, 0xff5e],
  [0x2000, 0x206f],
  [0x00a0, 0x024f],
];

function fuzzString(rnd: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  let s = '';
  const parts = 1 + Math.floor(rnd() * 10);
  for (let i = 0; i < parts; i++) {
    const r = rnd();
    if (r < 0.45) s += pick(FRAGMENTS);
    else if (r < 0.65) s += pick(INVISIBLES);
    else if (r < 0.75) s += '`'.repeat(1 + Math.floor(rnd() * 6));
    else {
      const [lo, hi] = pick(CODE_POINT_RANGES);
      const n = 1 + Math.floor(rnd() * 4);
      for (let k = 0; k < n; k++) s += String.fromCodePoint(lo + Math.floor(rnd() * (hi - lo + 1)));
    }
  }
  return s;
}

function fuzzCorpus(seed: number): string[] {
  const rnd = seededRandom(seed);
  const out = ['', ' ', '`', '\n', '\u202e', '\ud800', 'x'.repeat(5000), FRAGMENTS.join(''), INVISIBLES.join('')];
  while (out.length < FUZZ_COUNT) out.push(fuzzString(rnd));
  return out;
}

const CORPUS = fuzzCorpus(0xf0e1);

// ---- markdown-it, only if something else already installed it ----

interface MarkdownRenderer {
  render(src: string): string;
  renderInline(src: string): string;
  utils: { escapeHtml(s: string): string };
}
type MarkdownItConstructor = new (options: Record<string, unknown>) => MarkdownRenderer;

function loadMarkdownIt(): MarkdownItConstructor | undefined {
  try {
    return createRequire(__filename)('markdown-it') as MarkdownItConstructor;
  } catch {
    return undefined;
  }
}

const MarkdownIt = loadMarkdownIt();
// html and linkify on: the most permissive settings a MarkdownString renderer could use.
const md = MarkdownIt ? new MarkdownIt({ html: true, linkify: true }) : undefined;

function needMarkdownIt(ctx: Mocha.Context): MarkdownRenderer {
  if (!md) ctx.skip();
  return md;
}

// ---- helpers for escaped markdown ----

const ASCII_PUNCT = /[!-/:-@[-`{-~]/;

/** ASCII punctuation in `out` not consumed by a backslash escape (after the optional leading reference). */
function unescapedPunctuation(out: string): string[] {
  const s = out.replace(/^&#(?:32|9);/, '');
  const bad: string[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') {
      if (i + 1 < s.length && ASCII_PUNCT.test(s[i + 1])) i++;
      else bad.push('\\');
    } else if (ASCII_PUNCT.test(s[i])) bad.push(s[i]);
  }
  return bad;
}

/** The one-line literal text escapeMarkdown must render as. */
const inlineVisible = (s: string): string => showControls(s.replace(/(?:\r\n?|[\n\u2028\u2029])+/g, ' '));

/** VS Code's notification link syntax, written from its documented form. */
const NOTIFICATION_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)\3)?\)/gi;

describe('foreign text: showControls', () => {
  it('replaces every listed control with an uppercase ⟨U+XXXX⟩ marker', () => {
    for (const cp of SPEC_LIST.filter((c) => c !== 0x200d)) {
      assert.equal(showControls(`a${String.fromCodePoint(cp)}b`), `a⟨U+${hex(cp)}⟩b`, `U+${hex(cp)}`);
    }
    assert.equal(showControls('a\u200Db'), 'a⟨U+200D⟩b');
    assert.equal(showControls('\u202Egnp.exe'), '⟨U+202E⟩gnp.exe');
    assert.equal(showControls('\x1b[31mred'), '⟨U+001B⟩[31mred');
  });

  it('keeps tab, LF and CRLF but shows a bare CR and NEL', () => {
    assert.equal(showControls('a\tb\nc\r\nd'), 'a\tb\nc\r\nd');
    assert.equal(showControls('a\rb'), 'a⟨U+000D⟩b');
    assert.equal(showControls('a\r'), 'a⟨U+000D⟩');
    assert.equal(showControls('a\u0085b'), 'a⟨U+0085⟩b');
  });

  it('passes plain text through unchanged (letters, digits, spaces, CJK, RTL letters, emoji)', () => {
    const plain = [
      'Hello World 0123456789',
      'naïve café Ærøskøbing',
      '中文字符 日本語 한국어',
      'مرحبا بالعالم',
      'שלום עולם',
      '😀 🚀 👍🏽 👩‍💻 👨‍👩‍👧 🏳️‍🌈 ❤️‍🔥 🇯🇵 🏴󠁧󠁢󠁳󠁣󠁴󠁿 1️⃣',
      'e\u0301 a\u0308',
      'tab\there',
      'nbsp\u00a0x \u3000y',
      '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
    ];
    for (const s of plain) assert.equal(showControls(s), s, JSON.stringify(s));
    let all = '';
    for (let cp = 0x20; cp < 0x7f; cp++) all += String.fromCodePoint(cp);
    for (let cp = 0x4e00; cp < 0x4f00; cp++) all += String.fromCodePoint(cp);
    assert.equal(showControls(all), all);
  });

  it('shows lone surrogates and keeps paired ones', () => {
    assert.equal(showControls('a\ud83db'), 'a⟨U+D83D⟩b');
    assert.equal(showControls('\ude00x'), '⟨U+DE00⟩x');
    assert.equal(showControls('\ud83d\ude00'), '😀');
    assert.equal(showControls('\ude00\ud83d'), '⟨U+DE00⟩⟨U+D83D⟩');
  });

  it('shows smuggled tag characters but keeps subdivision flags', () => {
    const tags = (s: string): string => Array.from(s, (c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    const scotland = `\u{1F3F4}${tags('gbsct')}\u{E007F}`;
    assert.equal(showControls(scotland), scotland);
    assert.equal(showControls(`ok${tags('hi')}`), 'ok⟨U+E0068⟩⟨U+E0069⟩');
    assert.equal(showControls('\u{E0001}'), '⟨U+E0001⟩');
    // An over-long "flag" is shown in full, not partly kept invisible.
    const long = `\u{1F3F4}${tags('abcdefghij')}\u{E007F}`;
    assert.equal(showControls(long), `\u{1F3F4}${Array.from('abcdefghij', (c) => `⟨U+${hex(0xe0000 + c.charCodeAt(0))}⟩`).join('')}⟨U+E007F⟩`);
    assert.equal(showControls('x\u{E007F}'), 'x⟨U+E007F⟩');
  });

  it('keeps ZWJ only between pictographs', () => {
    assert.equal(showControls('👩\u200D💻'), '👩\u200D💻');
    assert.equal(showControls('👍🏽\u200D🔥'), '👍🏽\u200D🔥');
    assert.equal(showControls('a\u200D💻'), 'a⟨U+200D⟩💻');
    assert.equal(showControls('👩\u200Dx'), '👩⟨U+200D⟩x');
    assert.equal(showControls('\u200D'), '⟨U+200D⟩');
  });

  it('BIDI_AND_INVISIBLE is global + unicode and matches exactly what showControls replaces', () => {
    assert.ok(BIDI_AND_INVISIBLE.global && BIDI_AND_INVISIBLE.unicode);
    for (const s of CORPUS) {
      const out = showControls(s);
      assert.equal(s.match(BIDI_AND_INVISIBLE) !== null, out !== s, JSON.stringify(s));
      assert.equal(out.match(BIDI_AND_INVISIBLE), null, JSON.stringify(out));
      assert.deepEqual(rawInvisible(out), [], JSON.stringify(out));
    }
  });
});

describe('foreign text: escapeMarkdown', () => {
  it('escapes markup, autolinks and entities to exact strings', () => {
    const cases: [string, string][] = [
      ['[a](b)', '\\[a\\]\\(b\\)'],
      ['![img](https://x/y.png)', '\\!\\[img\\]\\(https\\:\\/\\/x\\/y\\.png\\)'],
      ['<https://x>', '\\<https\\:\\/\\/x\\>'],
      ['https://evil.example/x', 'https\\:\\/\\/evil\\.example\\/x'],
      ['www.example.com', 'www\\.example\\.com'],
      ['mailto:a@b', 'mailto\\:a\\@b'],
      ['&lt;b&gt;', '\\&lt\\;b\\&gt\\;'],
      ['*em* _em_ `code`', '\\*em\\* \\_em\\_ \\`code\\`'],
      ['# 1. - x', '\\# 1\\. \\- x'],
      ['$(zap) a|b', '\\$\\(zap\\) a\\|b'],
      ['back\\slash', 'back\\\\slash'],
      ['line1\n\nline2\r\nline3\rline4\u2028end', 'line1 line2 line3 line4 end'],
      ['  lead', '&#32; lead'],
      ['\tlead', '&#9;lead'],
      ['RTL\u202Eevil', 'RTL⟨U\\+202E⟩evil'],
      ['中文 😀 مرحبا', '中文 😀 مرحبا'],
      ['', ''],
    ];
    for (const [input, expected] of cases) assert.equal(escapeMarkdown(input), expected, JSON.stringify(input));
  });

  it('truncates by code points with the ellipsis inside maxLength, never splitting a pair or a marker', () => {
    assert.equal(escapeMarkdown('abcdef', { maxLength: 4 }), 'abc…');
    assert.equal(escapeMarkdown('abcd', { maxLength: 4 }), 'abcd');
    assert.equal(escapeMarkdown('😀😀😀😀😀', { maxLength: 3 }), '😀😀…');
    assert.equal(escapeMarkdown('a.b.c', { maxLength: 3 }), 'a\\.…');
    assert.equal(escapeMarkdown('ab\u202Ecdefghijkl', { maxLength: 6 }), 'ab…');
    assert.equal(escapeMarkdown('abc', { maxLength: 0 }), '');
    assert.equal(escapeMarkdown('abc', { maxLength: 1 }), '…');
    assert.equal(escapeMarkdown('abc', { maxLength: Infinity }), 'abc');
    // Cuts fall between grapheme clusters: no dangling ZWJ, flag tags or half a regional-indicator pair.
    assert.equal(escapeMarkdown('👩\u200D💻👩\u200D💻', { maxLength: 4 }), '👩\u200D💻…');
    assert.equal(escapeMarkdown('👩\u200D💻', { maxLength: 2 }), '…');
    assert.equal(escapeMarkdown('🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}x', { maxLength: 5 }), '…');
    assert.equal(escapeMarkdown('🇯🇵🇯🇵', { maxLength: 3 }), '🇯🇵…');
    assert.equal(escapeMarkdown('e\u0301e\u0301', { maxLength: 3 }), 'e\u0301…');
    const clusters = '👩\u200D💻🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}e\u0301🇯🇵\u202E'.repeat(40);
    for (let max = 1; max <= 120; max++) {
      const raw = notificationText(clusters, { maxLength: max });
      const out = raw.startsWith('\u2068') ? raw.slice(1, -1) : raw;
      assert.ok(codePoints(out) <= max && out.endsWith('…'), `${max}: ${JSON.stringify(out)}`);
      assert.ok(showControls(clusters).startsWith(out.slice(0, -1)), `${max}: ${JSON.stringify(out)}`);
      assert.equal(out.match(BIDI_AND_INVISIBLE), null, `${max}: ${JSON.stringify(out)}`);
    }
    const rnd = seededRandom(7);
    for (const s of CORPUS.slice(0, 1000)) {
      const max = Math.floor(rnd() * 20);
      const out = escapeMarkdown(s, { maxLength: max });
      const shown = out
        .replace(/^&#32;/, ' ')
        .replace(/^&#9;/, '\t')
        .replace(/\\([!-/:-@[-`{-~])/g, '$1');
      assert.ok(codePoints(shown) <= max, `${JSON.stringify(s)} → ${JSON.stringify(out)}`);
      assert.deepEqual(rawInvisible(out), []);
      const full = inlineVisible(s);
      if (codePoints(full) <= max) assert.equal(shown, full);
      else assert.ok(max === 0 ? shown === '' : shown.endsWith('…') && full.startsWith(shown.slice(0, -1)));
    }
  });

  it(`fuzz (${FUZZ_COUNT}): no unescaped punctuation, control, line break or linkifiable URL`, () => {
    for (const s of CORPUS) {
      const out = escapeMarkdown(s);
      const why = `${JSON.stringify(s)} → ${JSON.stringify(out)}`;
      assert.deepEqual(unescapedPunctuation(out), [], why);
      assert.deepEqual(rawInvisible(out), [], why);
      assert.equal(out.match(BIDI_AND_INVISIBLE), null, why);
      assert.ok(!/[\r\n\u2028\u2029]/.test(out), why);
      assert.ok(!/https?:\/\/|www\.|mailto:|ftp:\/\//i.test(out), why);
      assert.ok(!/[A-Za-z0-9]@[A-Za-z0-9]/.test(out), why);
    }
  });

  it(`markdown-it: inline rendering equals the literal text (${FUZZ_COUNT} inputs)`, function () {
    const r = needMarkdownIt(this);
    for (const s of CORPUS) {
      const out = escapeMarkdown(s);
      const html = r.renderInline(out);
      assert.equal(html, r.utils.escapeHtml(inlineVisible(s)), `${JSON.stringify(s)} → ${JSON.stringify(out)}`);
      assert.ok(!/<a |<img|<code|<em|<strong/.test(html));
    }
  });

  it('markdown-it: as a whole document no block construct forms (heading, list, quote, code, HTML, table)', function () {
    const r = needMarkdownIt(this);
    const blocks = [
      '# h',
      '- li',
      '+ li',
      '* li',
      '1. x',
      '2) y',
      '> q',
      '```js',
      '~~~',
      '    indented',
      '\tindented',
      '<div>x</div>',
      '<!-- c -->',
      '[x]: https://y',
      '---',
      '***',
      '| a | b |\n| - | - |',
      'a\n===',
      'a\n---',
    ];
    for (const s of [...blocks, ...CORPUS]) {
      const out = escapeMarkdown(s);
      const literal = inlineVisible(s);
      // Paragraphs drop surrounding spaces and tabs; a leading one survives as the character reference.
      const kept = /^[ \t]/.test(literal) ? literal[0] + literal.slice(1).replace(/[ \t]+$/, '') : literal.replace(/^[ \t]+|[ \t]+$/g, '');
      const expected = kept === '' ? '' : `<p>${r.utils.escapeHtml(kept)}</p>\n`;
      assert.equal(r.render(out), expected, `${JSON.stringify(s)} → ${JSON.stringify(out)}`);
    }
  });
});

describe('foreign text: codeSpan', () => {
  it('builds exact spans', () => {
    assert.equal(codeSpan('plain'), '`plain`');
    assert.equal(codeSpan('a`b'), '``a`b``');
    assert.equal(codeSpan('a``b`c'), '```a``b`c```');
    assert.equal(codeSpan('`x'), '`` `x ``');
    assert.equal(codeSpan('x`'), '`` x` ``');
    assert.equal(codeSpan('`'), '`` ` ``');
    assert.equal(codeSpan(' a '), '`  a  `');
    assert.equal(codeSpan('   '), '`   `');
    assert.equal(codeSpan('a\nb\r\nc'), '`a b c`');
    assert.equal(codeSpan('x\u202Ey'), '`x⟨U+202E⟩y`');
    assert.equal(codeSpan(''), '` `');
    assert.equal(codeSpan('abcdef', { maxLength: 3 }), '`ab…`');
    assert.equal(codeSpan('[a](https://x)'), '`[a](https://x)`');
  });

  it(`fuzz (${FUZZ_COUNT}): the fence is longer than any inner backtick run`, () => {
    for (const s of CORPUS) {
      const out = codeSpan(s);
      const why = `${JSON.stringify(s)} → ${JSON.stringify(out)}`;
      const fence = /^`+/.exec(out)![0];
      assert.ok(out.length > 2 * fence.length && out.endsWith(fence), why);
      const inner = out.slice(fence.length, -fence.length);
      const runs = inner.match(/`+/g) ?? [];
      assert.ok(
        runs.every((run) => run.length < fence.length),
        why,
      );
      assert.ok(!inner.startsWith('`') && !inner.endsWith('`'), why);
      assert.ok(!/[\r\n\u2028\u2029]/.test(out), why);
      assert.deepEqual(rawInvisible(out), [], why);
    }
  });

  it(`markdown-it: renders as one <code> holding the literal text (${FUZZ_COUNT} inputs)`, function () {
    const r = needMarkdownIt(this);
    for (const s of CORPUS) {
      const out = codeSpan(s);
      const body = showControls(s.replace(/\r\n?|[\n\u2028\u2029]/g, ' '));
      const expected = `x <code>${r.utils.escapeHtml(body === '' ? ' ' : body)}</code> y`;
      assert.equal(r.renderInline(`x ${out} y`), expected, `${JSON.stringify(s)} → ${JSON.stringify(out)}`);
    }
  });
});

describe('foreign text: isolate', () => {
  it('shows controls, flattens line breaks and tabs, and wraps right-to-left text or end brackets in FSI…PDI', () => {
    assert.equal(isolate('abc'), 'abc');
    assert.equal(isolate('مرحبا'), `${FSI}مرحبا${PDI}`);
    assert.equal(isolate('model עברית 7b'), `${FSI}model עברית 7b${PDI}`);
    assert.equal(isolate('a\u202Eb\u2069c'), 'a⟨U+202E⟩b⟨U+2069⟩c');
    assert.equal(isolate('a\nb\r\nc\td\re'), 'a b c d e');
    assert.equal(isolate('[x]'), `${FSI}[x]${PDI}`);
    assert.equal(isolate(''), '');
  });

  it(`fuzz (${FUZZ_COUNT}): FSI first and PDI last or neither, always for right-to-left text, no other bidi control or line break`, () => {
    const bidi = new Set(BIDI);
    for (const s of CORPUS) {
      const out = isolate(s);
      const why = `${JSON.stringify(s)} → ${JSON.stringify(out)}`;
      const wrapped = out.startsWith(FSI);
      assert.equal(wrapped, out.endsWith(PDI) && out.length >= 2, why);
      if (/[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFC]/.test(showControls(s))) assert.ok(wrapped, `right-to-left text must be isolated: ${why}`);
      const inner = wrapped ? out.slice(1, -1) : out;
      assert.ok(
        Array.from(inner).every((c) => !bidi.has(c.codePointAt(0)!)),
        why,
      );
      assert.ok(!/[\t\r\n\u2028\u2029]/.test(out), why);
      assert.deepEqual(rawInvisible(inner), [], why);
    }
  });
});

describe('foreign text: isolateLabel', () => {
  it('moves highlight ranges past markers and the isolate', () => {
    // "evil" highlighted after an override: the marker is 8 characters long where U+202E was one.
    assert.deepEqual(isolateLabel('x = "\u202Eevil"', [[6, 10]]), { label: 'x = "⟨U+202E⟩evil"', highlights: [[13, 17]] });
    assert.deepEqual(
      isolateLabel('[a]\r\nb', [
        [0, 3],
        [5, 6],
      ]),
      {
        label: `${FSI}[a] b${PDI}`,
        highlights: [
          [1, 4],
          [5, 6],
        ],
      },
    );
    // Ranges out of the text or empty are dropped; an edge inside a replaced pair moves to its end.
    assert.deepEqual(
      isolateLabel('ab', [
        [1, 5],
        [1, 1],
      ]).highlights,
      [],
    );
    assert.deepEqual(isolateLabel('a\r\nb', [[2, 4]]).highlights, [[2, 3]]);
  });

  it(`fuzz (${FUZZ_COUNT}): the label is isolate's, and each range still covers its own characters`, () => {
    const rnd = seededRandom(0x1abe1);
    for (const s of CORPUS) {
      const start = Math.floor(rnd() * (s.length + 1));
      const end = Math.min(s.length, start + 1 + Math.floor(rnd() * 8));
      const { label, highlights } = isolateLabel(s, [[start, end]]);
      const why = JSON.stringify(s);
      assert.equal(label, isolate(s), why);
      if (start >= end) {
        assert.deepEqual(highlights, [], why);
        continue;
      }
      const [[a, b]] = highlights;
      assert.ok(a >= 0 && a <= b && b <= label.length, why);
      // Text with nothing to replace: the range covers exactly its own characters.
      const piece = s.slice(start, end);
      if (!/[\r\n\t\u2028\u2029]/.test(s) && showControls(s) === s) assert.equal(label.slice(a, b), piece, why);
      // Otherwise the range covers at least its visible characters.
      else assert.ok(label.slice(a, b).length >= piece.replace(BIDI_AND_INVISIBLE, '').length - 1, why);
    }
  });
});

describe('foreign text: notificationText', () => {
  it('breaks links, isolates and truncates at 300 by default', () => {
    assert.equal(notificationText('[x](command:foo)'), `${FSI}[x] (command:foo)${PDI}`);
    assert.equal(notificationText('[[a](b)](c)'), `${FSI}[[a] (b)] (c)${PDI}`);
    assert.equal(notificationText('a]\n(b'), 'a] (b');
    assert.equal(notificationText('Connection refused'), 'Connection refused');
    const long = notificationText('y'.repeat(1000));
    assert.equal(long, `${'y'.repeat(299)}…`);
    assert.equal(notificationText('abcdef', { maxLength: 4 }), 'abc…');
  });

  it(`fuzz (${FUZZ_COUNT}): no "](", no link even next to the extension's own brackets, bounded length`, () => {
    const rnd = seededRandom(11);
    for (const s of CORPUS) {
      const max = rnd() < 0.5 ? undefined : Math.floor(rnd() * 40);
      const out = notificationText(s, max === undefined ? undefined : { maxLength: max });
      const why = `${JSON.stringify(s)} → ${JSON.stringify(out)}`;
      assert.ok(!out.includes(']('), why);
      const wrapped = out.startsWith(FSI);
      assert.equal(wrapped, out.endsWith(PDI) && out.length >= 2, why);
      assert.ok(codePoints(out) - (wrapped ? 2 : 0) <= (max ?? 300), why);
      assert.deepEqual(rawInvisible(wrapped ? out.slice(1, -1) : out), [], why);
      // Only the extension's own links may come out, whatever the foreign text holds or touches.
      const messages: [string, string[]][] = [
        [`Server ${out} failed`, []],
        [`${out}(command:x)`, []],
        [`See [docs${out}`, []],
        [`${out} [help](command:ext.help)`, ['command:ext.help']],
        [`[${out}](https://ok.example)`, ['https://ok.example']],
      ];
      for (const [message, own] of messages) {
        for (const link of message.matchAll(NOTIFICATION_LINK)) {
          assert.ok(own.includes(link[2]), `${why}: ${JSON.stringify(link[0])} in ${JSON.stringify(message)}`);
        }
      }
    }
  });
});

describe('foreign text: safeLink', () => {
  it('links https URLs and always shows the host', () => {
    assert.equal(
      safeLink('https://github.com/sgl-project/sglang/issues/1', 'SGLang #1'),
      '[SGLang \\#1 \\(github\\.com\\)](https://github.com/sgl-project/sglang/issues/1)',
    );
    assert.equal(safeLink('https://docs.vllm.ai/en/latest/'), '[docs\\.vllm\\.ai\\/en\\/latest\\/](https://docs.vllm.ai/en/latest/)');
    assert.equal(safeLink('https://example.com'), '[example\\.com](https://example.com/)');
    assert.equal(safeLink('https://example.com:8443/x', '  '), '[example\\.com\\:8443\\/x](https://example.com:8443/x)');
    assert.equal(safeLink('https://аpple.com/', 'Apple'), '[Apple \\(xn\\-\\-pple\\-43d\\.com\\)](https://xn--pple-43d.com/)');
    assert.equal(safeLink('https://x.com/', '[evil](command:x)'), '[\\[evil\\]\\(command\\:x\\) \\(x\\.com\\)](https://x.com/)');
  });

  it('percent-encodes what could end or bend the link destination', () => {
    assert.equal(safeLink('https://en.wikipedia.org/wiki/Foo_(bar)', 'w'), '[w \\(en\\.wikipedia\\.org\\)](https://en.wikipedia.org/wiki/Foo_%28bar%29)');
    const link = safeLink('https://x.com/a b?q=\\ <>"`{}|^)#(f) g', 'q')!;
    const href = /\]\(([^)]*)\)$/.exec(link)![1];
    assert.ok(!/[()\\\s<>"`{}|^]/.test(href), href);
    assert.equal(new URL(href).host, 'x.com');
  });

  it('rejects every other scheme, credentials, odd hosts and junk', () => {
    const rejected = [
      'http://example.com',
      'command:inferenceDoctor.addServer',
      'command:foo?%5B%5D',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'java\nscript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vscode://file/x',
      'ftp://x.com',
      'mailto:a@b.com',
      'ws://x',
      'wss://x',
      'blob:https://x.com/1',
      '/relative/path',
      'relative',
      '//example.com/x',
      '',
      '   ',
      'https://',
      'https://user:pw@example.com/',
      'https://user@example.com/',
      'https://a(b).com/',
      'https://good.com&sol;.evil.com/',
      'https://a*b.com/',
      'https://%zz',
      'not a url',
    ];
    for (const u of rejected) assert.equal(safeLink(u, 'label'), null, JSON.stringify(u));
    assert.equal(safeLink(42 as unknown as string), null);
  });

  it(`fuzz (${FUZZ_COUNT}): only https survives, the host is on screen and the href keeps it`, function () {
    const rnd = seededRandom(23);
    const schemes = ['https:', 'HTTPS:', 'http:', 'command:', 'file:', 'javascript:', 'data:', 'vscode:', 'ftp:', ''];
    const hosts = [
      '//example.com',
      '//x.y.z:444',
      '//[::1]',
      '//127.0.0.1',
      '//EXAMPLE.com',
      '//a_b.example',
      '//u:p@x.com',
      '//a(b).c',
      '//中文.cn',
      '//xn--80ak6aa92e.com',
      '///x',
      '',
      '//evil.com&amp;.good.com',
    ];
    for (let i = 0; i < FUZZ_COUNT; i++) {
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
      const url = pick(schemes) + pick(hosts) + (rnd() < 0.8 ? `/${fuzzString(rnd)}` : '');
      const label = rnd() < 0.5 ? undefined : fuzzString(rnd);
      const out = safeLink(url, label);
      let parsed: URL | undefined;
      try {
        parsed = new URL(url);
      } catch {
        parsed = undefined;
      }
      if (parsed?.protocol !== 'https:' || parsed.username || parsed.password) {
        assert.equal(out, null, JSON.stringify(url));
        continue;
      }
      if (out === null) {
        assert.ok(!/^[a-z0-9._-]+$/.test(parsed.hostname), `plain https host refused: ${JSON.stringify(url)}`);
        continue;
      }
      const why = `${JSON.stringify(url)} ${JSON.stringify(label)} → ${JSON.stringify(out)}`;
      const m = /^\[(.*)\]\(([^()\s<>]+)\)$/s.exec(out);
      assert.ok(m, why);
      assert.equal(new URL(m[2]).host, parsed.host, why);
      assert.ok(m[1].includes(escapeMarkdown(parsed.host)), why);
      assert.deepEqual(unescapedPunctuation(m[1]), [], why);
      if (md) {
        const html = md.renderInline(out);
        const anchors = [...html.matchAll(/<a href="([^"]*)">/g)];
        assert.equal(anchors.length, 1, `${why}\n${html}`);
        assert.equal(new URL(anchors[0][1].replaceAll('&amp;', '&')).host, parsed.host, why);
        const text = html.replace(/^<a href="[^"]*">|<\/a>$/g, '');
        assert.ok(text.includes(md.utils.escapeHtml(parsed.host)), why);
      }
    }
  });
});

describe('foreign text: escapeIcons', () => {
  it('escapes $(icon) syntax once, leaving other dollars and already escaped icons alone', () => {
    assert.equal(escapeIcons('$(zap) fast'), '\\$(zap) fast');
    assert.equal(escapeIcons('a $(sync~spin) b $(x-y)'), 'a \\$(sync~spin) b \\$(x-y)');
    assert.equal(escapeIcons('\\$(zap)'), '\\$(zap)');
    assert.equal(escapeIcons('costs $5 (approx)'), 'costs $5 (approx)');
    assert.equal(escapeIcons(escapeIcons('$(a)$(b)')), '\\$(a)\\$(b)');
  });
});
