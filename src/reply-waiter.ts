// Request/response over fire-and-forget messages: send, then wait for the reply with that key or for a timeout.
// Shared by the runner's tool calls and the gateway's outbound deliveries.
import { assert } from './assert.ts';
import type { Timers } from './ports.ts';

export class ReplyWaiter {
  private readonly waiting = new Map<string, (ok: boolean) => void>();

  constructor(
    private readonly timers: Timers,
    private readonly timeoutMs: number,
  ) {}

  /** Run `send`, then resolve with the reply's verdict, or false if none arrives within the timeout. */
  wait(key: string, send: () => void): Promise<boolean> {
    assert(key.length > 0, 'a reply is awaited under a key');
    assert(!this.waiting.has(key), `a second wait for ${key} while the first is pending`);
    return new Promise<boolean>((resolve) => {
      const timer = this.timers.setTimer(this.timeoutMs, () => {
        if (this.waiting.delete(key)) resolve(false);
      });
      this.waiting.set(key, (ok) => {
        timer.cancel();
        resolve(ok);
      });
      send();
    });
  }

  /** A reply arrived; returns whether anyone waited for it (a late reply, or a duplicate, finds nobody). */
  settle(key: string, ok: boolean): boolean {
    assert(key.length > 0, 'a reply is settled under a key');
    const resolve = this.waiting.get(key);
    this.waiting.delete(key);
    resolve?.(ok);
    return resolve !== undefined;
  }
}
