/** The figures the scale bench derives: percentiles of repeated runs, growth exponents across K. */

/** The nearest-rank percentile `p` (0–100) of `values`. */
export function percentile(values: number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * The exponent b of y ≈ a·K^b, by least squares on log y against log K over the K values run:
 * 1 is linear in the data, 2 quadratic, 0 flat. Undefined with fewer than two K values, or when a
 * figure is missing or not positive at one of them.
 */
export function growthExponent(points: { k: number; y: number | undefined }[]): number | undefined {
  const usable = points.filter((p) => p.y !== undefined && Number.isFinite(p.y) && p.y > 0) as { k: number; y: number }[];
  if (usable.length < 2 || usable.length < points.length || new Set(usable.map((p) => p.k)).size < 2) return undefined;
  const xs = usable.map((p) => Math.log(p.k));
  const ys = usable.map((p) => Math.log(p.y));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return num / den;
}
