// ReplyWaiter: request/response over fire-and-forget messages, on the simulated timers. A wait resolves with the
// verdict of the first reply for its key, or false when the timeout passes first; a reply nobody waits for (late,
// duplicate or unknown) is ignored.
import { describe, expect, it } from 'vitest';
import type { ProcessContext } from '../../../src/ports.ts';
import { ReplyWaiter } from '../../../src/reply-waiter.ts';
import { loadSqlJs } from '../../../sim/kernel/sqlite.ts';
import { inProcess } from './support.ts';

const sql = await loadSqlJs();
const timeoutMs = 100;

/** Resolves with [result, simulated time it resolved]. */
async function timed(ctx: ProcessContext, pending: Promise<boolean>): Promise<[boolean, number]> {
  const result = await pending;
  return [result, ctx.clock.nowMs()];
}

/** Settle `key` with `ok` at absolute simulated time `atMs`, from a kernel-timer callback of this process. */
function settleAt(ctx: ProcessContext, waiter: ReplyWaiter, atMs: number, key: string, ok: boolean): void {
  ctx.timers.setTimer(atMs - ctx.clock.nowMs(), () => waiter.settle(key, ok));
}

describe('ReplyWaiter', () => {
  it('resolves with the verdict of the reply, when the reply arrives', async () => {
    const { value } = await inProcess(sql, 'verdict', async (ctx) => {
      const waiter = new ReplyWaiter(ctx.timers, timeoutMs, false);
      settleAt(ctx, waiter, 30, 'yes', true);
      settleAt(ctx, waiter, 40, 'no', false);
      return Promise.all([timed(ctx, waiter.wait('yes', () => {})), timed(ctx, waiter.wait('no', () => {}))]);
    });
    expect(value).toEqual([
      [true, 30],
      [false, 40],
    ]);
  });

  it('resolves false when no reply arrives within the timeout', async () => {
    const { value } = await inProcess(sql, 'timeout', async (ctx) => {
      await ctx.timers.sleep(5);
      return timed(ctx, new ReplyWaiter(ctx.timers, timeoutMs, false).wait('silent', () => {}));
    });
    expect(value).toEqual([false, 5 + timeoutMs]);
  });

  it('runs send once, synchronously, after registering: a reply settled inside send counts', async () => {
    const { value } = await inProcess(sql, 'send', async (ctx) => {
      const waiter = new ReplyWaiter(ctx.timers, timeoutMs, false);
      let sends = 0;
      const result = await timed(
        ctx,
        waiter.wait('instant', () => {
          sends++;
          waiter.settle('instant', true);
        }),
      );
      return { result, sends };
    });
    expect(value).toEqual({ result: [true, 0], sends: 1 });
  });

  it('ignores a reply that arrives after the timeout', async () => {
    const { value } = await inProcess(sql, 'late', async (ctx) => {
      const waiter = new ReplyWaiter(ctx.timers, timeoutMs, false);
      settleAt(ctx, waiter, timeoutMs + 1, 'slow', true);
      const result = await timed(ctx, waiter.wait('slow', () => {}));
      await ctx.timers.sleep(50);
      return result;
    });
    expect(value).toEqual([false, timeoutMs]);
  });

  it('ignores a duplicate reply and a reply for an unknown key', async () => {
    const { value } = await inProcess(sql, 'duplicate', async (ctx) => {
      const waiter = new ReplyWaiter(ctx.timers, timeoutMs, false);
      waiter.settle('never-asked', true);
      settleAt(ctx, waiter, 10, 'other', true);
      settleAt(ctx, waiter, 20, 'k', false);
      settleAt(ctx, waiter, 21, 'k', true);
      return timed(ctx, waiter.wait('k', () => {}));
    });
    expect(value).toEqual([false, 20]);
  });

  it('a settled wait leaves a later wait on the same key alone (its timeout was cancelled)', async () => {
    const { value } = await inProcess(sql, 'reuse', async (ctx) => {
      const waiter = new ReplyWaiter(ctx.timers, timeoutMs, false);
      settleAt(ctx, waiter, 10, 'k', true);
      const first = await timed(ctx, waiter.wait('k', () => {}));
      await ctx.timers.sleep(10);
      // The first wait's timeout would have fired at 100; the reply to the second wait comes at 110.
      settleAt(ctx, waiter, 110, 'k', true);
      const second = await timed(ctx, waiter.wait('k', () => {}));
      return [first, second];
    });
    expect(value).toEqual([
      [true, 10],
      [true, 110],
    ]);
  });

  it('a timed-out wait leaves a later wait on the same key alone', async () => {
    const { value } = await inProcess(sql, 'retry-after-timeout', async (ctx) => {
      const waiter = new ReplyWaiter(ctx.timers, timeoutMs, false);
      const first = await timed(ctx, waiter.wait('k', () => {}));
      settleAt(ctx, waiter, 150, 'k', true);
      const second = await timed(ctx, waiter.wait('k', () => {}));
      return [first, second];
    });
    expect(value).toEqual([
      [false, 100],
      [true, 150],
    ]);
  });

  it('keeps waits on different keys independent', async () => {
    const { value } = await inProcess(sql, 'independent', async (ctx) => {
      const waiter = new ReplyWaiter(ctx.timers, timeoutMs, false);
      settleAt(ctx, waiter, 50, 'b', true);
      return Promise.all(['a', 'b', 'c'].map((key) => timed(ctx, waiter.wait(key, () => {}))));
    });
    expect(value).toEqual([
      [false, 100],
      [true, 50],
      [false, 100],
    ]);
  });
});
