/**
 * The Diagnose Server panel's parts that need no VS Code: the page-message validator and the one
 * rule for what may be a link (an https://github.com/… address).
 */
import assert from 'node:assert/strict';
import { DIAGNOSE_MESSAGE_TYPES, githubLink, isDiagnoseWebviewMessage, MAX_FINDINGS } from '../../src/shared/diagnoseProtocol';

describe('diagnose webview messages', () => {
  it('accepts each message type with its fields', () => {
    const good = [
      { type: 'ready' },
      { type: 'rediagnose' },
      { type: 'applyAndVerify', index: 0 },
      { type: 'sweep', index: MAX_FINDINGS - 1 },
      { type: 'openSource', url: 'https://github.com/sgl-project/sglang/issues/12178' },
    ];
    for (const m of good) assert.ok(isDiagnoseWebviewMessage(m), JSON.stringify(m));
    assert.deepEqual([...new Set(good.map((m) => m.type))].sort(), [...DIAGNOSE_MESSAGE_TYPES].sort());
  });

  it('refuses anything malformed (the page is untrusted)', () => {
    const bad: unknown[] = [
      null,
      'ready',
      [],
      [{ type: 'ready' }],
      {},
      { type: 'nope' },
      { type: 'applyAndVerify' },
      { type: 'applyAndVerify', index: -1 },
      { type: 'applyAndVerify', index: 1.5 },
      { type: 'applyAndVerify', index: MAX_FINDINGS },
      { type: 'sweep', index: '0' },
      { type: 'openSource' },
      { type: 'openSource', url: 'javascript:alert(1)' },
      { type: 'openSource', url: 'https://evil.example/' },
      { type: 'openSource', url: 'command:inferenceDoctor.sweep' },
    ];
    for (const m of bad) assert.equal(isDiagnoseWebviewMessage(m), false, JSON.stringify(m));
  });
});

describe('githubLink: only https://github.com/… addresses become links', () => {
  it('keeps GitHub issue, pull request and file addresses', () => {
    for (const u of [
      'https://github.com/sgl-project/sglang/issues/12178',
      'https://github.com/sgl-project/sglang/pull/16975',
      'https://github.com/flashinfer-ai/flashinfer/blob/main/README.md#L3',
    ])
      assert.equal(githubLink(u), u);
  });

  it('refuses other schemes, hosts, look-alikes, credentials, ports and invisible characters', () => {
    for (const u of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'data:text/html,x',
      'http://github.com/a/b',
      'https://github.com',
      'https://github.com/',
      'https://github.com.evil.example/a',
      'https://evil.example/https://github.com/a',
      'https://gist.github.com/a/b',
      'https://user:pw@github.com/a/b',
      'https://github.com:444/a/b',
      ' https://github.com/a/b',
      'https://github.com/a b',
      'https://github.com/a\nb',
      'https://github.com/a\u202Eb',
      'https://github.com/a\u200Bb',
      `https://github.com/${'a'.repeat(3000)}`,
      42,
      undefined,
    ])
      assert.equal(githubLink(u), undefined, JSON.stringify(u));
  });
});
