// The runner: nanoclaw's agent runner plus Hermes' agent cache, as one process. At poll-loop start it recovers
// from a SIGKILL: rows left in `processing` go back to `pending` with the host's backoff, and turn_sent_payloads is
// cleared (seed 001's cold-start boundary). Then one lane per session polls `messages_in` for the oldest due row
// (idle 1 s, active 500 ms) and runs a turn for it. A transient model error sends the row back with the full-run
// retry delay; after turnTriesMax tries the turn ends with an error reply. A heartbeat file records progress so
// the gateway's sweep can kill a runner that is stuck.
import { AgentCache } from './agent.ts';
import type { ModelConfig } from './config.ts';
import { LlmTransientError, type ProcessContext, type SqlDatabase } from './ports.ts';
import { SessionDb } from './session-db.ts';
import { modelSessionManagerFactory } from './session-manager-port.ts';
import { runnerHeartbeatPath, SessionDbs, turnSendInvokedKey, turnSentPayloadsKey, turnSentPayloadsKeyFor } from './session-dbs.ts';
import { ignoreBusy, isBusy, retryBusy } from './busy.ts';
import { toolServerName } from './protocol.ts';
import { ReplyWaiter } from './reply-waiter.ts';
import { isToolResult, type ToolRpc } from './tool-rpc.ts';
import { runTurn, type InboundRow, type TurnDeps } from './turn.ts';
import type { ModelEnvironment } from './model.ts';

export { runnerName } from './protocol.ts';

export async function runnerMain(ctx: ProcessContext, config: ModelConfig, env: ModelEnvironment): Promise<void> {
  const sessionDb = await SessionDb.open(ctx.sqlite);
  const dbs = new SessionDbs(ctx.sqlite);
  const cache = new AgentCache(config.knobs.agentCacheSize);
  const rpc = new RpcClient(ctx, config.timers.toolCallTimeoutMs);
  const heartbeat = new HeartbeatFile(ctx);
  ctx.spawnTask('rpc-replies', () => rpc.receiveLoop());
  for (const sessionKey of config.sessions) await recoverSession(ctx, config, dbs, sessionKey);
  await heartbeat.beat(null);
  // nanoclaw's runner writes its heartbeat while idle as well as during a turn; without it the host's sweep would
  // kill a healthy idle runner every heartbeatStaleMs.
  ctx.spawnTask('heartbeat', async () => {
    for (;;) {
      await ctx.timers.sleep(config.timers.heartbeatIdleMs);
      await heartbeat.touch();
    }
  });
  ctx.note('runner-ready', { incarnation: ctx.incarnation });
  const sessionManagerFactory = env.sessionManagerFactory ?? modelSessionManagerFactory;
  const deps: TurnDeps = { ctx, config, sessionDb, dbs, cache, rpc, heartbeat, env, sessionManagerFactory };
  for (const sessionKey of config.sessions) ctx.spawnTask(`lane:${sessionKey}`, () => lane(deps, sessionKey));
}

/** Poll-loop start after a (re)start: requeue interrupted rows and clear turn_sent_payloads. */
async function recoverSession(ctx: ProcessContext, config: ModelConfig, dbs: SessionDbs, sessionKey: string): Promise<void> {
  const inbound = await dbs.inboundDb(sessionKey);
  const outbound = await dbs.outboundDb(sessionKey);
  const nowMs = ctx.clock.nowMs();
  await retryBusy(ctx, () =>
    inbound.transaction((tx) => {
      const stale = tx.query("SELECT id, tries FROM messages_in WHERE status = 'processing'");
      for (const row of stale) {
        const tries = Number(row.tries);
        const backoffMs = 5_000 * 2 ** Math.min(tries, 4);
        tx.run("UPDATE messages_in SET status = 'pending', process_after = ? WHERE id = ?", [nowMs + backoffMs, row.id as string]);
      }
      return stale.length;
    }),
  );
  if (config.bugs.has('send-stale')) {
    // seed 001 (send-stale): no cold-start clear, so a SIGKILLed turn's payloads leak into the next turn.
    return;
  }
  // PR #2531's first boundary (sent-payloads-pr2531): the top of runPollLoop clears the shared row below, with
  // every other record that no pending turn owns.
  // Keep the payload records of turns that will be retried (their repeats must still be suppressed); drop the rest.
  const pending = new Set(
    (await inbound.query("SELECT id FROM messages_in WHERE status = 'pending'")).map((row) => turnSentPayloadsKeyFor(row.id as string, false)),
  );
  const stale = (await outbound.query("SELECT key FROM session_state WHERE key LIKE 'turn_sent_payloads%'"))
    .map((row) => row.key as string)
    .filter((key) => !pending.has(key));
  await retryBusy(ctx, () =>
    outbound.transaction((tx) => {
      tx.run('DELETE FROM session_state WHERE key = ?', [turnSendInvokedKey]);
      for (const key of stale) tx.run('DELETE FROM session_state WHERE key = ?', [key]);
    }),
  );
}

async function lane(deps: TurnDeps, sessionKey: string): Promise<void> {
  const { ctx, config, dbs } = deps;
  const inbound = await dbs.inboundDb(sessionKey);
  for (;;) {
    const row = await nextDueRow(ctx, inbound);
    if (row === undefined) {
      await ctx.timers.sleep(config.timers.pollIdleMs);
      continue;
    }
    await runRow(deps, sessionKey, inbound, row);
    await ctx.timers.sleep(config.timers.pollActiveMs);
  }
}

