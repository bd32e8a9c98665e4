// The PRNG: explicit seeds only, the same (seed, name) gives the same stream, named forks do not shift each other,
// and the integer helpers stay in range and are (roughly) uniform.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AssertionError } from '../../sim/kernel/assert.ts';
import { Prng } from '../../sim/kernel/prng.ts';

const seedArb = fc.string({ minLength: 1, maxLength: 24 });
const nameArb = fc.string({ minLength: 1, maxLength: 12 });

function draws(prng: Prng, count: number): number[] {
  return Array.from({ length: count }, () => prng.uint32());
}

/** Pearson's chi-square statistic of observed bucket counts against a uniform expectation. */
function chiSquare(counts: readonly number[]): number {
  const total = counts.reduce((sum, count) => sum + count, 0);
  const expected = total / counts.length;
  return counts.reduce((sum, count) => sum + ((count - expected) * (count - expected)) / expected, 0);
}

describe('prng streams', () => {
  it('gives the same stream for the same seed, and for the same seed and fork name', () => {
    fc.assert(
      fc.property(seedArb, nameArb, (seed, name) => {
        expect(draws(new Prng(seed), 32)).toEqual(draws(new Prng(seed), 32));
        expect(draws(new Prng(seed).fork(name), 32)).toEqual(draws(new Prng(seed).fork(name), 32));
      }),
    );
  });

  it('gives different streams for different seeds and for different fork names', () => {
    fc.assert(
      fc.property(seedArb, seedArb, (a, b) => {
        fc.pre(a !== b);
        expect(draws(new Prng(a), 4)).not.toEqual(draws(new Prng(b), 4));
        expect(draws(new Prng('root').fork(a), 4)).not.toEqual(draws(new Prng('root').fork(b), 4));
      }),
    );
  });

  it('keeps forks independent: draws on one fork or on the parent never shift another fork', () => {
    fc.assert(
      fc.property(seedArb, nameArb, nameArb, fc.nat(50), (seed, nameA, nameB, drawsOnA) => {
        fc.pre(nameA !== nameB);
        const untouched = draws(new Prng(seed).fork(nameB), 16);

        const parent = new Prng(seed);
        const forkA = parent.fork(nameA);
        draws(forkA, drawsOnA);
        draws(parent, drawsOnA);
        const forkB = parent.fork(nameB);
        expect(draws(forkB, 16)).toEqual(untouched);
      }),
    );
  });

  it('refuses a missing or empty seed with an assertion', () => {
    expect(() => new Prng('')).toThrow(AssertionError);
    expect(() => new Prng(undefined as unknown as string)).toThrow(AssertionError);
    expect(() => new Prng('seed').fork('')).toThrow(AssertionError);
  });
});

