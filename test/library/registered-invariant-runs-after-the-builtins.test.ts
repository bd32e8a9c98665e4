// An invariant of one's own runs over the same observations as the built-in ones, after them: its violations carry
// its name and class, fail the run, and show in the invariant list; a clash with a built-in name is refused.
import { describe, expect, it } from 'vitest';
import { builtinInvariantNames, type CustomInvariant, invariantNames, type Observations, registerInvariant, runScenario } from '../../lib/index.ts';

const seen: Observations[] = [];
const everyReplyShort: CustomInvariant = {
  name: 'every-reply-under-5-chars',
  class: 'liveness',
  check(observations) {
    seen.push(observations);
    return observations.ledger.shown
      .filter((shown) => shown.text.length >= 5)
      .map((shown) => ({ message: `"${shown.text}" is long`, timeMs: shown.atMs }));
  },
};

describe('registerInvariant', () => {
  registerInvariant(everyReplyShort);

  it('is listed after the built-in invariants', () => {
    expect(invariantNames.slice(0, builtinInvariantNames.length)).toEqual([...builtinInvariantNames]);
    expect(invariantNames.at(-1)).toBe('every-reply-under-5-chars');
  });

  it('judges each run from the ledger and fails it with its own name and class', async () => {
    const run = await runScenario('send-mid-turn', { seed: 4 });
    expect(seen.at(-1)?.ledger).toBe(run.result.ledger);
    const own = run.result.violations.filter((violation) => violation.invariant === 'every-reply-under-5-chars');
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((violation) => violation.class === 'liveness')).toBe(true);
    expect(run.result.verdict).toBe('fail');
    expect(run.result.violations.filter((violation) => violation.invariant !== 'every-reply-under-5-chars')).toEqual([]);
  });

  it('refuses a second invariant under a taken name', () => {
    expect(() => registerInvariant({ ...everyReplyShort })).toThrow('already registered');
    expect(() => registerInvariant({ ...everyReplyShort, name: 'no-lost-reply' })).toThrow('already registered');
    expect(() => registerInvariant({ ...everyReplyShort, name: 'no-process-crash' })).toThrow('already registered');
  });
});
