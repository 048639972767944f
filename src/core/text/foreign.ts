/**
 * Foreign text → VS Code surfaces.
 *
 * Everything the extension shows that it did not write itself (server answers, /server_info, logs, remote
 * file contents, workspace rule files, settings) goes through one of these functions first. Each one names
 * the surface it is for, because each surface interprets different syntax:
 *
 * - MarkdownString (hovers, completion docs, tooltips): `escapeMarkdown`, `codeSpan`, `safeLink`.
 * - One-line plain surfaces (tree labels/descriptions, titles, quick picks): `isolate`.
 * - `window.show*Message` (parses `[label](https:|command:|file:…)`): `notificationText`.
 * - Anything else that is shown as-is (output channels, plain text): at least `showControls`.
 *
 * No `vscode` import here: the language server and the CLI use this module too.
 */

const ELLIPSIS = '…';
const FSI = '\u2068';
const PDI = '\u2069';

// Longest tag spec kept in an emoji tag sequence; real subdivision flags (gbsct, gbeng, usca) use 4–6.
const TAG_SPEC_MAX = 8;

function controlSource(): string {
  const spec = '[\\u{E0020}-\\u{E007E}]';
  const cancel = '\\u{E007F}';
  const blackFlag = '\\u{1F3F4}';
  // A tag spec character is legitimate only inside 🏴 spec{1,MAX} CANCEL TAG (subdivision flags). Spelling
  // out every split of the run around the current position keeps the whole run bounded, so an over-long
  // run is shown in full instead of partly kept invisible, and every lookaround stays O(MAX).
  const inFlag: string[] = [];
  for (let before = 0; before < TAG_SPEC_MAX; before++) {
    inFlag.push(`(?<=${blackFlag}${spec}{${before}})(?=${spec}{1,${TAG_SPEC_MAX - before}}${cancel})`);
  }
  return [
    // C0 except \t \n \r (\r is handled below), DEL, C1, soft hyphen, CGJ, ALM, MVS, ZWSP, ZWNJ, LRM, RLM,
    // LRE–RLO, WJ–PDI (incl. invisible operators and the reserved U+2065), BOM/ZWNBSP, interlinear
    // annotation, U+FFFC, lone surrogates (the u flag makes this class match only unpaired halves), and
    // the tag characters that never appear in emoji (U+E0000–E001F, incl. LANGUAGE TAG).
    '[\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x9F\\xAD\\u034F\\u061C\\u180E\\u200B\\u200C\\u200E\\u200F' +
      '\\u202A-\\u202E\\u2060-\\u2069\\uFEFF\\uFFF9-\\uFFFC\\uD800-\\uDFFF\\u{E0000}-\\u{E001F}]',
    // A CR that is not part of CRLF: a bare CR is a line break to some renderers and not to others.
    '\\r(?!\\n)',
    // ZWJ is shown unless it joins two pictographs (👩‍💻, 🏳️‍🌈), where it draws one visible emoji.
    '(?<!\\p{Extended_Pictographic}[\\u{FE0F}\\u{1F3FB}-\\u{1F3FF}]?)\\u200D',
    '\\u200D(?!\\p{Extended_Pictographic})',
    // Tag characters smuggle invisible ASCII (a known prompt-injection trick); only subdivision flags keep them.
    `(?!${inFlag.join('|')})${spec}`,
    `(?<!${blackFlag}${spec}{1,${TAG_SPEC_MAX}})${cancel}`,
  ].join('|');
}

const CONTROL_SOURCE = controlSource();

/**
 * Everything `showControls` replaces: bidi controls, zero-width and invisible formatting characters, C0/C1
 * controls other than tab, LF and the CR of CRLF, lone surrogates, U+FFFC, and tag characters outside
 * subdivision-flag emoji. Global: reset `lastIndex` before `test`/`exec`, or use `match`/`replace`.
 */
export const BIDI_AND_INVISIBLE = new RegExp(CONTROL_SOURCE, 'gu');

