/**
 * A NaN on a tool-call request, as SGLang's chat layer reports it: finish_reason "tool_calls",
 * matched_stop null, no content and no tool calls. The "NaN happened" marker is gone, so the
 * verdict has to come from the missing tool calls.
 */
import assert from 'node:assert/strict';
import { runProbe } from '../../src/core/probe/runner';
import { startSimulator } from '../../src/sim/server';

describe('tool_calls stop without tool calls (simulator over HTTP)', function () {
  this.timeout(30_000);
  let sim: Awaited<ReturnType<typeof startSimulator>>;

  before(async () => {
    sim = await startSimulator({ port: 0, scenario: { seed: 3, models: { 'tools-nan': { behaviour: 'tool-calls-lost' }, fine: { behaviour: 'healthy' } } } });
  });
  after(async () => {
    await sim?.close();
  });

  it('the simulator sends the shape SGLang sends: tool_calls, matched_stop null, tool_calls null', async () => {
    const response = await fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tools-nan', messages: [{ role: 'user', content: 'What is the weather in Paris?' }] }),
    });
    const body = (await response.json()) as { choices: { finish_reason: string; matched_stop: unknown; message: { content: string; tool_calls: unknown } }[] };
    assert.equal(body.choices[0].finish_reason, 'tool_calls');
    assert.equal(body.choices[0].matched_stop, null);
    assert.equal(body.choices[0].message.tool_calls, null);
    assert.equal(body.choices[0].message.content, '');
  });

  for (const stream of [true, false]) {
    it(`the probe flags it (${stream ? 'stream' : 'non-stream'}) with tool-calls-missing`, async () => {
      const result = await runProbe(
        { baseUrl: sim.url },
        { endpoint: 'chat', model: 'tools-nan', prompt: 'What is the weather in Paris?', stream, timeoutMs: 10_000 },
      );
      assert.equal(result.finishReason, 'tool_calls');
      assert.equal(result.matchedStop, null);
      assert.notEqual(result.verdict.kind, 'ok');
      assert.ok(
        result.verdict.reasons.some((r) => r.code === 'tool-calls-missing'),
        JSON.stringify(result.verdict),
      );
    });
  }

  it('a healthy model on the same server stays ok', async () => {
    const result = await runProbe({ baseUrl: sim.url }, { endpoint: 'chat', model: 'fine', prompt: 'Say hello.', stream: true, timeoutMs: 10_000 });
    assert.equal(result.verdict.kind, 'ok');
    assert.equal(result.finishReason, 'stop');
  });
});
