// Request/response over fire-and-forget messages: send, then wait for the reply with that key or for a timeout.
// Shared by the runner's tool calls and the gateway's outbound deliveries.
import { assert } from './assert.ts';
import type { Timers } from './ports.ts';

export class ReplyWaiter<T = boolean> {
  private readonly waiting = new Map<string, (reply: T) => void>();

  constructor(
    private readonly timers: Timers,
    private readonly timeoutMs: number,
    /** What a wait resolves with when no reply arrives in time. */
    private readonly timedOut: T,
  ) {}

  /** Run `send`, then resolve with the reply's verdict, or `timedOut` if none arrives within the timeout. */
  wait(key: string, send: () => void): Promise<T> {
    assert(key.length > 0, 'a reply is awaited under a key');
    assert(!this.waiting.has(key), `a second wait for ${key} while the first is pending`);
    return new Promise<T>((resolve) => {
      const timer = this.timers.setTimer(this.timeoutMs, () => {
        if (this.waiting.delete(key)) resolve(this.timedOut);
      });
      this.waiting.set(key, (reply) => {
        timer.cancel();
        resolve(reply);
      });
      send();
    });
  }

  /** A reply arrived; returns whether anyone waited for it (a late reply, or a duplicate, finds nobody). */
  settle(key: string, reply: T): boolean {
    assert(key.length > 0, 'a reply is settled under a key');
    const resolve = this.waiting.get(key);
    this.waiting.delete(key);
    resolve?.(reply);
    return resolve !== undefined;
  }
}
