// Exit status by failure class (DESIGN.md section 7): the worst class of any violation decides, correctness before
// liveness before a crash of a model process.
import type { FailureClass } from '../checkers/index.ts';

export const exitCodes = { pass: 0, correctness: 1, usage: 2, internal: 3, liveness: 4, crash: 5 } as const;

export function exitCodeFor(classes: readonly FailureClass[]): number {
  if (classes.length === 0) return exitCodes.pass;
  if (classes.includes('correctness')) return exitCodes.correctness;
  if (classes.includes('liveness')) return exitCodes.liveness;
  return exitCodes.crash;
}
