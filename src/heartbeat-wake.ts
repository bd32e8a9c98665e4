// Heartbeat wakes (OpenClaw src/infra/heartbeat-wake.ts). Pending wakes are keyed by `<agentId>::<sessionKey>`, so
// duplicate requests collapse into one. Priorities: retry 0 < interval 1 < default 2 < action 3; a new request
// replaces the pending one if its priority is higher, or equal and newer. One timer serves all: 250 ms coalesce,
// 1 s retry (a retry timer is a hard minimum). On fire the whole batch is taken and run one wake at a time; a wake
// skipped because its session is busy is re-queued with the retry delay, and a throw re-queues the batch.
import type { TimerHandle, Timers } from './ports.ts';

export type WakeReason = 'retry' | 'interval' | 'default' | 'exec-event';

const priorityOf: Record<WakeReason, number> = { retry: 0, interval: 1, default: 2, 'exec-event': 3 };

export interface Wake {
  agentId: string;
  sessionKey: string;
  reason: WakeReason;
  requestedAtMs: number;
}

export type WakeOutcome = 'ran' | 'skipped-busy';

export class HeartbeatWakes {
  private readonly pending = new Map<string, Wake>();
  private timer: TimerHandle | undefined;
  private timerIsRetry = false;
  private running = false;

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

  requestHeartbeatNow(agentId: string, sessionKey: string, reason: WakeReason): void {
    this.queue({ agentId, sessionKey, reason, requestedAtMs: this.nowMs() });
    this.arm(this.coalesceMs, false);
  }

  private queue(wake: Wake): void {
    const key = `${wake.agentId}::${wake.sessionKey}`;
    const current = this.pending.get(key);
    if (current === undefined || priorityOf[wake.reason] >= priorityOf[current.reason]) this.pending.set(key, wake);
  }

  private arm(delayMs: number, isRetry: boolean): void {
    if (this.timer !== undefined) {
      // A pending retry timer is a hard minimum; a coalesce timer already pending is kept.
      if (this.timerIsRetry || !isRetry) return;
      this.timer.cancel();
    }
    this.timerIsRetry = isRetry;
    this.timer = this.timers.setTimer(delayMs, () => {
      this.timer = undefined;
      this.spawn('heartbeat-wake', () => this.fire());
    });
  }

  private async fire(): Promise<void> {
    // A retry timer armed since this fire was scheduled (a wake skipped in the meantime) owns the pending wakes:
    // running them now would beat the retry's hard minimum.
    if (this.timer !== undefined && this.timerIsRetry) return;
    if (this.running) {
      this.arm(this.retryMs, true);
      return;
    }
    this.running = true;
    const batch = [...this.pending.values()];
    this.pending.clear();
    try {
      for (const wake of batch) {
        const outcome = await this.runWake(wake);
        if (outcome === 'skipped-busy') {
          this.queue(wake);
          this.arm(this.retryMs, true);
        }
      }
    } catch (error) {
      // As OpenClaw does, a throw re-queues the batch; the error still ends the task (it is a bug: expected
      // faults such as a busy database are handled by the wake's runner and come back as skipped-busy).
      for (const wake of batch) this.queue(wake);
      this.arm(this.retryMs, true);
      throw error;
    } finally {
      this.running = false;
    }
  }
}
