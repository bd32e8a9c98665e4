// The scheduler runs events in (timeMs, sequence) order: time never goes backwards, every event runs exactly once
// at the time it was scheduled for, and events due at the same instant run in insertion order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AssertionError } from '../../sim/kernel/assert.ts';
import { SimClock } from '../../sim/kernel/clock.ts';
import { type Fence, Scheduler } from '../../sim/kernel/scheduler.ts';

const everyoneAlive: Fence = { state: () => 'running', defer: () => {} };

function makeScheduler(stepsMax = 1_000_000, simTimeMsMax = 1_000_000_000): Scheduler {
  return new Scheduler(new SimClock(), { stepsMax, simTimeMsMax }, everyoneAlive);
}

interface Fired {
  id: number;
  seq: number;
  dueMs: number;
  ranAtMs: number;
}

/** An initial event: its delay, and the delays of the children it schedules when it runs. */
const programArb = fc.array(
  fc.record({
    delayMs: fc.integer({ min: 0, max: 50 }),
    childDelaysMs: fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 4 }),
  }),
  { maxLength: 400 },
);

describe('scheduler ordering', () => {
  it('never goes back in time and runs every event once, at its due time, in (time, sequence) order', async () => {
    await fc.assert(
      fc.asyncProperty(programArb, async (program) => {
        const scheduler = makeScheduler();
        const fired: Fired[] = [];
        let nextId = 0;
        let expectedCount = 0;
        const scheduleRecorded = (delayMs: number, then: () => void): void => {
          const id = nextId++;
          const dueMs = scheduler.clock.nowMs() + delayMs;
          const seq = scheduler.schedule(delayMs, () => {
            fired.push({ id, seq, dueMs, ranAtMs: scheduler.clock.nowMs() });
            then();
          });
          expectedCount++;
        };
        for (const spec of program) {
          scheduleRecorded(spec.delayMs, () => {
            for (const childDelayMs of spec.childDelaysMs) scheduleRecorded(childDelayMs, () => {});
          });
        }

        expect(await scheduler.run()).toBe('idle');

        expect(fired).toHaveLength(expectedCount);
        expect(new Set(fired.map((event) => event.id)).size).toBe(expectedCount);
        expect(scheduler.steps).toBe(expectedCount);
        for (const event of fired) expect(event.ranAtMs).toBe(event.dueMs);
        for (let i = 1; i < fired.length; i++) {
          const before = fired[i - 1] as Fired;
          const after = fired[i] as Fired;
          expect(after.ranAtMs).toBeGreaterThanOrEqual(before.ranAtMs);
          if (after.ranAtMs === before.ranAtMs) expect(after.seq).toBeGreaterThan(before.seq);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('runs events due at the same instant in insertion order, whatever order their times were given in', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 3_000 }), (times) => {
        const scheduler = makeScheduler();
        const order: number[] = [];
        times.forEach((timeMs, index) => scheduler.scheduleAt(timeMs, () => order.push(index)));
        while (scheduler.stepSync()) {
          // keep stepping
        }
        const expected = times.map((timeMs, index) => ({ timeMs, index }));
        expected.sort((a, b) => a.timeMs - b.timeMs || a.index - b.index);
        expect(order).toEqual(expected.map((entry) => entry.index));
      }),
      { numRuns: 60 },
    );
  });

  it('lets an event schedule another at the same instant, which runs after those already due then', async () => {
    const scheduler = makeScheduler();
    const order: string[] = [];
    scheduler.scheduleAt(10, () => {
      order.push('first');
      scheduler.schedule(0, () => order.push('scheduled-by-first'));
    });
    scheduler.scheduleAt(10, () => order.push('second'));
    scheduler.scheduleAt(11, () => order.push('later'));
    await scheduler.run();
    expect(order).toEqual(['first', 'second', 'scheduled-by-first', 'later']);
  });

  it('refuses events in the past, negative delays and fractional times', async () => {
    const scheduler = makeScheduler();
    scheduler.scheduleAt(100, () => {});
    await scheduler.run();
    expect(scheduler.clock.nowMs()).toBe(100);
    expect(() => scheduler.scheduleAt(99, () => {})).toThrow(AssertionError);
    expect(() => scheduler.schedule(-1, () => {})).toThrow(AssertionError);
    expect(() => scheduler.schedule(0.5, () => {})).toThrow(AssertionError);
    expect(scheduler.pending).toBe(0);
  });

  it('reports the time of the next event', () => {
    const scheduler = makeScheduler();
    expect(scheduler.peekTimeMs()).toBeUndefined();
    scheduler.scheduleAt(30, () => {});
    scheduler.scheduleAt(20, () => {});
    expect(scheduler.peekTimeMs()).toBe(20);
    expect(scheduler.stepSync()).toBe(true);
    expect(scheduler.peekTimeMs()).toBe(30);
  });
});
