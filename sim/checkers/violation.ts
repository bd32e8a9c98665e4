// Invariant names are stable: they appear in JSON output and scripts depend on them (docs/ARCHITECTURE.md section 5).
// The built-in names are fixed here; a user's own invariants (sim/checkers/custom.ts) join `invariantNames` when they
// are registered, so the command line lists and accepts them like the built-in ones.
import type { Place } from './placement.ts';

/** The built-in invariants (docs/ARCHITECTURE.md section 5), besides no-process-crash. */
export const builtinInvariantNames = [
  'one-assistant-row-per-visible-reply',
  'no-double-ingestion',
  'no-duplicate-visible-reply',
  'no-lost-reply',
  'transcript-consistent',
  'no-lost-user-message',
  'every-inbound-answered',
  'quiescent-after-heal',
  'answered-in-time',
  'supervision',
  'failure-notice-final',
  'one-send-in-flight',
  'effect-at-most-once',
  'context-holds-durable-turns',
] as const;

/** A built-in invariant's name, or the crash check's. */
export type BuiltinInvariantName = (typeof builtinInvariantNames)[number] | 'no-process-crash';

/** An invariant's name: a built-in one, or one registered with registerInvariant. */
export type InvariantName = BuiltinInvariantName | (string & {});

/** Every invariant the checkers run, built-in first, then registered ones in registration order. */
export const invariantNames: readonly string[] = [...builtinInvariantNames];

/** How bad a violation is: correctness (wrong durable or visible state), liveness (no progress), crash. */
export type FailureClass = 'correctness' | 'liveness' | 'crash';

/** One broken invariant in one run. */
export interface Violation {
  invariant: InvariantName;
  message: string;
  /**
   * Index of the trace event at which the violation's evidence became true (the second durable copy, the repeat
   * shown, the record of a reply never shown, a kill), or the final step when only the end proves it.
   */
  step: number;
  timeMs: number;
  class: FailureClass;
  /** What happened at `step`, in the ledger's and the durable state's terms (for the report's decisive line). */
  evidence?: string;
}

const customClasses = new Map<string, FailureClass>();

/** Record a registered invariant's name and class (sim/checkers/custom.ts is the only caller). */
export function addInvariantName(name: string, failureClass: FailureClass): void {
  customClasses.set(name, failureClass);
  (invariantNames as string[]).push(name);
}

/** An invariant's failure class. */
export function classOf(invariant: InvariantName): FailureClass {
  if (invariant === 'every-inbound-answered' || invariant === 'quiescent-after-heal' || invariant === 'answered-in-time' || invariant === 'supervision') return 'liveness';
  if (invariant === 'no-process-crash') return 'crash';
  return customClasses.get(invariant) ?? 'correctness';
}

/** A violation of `invariant` placed where its evidence became true (placement.ts). */
export function placedViolation(invariant: InvariantName, message: string, place: Place): Violation {
  return { invariant, message, step: place.step, timeMs: place.timeMs, class: classOf(invariant), evidence: place.evidence };
}
