// The runner: nanoclaw's agent runner plus Hermes' agent cache, as one process. At poll-loop start it recovers
// from a SIGKILL: the previous incarnation's processing acks are cleared (nanoclaw clearStaleProcessingAcks) and so
// is turn_sent_payloads (seed 001's cold-start boundary). Then one lane per session polls for a batch of due rows
// (claims.ts; idle 1 s, active 500 ms; idle polls that would find nothing are skipped, idle-poll.ts), claims it and
// runs one turn for it. A transient model error runs the turn again after the full-run retry delay; after
// turnTriesMax attempts the turn ends with an error reply. In Hermes' processing mode (config.ts `processingModes`)
// each run takes one message and ends at its first failure: the next attempt gives up with the error reply at once.
// A heartbeat file records progress so the gateway's sweep can kill a runner that is stuck (host-sweep.ts).
import { assert, assertNonNegativeInteger } from './assert.ts';
import { AgentCache } from './agent.ts';
import { abandonBatch, type Batch, claimBatch, type IdleFetch, clearStaleProcessingAcks, type SkippedRows, completeTurn, fetchBatch, unfinishedTurns } from './claims.ts';
import { effectiveQueueMode, type ModelConfig } from './config.ts';
import { LlmTransientError, type ProcessContext, type SqlDatabase } from './ports.ts';
import { SessionDb } from './session-db.ts';
import { modelSessionManagerFactory } from './session-manager-port.ts';
import { SessionDbs, turnSendInvokedKey, turnSentPayloadsKey, turnSentPayloadsKeyFor } from './session-dbs.ts';
import { ignoreBusy, isBusy, retryBusy } from './busy.ts';
import { toolServerName } from './protocol.ts';
import { ReplyWaiter } from './reply-waiter.ts';
import { isToolResult, type ToolOutcome, type ToolRpc, toolOutcome } from './tool-rpc.ts';
import { runTurn, TurnAborted, type TurnDeps } from './turn.ts';
import { SessionWriteLockError } from './session-write-lock.ts';
import { GatewayTranscriptAppend } from './gateway-append.ts';
import { idlePoll, watch } from './idle-poll.ts';
import { HeartbeatFile } from './heartbeat-file.ts';
import { backoffBaseMs, retryWaitMaxMs } from './host-sweep.ts';
import type { ModelEnvironment } from './environment.ts';

export { runnerName } from './protocol.ts';

export async function runnerMain(ctx: ProcessContext, config: ModelConfig, env: ModelEnvironment): Promise<void> {
  assert(config.timers.pollIdleMs > 0 && config.timers.pollActiveMs > 0, 'the runner polls at a positive interval (a zero one would spin)');
  assert(config.knobs.turnTriesMax >= 1, `a turn is tried at least once, not ${config.knobs.turnTriesMax} times`);
  const sessionDb = await SessionDb.open(ctx.sqlite);
  const dbs = new SessionDbs(ctx.sqlite);
  const cache = new AgentCache(config.knobs.agentCacheSize, config.knobs.agentCacheCoherence);
  const rpc = new RpcClient(ctx, config.timers.toolCallTimeoutMs);
  const heartbeat = new HeartbeatFile(ctx);
  ctx.spawnTask('rpc-replies', () => rpc.receiveLoop());
  for (const sessionKey of config.sessions) await recoverSession(ctx, config, dbs, sessionKey);
  await heartbeat.touch();
  // nanoclaw's runner writes its heartbeat while idle as well as during a turn; without it the host's sweep would
  // kill a healthy idle runner every heartbeatStaleMs. While a turn runs only its progress moves the heartbeat, so a
  // turn that went silent after its claim still looks stuck to the sweep.
  ctx.spawnTask('heartbeat', async () => {
    for (;;) {
      await ctx.timers.sleep(config.timers.heartbeatIdleMs);
      await heartbeat.touchIfIdle();
    }
  });
  ctx.note('runner-ready', { incarnation: ctx.incarnation });
  const sessionManagerFactory = env.sessionManagerFactory ?? modelSessionManagerFactory;
  const deps: TurnDeps = { ctx, config, sessionDb, dbs, cache, rpc, heartbeat, env, sessionManagerFactory };
  // A real release's orphan-merge policy (sim/real), fresh for each runner incarnation; the model's where absent.
  const orphanMerge = env.gatewayParts?.orphanMerge?.(ctx);
  if (orphanMerge !== undefined) deps.orphanMerge = orphanMerge;
  const writeLock = env.gatewayParts?.sessionWriteLock?.(ctx, 'run-attempt');
  if (writeLock !== undefined) deps.writeLock = writeLock;
  // Hermes' gateway appends each run's exchange through its SessionStore's own SessionDB (a second handle on state.db).
  if (config.knobs.gatewayAppend !== 'off') deps.gatewayAppend = new GatewayTranscriptAppend(ctx, config.knobs.gatewayAppend, await SessionDb.open(ctx.sqlite));
  for (const sessionKey of config.sessions) ctx.spawnTask(`lane:${sessionKey}`, () => lane(deps, sessionKey));
}