// Private copy so a caller moving BIDI_AND_INVISIBLE.lastIndex cannot affect us.
const CONTROLS = new RegExp(CONTROL_SOURCE, 'gu');

/** "U+202E": how a code point is named wherever a control is shown (here and in the probe panel). */
export function codePointLabel(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

function marker(ch: string): string {
  return `⟨${codePointLabel(ch)}⟩`;
}

/**
 * Replaces each invisible or reordering character with a visible `⟨U+XXXX⟩` marker and keeps everything
 * else exactly, including `\t`, `\n` and `\r\n` (line breaks are the caller's to handle).
 */
export function showControls(text: string): string {
  return text.replace(CONTROLS, marker);
}

const LINE_BREAK = /\r\n?|[\n\u2028\u2029]/g;
const LINE_BREAK_RUN = /(?:\r\n?|[\n\u2028\u2029])+/g;
const LINE_BREAK_OR_TAB = /\r\n?|[\n\u2028\u2029\t]/g;

/**
 * Made on first use: building a grapheme segmenter loads ICU's break rules, about 15 ms, and every
 * surface that imports this module (the extension at activation among them) would pay it at load.
 */
let graphemes: Intl.Segmenter | undefined;
function graphemeSegmenter(): Intl.Segmenter {
  return (graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' }));
}

function codePointCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return n;
}

/**
 * showControls, then keep at most `maxLength` code points, the `…` included; undefined, NaN and Infinity
 * mean no limit. Cuts fall between grapheme clusters of the source, so never inside a surrogate pair, a
 * marker, or an emoji ZWJ or flag sequence (cutting 👩‍💻 after its ZWJ would leave a raw ZWJ behind).
 */
function visible(text: string, maxLength: number | undefined): string {
  if (maxLength === undefined || Number.isNaN(maxLength) || maxLength === Infinity) return showControls(text);
  const max = Math.max(0, Math.floor(maxLength));
  // Markers only ever lengthen the text, so a long source (a whole log) skips straight to cutting.
  if (codePointCount(text) <= max) {
    const shown = showControls(text);
    if (codePointCount(shown) <= max) return shown;
  }
  if (max === 0) return '';
  const ends: number[] = [];
  let used = 0;
  // Segmenting costs time in the length of what it is given. A window of 2·max+2 UTF-16 units holds more
  // than max code points, so the budget runs out inside it, and every cluster kept ends before the
  // window's last unit, where its boundary is the same as in the full text.
  for (const { segment, index } of graphemeSegmenter().segment(text.slice(0, 2 * max + 2))) {
    used += codePointCount(showControls(segment));
    if (used > max - 1) break;
    ends.push(index + segment.length);
  }
  // Markers are recomputed on the kept prefix itself; back off further in the (theoretical) case where
  // that comes out longer than the per-cluster estimate.
  let kept = ends.length;
  let out = showControls(text.slice(0, kept > 0 ? ends[kept - 1] : 0));
  while (kept > 0 && codePointCount(out) > max - 1) {
    kept--;
    out = showControls(text.slice(0, kept > 0 ? ends[kept - 1] : 0));
  }
  return out + ELLIPSIS;
}

// All ASCII punctuation: CommonMark lets every one be backslash-escaped, so escaping the lot is simpler
// to trust than picking the ones that can start markup today (it also covers `$(icon)`, `$math$`, `@`).
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/g;

/**
 * For foreign text inline in a MarkdownString (hover, completion documentation, tooltip). The result
 * renders as the literal text on one line: no emphasis, code, link, image, autolink, raw HTML, entity,
 * heading, list, table cell break or theme icon can form.
 *
 * How bare URLs are kept from being linkified: every ASCII punctuation character is backslash-escaped,
 * so `https://x.com` becomes `https\:\/\/x\.com`, `www.x.com` becomes `www\.x\.com`, `mailto:a@b.c`
 * becomes `mailto\:a\@b\.c`. GFM's autolink extension (VS Code's marked) matches `https?://`, `www.` and
 * `local@domain.tld` on the source text, where the backslashes break every pattern; markdown-it's linkify
 * runs on text tokens, which end at each escape, so it never sees a scheme, a `www.` or even a bare
 * `domain.tld`. The escapes themselves are invisible once rendered.
 *
 * Line breaks (any run of CR, LF, U+2028, U+2029) collapse to one space; a leading space or tab becomes
 * a character reference so the text cannot turn into an indented code block at the start of a line.
 * `maxLength` counts code points of the visible text, the trailing `…` included; the cut falls between
 * grapheme clusters.
 */
export function escapeMarkdown(text: string, opts?: { maxLength?: number }): string {
  const flat = visible(text.replace(LINE_BREAK_RUN, ' '), opts?.maxLength);
  const escaped = flat.replace(ASCII_PUNCTUATION, '\\$&');
  return escaped.replace(/^[ \t]/, (ws) => (ws === ' ' ? '&#32;' : '&#9;'));
}

/** Length of the longest run of backticks in the text: a fence must be longer to hold it. */
export function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * An inline code span showing `text` literally. The fence is one backtick longer than the longest
 * backtick run inside, so nothing inside can close it; a space pads both sides when the text starts or
 * ends with a backtick, or starts and ends with a space (CommonMark strips one such pair). Each line break
 * becomes a space. The empty string gives "` `", a code span holding one space: it still marks the spot
 * where a value is missing and shows nothing else. Not for GFM table cells (a `|` would split the cell).
 */
export function codeSpan(text: string, opts?: { maxLength?: number }): string {
  const body = visible(text.replace(LINE_BREAK, ' '), opts?.maxLength);
  if (body === '') return '` `';
  const fence = '`'.repeat(longestBacktickRun(body) + 1);
  const pad = body.startsWith('`') || body.endsWith('`') || (body.startsWith(' ') && body.endsWith(' ') && /[^ ]/.test(body));
  return pad ? `${fence} ${body} ${fence}` : `${fence}${body}${fence}`;
}

/** Strong right-to-left letters (Hebrew, Arabic, Syriac, Thaana, NKo, ... and their presentation forms). */
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFC]|[\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

/**
 * Wraps in FSI…PDI only where it matters: right-to-left letters would reorder the text around them,
 * and a bracket at either end could join the extension's own text into `[..](..)`. Everything else
 * stays as it is, so plain names read and copy without invisible characters.
 */
function wrapIfNeeded(t: string): string {
  return RTL.test(t) || /^[([]|[\])]$/.test(t) ? FSI + t + PDI : t;
}

/**
 * For one-line plain surfaces (tree item labels and descriptions, titles, quick-pick items): controls made
 * visible, line breaks and tabs turned into spaces, and right-to-left text wrapped in FSI…PDI so it
 * cannot reorder what the extension puts around it. The isolate is balanced because showControls has
 * already replaced any bidi control inside.
 */
export function isolate(text: string): string {
  return isolateLabel(text, []).label;
}

// Line breaks and tabs first: at one position both can match only for a lone CR, which becomes a space.
const ISOLATE_PIECES = new RegExp(`${LINE_BREAK_OR_TAB.source}|${CONTROL_SOURCE}`, 'gu');

/**
 * `isolate`, for a label with highlighted ranges too (a tree item's `TreeItemLabel`): the isolated text,
 * and each `[start, end)` UTF-16 range moved to where its characters end up (markers and the isolate
 * shift them). A range edge inside a replaced character moves to that replacement's end.
 */
export function isolateLabel(text: string, ranges: readonly (readonly [number, number])[]): { label: string; highlights: [number, number][] } {
  const at = new Array<number>(text.length + 1);
  let out = '';
  let last = 0;
  ISOLATE_PIECES.lastIndex = 0;
  for (let m = ISOLATE_PIECES.exec(text); m; m = ISOLATE_PIECES.exec(text)) {
    for (let i = last; i < m.index; i++) at[i] = out.length + (i - last);
    out += text.slice(last, m.index);
    at[m.index] = out.length;
    out += /^(?:\r\n?|[\n\u2028\u2029\t])$/.test(m[0]) ? ' ' : marker(m[0]);
    for (let i = m.index + 1; i < m.index + m[0].length; i++) at[i] = out.length;
    last = m.index + m[0].length;
  }
  for (let i = last; i <= text.length; i++) at[i] = out.length + (i - last);
  out += text.slice(last);
  const label = wrapIfNeeded(out);
  const shift = label.length === out.length ? 0 : FSI.length;
  const highlights: [number, number][] = [];
  for (const [start, end] of ranges) {
    if (!(start >= 0 && end <= text.length && start < end)) continue;
    highlights.push([at[start] + shift, at[end] + shift]);
  }
  return { label, highlights };
}

/**
 * For foreign text inside `window.show{Information,Warning,Error}Message`, which turns
 * `[label](https:…|command:…|file:…)` into a clickable link: isolated like `isolate`, every `](` broken to
 * `] (`, and at most `maxLength` (default 300) visible code points with a trailing `…`. Isolate marks
 * (when right-to-left text or a bracket at either end needs them) keep a `]` or `(` at an end from
 * joining the extension's own text into a link.
 */
export function notificationText(text: string, opts?: { maxLength?: number }): string {
  // Breaking `](` before showControls and truncation is enough: markers start with ⟨ and truncation only
  // drops a suffix, so neither can create a new `](`.
  const flat = text.replace(LINE_BREAK_OR_TAB, ' ').replace(/\]\(/g, '] (');
  return wrapIfNeeded(visible(flat, opts?.maxLength ?? 300));
}

// A DNS name or IPv4 address as WHATWG URL serialises it (lowercase, IDNs as xn--). WHATWG URL accepts
// hosts like `a(b)` or `good.com&sol;.evil.com`; refusing them means no renderer's entity or escape
// handling in the href can send the link anywhere but the host we show. IPv6 literals are refused too:
// markdown renderers disagree on them (markdown-it percent-encodes the brackets, breaking the host).
const PLAIN_HOST = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?$/;

// What may stay unencoded in a link destination: RFC 3986 unreserved and reserved characters and `%`,
// minus the parentheses (they would end or unbalance the destination).
const HREF_UNSAFE = /[^A-Za-z0-9\-._~:/?#[\]@!$&'*+,;=%]/g;

function percentEncode(ch: string): string {
  const code = ch.charCodeAt(0);
  return code < 0x80 ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : encodeURIComponent(ch);
}

/**
 * A markdown link, made by the extension, to a URL that came from data (e.g. a rule's `source`). Only
 * `https:` URLs with a plain host (DNS name or IPv4) and no credentials qualify; anything else (http,
 * command:, file:, javascript:, data:, IPv6 literals, relative, unparsable) gives null. The visible text
 * is `label` (escaped) followed by ` (host)`, or host and path when there is no label, so the real
 * destination host is always on screen. IDNs show in their xn-- form, which defeats look-alike hosts.
 */
export function safeLink(url: string, label?: string): string | null {
  if (typeof url !== 'string') return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' || parsed.username !== '' || parsed.password !== '') return null;
  if (!PLAIN_HOST.test(parsed.hostname)) return null;
  const href = parsed.href.replace(HREF_UNSAFE, percentEncode);
  const name = typeof label === 'string' ? label.trim() : '';
  const shown =
    name === ''
      ? escapeMarkdown(parsed.host + (parsed.pathname === '/' ? '' : parsed.pathname))
      : `${escapeMarkdown(name)} ${escapeMarkdown(`(${parsed.host})`)}`;
  return `[${shown}](${href})`;
}

/**
 * Quick-pick labels, descriptions and details (and status-bar text) render `$(name)` as a codicon.
 * Foreign text gets VS Code's own escape, a backslash before the `$`, which the label renderer
 * shows as the literal `$(name)`.
 */
export function escapeIcons(text: string): string {
  return text.replace(/(\\)?\$\([a-z0-9-]+?(?:~[a-z0-9-]*?)?\)/gi, (m: string, escaped: string | undefined) => (escaped ? m : `\\${m}`));
}
