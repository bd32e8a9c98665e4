// Heartbeat wakes (OpenClaw src/infra/heartbeat-wake.ts). Pending wakes are keyed by `<agentId>::<sessionKey>` (either
// part may be empty: a wake with neither is unscoped), so duplicate requests collapse into one. Priorities: retry 0 <
// interval 1 < default 2 < action 3 (exec events are action); a new request replaces the pending one if its priority
// is higher, or equal and newer.
//
// One timer serves every wake. A request arms it with the 250 ms coalesce delay; a timer already armed is kept if it
// fires no later, and a retry timer (1 s) is kept whatever the request: it is a hard minimum. When the timer fires it
// takes the whole pending batch and runs the wakes one at a time. A wake skipped because its session is busy is
// re-queued and the 1 s retry timer requested; a throw re-queues the batch. A timer that fires while a batch is still
// running marks itself scheduled and re-arms with its own delay and kind; when the batch ends with wakes pending (or
// a fire marked scheduled), the next timer is requested with the fired timer's own delay as a normal timer, never as
// a retry.
import { assert, assertNonNegativeInteger } from './assert.ts';
import type { TimerHandle, Timers } from './ports.ts';

export type WakeReason = 'retry' | 'interval' | 'default' | 'exec-event';

const priorityOf: Record<WakeReason, number> = { retry: 0, interval: 1, default: 2, 'exec-event': 3 };

/** Whom a wake is for: an agent, a session, both, or neither (an unscoped wake). */
export interface WakeTarget {
  agentId?: string | undefined;
  sessionKey?: string | undefined;
}

export interface Wake {
  agentId: string | undefined;
  sessionKey: string | undefined;
  reason: WakeReason;
  requestedAtMs: number;
}

export type WakeOutcome = 'ran' | 'skipped-busy';

type TimerKind = 'normal' | 'retry';

/** OpenClaw's agent session keys: `agent:<agentId>:<rest>`. */
const agentSessionKeyPattern = /^agent:[^:]+:.+$/i;

/**
 * OpenClaw's scopedHeartbeatWakeOptions: a wake names the session only when the key is an agent session key; any other
 * key (the node default `node-<nodeId>`) gets an unscoped wake, which the heartbeat runner serves on the agent's main
 * session.
 */
export function scopedWakeTarget(sessionKey: string): WakeTarget {
  return agentSessionKeyPattern.test(sessionKey) ? { sessionKey } : {};
}

export function wakeKey(target: WakeTarget): string {
  return `${target.agentId ?? ''}::${target.sessionKey ?? ''}`;
}

/** What the gateway asks of its heartbeat wakes: the model's own (below), or a real release's (sim/real, `--openclaw`). */
export interface HeartbeatWakesPort {
  requestHeartbeatNow(reason: WakeReason, target?: WakeTarget): void;
}

/** How a heartbeat wake's handler is run: the gateway's heartbeat runner, once per wake. */
export type WakeHandler = (wake: Wake) => Promise<WakeOutcome>;

export class HeartbeatWakes implements HeartbeatWakesPort {
  private readonly pending = new Map<string, Wake>();
  private timer: { handle: TimerHandle; dueAtMs: number; kind: TimerKind } | undefined;
  /** A batch is running (one at a time). */
  private running = false;
  /** A timer fired while a batch was running: the batch's end asks for the next fire. */
  private scheduled = false;

  constructor(
    private readonly timers: Timers,
    private readonly nowMs: () => number,
    private readonly coalesceMs: number,
    private readonly retryMs: number,
    private readonly runWake: (wake: Wake) => Promise<WakeOutcome>,
    private readonly spawn: (name: string, task: () => Promise<void>) => void,
  ) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  requestHeartbeatNow(reason: WakeReason, target: WakeTarget = {}): void {
    this.queue({ agentId: target.agentId, sessionKey: target.sessionKey, reason, requestedAtMs: this.nowMs() });
    assert(this.pending.has(wakeKey(target)), `a requested wake for ${wakeKey(target)} is pending`);
    this.schedule(this.coalesceMs, 'normal');
  }

  private queue(wake: Wake): void {
    const key = wakeKey(wake);
    const current = this.pending.get(key);
    const newer = current === undefined || priorityOf[wake.reason] > priorityOf[current.reason] || (priorityOf[wake.reason] === priorityOf[current.reason] && wake.requestedAtMs >= current.requestedAtMs);
    if (newer) this.pending.set(key, wake);
    assert(priorityOf[(this.pending.get(key) as Wake).reason] >= priorityOf[wake.reason], `the pending wake for ${key} never drops below the priority of ${wake.reason}`);
  }

  private schedule(delayMs: number, kind: TimerKind): void {
    assert(delayMs === this.coalesceMs || delayMs === this.retryMs, `a wake timer is armed with the coalesce or the retry delay, not ${delayMs} ms`);
    const dueAtMs = this.nowMs() + delayMs;
    assertNonNegativeInteger(dueAtMs, 'a wake timer due time');
    if (this.timer !== undefined) {
      // A retry timer is a hard minimum; any other timer armed is kept if it fires no later.
      if (this.timer.kind === 'retry' || this.timer.dueAtMs <= dueAtMs) return;
      this.timer.handle.cancel();
    }
    const handle = this.timers.setTimer(delayMs, () => this.fire(delayMs, kind));
    this.timer = { handle, dueAtMs, kind };
    assert(kind === 'normal' || delayMs === this.retryMs, `a retry timer waits the retry delay, not ${delayMs} ms`);
  }

  /** The timer callback: take the batch now (nothing can slip in between), run it in a task of its own. */
  private fire(delayMs: number, kind: TimerKind): void {
    this.timer = undefined;
    this.scheduled = false;
    if (this.running) {
      this.scheduled = true;
      this.schedule(delayMs, kind);
      assert(this.timer !== undefined, 'a fire during a running batch re-arms the timer');
      return;
    }
    const batch = [...this.pending.values()];
    this.pending.clear();
    this.running = true;
    this.spawn('heartbeat-wake', () => this.runBatch(batch, delayMs));
  }

  private async runBatch(batch: readonly Wake[], delayMs: number): Promise<void> {
    assert(this.running, 'a wake batch runs only after its fire marked the layer running');
    try {
      for (const wake of batch) {
        const outcome = await this.runWake(wake);
        if (outcome === 'skipped-busy') {
          this.queue({ ...wake, requestedAtMs: this.nowMs() });
          this.schedule(this.retryMs, 'retry');
        }
      }
    } catch (error) {
      // As OpenClaw does, a throw re-queues the batch; the error still ends the task (it is a bug: expected
      // faults such as a busy database are handled by the wake's runner and come back as skipped-busy).
      for (const wake of batch) this.queue({ ...wake, requestedAtMs: this.nowMs() });
      this.schedule(this.retryMs, 'retry');
      throw error;
    } finally {
      this.running = false;
      if (this.pending.size > 0 || this.scheduled) this.schedule(delayMs, 'normal');
    }
  }
}
