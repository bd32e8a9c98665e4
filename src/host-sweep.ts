// nanoclaw's host sweep (`src/host-sweep.ts`), run by the gateway every sweepEveryMs over each session's two files:
// 1. sync: a message whose processing_ack is completed or failed becomes `completed` in messages_in;
// 2. running-runner SLA: kill the runner when its heartbeat is older than heartbeatStaleMs (the absolute ceiling),
//    or when a claim is older than claimStaleMs and its session's heartbeat is older than claimStaleMs too (nanoclaw
//    keeps a heartbeat per session container and asks that it did not move since the claim; the one runner here
//    records each session's last progress in its heartbeat file, so another session's progress does not hide a
//    silent claim, and a claim spans the turn's retried attempts, so the silence is counted up to now); the kill
//    resets the stuck claims;
// 3. a runner that is down is started again; if it is down and nothing is due, its leftover claims are reset (the
//    crashed-container cleanup; with work due, the restarted runner clears its own claims instead).
// Resetting a stuck claim: with tries below claimTriesMax the row waits 5000 * 2^tries ms and tries goes up by one;
// at claimTriesMax the row is marked `failed`; a row already rescheduled for the future is left alone; then the
// orphan processing acks are deleted, so the next sweep does not take them for a stuck successor.
//
// nanoclaw marks a row failed and logs it; the user is never told. The fixed model goes further: the host gives up
// on the whole turn the row belongs to (every message that turn claimed), and the runner closes that turn with the
// error reply (written to both transcripts, sent to each message that woke the agent), as nanoclaw's runner does on
// a query error, so no accepted message goes unanswered.
import { assert, assertNonNegativeInteger } from './assert.ts';
import { claimOf, turnMembers } from './claims.ts';
import type { ModelConfig } from './config.ts';
import type { ProcessContext, SqlDatabase } from './ports.ts';
import { ignoreBusy, retryBusy } from './busy.ts';
import { runnerHeartbeatPath, type SessionDbs } from './session-dbs.ts';

/** nanoclaw MAX_TRIES: a claim reset this many times is given up. */
export const claimTriesMax = 5;
/** nanoclaw BACKOFF_BASE_MS: a reset row waits backoffBaseMs * 2^tries. */
export const backoffBaseMs = 5_000;
/**
 * The longest the system waits before it tries again: a reset claim's last backoff (tries = claimTriesMax - 1), and
 * the runner's wait before a failed turn's next attempt, which doubles from backoffBaseMs up to the same bound.
 */
export const retryWaitMaxMs = backoffBaseMs * 2 ** (claimTriesMax - 1);

export type StuckDecision = { action: 'ok' } | { action: 'kill'; reason: 'heartbeat' | 'claim'; session: string | null; messageId: string | null };

interface Claim {
  session: string;
  messageId: string;
  statusChangedMs: number;
}

/**
 * nanoclaw decideStuckAction: the ceiling first (when a heartbeat exists), then any claim silent past tolerance, judged
 * by its session's heartbeat (nanoclaw's heartbeat is its session container's).
 */
export function decideStuckAction(nowMs: number, heartbeat: HeartbeatRecord | undefined, claims: readonly Claim[], config: ModelConfig): StuckDecision {
  const heartbeatAtMs = heartbeat?.heartbeatAtMs;
  const { heartbeatStaleMs, claimStaleMs } = config.timers;
  assertNonNegativeInteger(nowMs, 'the sweep nowMs');
  assert(heartbeatStaleMs > 0 && claimStaleMs > 0, 'the sweep judges staleness against positive bounds');
  if (heartbeatAtMs !== undefined && nowMs - heartbeatAtMs > heartbeatStaleMs) return { action: 'kill', reason: 'heartbeat', session: null, messageId: null };
  const sessionHeartbeatMs = (session: string): number => heartbeat?.sessions?.[session] ?? 0;
  // Silent past tolerance: nanoclaw asks for no heartbeat since the claim, as its claim spans one query; a claim here
  // spans the turn's retried attempts, whose waits touch the heartbeat, so the session's silence is measured up to now.
  const stuck = claims.find((claim) => nowMs - claim.statusChangedMs > claimStaleMs && nowMs - sessionHeartbeatMs(claim.session) > claimStaleMs);
  return stuck === undefined ? { action: 'ok' } : { action: 'kill', reason: 'claim', session: stuck.session, messageId: stuck.messageId };
}