describe('prng integer helpers', () => {
  it('int stays within [min, max] and returns integers, including spans wider than 2^32', () => {
    // Half the safe range each way, so min + width stays a safe integer.
    const minArb = fc.maxSafeInteger().map((value) => Math.trunc(value / 2));
    const widthArb = fc.oneof(
      fc.nat(1_000),
      fc.integer({ min: 0, max: 2 ** 31 - 1 }).map((value) => value * 2 + 1),
      fc.maxSafeNat().map((value) => Math.floor(value / 2)),
    );
    fc.assert(
      fc.property(
        seedArb,
        minArb,
        widthArb,
        (seed, min, width) => {
          const prng = new Prng(seed);
          const max = min + width;
          for (let i = 0; i < 20; i++) {
            const value = prng.int(min, max);
            expect(Number.isSafeInteger(value)).toBe(true);
            expect(value).toBeGreaterThanOrEqual(min);
            expect(value).toBeLessThanOrEqual(max);
          }
        },
      ),
    );
  });

  it('int rejects an empty range and non-integer bounds', () => {
    const prng = new Prng('bounds');
    expect(() => prng.int(5, 4)).toThrow(AssertionError);
    expect(() => prng.int(0.5, 4)).toThrow(AssertionError);
    expect(() => prng.int(0, Number.POSITIVE_INFINITY)).toThrow(AssertionError);
  });

  it('int hits every value of a small range about equally often (chi-square)', () => {
    // 5 degrees of freedom: the 0.1% critical value is 20.5. Seeds are fixed, so this cannot flake.
    for (const seed of ['uniform-a', 'uniform-b', 'uniform-c']) {
      const prng = new Prng(seed);
      const counts = [0, 0, 0, 0, 0, 0];
      for (let i = 0; i < 60_000; i++) {
        const value = prng.int(10, 15);
        counts[value - 10] = (counts[value - 10] ?? 0) + 1;
      }
      expect(counts.every((count) => count > 0)).toBe(true);
      expect(chiSquare(counts)).toBeLessThan(20.5);
    }
  });

  it('int covers both ends of the range', () => {
    const prng = new Prng('ends');
    const seen = new Set<number>();
    for (let i = 0; i < 2_000; i++) seen.add(prng.int(-3, 3));
    expect([...seen].sort((a, b) => a - b)).toEqual([-3, -2, -1, 0, 1, 2, 3]);
  });

  it('chance is never true at 0 and always true at or above the denominator', () => {
    fc.assert(
      fc.property(seedArb, fc.integer({ min: 1, max: 1_000_000 }), fc.nat(1_000), (seed, denominator, extra) => {
        const prng = new Prng(seed);
        for (let i = 0; i < 20; i++) {
          expect(prng.chance(0, denominator)).toBe(false);
          expect(prng.chance(-extra, denominator)).toBe(false);
          expect(prng.chance(denominator, denominator)).toBe(true);
          expect(prng.chance(denominator + extra, denominator)).toBe(true);
        }
      }),
    );
  });

  it('chance(1, 4) is true about a quarter of the time', () => {
    const prng = new Prng('quarter');
    let hits = 0;
    for (let i = 0; i < 40_000; i++) if (prng.chance(1, 4)) hits++;
    // Expected 10,000 with a standard deviation of about 87.
    expect(hits).toBeGreaterThan(9_600);
    expect(hits).toBeLessThan(10_400);
  });

  it('chance rejects a zero denominator', () => {
    expect(() => new Prng('zero').chance(1, 0)).toThrow(AssertionError);
  });

  it('shuffle returns a permutation and leaves its input alone', () => {
    fc.assert(
      fc.property(seedArb, fc.array(fc.integer(), { maxLength: 60 }), (seed, items) => {
        const input = items.slice();
        const shuffled = new Prng(seed).shuffle(items);
        expect(items).toEqual(input);
        expect(shuffled).toHaveLength(items.length);
        const byValue = (a: number, b: number): number => a - b;
        expect(shuffled.slice().sort(byValue)).toEqual(items.slice().sort(byValue));
      }),
    );
  });

  it('shuffle produces each ordering of three items about equally often', () => {
    const prng = new Prng('orderings');
    const counts = new Map<string, number>();
    for (let i = 0; i < 12_000; i++) {
      const key = prng.shuffle(['a', 'b', 'c']).join('');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect(counts.size).toBe(6);
    expect(chiSquare([...counts.values()])).toBeLessThan(20.5);
  });

  it('pick returns an element of the list and refuses an empty one', () => {
    fc.assert(
      fc.property(seedArb, fc.array(fc.string(), { minLength: 1, maxLength: 10 }), (seed, items) => {
        expect(items).toContain(new Prng(seed).pick(items));
      }),
    );
    expect(() => new Prng('empty').pick([])).toThrow(AssertionError);
  });

  it('skewed stays within [min, max] and leans towards min', () => {
    fc.assert(
      fc.property(seedArb, fc.nat(10_000), fc.nat(10_000), (seed, min, width) => {
        const prng = new Prng(seed);
        for (let i = 0; i < 20; i++) {
          const value = prng.skewed(min, min + width);
          expect(Number.isInteger(value)).toBe(true);
          expect(value).toBeGreaterThanOrEqual(min);
          expect(value).toBeLessThanOrEqual(min + width);
        }
      }),
    );
    const prng = new Prng('skew');
    let below = 0;
    for (let i = 0; i < 10_000; i++) if (prng.skewed(0, 1_000) < 250) below++;
    // The square of a uniform draw is below a quarter of the span half the time.
    expect(below).toBeGreaterThan(4_700);
    expect(below).toBeLessThan(5_300);
  });
});
