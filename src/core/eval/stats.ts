/** The statistics of the accuracy report: pure functions, checked against hand-computed values. */

/** The two-sided 95% normal quantile. */
export const Z95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/**
 * Wilson score interval for k successes in n trials. Unlike p ± z·√(p(1−p)/n) it stays inside
 * [0, 1] and does not collapse to a point at 0/n or n/n, which is where a smoke test often lands.
 */
export function wilsonInterval(k: number, n: number, z = Z95): Interval {
  if (n <= 0) return { low: 0, high: 1 };
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** erfc(x), Numerical Recipes' Chebyshev fit: relative error below 1.2e-7 everywhere. */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** Standard normal CDF. */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

export interface ZTest {
  /** (p1 − p2) / pooled standard error: negative when the first proportion is lower. */
  z: number;
  /** One-sided p-value for "the first proportion is below the second". */
  pBelow: number;
}

/** Pooled two-proportion z-test of k1/n1 against k2/n2. */
export function twoProportionZTest(k1: number, n1: number, k2: number, n2: number): ZTest {
  if (n1 <= 0 || n2 <= 0) return { z: 0, pBelow: 0.5 };
  const p1 = k1 / n1;
  const p2 = k2 / n2;
  const pooled = (k1 + k2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  // Both 0/n or both n/n: no variance, and no evidence of a difference.
  if (se === 0) return { z: 0, pBelow: 0.5 };
  const z = (p1 - p2) / se;
  return { z, pBelow: normalCdf(z) };
}

/** Nearest-rank percentile (q in [0, 1]) of unsorted values; null for none. */
export function percentile(values: readonly number[], q: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1];
}