/** Poll-loop start after a (re)start: drop the previous incarnation's claims and clear turn_sent_payloads. */
async function recoverSession(ctx: ProcessContext, config: ModelConfig, dbs: SessionDbs, sessionKey: string): Promise<void> {
  const outbound = await dbs.outboundDb(sessionKey);
  // nanoclaw clearStaleProcessingAcks: the claimed rows are due again at once (the host's sweep may have reset them).
  const cleared = await retryBusy(ctx, () => clearStaleProcessingAcks(outbound));
  assertNonNegativeInteger(cleared, `processing acks cleared in ${sessionKey}`);
  if (cleared > 0) ctx.note('claims-cleared', { session: sessionKey, cleared, reason: 'runner-start' });
  if (config.bugs.has('send-stale')) {
    // seed 001 (send-stale): no cold-start clear, so a SIGKILLed turn's payloads leak into the next turn.
    return;
  }
  // PR #2531's first boundary (sent-payloads-pr2531): the top of runPollLoop clears the shared row below, with
  // every other record that no pending turn owns.
  // Keep the payload records of turns that will run again (their repeats must still be suppressed); drop the rest.
  const pending = new Set([...(await unfinishedTurns(outbound))].map((turnId) => turnSentPayloadsKeyFor(turnId, false)));
  const stale = (await outbound.query("SELECT key FROM session_state WHERE key LIKE 'turn_sent_payloads%'"))
    .map((row) => row.key as string)
    .filter((key) => !pending.has(key));
    assert(!stale.includes(turnSendInvokedKey), 'turn_send_invoked is no turn_sent_payloads record');
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
  const outbound = await dbs.outboundDb(sessionKey);
  const mode = effectiveQueueMode(config, sessionKey);
  for (;;) {
    // The versions before the fetch: a change during it wakes the lane for the next poll.
    const watched = [watch(inbound), watch(outbound)];
    const idle: IdleFetch = { nextDueMs: undefined };
    const skipped: SkippedRows = { responseSeqs: [], limitWindow: new Set() };
    const batch = await fetchBatch(inbound, outbound, ctx.clock.nowMs(), mode, idle, { order: config.knobs.pollOrder, skipped });
    if (batch === undefined) {
      await idlePoll(ctx, watched, config.timers.pollIdleMs, idle.nextDueMs);
      continue;
    }
    assert(batch.members.length > 0, `a fetched batch of ${sessionKey} has at least one message`);
    noteSkippedRows(ctx, sessionKey, batch, skipped);
    await runBatch(deps, sessionKey, outbound, batch);
    // Hermes' gateway sends a run's response (its error included) before it runs the chat's next pending message.
    if (config.knobs.processing !== 'nanoclaw') await untilSent(deps, outbound);
    await ctx.timers.sleep(config.timers.pollActiveMs);
  }
}

/**
 * Issue 48 item 6 (coverage only): the poll skipped tool responses above a message it took (`poll-skipped`), and
 * whether a message it took lay beyond the newest maxMessagesPerPrompt due rows, the window a `limit-first` poll
 * takes (`beyondWindow`: that poll would not have taken it). Noted only when tool responses were pending.
 */
