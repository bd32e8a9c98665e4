// Assertions are always on. An assertion failure is a bug in gatesim or in the model, never an expected fault:
// expected faults (a dropped message, a killed process) are typed results, not exceptions from here.

export class AssertionError extends Error {
  override name = 'AssertionError';
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}

/**
 * An assertion on a hot path (every event, every draw): the caller tests the condition and builds the message only
 * when it failed, since a message built from numbers costs more than the test (`if (!ok) fail(\`...\`)`).
 */
export function fail(message: string): never {
  throw new AssertionError(message);
}

export function assertInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new AssertionError(`${what} must be a safe integer, got ${value}`);
}

export function assertNonNegativeInteger(value: number, what: string): void {
  assertInteger(value, what);
  if (value < 0) throw new AssertionError(`${what} must be >= 0, got ${value}`);
}
