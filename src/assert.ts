// Always-on assertions for the model. src/ may not import sim/, so it keeps its own.
export class ModelAssertionError extends Error {
  override name = 'ModelAssertionError';
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ModelAssertionError(message);
}
