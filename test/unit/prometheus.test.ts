import { strict as assert } from 'node:assert';
import { vllmMetricsOf } from '../../src/core/probe/engine';
import { readPrometheusText } from '../../src/core/probe/prometheus';

const BODY = `# HELP vllm:corrupted_requests_total Requests with NaN logits.
# TYPE vllm:corrupted_requests_total counter
vllm:corrupted_requests_total{engine="0",model_name="m"} 2.0
vllm:corrupted_requests_total{engine="1",model_name="m"} 3
vllm:cache_config_info{block_size="16",cache_dtype="fp8_e4m3",note="a \\"quoted\\" \\\\ one\\nline"} 1.0
process_start_time_seconds 1.7e9
vllm:e2e_request_latency_seconds_bucket{le="+Inf",model_name="m"} +Inf 1712345678000
broken{label="no end 4
{novalue="1"} 3
vllm:gauge_nan{a="b"} NaN
`;

describe('Prometheus text reader', () => {
  const samples = [...readPrometheusText(BODY)];

  it('reads names, labels with escapes, numbers, +Inf, NaN and timestamps; skips comments and broken lines', () => {
    assert.deepEqual(
      samples.map((s) => s.name),
      [
        'vllm:corrupted_requests_total',
        'vllm:corrupted_requests_total',
        'vllm:cache_config_info',
        'process_start_time_seconds',
        'vllm:e2e_request_latency_seconds_bucket',
        'vllm:gauge_nan',
      ],
    );
    assert.equal(samples[2].labels.note, 'a "quoted" \\ one\nline');
    assert.equal(samples[3].value, 1.7e9);
    assert.equal(samples[4].value, Infinity);
    assert.equal(samples[4].labels.le, '+Inf');
    assert.ok(Number.isNaN(samples[5].value));
  });

  it("sums vLLM's corrupted-requests counter over its labels and keeps the cache config", () => {
    const m = vllmMetricsOf(samples);
    assert.equal(m.corruptedRequests, 5);
    assert.equal(m.cacheConfig?.cache_dtype, 'fp8_e4m3');
    assert.equal(m.cacheConfig?.block_size, '16');
  });

  it('leaves the counter unknown when the server does not export it (VLLM_COMPUTE_NANS_IN_LOGITS unset)', () => {
    const m = vllmMetricsOf(readPrometheusText('vllm:num_requests_running{engine="0"} 0.0\n'));
    assert.equal(m.corruptedRequests, undefined);
    assert.equal(m.cacheConfig, undefined);
  });
});