/**
 * The oldest due row: nanoclaw's `status = 'pending' AND process_after <= now ... ORDER BY seq LIMIT 1`, with the
 * time test done here instead of in SQL. The query then has no parameter that changes every poll, so while the
 * table is unchanged an idle poll is answered from the SQLite adapter's read cache; the row is the same one.
 */
async function nextDueRow(ctx: ProcessContext, inbound: SqlDatabase): Promise<InboundRow | undefined> {
  const nowMs = ctx.clock.nowMs();
  const pending = await inbound.query("SELECT id, kind, content, tries, process_after FROM messages_in WHERE status = 'pending' AND trigger = 1 ORDER BY seq");
  const row = pending.find((candidate) => Number(candidate.process_after) <= nowMs);
  if (row === undefined) return undefined;
  return { id: row.id as string, kind: row.kind as string, content: row.content as string, tries: Number(row.tries) };
}

async function runRow(deps: TurnDeps, sessionKey: string, inbound: SqlDatabase, row: InboundRow): Promise<void> {
  const { ctx, config } = deps;
  const claimed = await ignoreBusy(inbound.run("UPDATE messages_in SET status = 'processing', tries = tries + 1 WHERE id = ? AND status = 'pending'", [row.id]));
  if (claimed === undefined || claimed.changes === 0) return;
  const tries = row.tries + 1;
  await deps.heartbeat.beat(row.id);
  let outcome: 'completed' | 'retry' = 'completed';
  let branch: string[] = [];
  try {
    // Past turnTriesMax failed tries, the turn ends with an error reply (unless its reply is already durable).
    branch = await runTurn(deps, sessionKey, { ...row, tries }, { giveUp: tries > config.knobs.turnTriesMax });
  } catch (error) {
    if (!(error instanceof LlmTransientError) && !isBusy(error)) throw error;
    ctx.note('turn-transient', { session: sessionKey, turn: row.id, tries, error: (error as Error).message });
    outcome = 'retry';
  }
  const nowMs = ctx.clock.nowMs();
  const retryAtMs = nowMs + (tries <= 1 ? config.timers.transientRetryMs : 5_000 * 2 ** Math.min(tries - 1, 4));
  await retryBusy(ctx, () =>
    outcome === 'completed'
      ? inbound.run("UPDATE messages_in SET status = 'completed' WHERE id = ?", [row.id])
      : inbound.run("UPDATE messages_in SET status = 'pending', process_after = ? WHERE id = ?", [retryAtMs, row.id]),
  );
  // PR #2531's second boundary (sent-payloads-pr2531): the retry path does not inherit suppression.
  if (outcome === 'retry' && config.bugs.has('sent-payloads-pr2531')) await clearSharedPayloads(deps, sessionKey);
  // PR #2531's fourth boundary, the outer finally of the turn; send-stale (seed 001's bug) keeps only this one.
  if (outcome === 'completed' && (config.bugs.has('sent-payloads-pr2531') || config.bugs.has('send-stale'))) await clearSharedPayloads(deps, sessionKey);
  else if (outcome === 'completed') {
    // Boundary: the turn is over; its payload record is no longer needed (a leftover is dropped at the next start).
    const outbound = await deps.dbs.outboundDb(sessionKey);
    await ignoreBusy(outbound.run('DELETE FROM session_state WHERE key = ?', [turnSentPayloadsKeyFor(row.id, false)]));
  }
  if (outcome === 'completed') ctx.note('turn-completed', { session: sessionKey, turn: row.id, tries, branch: branch.join(',') });
  else ctx.note('turn-retry', { session: sessionKey, turn: row.id, tries });
  await deps.heartbeat.beat(null);
}

async function clearSharedPayloads(deps: TurnDeps, sessionKey: string): Promise<void> {
  const outbound = await deps.dbs.outboundDb(sessionKey);
  await ignoreBusy(outbound.run('DELETE FROM session_state WHERE key = ?', [turnSentPayloadsKey]));
}

/** The runner's progress record, read by the gateway's sweep. */
export class HeartbeatFile {
  private claim: { turnId: string; sinceMs: number } | null = null;

  constructor(private readonly ctx: ProcessContext) {}

  /** Liveness only: the heartbeat time moves, the claim (and how long it has made no progress) does not. */
  async touch(): Promise<void> {
    await this.write(this.ctx.clock.nowMs());
  }

  async beat(turnId: string | null | undefined): Promise<void> {
    const nowMs = this.ctx.clock.nowMs();
    if (turnId !== undefined) this.claim = turnId === null ? null : { turnId, sinceMs: nowMs };
    else if (this.claim !== null) this.claim.sinceMs = nowMs;
    await this.write(nowMs);
  }

  private async write(nowMs: number): Promise<void> {
    await this.ctx.disk.write(runnerHeartbeatPath, JSON.stringify({ heartbeatAtMs: nowMs, claim: this.claim }));
  }
}

class RpcClient implements ToolRpc {
  private readonly replies: ReplyWaiter;

  constructor(
    private readonly ctx: ProcessContext,
    timeoutMs: number,
  ) {
    this.replies = new ReplyWaiter(ctx.timers, timeoutMs);
  }

  async receiveLoop(): Promise<void> {
    for (;;) {
      const delivery = await this.ctx.net.receive();
      if (isToolResult(delivery.payload)) this.replies.settle(delivery.payload.callId, delivery.payload.ok);
    }
  }

  call(message: Parameters<ToolRpc['call']>[0]): Promise<boolean> {
    return this.replies.wait(message.callId, () => this.ctx.net.send(toolServerName, message));
  }
}