export class HostSweep {
  constructor(
    private readonly ctx: ProcessContext,
    private readonly config: ModelConfig,
    private readonly dbs: SessionDbs,
    private readonly runnerName: string,
  ) {}

  /** One sweep over every session; returns the kill it decided, if any. */
  async sweep(): Promise<StuckDecision> {
    const nowMs = this.ctx.clock.nowMs();
    assertNonNegativeInteger(nowMs, 'the sweep time');
    for (const session of this.config.sessions) await this.syncProcessingAcks(session);
    const running = this.ctx.supervisor.isRunning(this.runnerName);
    let decision: StuckDecision = { action: 'ok' };
    if (running) {
      // Beyond nanoclaw (whose sweep wakes a container and then judges the claims already in outbound.db, the dead
      // container's among them): a claim made before the running runner started is its predecessor's, which the runner
      // clears at its start (clearStaleProcessingAcks); judged by the dead runner's heartbeat, it killed a runner the
      // sweep had just started (chaos seed 9, `supervision`).
      // Its heartbeat, likewise, says nothing of a runner started after it was written.
      const startedAtMs = this.ctx.supervisor.startedAtMs?.(this.runnerName);
      const ownSince = (atMs: number): boolean => startedAtMs === undefined || atMs >= startedAtMs;
      const claims = (await this.claims()).filter((claim) => ownSince(claim.statusChangedMs));
      const heartbeat = parseHeartbeat(await this.ctx.disk.read(runnerHeartbeatPath));
      decision = decideStuckAction(nowMs, heartbeat !== undefined && ownSince(heartbeat.heartbeatAtMs) ? heartbeat : undefined, claims, this.config);
      if (decision.action === 'kill') {
        this.ctx.note('sweep-kill', { reason: decision.reason, session: decision.session, message: decision.messageId });
        this.ctx.supervisor.kill(this.runnerName);
      }
    }
    assert(running || decision.action === 'ok', 'only a running runner is killed');
    if (decision.action === 'kill' || (!running && !(await this.anyDue(nowMs)))) {
      for (const session of this.config.sessions) await this.resetStuckClaims(session, nowMs, decision.action === 'kill' ? decision.reason : 'runner-down');
    }
    return decision;
  }

  private async claims(): Promise<Claim[]> {
    const out: Claim[] = [];
    for (const session of this.config.sessions) {
      const outbound = await this.dbs.outboundDb(session);
      const rows = await outbound.query("SELECT message_id, status_changed FROM processing_ack WHERE status = 'processing' ORDER BY status_changed");
      for (const row of rows) out.push({ session, messageId: row.message_id as string, statusChangedMs: Number(row.status_changed) });
      assert(rows.every((row) => Number.isSafeInteger(Number(row.status_changed))), `processing_ack times of ${session} are whole ms`);
    }
    return out;
  }

  /** nanoclaw countDueMessages (any session): pending trigger=1 rows whose time has come, claimed or not. */
  private async anyDue(nowMs: number): Promise<boolean> {
    for (const session of this.config.sessions) {
      const inbound = await this.dbs.inboundDb(session);
      const rows = await inbound.query("SELECT process_after FROM messages_in WHERE status = 'pending' AND trigger = 1");
      if (rows.some((row) => Number(row.process_after) <= nowMs)) return true;
    }
    return false;
  }

  private async syncProcessingAcks(session: string): Promise<void> {
    const inbound = await this.dbs.inboundDb(session);
    const outbound = await this.dbs.outboundDb(session);
    const done = (await outbound.query("SELECT message_id FROM processing_ack WHERE status IN ('completed', 'failed')")).map((row) => row.message_id as string);
    if (done.length === 0) return;
    const open = new Set((await inbound.query("SELECT id FROM messages_in WHERE status != 'completed'")).map((row) => row.id as string));
    const changed = done.filter((id) => open.has(id));
    assert(new Set(done).size === done.length, `processing_ack of ${session} holds a message twice`);
    if (changed.length === 0) return;
    await ignoreBusy(
      inbound.transaction((tx) => {
        for (const id of changed) tx.run("UPDATE messages_in SET status = 'completed' WHERE id = ? AND status != 'completed'", [id]);
      }),
    );
  }

