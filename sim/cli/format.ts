// Small formatting helpers shared by the reports.

/** Simulated or wall milliseconds as a short human duration: 850ms, 12.3s, 2m05s. */
export function formatMs(ms: number): string {
  if (ms < 1_000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)}s`;
  return `${Math.floor(ms / 60_000)}m${String(Math.floor((ms % 60_000) / 1_000)).padStart(2, '0')}s`;
}
