// Always-on assertions for the model. src/ may not import sim/, so it keeps its own.
export class ModelAssertionError extends Error {
  override name = 'ModelAssertionError';
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ModelAssertionError(message);
}

/** A count, an index, a seq or a simulated time in ms: a safe integer, not below 0 (two checks, so a failure says which). */
export function assertNonNegativeInteger(value: number, what: string): void {
  assert(Number.isSafeInteger(value), `${what} must be a safe integer, got ${value}`);
  assert(value >= 0, `${what} must be >= 0, got ${value}`);
}
