// The delay stream every kernel benchmark draws from: a xorshift32 generator giving integer delays in
// [1, delayMsMax]. All three workloads (bare heap, plain callbacks, async processes) consume the same sequence, so
// they do the same schedule-and-pop operations on heaps of the same shape. It is not the simulation's Prng on
// purpose: the benchmark measures the scheduler, not the cost of drawing.
export class DelayStream {
  private state: number;

  constructor(
    seed: number,
    private readonly delayMsMax: number,
  ) {
    if (!Number.isInteger(seed) || seed === 0) throw new Error(`delay seed must be a non-zero integer, got ${seed}`);
    if (!Number.isInteger(delayMsMax) || delayMsMax < 1) throw new Error(`delayMsMax must be >= 1, got ${delayMsMax}`);
    this.state = seed | 0;
  }

  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x;
    return 1 + ((x >>> 0) % this.delayMsMax);
  }
}
