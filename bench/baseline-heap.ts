// The baseline: a bare binary min-heap on typed arrays keyed by (timeMs, sequence), with the keys stored inline in
// heap order (no slot indirection, no callbacks, no caps, no fencing, no assertions). It is the fastest honest way
// to do what the scheduler does at its core, so the kernel's figures are reported as a ratio of it.
import { DelayStream } from './delays.ts';

export class BareHeap {
  private time: Float64Array;
  private seq: Float64Array;
  size = 0;

  constructor(capacity: number) {
    this.time = new Float64Array(capacity);
    this.seq = new Float64Array(capacity);
  }

  push(timeMs: number, sequence: number): void {
    if (this.size === this.time.length) this.grow();
    const time = this.time;
    const seq = this.seq;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = time[parent] as number;
      if (pt < timeMs || (pt === timeMs && (seq[parent] as number) < sequence)) break;
      time[i] = pt;
      seq[i] = seq[parent] as number;
      i = parent;
    }
    time[i] = timeMs;
    seq[i] = sequence;
  }

  /** Remove the minimum and return its time. The heap must not be empty. */
  pop(): number {
    const time = this.time;
    const seq = this.seq;
    const top = time[0] as number;
    const n = --this.size;
    const lastTime = time[n] as number;
    const lastSeq = seq[n] as number;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      let ct = time[child] as number;
      let cs = seq[child] as number;
      const right = child + 1;
      if (right < n) {
        const rt = time[right] as number;
        const rs = seq[right] as number;
        if (rt < ct || (rt === ct && rs < cs)) {
          child = right;
          ct = rt;
          cs = rs;
        }
      }
      if (lastTime < ct || (lastTime === ct && lastSeq < cs)) break;
      time[i] = ct;
      seq[i] = cs;
      i = child;
    }
    time[i] = lastTime;
    seq[i] = lastSeq;
    return top;
  }

  private grow(): void {
    const time = new Float64Array(this.time.length * 2);
    time.set(this.time);
    this.time = time;
    const seq = new Float64Array(this.seq.length * 2);
    seq.set(this.seq);
    this.seq = seq;
  }
}

/**
 * `population` events pending at all times; each pop schedules a replacement at its time plus the next delay until
 * `events` have been scheduled in all. Returns the number of pops and a checksum (so nothing is optimised away).
 */
export function runBareHeap(events: number, population: number, delays: DelayStream): { pops: number; checksum: number } {
  const heap = new BareHeap(1024);
  let sequence = 0;
  for (let i = 0; i < population && sequence < events; i++) heap.push(delays.next(), sequence++);
  let pops = 0;
  let checksum = 0;
  while (heap.size > 0) {
    const nowMs = heap.pop();
    pops++;
    checksum = (checksum + nowMs) % 1_000_000_007;
    if (sequence < events) heap.push(nowMs + delays.next(), sequence++);
  }
  return { pops, checksum };
}
