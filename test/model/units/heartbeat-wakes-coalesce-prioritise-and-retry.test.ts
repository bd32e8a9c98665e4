// Heartbeat wakes (OpenClaw src/infra/heartbeat-wake.ts) on the simulated timers: requests for one
// (agentId, sessionKey) collapse into one pending wake (a wake with neither is unscoped), a higher-priority request
// replaces a lower one (never the reverse), one 250 ms coalesce timer serves every request, a wake skipped as busy (or
// a batch that threw) is retried with the 1 s retry timer, a retry timer is a hard minimum that later requests cannot
// shorten, a timer already armed to fire sooner is kept, and a timer that fires while a batch runs re-arms with its
// own delay, so a wake requested meanwhile runs at the coalesce tick after the batch, not a retry delay later.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelAssertionError } from '../../../src/assert.ts';
import { HeartbeatWakes, scopedWakeTarget, type Wake, type WakeOutcome, type WakeReason, wakeKey } from '../../../src/heartbeat-wake.ts';
import type { ProcessContext, Timers } from '../../../src/ports.ts';
import { loadSqlJs } from '../../../sim/kernel/sqlite.ts';
import { inProcess } from './support.ts';

const sql = await loadSqlJs();
const coalesceMs = 250;
const retryMs = 1_000;

interface Run {
  startMs: number;
  endMs: number;
  key: string;
  reason: WakeReason;
  requestedAtMs: number;
  outcome: WakeOutcome | 'threw';
}

type Decide = (wake: Wake, ctx: ProcessContext, call: number) => Promise<WakeOutcome>;

const ran: Decide = async () => 'ran';

interface Armed {
  atMs: number;
  delayMs: number;
  fired: boolean;
  cancelled: boolean;
  /** Timers still armed (neither fired nor cancelled) when this one was armed. */
  othersLive: number;
}

/**
 * Runs `script` in a simulated process against HeartbeatWakes wired to the process's timers, clock and tasks; the
 * run lasts until every timer has fired. Returns each runWake call in order.
 */
async function withWakes(
  seed: string,
  script: (wakes: HeartbeatWakes, ctx: ProcessContext) => Promise<void>,
  decide: Decide = ran,
  /** Filled with every timer HeartbeatWakes arms: when, for how long, and whether it fired or was cancelled. */
  armed: Armed[] = [],
): Promise<Run[]> {
  const runs: Run[] = [];
  await inProcess(sql, seed, async (ctx) => {
    const runWake = async (wake: Wake): Promise<WakeOutcome> => {
      const run: Run = { startMs: ctx.clock.nowMs(), endMs: -1, key: wakeKey(wake), reason: wake.reason, requestedAtMs: wake.requestedAtMs, outcome: 'threw' };
      runs.push(run);
      const outcome = await decide(wake, ctx, runs.length - 1);
      run.endMs = ctx.clock.nowMs();
      run.outcome = outcome;
      return outcome;
    };
    const timers: Timers = {
      sleep: (delayMs) => ctx.timers.sleep(delayMs),
      setTimer: (delayMs, fn) => {
        const othersLive = armed.filter((other) => !other.fired && !other.cancelled).length;
        const timer: Armed = { atMs: ctx.clock.nowMs(), delayMs, fired: false, cancelled: false, othersLive };
        armed.push(timer);
        const handle = ctx.timers.setTimer(delayMs, () => {
          timer.fired = true;
          fn();
        });
        return {
          cancel: () => {
            timer.cancelled = true;
            handle.cancel();
          },
        };
      },
    };
    const wakes = new HeartbeatWakes(timers, () => ctx.clock.nowMs(), coalesceMs, retryMs, runWake, (name, task) => ctx.spawnTask(name, task));
    await script(wakes, ctx);
  });
  return runs;
}

/** Sleep until absolute simulated time `atMs`. */
async function sleepUntil(ctx: ProcessContext, atMs: number): Promise<void> {
  const delayMs = atMs - ctx.clock.nowMs();
  if (delayMs > 0) await ctx.timers.sleep(delayMs);
}

function brief(runs: readonly Run[]): [number, string, WakeOutcome | 'threw'][] {
  return runs.map((run) => [run.startMs, run.key, run.outcome]);
}