function noteSkippedRows(ctx: ProcessContext, sessionKey: string, batch: Batch, skipped: SkippedRows): void {
  if (skipped.responseSeqs.length === 0) return;
  const oldest = Math.min(...batch.members.map((member) => member.seq));
  const above = skipped.responseSeqs.filter((seq) => seq > oldest).length;
  if (above === 0) return;
  ctx.note('poll-skipped', { session: sessionKey, turn: batch.turnId, skipped: above, beyondWindow: batch.members.some((member) => !skipped.limitWindow.has(member.id)) });
}

/**
 * Claims the batch (nanoclaw markProcessing) and runs its turn. A transient model error or a busy database makes
 * the turn run again, as OpenClaw's run loop retries (2,500 ms, then nanoclaw's backoff); past turnTriesMax
 * attempts the turn ends with the error reply. The claim stays while the turn runs; a SIGKILL leaves it to the host.
 */
async function runBatch(deps: TurnDeps, sessionKey: string, outbound: SqlDatabase, batch: Batch): Promise<void> {
  const { ctx, config } = deps;
  assert(batch.turnId.length > 0, `a batch of ${sessionKey} names its turn`);
  const claimed = await ignoreBusy(claimBatch(outbound, batch, ctx.clock.nowMs()).then(() => true));
  if (claimed === undefined) return;
  const turnId = batch.turnId;
  // Hermes' gateway ends a run at the first failure its agent could not retry; nanoclaw's runner tries it again. Only a
  // platform message is an agent run: a command (/clear: Hermes' gateway resets the session itself, no agent runs) and
  // a heartbeat's row keep the retried turn (chaos: a /clear that met a busy state.db was answered with the error reply
  // after its rotation, and never with `Session cleared.`).
  const hermes = config.knobs.processing !== 'nanoclaw' && batch.kind === 'chat';
  const triesMax = hermes ? 1 : config.knobs.turnTriesMax;
  // A scheduled task's occurrence runs as a turn like a message (task-scheduler.ts); the note labels the coverage only.
  const occurrences = batch.members.filter((member) => member.kind === 'task').map((member) => member.id);
  if (occurrences.length > 0) ctx.note('task-run', { session: sessionKey, turn: turnId, occurrences: occurrences.join(',') });
  deps.heartbeat.enterTurn();
  try {
    // No touch here: the heartbeat moves only with the turn's progress, so a turn silent since its claim is stuck.
    let branch: string[] = [];
    for (let attempt = 1; ; attempt++) {
      try {
        // Past turnTriesMax failed attempts, the turn ends with an error reply (unless its reply is already durable).
        // A turn the host gave up on (failed at claimTriesMax) closes with the error reply at once.
        branch = await runTurn(deps, sessionKey, batch, { attempt, giveUp: batch.failed || attempt > triesMax });
        break;
      } catch (error) {
        if (error instanceof TurnAborted) {
          // interrupt: a newer message aborted the run, which says nothing more; its messages are given back and
          // the next fetch runs them again with the newer one (the turn re-forms, asked a new prompt).
          await retryBusy(ctx, () => abandonBatch(outbound, batch));
          ctx.note('turn-aborted', { session: sessionKey, turn: turnId, attempt, at: error.at });
          return;
        }
        // A session write lock held past its timeout (the delivery mirror's) fails the attempt as OpenClaw's does.
        if (!(error instanceof LlmTransientError) && !isBusy(error) && !(error instanceof SessionWriteLockError)) throw error;
        ctx.note('turn-transient', { session: sessionKey, turn: turnId, attempt, error: (error as Error).message });
      }
      // PR #2531's second boundary (sent-payloads-pr2531): the retry path does not inherit suppression.
      if (config.bugs.has('sent-payloads-pr2531')) await clearSharedPayloads(deps, sessionKey);
      if (hermes && attempt === triesMax) {
        // Hermes: the run failed and is not run again; the gateway answers it with the error at once (the next
        // attempt gives up without asking the LLM).
        ctx.note('turn-failed-first', { session: sessionKey, turn: turnId, members: batch.members.length });
        if (config.knobs.processing === 'hermes-silent') {
          // Hermes before a failed run's error was surfaced: no final response, so nothing is sent.
          await retryBusy(ctx, () => completeTurn(outbound, turnId, ctx.clock.nowMs()));
          return;
        }
        continue;
      }
      const retryMs = attempt <= 1 ? config.timers.transientRetryMs : Math.min(backoffBaseMs * 2 ** (attempt - 1), retryWaitMaxMs);
      assert(retryMs > 0, `turn ${turnId} waits ${retryMs} ms before attempt ${attempt + 1}`);
      ctx.note('turn-retry', { session: sessionKey, turn: turnId, attempt, retryMs });
      await waitAlive(deps, sessionKey, retryMs);
    }
    assert(branch.length > 0, `turn ${turnId} leaves its entries on the active branch`);
    await retryBusy(ctx, () => completeTurn(outbound, turnId, ctx.clock.nowMs()));
    // PR #2531's fourth boundary, the outer finally of the turn; send-stale (seed 001's bug) keeps only this one.
    if (config.bugs.has('sent-payloads-pr2531') || config.bugs.has('send-stale')) await clearSharedPayloads(deps, sessionKey);
    // Boundary: the turn is over; its payload record is no longer needed (a leftover is dropped at the next start).
    else await ignoreBusy(outbound.run('DELETE FROM session_state WHERE key = ?', [turnSentPayloadsKeyFor(turnId, false)]));
    ctx.note('turn-completed', { session: sessionKey, turn: turnId, members: batch.members.map((member) => member.id).join(','), branch: branch.join(',') });
  } finally {
    deps.heartbeat.leaveTurn();
  }
  await deps.heartbeat.touch(sessionKey);
}

