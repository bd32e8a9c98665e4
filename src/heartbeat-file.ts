// The runner's heartbeat file, in a module of its own so that the turn can name it without importing the runner.
import { assert } from './assert.ts';
import type { ProcessContext } from './ports.ts';
import { runnerHeartbeatPath } from './session-dbs.ts';

/**
 * The runner's heartbeat file, read by the host's sweep (its time plays nanoclaw's heartbeat mtime). Touched on every
 * step of a turn, and by the idle task only while no turn runs. nanoclaw keeps a heartbeat per session container; the
 * one runner here records, beside its own time, when each session's turn last made progress, so another session's
 * progress does not hide a claim gone silent (host-sweep.ts judges a claim by its session's time).
 */
export class HeartbeatFile {
  private turnsRunning = 0;
  private readonly sessions = new Map<string, number>();

  constructor(private readonly ctx: ProcessContext) {}

  enterTurn(): void {
    assert(this.turnsRunning >= 0, `${this.turnsRunning} turns running`);
    this.turnsRunning++;
  }

  leaveTurn(): void {
    assert(this.turnsRunning > 0, 'a turn leaves the heartbeat only after entering it');
    this.turnsRunning--;
  }

  async touchIfIdle(): Promise<void> {
    if (this.turnsRunning === 0) await this.touch();
  }

  async touch(sessionKey?: string): Promise<void> {
    const heartbeatAtMs = this.ctx.clock.nowMs();
    if (sessionKey !== undefined) this.sessions.set(sessionKey, heartbeatAtMs);
    await this.ctx.disk.write(runnerHeartbeatPath, JSON.stringify({ heartbeatAtMs, sessions: Object.fromEntries(this.sessions) }));
  }
}