describe('collapse by (agentId, sessionKey)', () => {
  it('runs one wake per key however often it was requested', async () => {
    const runs = await withWakes('collapse', async (wakes) => {
      for (let index = 0; index < 3; index++) wakes.requestHeartbeatNow('exec-event', { agentId: 'main', sessionKey: 's1' });
      wakes.requestHeartbeatNow('exec-event', { agentId: 'main', sessionKey: 's2' });
      wakes.requestHeartbeatNow('exec-event', { agentId: 'other', sessionKey: 's1' });
      expect(wakes.pendingCount).toBe(3);
    });
    expect(brief(runs)).toEqual([
      [250, 'main::s1', 'ran'],
      [250, 'main::s2', 'ran'],
      [250, 'other::s1', 'ran'],
    ]);
  });

  it('collapses unscoped wakes (neither agent nor session) into one, apart from scoped ones', async () => {
    const runs = await withWakes('unscoped', async (wakes) => {
      wakes.requestHeartbeatNow('exec-event');
      wakes.requestHeartbeatNow('exec-event', {});
      wakes.requestHeartbeatNow('exec-event', { sessionKey: 'agent:main:chat:0' });
      expect(wakes.pendingCount).toBe(2);
    });
    expect(runs.map((run) => run.key)).toEqual(['::', '::agent:main:chat:0']);
  });

  it('scopes a wake to its session only for an agent session key (OpenClaw scopedHeartbeatWakeOptions)', () => {
    expect(scopedWakeTarget('agent:main:chat:0')).toEqual({ sessionKey: 'agent:main:chat:0' });
    expect(scopedWakeTarget('AGENT:ops:main')).toEqual({ sessionKey: 'AGENT:ops:main' });
    for (const key of ['node-n1', 'chat:0', 'agent:main', 'agent::x', 'global']) expect(scopedWakeTarget(key)).toEqual({});
  });

  it('empties the pending set when the batch is taken', async () => {
    let pendingAfter = -1;
    await withWakes('collapse-empty', async (wakes, ctx) => {
      wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's1' });
      await sleepUntil(ctx, 300);
      pendingAfter = wakes.pendingCount;
    });
    expect(pendingAfter).toBe(0);
  });
});

describe('priorities: retry < interval < default < exec-event (action)', () => {
  it('a higher-priority request replaces a pending lower one', async () => {
    const runs = await withWakes('priority-up', async (wakes, ctx) => {
      wakes.requestHeartbeatNow('interval', { agentId: 'main', sessionKey: 's1' });
      await sleepUntil(ctx, 10);
      wakes.requestHeartbeatNow('exec-event', { agentId: 'main', sessionKey: 's1' });
    });
    expect(runs.map(({ reason, requestedAtMs }) => [reason, requestedAtMs])).toEqual([['exec-event', 10]]);
  });

  it('a lower-priority request does not replace a pending higher one', async () => {
    const runs = await withWakes('priority-down', async (wakes, ctx) => {
      wakes.requestHeartbeatNow('exec-event', { agentId: 'main', sessionKey: 's1' });
      for (const [atMs, reason] of [[10, 'default'], [20, 'interval'], [30, 'retry']] as const) {
        await sleepUntil(ctx, atMs);
        wakes.requestHeartbeatNow(reason, { agentId: 'main', sessionKey: 's1' });
      }
    });
    expect(runs.map(({ reason, requestedAtMs }) => [reason, requestedAtMs])).toEqual([['exec-event', 0]]);
  });

  it('an equal-priority request replaces the pending one (the newer wins)', async () => {
    const runs = await withWakes('priority-equal', async (wakes, ctx) => {
      wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's1' });
      await sleepUntil(ctx, 50);
      wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's1' });
    });
    expect(runs.map(({ reason, requestedAtMs }) => [reason, requestedAtMs])).toEqual([['default', 50]]);
  });

  it('within one coalesce window the wake run is the newest of the highest-priority requests', async () => {
    const priority: Record<WakeReason, number> = { retry: 0, interval: 1, default: 2, 'exec-event': 3 };
    // At most 5 gaps of 40 ms after the first request: every request falls inside the first one's window.
    const request = fc.record({ gapMs: fc.integer({ min: 0, max: 40 }), reason: fc.constantFrom<WakeReason>('retry', 'interval', 'default', 'exec-event') });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 6 }), async (requests) => {
        const made: { atMs: number; reason: WakeReason }[] = [];
        const runs = await withWakes('priority-property', async (wakes, ctx) => {
          for (const { gapMs, reason } of requests) {
            if (gapMs > 0) await ctx.timers.sleep(gapMs);
            made.push({ atMs: ctx.clock.nowMs(), reason });
            wakes.requestHeartbeatNow(reason, { agentId: 'main', sessionKey: 's1' });
          }
        });
        const top = Math.max(...made.map(({ reason }) => priority[reason]));
        const newestTop = made.filter(({ reason }) => priority[reason] === top).at(-1);
        expect(runs.map(({ startMs, reason, requestedAtMs }) => ({ startMs, reason, requestedAtMs }))).toEqual([
          { startMs: (made[0]?.atMs ?? Number.NaN) + coalesceMs, reason: newestTop?.reason, requestedAtMs: newestTop?.atMs },
        ]);
      }),
      { numRuns: 40 },
    );
  });
});

