// Simulated time: integer milliseconds from 0. Only the scheduler moves it, and only forwards; model code reads it
// through the Clock port and never sees the real clock.
import { assert, assertNonNegativeInteger } from './assert.ts';

export class SimClock {
  private currentMs = 0;

  nowMs(): number {
    return this.currentMs;
  }

  advanceTo(timeMs: number): void {
    assertNonNegativeInteger(timeMs, 'clock time');
    assert(timeMs >= this.currentMs, `time went backwards: ${timeMs} < ${this.currentMs}`);
    this.currentMs = timeMs;
  }
}
