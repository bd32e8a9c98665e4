// Invariant names are stable: they appear in JSON output and scripts depend on them (DESIGN.md section 5).
export const invariantNames = [
  'one-assistant-row-per-visible-reply',
  'no-double-ingestion',
  'no-duplicate-visible-reply',
  'no-lost-reply',
  'transcript-consistent',
  'no-lost-user-message',
  'every-inbound-answered',
  'quiescent-after-heal',
] as const;

export type InvariantName = (typeof invariantNames)[number] | 'no-process-crash';

export type FailureClass = 'correctness' | 'liveness' | 'crash';

export interface Violation {
  invariant: InvariantName;
  message: string;
  /** Index of the trace event closest to where the violation shows (or the final step). */
  step: number;
  timeMs: number;
  class: FailureClass;
}

export function classOf(invariant: InvariantName): FailureClass {
  if (invariant === 'every-inbound-answered' || invariant === 'quiescent-after-heal') return 'liveness';
  if (invariant === 'no-process-crash') return 'crash';
  return 'correctness';
}
