// The scheduler's limits and fence: caps on steps and on simulated time stop run() with the matching stopReason
// (leaving later events in the queue), stop() ends a run, and an event owned by a dead incarnation is skipped.
import { describe, expect, it } from 'vitest';
import { SimClock } from '../../sim/kernel/clock.ts';
import { type Fence, Scheduler } from '../../sim/kernel/scheduler.ts';

function makeScheduler(stepsMax: number, simTimeMsMax: number, fence: Fence = { state: () => 'running', defer: () => {} }): Scheduler {
  return new Scheduler(new SimClock(), { stepsMax, simTimeMsMax }, fence);
}

describe('scheduler caps', () => {
  it('stops at the step cap with stopReason steps-cap and leaves the rest queued', async () => {
    const scheduler = makeScheduler(10, 1_000_000);
    let ran = 0;
    for (let i = 0; i < 25; i++) scheduler.schedule(i, () => ran++);
    expect(await scheduler.run()).toBe('steps-cap');
    expect(scheduler.stopReason).toBe('steps-cap');
    expect(ran).toBe(10);
    expect(scheduler.steps).toBe(10);
    expect(scheduler.pending).toBe(15);
    expect(scheduler.clock.nowMs()).toBe(9);
  });

  it('stops at the time cap with stopReason time-cap, never running an event past the cap', async () => {
    const scheduler = makeScheduler(1_000_000, 100);
    const ranAt: number[] = [];
    for (const timeMs of [50, 100, 101, 150]) scheduler.scheduleAt(timeMs, () => ranAt.push(timeMs));
    expect(await scheduler.run()).toBe('time-cap');
    expect(ranAt).toEqual([50, 100]);
    expect(scheduler.clock.nowMs()).toBe(100);
    expect(scheduler.pending).toBe(2);
  });

  it('a self-rescheduling event is bounded by whichever cap comes first', async () => {
    const byTime = makeScheduler(1_000_000, 1_000);
    const tick = (): void => {
      byTime.schedule(7, tick);
    };
    byTime.schedule(0, tick);
    expect(await byTime.run()).toBe('time-cap');
    expect(byTime.clock.nowMs()).toBeLessThanOrEqual(1_000);
    expect(byTime.clock.nowMs()).toBeGreaterThan(1_000 - 7);

    const bySteps = makeScheduler(500, 1_000_000_000);
    const tock = (): void => {
      bySteps.schedule(7, tock);
    };
    bySteps.schedule(0, tock);
    expect(await bySteps.run()).toBe('steps-cap');
    expect(bySteps.steps).toBe(500);
  });

  it('reports idle when the queue drains', async () => {
    const scheduler = makeScheduler(100, 100);
    scheduler.schedule(5, () => {});
    expect(await scheduler.run()).toBe('idle');
    expect(scheduler.pending).toBe(0);
  });

  it('stop() from inside an event ends the run after that event, and a later run() goes on', async () => {
    const scheduler = makeScheduler(1_000, 1_000);
    const ran: number[] = [];
    for (let i = 1; i <= 5; i++) {
      scheduler.scheduleAt(i, () => {
        ran.push(i);
        if (i === 2) scheduler.stop();
      });
    }
    expect(await scheduler.run()).toBe('stopped');
    expect(ran).toEqual([1, 2]);
    expect(await scheduler.run()).toBe('idle');
    expect(ran).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('scheduler fencing', () => {
  it('skips the events of a dead owner, counts them as fenced, and still runs kernel events', async () => {
    const alive = new Set([1, 2]);
    const scheduler = makeScheduler(1_000, 1_000, { state: (owner) => (alive.has(owner) ? 'running' : 'dead'), defer: () => {} });
    const ran: string[] = [];
    scheduler.scheduleAt(10, () => ran.push('owner1@10'), 1);
    scheduler.scheduleAt(10, () => ran.push('owner2@10'), 2);
    scheduler.scheduleAt(20, () => alive.delete(1), 0);
    scheduler.scheduleAt(30, () => ran.push('owner1@30'), 1);
    scheduler.scheduleAt(30, () => ran.push('owner2@30'), 2);
    scheduler.scheduleAt(40, () => ran.push('kernel@40'), 0);
    expect(await scheduler.run()).toBe('idle');
    expect(ran).toEqual(['owner1@10', 'owner2@10', 'owner2@30', 'kernel@40']);
    expect(scheduler.fencedSteps).toBe(1);
    expect(scheduler.steps).toBe(6);
    // A fenced event still moves time to its instant: the clock never waits on a dead owner.
    expect(scheduler.clock.nowMs()).toBe(40);
  });

  it('fences an event at the same instant as the kill when it was scheduled after it', async () => {
    const alive = new Set([7]);
    const scheduler = makeScheduler(1_000, 1_000, { state: (owner) => (alive.has(owner) ? 'running' : 'dead'), defer: () => {} });
    const ran: string[] = [];
    scheduler.scheduleAt(10, () => ran.push('before-kill'), 7);
    scheduler.scheduleAt(10, () => alive.delete(7), 0);
    scheduler.scheduleAt(10, () => ran.push('after-kill'), 7);
    await scheduler.run();
    expect(ran).toEqual(['before-kill']);
    expect(scheduler.fencedSteps).toBe(1);
  });
});