/**
 * Under Hermes' processing: wait until every outbound row of the session was delivered (the host's pollers retry until
 * it is), checking every pollActiveMs. Hermes' adapter awaits the send of a run's response before the chat's next
 * pending message runs (gateway/platforms/base.py), so the user sees a failed run's error reply before the next run
 * asks the LLM; nanoclaw's runner, the default, goes on at once.
 */
async function untilSent(deps: TurnDeps, outbound: SqlDatabase): Promise<void> {
  const { ctx, config } = deps;
  for (;;) {
    const rows = await ignoreBusy(outbound.query('SELECT COUNT(*) AS pending FROM messages_out WHERE delivered = 0'));
    if (rows !== undefined && Number(rows[0]?.pending ?? 0) === 0) return;
    await ctx.timers.sleep(config.timers.pollActiveMs);
  }
}

/** Sleep before a retry, touching the heartbeat at least every claimStaleMs / 2: waiting to retry is progress. */
async function waitAlive(deps: TurnDeps, sessionKey: string, delayMs: number): Promise<void> {
  assertNonNegativeInteger(delayMs, 'a retry delay');
  const sliceMs = Math.max(1, Math.floor(deps.config.timers.claimStaleMs / 2));
  for (let leftMs = delayMs; leftMs > 0; leftMs -= sliceMs) {
    await deps.ctx.timers.sleep(Math.min(sliceMs, leftMs));
    await deps.heartbeat.touch(sessionKey);
  }
}

async function clearSharedPayloads(deps: TurnDeps, sessionKey: string): Promise<void> {
  const outbound = await deps.dbs.outboundDb(sessionKey);
  await ignoreBusy(outbound.run('DELETE FROM session_state WHERE key = ?', [turnSentPayloadsKey]));
}


class RpcClient implements ToolRpc {
  private readonly replies: ReplyWaiter<ToolOutcome>;

  constructor(
    private readonly ctx: ProcessContext,
    timeoutMs: number,
  ) {
    this.replies = new ReplyWaiter<ToolOutcome>(ctx.timers, timeoutMs, 'failed');
  }

  async receiveLoop(): Promise<void> {
    for (;;) {
      const delivery = await this.ctx.net.receive();
      if (isToolResult(delivery.payload)) this.replies.settle(delivery.payload.callId, toolOutcome(delivery.payload));
    }
  }

  call(message: Parameters<ToolRpc['call']>[0]): Promise<ToolOutcome> {
    return this.replies.wait(message.callId, () => this.ctx.net.send(toolServerName, message));
  }
}
