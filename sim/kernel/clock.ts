// Simulated time: integer milliseconds from 0. Only the scheduler moves it, and only forwards; model code reads it
// through the Clock port and never sees the real clock.
import { assertNonNegativeInteger, fail } from './assert.ts';

export class SimClock {
  private currentMs = 0;

  nowMs(): number {
    return this.currentMs;
  }

  advanceTo(timeMs: number): void {
    assertNonNegativeInteger(timeMs, 'clock time');
    if (timeMs < this.currentMs) fail(`time went backwards: ${timeMs} < ${this.currentMs}`);
    this.currentMs = timeMs;
  }
}
