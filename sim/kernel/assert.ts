// Assertions are always on. An assertion failure is a bug in gatesim or in the model, never an expected fault:
// expected faults (a dropped message, a killed process) are typed results, not exceptions from here.

export class AssertionError extends Error {
  override name = 'AssertionError';
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}

export function assertInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new AssertionError(`${what} must be a safe integer, got ${value}`);
}

export function assertNonNegativeInteger(value: number, what: string): void {
  assertInteger(value, what);
  if (value < 0) throw new AssertionError(`${what} must be >= 0, got ${value}`);
}