  /** nanoclaw resetStuckProcessingRows, then deleteOrphanProcessingClaims. */
  private async resetStuckClaims(session: string, nowMs: number, reason: string): Promise<void> {
    const inbound = await this.dbs.inboundDb(session);
    const outbound = await this.dbs.outboundDb(session);
    const claims = await outbound.query("SELECT message_id, status_changed FROM processing_ack WHERE status = 'processing'");
    for (const claim of claims) {
      const id = claim.message_id as string;
      const row = (await inbound.query("SELECT id, tries, process_after FROM messages_in WHERE id = ? AND status = 'pending'", [id]))[0];
      if (row === undefined) continue;
      const tries = Number(row.tries);
      assertNonNegativeInteger(tries, `tries of ${id}`);
      if (alreadyRescheduled(nowMs, Number(row.process_after), tries, Number(claim.status_changed))) continue;
      assert(tries <= claimTriesMax, `${id} was reset ${tries} times, above claimTriesMax ${claimTriesMax}`);
      if (tries >= claimTriesMax) {
        await this.giveUp(session, inbound, outbound, id);
        continue;
      }
      const backoffMs = backoffBaseMs * 2 ** tries;
      assert(backoffMs <= backoffBaseMs * 2 ** (claimTriesMax - 1), `${id} backs off ${backoffMs} ms, above the bound`);
      // Retried, not ignored, when the database is busy: a reset lost here while its claim is deleted below would let
      // the row run again at once with its old tries, one stuck claim more than claimTriesMax allows.
      await retryBusy(this.ctx, () => inbound.run('UPDATE messages_in SET tries = tries + 1, process_after = ? WHERE id = ?', [nowMs + backoffMs, id]));
      this.ctx.note('claim-reset', { session, message: id, tries: tries + 1, backoffMs, reason });
    }
    // Only the claims judged above: a write of the reset may stall for seconds (issue 48 item 4), and a runner started
    // meanwhile may have claimed the row again; deleting that claim too left its turn, hung on a poison message, with no
    // claim for the sweep to find stale, so it was never killed (send-heavy chaos seed 12, run 1320). nanoclaw's sweep
    // does both writes synchronously, so nothing runs in between.
    const judged = claims.map((claim) => `${String(claim.message_id)}@${Number(claim.status_changed)}`);
    const cleared = await ignoreBusy(outbound.run(`DELETE FROM processing_ack WHERE status = 'processing' AND message_id || '@' || status_changed IN (${judged.map(() => '?').join(', ')})`, judged));
    if (cleared !== undefined && cleared.changes > 0) this.ctx.note('claims-cleared', { session, cleared: cleared.changes, reason });
  }

  /** The row reached claimTriesMax: every message of its turn is marked failed (the runner closes the turn). */
  private async giveUp(session: string, inbound: SqlDatabase, outbound: SqlDatabase, messageId: string): Promise<void> {
    const { turnId } = await claimOf(outbound, messageId);
    const members = turnId === null ? [] : (await turnMembers(inbound, outbound, turnId, "AND m.status = 'pending'")).map((member) => member.id);
    const failed = members.length > 0 ? members : [messageId];
    assert(failed.includes(messageId), `the row ${messageId} that reached claimTriesMax is among the messages given up (${failed.join(',')})`);
    await retryBusy(this.ctx, () =>
      inbound.transaction((tx) => {
        for (const id of failed) tx.run("UPDATE messages_in SET status = 'failed' WHERE id = ? AND status = 'pending'", [id]);
      }),
    );
    this.ctx.note('claim-failed', { session, message: messageId, turn: turnId, failed: failed.join(',') });
  }
}

/**
 * nanoclaw leaves a row already rescheduled for a future retry alone (its orphan claim is a reset one). A claim made
 * after that reschedule is another stuck claim and counts: the fixed runner's re-formed turn keeps the messages it
 * claimed (claims.ts), so it may hold a row whose backoff has not run out, which nanoclaw's runner never fetches.
 */
function alreadyRescheduled(nowMs: number, processAfterMs: number, tries: number, claimedAtMs: number): boolean {
  if (processAfterMs <= nowMs) return false;
  assert(tries >= 1, `a row due in the future at ${processAfterMs} was reset at least once`);
  const rescheduledAtMs = processAfterMs - backoffBaseMs * 2 ** (tries - 1);
  return claimedAtMs <= rescheduledAtMs;
}

interface HeartbeatRecord {
  heartbeatAtMs: number;
  /** When each session's turn last made progress (absent: none since the runner started). */
  sessions?: Record<string, number>;
}

/** The runner's heartbeat file; a crash may leave it empty or torn, which reads as no record. */
export function parseHeartbeat(text: string | undefined): HeartbeatRecord | undefined {
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as HeartbeatRecord;
    return typeof record.heartbeatAtMs === 'number' ? record : undefined;
  } catch {
    return undefined;
  }
}