describe(`the ${coalesceMs} ms coalesce timer`, () => {
  it('fires 250 ms after the first request and takes every request made meanwhile; later requests are not pushed back', async () => {
    const runs = await withWakes('coalesce', async (wakes, ctx) => {
      wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's1' });
      await sleepUntil(ctx, 100);
      wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's2' });
      await sleepUntil(ctx, 249);
      wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's3' });
      await sleepUntil(ctx, 260);
      wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's4' });
    });
    expect(brief(runs)).toEqual([
      [250, 'main::s1', 'ran'],
      [250, 'main::s2', 'ran'],
      [250, 'main::s3', 'ran'],
      [510, 'main::s4', 'ran'],
    ]);
  });

  it('does nothing without a request', async () => {
    const runs = await withWakes('idle', async (_wakes, ctx) => {
      await ctx.timers.sleep(5_000);
    });
    expect(runs).toEqual([]);
  });
});

describe(`the ${retryMs} ms retry`, () => {
  it('retries a wake skipped as busy 1 s after the skip', async () => {
    const runs = await withWakes(
      'busy',
      async (wakes) => wakes.requestHeartbeatNow('exec-event', { agentId: 'main', sessionKey: 's1' }),
      async (_wake, _ctx, call) => (call < 2 ? 'skipped-busy' : 'ran'),
    );
    expect(brief(runs)).toEqual([
      [250, 'main::s1', 'skipped-busy'],
      [1_250, 'main::s1', 'skipped-busy'],
      [2_250, 'main::s1', 'ran'],
    ]);
    expect(runs.every((run) => run.reason === 'exec-event')).toBe(true);
  });

  it('counts the retry from the moment of the skip, not from the timer that fired', async () => {
    const runs = await withWakes(
      'busy-slow',
      async (wakes) => wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's1' }),
      async (_wake, ctx, call) => {
        await ctx.timers.sleep(30);
        return call === 0 ? 'skipped-busy' : 'ran';
      },
    );
    expect(runs.map(({ startMs, endMs, outcome }) => [startMs, endMs, outcome])).toEqual([
      [250, 280, 'skipped-busy'],
      [1_280, 1_310, 'ran'],
    ]);
  });

  it('is a hard minimum: a request while the retry timer is pending waits for it instead of its 250 ms coalesce', async () => {
    const runs = await withWakes(
      'retry-minimum',
      async (wakes, ctx) => {
        wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's1' });
        await sleepUntil(ctx, 300);
        wakes.requestHeartbeatNow('exec-event', { agentId: 'main', sessionKey: 's2' });
      },
      async (wake, _ctx, call) => (call === 0 && wake.sessionKey === 's1' ? 'skipped-busy' : 'ran'),
    );
    expect(brief(runs)).toEqual([
      [250, 'main::s1', 'skipped-busy'],
      [1_250, 'main::s1', 'ran'],
      [1_250, 'main::s2', 'ran'],
    ]);
  });

  it('keeps a coalesce timer armed before a skip: the skipped wake runs with it, the retry never pushes it back', async () => {
    const runs = await withWakes(
      'coalesce-kept-over-retry',
      async (wakes, ctx) => {
        wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's1' });
        await sleepUntil(ctx, 300);
        // The batch is still running (its wake takes 100 ms): this arms a coalesce timer for 550.
        wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's2' });
      },
      async (wake, ctx, call) => {
        await ctx.timers.sleep(100);
        return call === 0 && wake.sessionKey === 's1' ? 'skipped-busy' : 'ran';
      },
    );
    expect(brief(runs)).toEqual([
      [250, 'main::s1', 'skipped-busy'],
      [550, 'main::s2', 'ran'],
      [650, 'main::s1', 'ran'],
    ]);
  });

  it('never runs two wakes at once: a timer that fires during a batch re-arms with its own delay until the batch ends', async () => {
    const armed: Armed[] = [];
    const runs = await withWakes(
      'no-overlap',
      async (wakes, ctx) => {
        wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's1' });
        await sleepUntil(ctx, 500);
        wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's2' });
      },
      async (wake, ctx) => {
        if (wake.sessionKey === 's1') await ctx.timers.sleep(2_000);
        return 'ran';
      },
      armed,
    );
    // s2's coalesce timer fires at 750 while s1 runs until 2250; it re-arms itself every 250 ms (no retry timer) and the
    // tick after s1 ends runs s2: at most one coalesce delay after the batch, not a retry delay.
    expect(runs.map(({ startMs, endMs, key }) => [startMs, endMs, key])).toEqual([
      [250, 2_250, 'main::s1'],
      [2_250, 2_250, 'main::s2'],
    ]);
    expect(armed.every((timer) => timer.delayMs === coalesceMs && !timer.cancelled)).toBe(true);
    expect(armed.filter((timer) => timer.atMs >= 750 && timer.atMs < 2_250).map((timer) => timer.atMs)).toEqual([750, 1_000, 1_250, 1_500, 1_750, 2_000]);
  });

  it('re-arms a retry timer that fires during a batch as a retry timer (its own delay and kind)', async () => {
    const armed: Armed[] = [];
    const runs = await withWakes(
      'retry-rearm',
      async (wakes, ctx) => {
        wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's1' });
        wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's2' });
        await sleepUntil(ctx, 300);
        // A request while the retry timer (armed at 250 by s1's skip) is pending: it waits for it (hard minimum).
        wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's3' });
      },
      async (wake, ctx, call) => {
        if (call === 0) return 'skipped-busy';
        // s2 runs from 250 to 2750: the retry timer fires at 1250 while it runs.
        if (wake.sessionKey === 's2' && call === 1) await ctx.timers.sleep(2_500);
        return 'ran';
      },
      armed,
    );
    expect(runs.map(({ startMs, key, outcome }) => [startMs, key, outcome])).toEqual([
      [250, 'main::s1', 'skipped-busy'],
      [250, 'main::s2', 'ran'],
      [3_250, 'main::s1', 'ran'],
      [3_250, 'main::s3', 'ran'],
    ]);
    expect(armed.map(({ atMs, delayMs }) => [atMs, delayMs])).toEqual([
      [0, coalesceMs],
      [250, retryMs],
      [1_250, retryMs],
      [2_250, retryMs],
    ]);
  });

  it('re-queues the whole batch when a wake throws, including wakes that already ran, and the throw ends the task', async () => {
    let wakes: HeartbeatWakes | undefined;
    const outcome = withWakes(
      'throw',
      async (created) => {
        wakes = created;
        created.requestHeartbeatNow('exec-event', { agentId: 'main', sessionKey: 's1' });
        created.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's2' });
        created.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's3' });
      },
      async (wake) => {
        if (wake.sessionKey === 's2') throw new Error('boom');
        return 'ran';
      },
    );
    // A throw is a model bug, not an expected fault: it crashes the process (expected faults come back as skipped-busy).
    await expect(outcome).rejects.toThrow('boom');
    expect(wakes?.pendingCount).toBe(3);
  });

  it('a model assertion thrown by a wake crashes the process the same way', async () => {
    let wakes: HeartbeatWakes | undefined;
    const outcome = withWakes(
      'assertion',
      async (created) => {
        wakes = created;
        created.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's1' });
        created.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's2' });
      },
      async () => {
        throw new ModelAssertionError('invariant broken');
      },
    );
    await expect(outcome).rejects.toThrow(ModelAssertionError);
    expect(wakes?.pendingCount).toBe(2);
  });

  it('one retry timer serves the batch: a later skip in the same batch is retried with the timer of the first skip', async () => {
    const runs = await withWakes(
      'shared-retry',
      async (wakes) => {
        wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's1' });
        wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's2' });
      },
      async (wake, ctx, call) => {
        if (wake.sessionKey === 's2') await ctx.timers.sleep(100);
        return call < 2 ? 'skipped-busy' : 'ran';
      },
    );
    expect(runs.map(({ startMs, endMs, key, outcome }) => [startMs, endMs, key, outcome])).toEqual([
      [250, 250, 'main::s1', 'skipped-busy'],
      [250, 350, 'main::s2', 'skipped-busy'],
      [1_250, 1_250, 'main::s1', 'ran'],
      [1_250, 1_350, 'main::s2', 'ran'],
    ]);
  });

  // The batch is taken in the timer callback itself, so a request in the same instant after it joins the next batch.
  // Its coalesce timer (due at 500) fires while the batch's only wake is still running and re-arms for 750; the skip
  // at 500 asks for the retry timer, but the coalesce timer due sooner is kept (OpenClaw keeps a timer that fires no
  // later), so the skipped wake runs 250 ms after its skip.
  it('takes the batch when the timer fires: a request in the same instant waits for the next timer', async () => {
    const armed: Armed[] = [];
    const runs = await withWakes(
      'same-instant',
      async (wakes, ctx) => {
        wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's1' });
        await sleepUntil(ctx, 250);
        wakes.requestHeartbeatNow('default', { agentId: 'main', sessionKey: 's1' });
      },
      async (_wake, ctx, call) => {
        await ctx.timers.sleep(250);
        return call === 0 ? 'skipped-busy' : 'ran';
      },
      armed,
    );
    expect(runs.map(({ startMs, endMs, key, outcome, requestedAtMs }) => ({ startMs, endMs, key, outcome, requestedAtMs }))).toEqual([
      { startMs: 250, endMs: 500, key: 'main::s1', outcome: 'skipped-busy', requestedAtMs: 0 },
      { startMs: 750, endMs: 1_000, key: 'main::s1', outcome: 'ran', requestedAtMs: 500 },
    ]);
    expect(armed.map(({ atMs, delayMs }) => [atMs, delayMs])).toEqual([
      [0, coalesceMs],
      [250, coalesceMs],
      [500, coalesceMs],
    ]);
  });

  it('under random requests and busy sessions: one timer at a time, a retry timer never cut short, no overlap, no wake lost', async () => {
    const request = fc.record({
      atMs: fc.integer({ min: 0, max: 3_000 }),
      session: fc.constantFrom('s1', 's2', 's3'),
      reason: fc.constantFrom<WakeReason>('retry', 'interval', 'default', 'exec-event'),
    });
    const behaviour = fc.record({ busy: fc.boolean(), durationMs: fc.integer({ min: 0, max: 400 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 8 }), fc.array(behaviour, { maxLength: 12 }), async (requests, behaviours) => {
        const sorted = [...requests].sort((left, right) => left.atMs - right.atMs);
        const armed: Armed[] = [];
        const runs = await withWakes(
          'random',
          async (wakes, ctx) => {
            for (const { atMs, session, reason } of sorted) {
              await sleepUntil(ctx, atMs);
              wakes.requestHeartbeatNow(reason, { agentId: 'main', sessionKey: session });
            }
          },
          async (_wake, ctx, call) => {
            // Past the scripted behaviours every session is free, so every wake must run in the end.
            const { busy, durationMs } = behaviours[call] ?? { busy: false, durationMs: 0 };
            if (durationMs > 0) await ctx.timers.sleep(durationMs);
            return busy ? 'skipped-busy' : 'ran';
          },
          armed,
        );
        expect(armed.every(({ delayMs }) => delayMs === coalesceMs || delayMs === retryMs)).toBe(true);
        // One timer serves every wake: a timer is armed only once the previous one fired or was cancelled.
        expect(armed.filter((timer) => timer.othersLive > 0)).toEqual([]);
        // A retry timer is a hard minimum: nothing cancels it.
        expect(armed.filter((timer) => timer.delayMs === retryMs && timer.cancelled)).toEqual([]);
        runs.forEach((run, index) => {
          const previous = runs[index - 1];
          if (previous !== undefined) expect(run.startMs).toBeGreaterThanOrEqual(previous.endMs);
        });
        for (const session of new Set(sorted.map((entry) => entry.session))) {
          const lastRequestMs = Math.max(...sorted.filter((entry) => entry.session === session).map((entry) => entry.atMs));
          const last = runs.filter((run) => run.key === `main::${session}`).at(-1);
          expect(last?.outcome).toBe('ran');
          expect(last?.startMs ?? -1).toBeGreaterThanOrEqual(lastRequestMs);
        }
      }),
      { numRuns: 80 },
    );
  });
});
