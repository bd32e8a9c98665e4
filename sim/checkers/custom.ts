// A user's own invariants. A gateway engineer registers a named invariant with a class and a check over the same
// Observations the built-in checkers read (the ground-truth ledger, the durable state, the kernel's kills and
// crashes); every run checks the registered invariants after the built-in ones, the command line lists them, and
// `fuzz --invariant <name>` hunts for them. Names share the built-in namespace and must not collide with it.
import type { Observations } from './observations.ts';
import { addInvariantName, type FailureClass, invariantNames, type Violation } from './violation.ts';

/** What a custom check reports: the message, and optionally where on the timeline it shows. */
export interface CustomViolation {
  message: string;
  /** Simulated time at which the violation shows; the end of the run when left out. */
  timeMs?: number;
  /** Trace step; derived from timeMs (or the last step) when left out. */
  step?: number;
}

/** An invariant of one's own, checked at the end of every run after the built-in invariants. */
export interface CustomInvariant {
  /** Stable name (lower-case letters, digits and dashes); it appears in reports, JSON output and `--invariant`. */
  name: string;
  /** What a violation of it means: wrong state, no progress, or a crash. */
  class: FailureClass;
  /** What it checks, in one line (`gatesim list` prints it beside the name). */
  description?: string;
  /** Judge one run. Return nothing (or an empty list) when the invariant held. */
  check(observations: Observations): readonly CustomViolation[] | undefined;
}

const registered: CustomInvariant[] = [];

/** The message prefix of a UserInvariantError (how the command line knows one that crossed from a worker thread). */
export const userInvariantErrorPrefix = 'your invariant "';

/**
 * Register an invariant that every run checks after the built-in ones. Registering the same object again is a
 * no-op; another invariant under a taken name is refused.
 */
export function registerInvariant(invariant: CustomInvariant): void {
  if (registered.includes(invariant)) return;
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(invariant.name)) throw new Error(`invariant name "${invariant.name}" must be lower-case letters, digits and dashes`);
  if (invariantNames.includes(invariant.name) || invariant.name === 'no-process-crash') throw new Error(`an invariant named "${invariant.name}" is already registered`);
  if (!['correctness', 'liveness', 'crash'].includes(invariant.class)) throw new Error(`invariant "${invariant.name}": class must be correctness, liveness or crash`);
  registered.push(invariant);
  addInvariantName(invariant.name, invariant.class);
}

/** The one-line description of a registered invariant, if it gave one. */
export function customDescription(name: string): string | undefined {
  return registered.find((invariant) => invariant.name === name)?.description;
}

/** The registered invariants, in registration order. */
export function customInvariants(): readonly CustomInvariant[] {
  return registered;
}

/**
 * A registered invariant's check threw: a bug in the caller's code, not in gatesim and not a violation. The message
 * names the invariant, and the stack is that of what the check threw (the frames of the caller's code), so that a
 * report shows it; both survive a worker thread's structured clone, where the class does not.
 */
export class UserInvariantError extends Error {
  override name = 'UserInvariantError';

  constructor(invariantName: string, thrown: unknown) {
    super(`${userInvariantErrorPrefix}${invariantName}" (registered with registerInvariant) threw: ${thrown instanceof Error ? thrown.message : String(thrown)}`, { cause: thrown });
    const frames = thrown instanceof Error ? (thrown.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line)) : [];
    this.stack = [`${this.name}: ${this.message}`, ...frames].join('\n');
  }
}

/** A check that throws is a bug in the check, not a violation: it is reported under the invariant's name. */
function runCheck(invariant: CustomInvariant, o: Observations): readonly CustomViolation[] {
  try {
    return invariant.check(o) ?? [];
  } catch (error) {
    throw new UserInvariantError(invariant.name, error);
  }
}

/** Run every registered invariant over one run's observations; `stepAt` places a time on the trace. */
export function checkCustom(o: Observations, stepAt: (timeMs: number) => number): Violation[] {
  const out: Violation[] = [];
  for (const invariant of registered) {
    for (const found of runCheck(invariant, o)) {
      const timeMs = found.timeMs ?? o.endMs;
      out.push({
        invariant: invariant.name,
        message: found.message,
        step: found.step ?? (found.timeMs === undefined ? Math.max(0, o.events.length - 1) : stepAt(timeMs)),
        timeMs,
        class: invariant.class,
      });
    }
  }
  return out;
}
