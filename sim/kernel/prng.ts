// The one source of randomness: seedrandom's `alea`, always with an explicit seed. Each subsystem forks a named
// sub-stream, whose seed is derived from the parent's seed and the name only, so a new draw in one subsystem never
// shifts another. Helpers use integer arithmetic only (no transcendental Math), so results are identical on
// every engine.
import seedrandom from 'seedrandom';
import { assert, assertInteger, fail } from './assert.ts';

const TWO_POW_32 = 4294967296;

export class Prng {
  readonly seed: string;
  private readonly next: { int32(): number };

  constructor(seed: string) {
    assert(typeof seed === 'string' && seed.length > 0, 'a Prng needs an explicit non-empty seed');
    this.seed = seed;
    this.next = seedrandom.alea(seed);
  }

  /** A named, independent sub-stream. The same (seed, name) always gives the same stream. */
  fork(name: string): Prng {
    assert(name.length > 0, 'a sub-stream needs a name');
    return new Prng(`${this.seed}/${name}`);
  }

  /** Uniform unsigned 32-bit integer. */
  uint32(): number {
    return this.next.int32() >>> 0;
  }

  /** Uniform integer in [min, max], both inclusive, by rejection sampling (no modulo bias). */
  int(min: number, max: number): number {
    assertInteger(min, 'int min');
    assertInteger(max, 'int max');
    if (min > max) fail(`int range is empty: [${min}, ${max}]`);
    const span = max - min + 1;
    if (span > TWO_POW_32) {
      // Two draws give 64 bits of which we keep 53; spans this large are rare (seeds) and bias-free enough.
      const high = this.uint32() & 0x1fffff;
      const value = high * TWO_POW_32 + this.uint32();
      return min + (value % span);
    }
    const limit = TWO_POW_32 - (TWO_POW_32 % span);
    for (let attempt = 0; attempt < 64; attempt++) {
      const draw = this.uint32();
      if (draw < limit) return min + (draw % span);
    }
    assert(false, 'int: rejection sampling did not terminate in 64 draws');
  }

  /** True with probability numerator/denominator. */
  chance(numerator: number, denominator: number): boolean {
    assertInteger(numerator, 'chance numerator');
    assertInteger(denominator, 'chance denominator');
    assert(denominator > 0, 'chance denominator must be positive');
    if (numerator <= 0) return false;
    if (numerator >= denominator) return true;
    return this.int(0, denominator - 1) < numerator;
  }

  pick<T>(items: readonly T[]): T {
    assert(items.length > 0, 'pick from an empty list');
    return items[this.int(0, items.length - 1)] as T;
  }

  /** Fisher-Yates shuffle into a new array. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const tmp = out[i] as T;
      out[i] = out[j] as T;
      out[j] = tmp;
    }
    return out;
  }

  /**
   * A delay in [minMs, maxMs] skewed towards minMs with a long tail: the square of a uniform draw, computed with
   * integers only. Used for link latencies and disk/SQL costs.
   */
  skewed(minMs: number, maxMs: number): number {
    assert(minMs <= maxMs, 'skewed: empty range');
    const span = maxMs - minMs;
    if (span === 0) return minMs;
    const u = this.int(0, 1023);
    return minMs + Math.floor((u * u * span) / (1023 * 1023));
  }
}
