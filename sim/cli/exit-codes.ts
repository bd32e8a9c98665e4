// Exit status by failure class (docs/ARCHITECTURE.md section 7): the worst class of any violation decides, correctness
// before liveness before a crash of a model process. A campaign whose determinism check (fuzz --check-determinism)
// found a run of one plan that gave two traces exits `nondeterminism`, whatever else it found: its verdicts and seed
// strings cannot be trusted to replay.
import type { FailureClass } from '../checkers/index.ts';

export const exitCodes = { pass: 0, correctness: 1, usage: 2, internal: 3, liveness: 4, crash: 5, nondeterminism: 6 } as const;

export function exitCodeFor(classes: readonly FailureClass[]): number {
  if (classes.length === 0) return exitCodes.pass;
  if (classes.includes('correctness')) return exitCodes.correctness;
  if (classes.includes('liveness')) return exitCodes.liveness;
  return exitCodes.crash;
}
