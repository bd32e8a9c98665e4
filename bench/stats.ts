// Small helpers the benchmarks share: medians, rounding, and the figure a hunt reports when a campaign never found
// its bug (a median over campaigns where more than half found nothing is "not found").

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  if (sorted.length % 2 === 1) return sorted[middle] as number;
  return ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Median where `undefined` (not found) sorts above every number; undefined when more than half are undefined. */
export function medianFound(values: readonly (number | undefined)[]): number | undefined {
  const found = values.filter((value): value is number => value !== undefined);
  if (found.length === 0) return undefined;
  const sorted = [...found.sort((a, b) => a - b), ...values.filter((value) => value === undefined).map(() => Number.POSITIVE_INFINITY)];
  const middle = sorted.length >> 1;
  const value = sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return Number.isFinite(value) ? value : undefined;
}

export function round(value: number, digits = 0): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
