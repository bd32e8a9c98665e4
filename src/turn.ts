// One agent turn for one inbound row, phase by phase (docs/ARCHITECTURE.md section 4): prompt-persisted, model-call,
// tool-send, result-dispatch, flush. Every durable write is keyed by the turn, so a turn that is retried after a
// transient error or a SIGKILL resumes without writing anything twice: the fake model answers a turn the same way
// on every attempt, tool and result rows have ids derived from the turn and their content, and rows already in
// state.db or the transcript are recognised. The fixed runner writes an assistant row before the reply it carries
// leaves the process (write-ahead), so a kill between the two cannot leave a visible reply without its row.
import { storedHeartbeatAnswer } from './heartbeat-run.ts';
import { assert, assertNonNegativeInteger } from './assert.ts';
import { isBusy } from './busy.ts';
import { compactIfNeeded } from './compaction.ts';
import { AiAgent, type AgentCache, type AgentMessage, type CacheLookup } from './agent.ts';
import { type Batch, type BatchMember, claimOf, mergeTurn, newerMessageDue, releaseMembers, turnMembers, writeErrorReplies } from './claims.ts';
import { effectiveQueueMode, type ModelConfig } from './config.ts';
import { type EnvelopeFacts, envelopeFacts, envelopePrompt, envelopes, finishCutShortRewrite, isEnveloped, rewriteSubmittedTranscript, storesSubmitted } from './envelope.ts';
import type { ModelEnvironment, OrphanMergeDecision, OrphanMergePolicy, OrphanMergeQuestion, RunTrigger } from './environment.ts';
import { type LlmAnswer, type LlmContextMessage, LlmTransientError, type ProcessContext, type SqlDatabase, type SqlTransaction, type ToolName } from './ports.ts';
import type { GatewayTranscriptAppend } from './gateway-append.ts';
import type { HeartbeatFile } from './heartbeat-file.ts';
import { type DbMessage, rotatedSessionId, type SessionDb } from './session-db.ts';
import { parseTurnSentPayloads, type SessionDbs, sharedPayloadRow, transcriptPath, turnSendInvokedKey, turnSentPayloadsKey, turnSentPayloadsKeyFor } from './session-dbs.ts';
import type { SessionEntry, TranscriptMessage } from './session-manager.ts';
import type { SessionManagerFactory, SessionManagerPort } from './session-manager-port.ts';
import { openSessionForRun } from './session-file-repair.ts';
import { acquireSessionWriteLock, type SessionWriteLockPort } from './session-write-lock.ts';
import { contentHash, isVerbatimDuplicate, normalizeWhitespace, parseMessageBlocks } from './text.ts';
import type { ToolRpc } from './tool-rpc.ts';
import type { ToolCallMessage } from './tool-server.ts';
import { callDeadlineMs, deadlinedTools, effectsSettleAtMs, withinDeadline } from './tool-deadline.ts';
import { abandonCall } from './tool-fence.ts';
import { defaultStreamTextLimit, streamBlockMs, streamBlockRowId, streamBlocks, streamId, type StreamRowContent, streamRestRowId } from './block-stream.ts';

export interface TurnDeps {
  ctx: ProcessContext;
  config: ModelConfig;
  sessionDb: SessionDb;
  dbs: SessionDbs;
  cache: AgentCache;
  rpc: ToolRpc;
  heartbeat: HeartbeatFile;
  env: ModelEnvironment;
  /** Opens the transcript (the model's SessionManager, or the real pi one under sim/real). */
  sessionManagerFactory: SessionManagerFactory;
  /** Hermes' gateway append after the run (a second writer of state.db), when it is on. */
  gatewayAppend?: GatewayTranscriptAppend;
  /** The orphaned-user merge policy (the model's, or a real release's under sim/real); default modelOrphanMerge. */
  orphanMerge?: OrphanMergePolicy;
  /** The session write lock of this runner incarnation (a real release's under sim/real); default the model's. */
  writeLock?: SessionWriteLockPort;
}

export const queuedPrefix = '[Queued user message that arrived while the previous turn was still active]';
export const errorReply = 'Sorry, something went wrong. Please try again.';
export const clearedReply = 'Session cleared.';
/** The closing text of a turn that gave up: the error reply, sent to each message of the turn that woke the agent. */
const errorResult = `<message to="user">${errorReply}</message>`;
export const toolCallAttemptsMax = 30;

interface TurnState {
  deps: TurnDeps;
  sessionKey: string;
  /** The state.db session and transcript file the turn writes to (the key's current one). */
  sessionId: string;
  turnId: string;
  agent: AiAgent;
  history: AgentMessage[];
  historyLength: number;
  own: DbMessage[];
  session: SessionManagerPort;
  inbound: SqlDatabase;
  outbound: SqlDatabase;
  /** Every message the turn claimed (its batch and what it took over), oldest first. */
  members: BatchMember[];
  /**
   * When no call of the session that acts on the world can take effect any more (tool-deadline.ts), from the state.db
   * rows the turn read; undefined: none may, or the `none` sabotage. A turn that gives up waits for it.
   */
  effectsSettleAtMs: number | undefined;
  /** The conversation history the turn's LLM request carries (what its agent holds: replayed when it was reused). */
  context: LlmContextMessage[];
}

/** Runs the turn for a batch; returns the ids of the transcript's active branch as this process holds it in memory. */
export async function runTurn(deps: TurnDeps, sessionKey: string, batch: Batch, options: { attempt: number; giveUp?: boolean }): Promise<string[]> {
  const { ctx } = deps;
  const turnId = batch.turnId;
  assert(Number.isSafeInteger(options.attempt) && options.attempt >= 1, `turn ${turnId} runs attempt ${options.attempt}, not a count from 1`);
  assert(batch.members.length > 0, `turn ${turnId} runs with no message`);
  ctx.note('turn-start', { session: sessionKey, turn: turnId, kind: batch.kind, attempt: options.attempt, members: batch.members.length });
  if (batch.kind === 'command') deps.cache.evict(sessionKey);
  const sessionId = await turnSessionId(deps, sessionKey, batch);
  const signature = `model-v${deps.env.configGeneration()}`;
  const create = (): AiAgent => new AiAgent(sessionKey, signature, 'main', sessionId);
  const lookup = deps.cache.getOrCreate(sessionKey, signature, await deps.sessionDb.messageCount(sessionId), create, sessionId);
  for (const evicted of lookup.evicted) ctx.note('agent-evicted', { session: evicted });
  if (lookup.rebuilt === 'another-writer' || lookup.rebuilt === 'rotated') ctx.note('agent-rebuilt', { session: sessionKey, reason: lookup.rebuilt });
  assert(lookup.agent.sessionKey === sessionKey, `turn ${turnId} of ${sessionKey} got the agent of ${lookup.agent.sessionKey}`);
  assert(!lookup.evicted.includes(sessionKey), `turn ${turnId} evicted its own agent`);
  // OpenClaw's run attempt takes the session write lock before it repairs and opens the transcript, and holds it to the
  // end of the attempt; the lock only matters where a second writer of the transcript exists (the delivery mirror).
  const lock = deps.config.knobs.deliveryMirror === 'off' ? undefined : await (deps.writeLock?.acquire(transcriptPath(sessionId)) ?? acquireSessionWriteLock(ctx, transcriptPath(sessionId), { reclaim: deps.config.knobs.lockReclaim }));
  deps.cache.begin(sessionKey);
  try {
    return await runTurnWithAgent(deps, sessionKey, sessionId, batch, lookup, options);
  } finally {
    // Without the mirror the runner takes no lock, and its turn keeps the await hops it had.
    if (lock !== undefined) await lock.release();
    // The session's rows now, the count and what a reuse replays at once (one read, as the count query it replaces).
    const rowsAtEnd = await deps.sessionDb.messages(sessionId);
    deps.cache.end(sessionKey, rowsAtEnd.length, rowsAtEnd);
  }
}

/**
 * The state.db session (and transcript file) the turn writes to: the key's current one. A /clear works in the session
 * it ends; retried after its rotation committed, it finds its own successor current and goes back to the parent.
 */
async function turnSessionId(deps: TurnDeps, sessionKey: string, batch: Batch): Promise<string> {
  const current = await deps.sessionDb.currentSessionId(sessionKey);
  if (batch.kind !== 'command' || current !== rotatedSessionId(sessionKey, batch.turnId)) return current;
  return (await deps.sessionDb.parentOf(current)) ?? current;
}

async function runTurnWithAgent(
  deps: TurnDeps,
  sessionKey: string,
  sessionId: string,
  batch: Batch,
  lookup: CacheLookup,
  options: { attempt: number; giveUp?: boolean },
): Promise<string[]> {
  const { ctx, config } = deps;
  const turnId = batch.turnId;
  const inbound = await deps.dbs.inboundDb(sessionKey);
  const outbound = await deps.dbs.outboundDb(sessionKey);
  const rows = await deps.sessionDb.messages(sessionId);
  const built = buildHistory(rows, turnId);
  assert(built.history.length + built.own.length + built.trailingUsers.length <= rows.length, `turn ${turnId}: its history, own rows and trailing users are ${rows.length} state.db rows at most`);
  const session = await openTranscript(deps, sessionKey, sessionId);
  assert(session.path === transcriptPath(sessionId), `turn ${turnId} opened ${session.path}, not the transcript of ${sessionId}`);
  const leaf = session.leaf;
  const orphan = leaf?.message.role === 'user' ? [{ turnId: leaf.turnId, content: leaf.message.content }] : [];
  // An earlier attempt's enveloped prompt entry left unrewritten (its call failed, or it was killed): what the repair meets.
  if (orphan.length > 0 && storesSubmitted(config.knobs.promptEnvelope) && leaf !== undefined && isEnveloped(leaf.message.content)) ctx.note('envelope-met', { session: sessionKey, turn: turnId, entry: leaf.id, own: leaf.turnId === turnId });
  // The unanswered messages folded into this turn. A retry folds the same ones again: the claims are durable and the
  // trailing user rows do not change, so the LLM is asked the same prompt and answers the same way.
  // A turn whose final assistant row is already durable (a retry after a kill or a failed dispatch) resumes from it:
  // its answer is decided, so it claims no other message (one claimed now would be marked answered by an answer
  // that never saw it) and leaves another message's trailing entry to that message's own turn.
  const durableFinal = built.own.find((message) => message.role === 'assistant' && message.toolCalls === null);
  const resuming = durableFinal !== undefined;
  const ownTexts = built.own.filter((message) => message.role === 'user').map((message) => message.content);
  // Messages that joined the batch after the turn's prompt was persisted (they arrived while it was interrupted).
  const joined = ownTexts.length === 0 ? [] : batch.members.filter((member) => !member.merged && missingFrom(ownTexts, [member.content]).length > 0);
  if (resuming && joined.length > 0) {
    // Its answer is decided and never saw them: they go back to wait for the next batch.
    await releaseMembers(outbound, joined.map((member) => member.id));
    ctx.note('members-released', { session: sessionKey, turn: turnId, released: joined.map((member) => member.id).join(',') });
  }
  const own = resuming ? { ...batch, members: batch.members.filter((member) => !joined.includes(member)) } : batch;
  assert(own.members.length > 0, `turn ${turnId} keeps at least one message of its own (released ${joined.length})`);
  if (!resuming && joined.length > 0) await forgetEarlierAnswer(deps, outbound, sessionKey, turnId);
  const content = batchText(own);
  // Resuming, it claims nothing new, but the messages it claimed before still belong in its prompt entries.
  // The submitted prompt carries the metadata envelope of the message that woke the run (envelope.ts; off by default).
  const submit = envelopes(config.knobs.promptEnvelope) && own.kind === 'chat' ? await submitter(deps, inbound, sessionKey, own) : asSubmitted;
  const unanswered = await foldUnanswered(deps, inbound, outbound, sessionKey, own, batch.kind === 'command' || resuming ? [] : [...built.trailingUsers, ...orphan], submit);
  const { members } = unanswered;
  // What an earlier attempt of this turn folded in is no longer trailing (OpenClaw's repair took the orphan off the
  // branch into the turn's prompt entry, under the queued prefix), yet belongs in this attempt's prompt too: a retry
  // asks the same prompt, and a re-formed turn's new prompt still carries it (else the earlier answer, which saw it,
  // would not be superseded by the new one: chaos seed 3 lost such an answer).
  const earlier = resuming ? [] : [...new Set(session.activeBranch().filter((entry) => entry.turnId === turnId && entry.message.role === 'user').flatMap((entry) => foldedBlock(entry.message.content)))];
  const folded = [...new Set([...earlier, ...unanswered.folded.filter((text) => !earlier.some((block) => block.includes(text)))])];
  // Before it appends anything, the turn finishes the rewrite of the session's last enveloped prompt entry that a power
  // loss or a kill cut short (envelope.ts finishCutShortRewrite), whether that prompt is its own (it resumes from its
  // durable final row) or an earlier turn's that has not run again yet, so that what follows comes after the copies.
  if (storesSubmitted(config.knobs.promptEnvelope)) await finishRewrite(deps, session, sessionKey);
  if (!resuming) await repairOrphanedTrailingUser(deps, session, sessionKey, turnId);
  const agent = lookup.agent;
  if (lookup.reused) initCachedAgentForTurn(agent, built.history.length, config, ctx.clock.nowMs());
  assert(members.length > 0, `turn ${turnId} answers at least one message`);
  const effectsSettle = config.knobs.toolDeadlines === 'propagated' ? effectsSettleAtMs(rows, config.timers.toolCallDeadlineMs) : undefined;
  const context = turnContext(deps, lookup, rows, turnId);
  const state: TurnState = { deps, sessionKey, sessionId, turnId, agent, history: built.history, historyLength: built.history.length, own: built.own, session, inbound, outbound, members, effectsSettleAtMs: effectsSettle, context };
  // Each transcript records a folded message once: the prompt written to it leaves out what it already holds as a
  // user message of its own (Hermes keeps consecutive user rows; OpenClaw's repaired JSONL no longer has the orphan).
  const userRows = rows.filter((message) => message.role === 'user' && message.turnId !== turnId).map((message) => message.content);
  const userEntries = session.activeBranch().filter((entry) => entry.message.role === 'user' && entry.turnId !== turnId).map((entry) => entry.message.content);
  const prompt = withFolded(folded, content);
  const memberTexts = own.members.filter((member) => !member.merged).map((member) => member.content);
  // The transcripts already hold what an earlier attempt folded (its prompt entries): only the new folds are written.
  const dbFolded = missingFrom(userRows, unanswered.folded);
  const jsonlFolded = missingFrom(userEntries, unanswered.folded);
  const jsonlPrompt = withFolded(jsonlFolded, content);
  // OpenClaw 2026.4.24: pi appends the prompt as submitted; the plain one replaces it when the model call returns.
  const storedFirst = storesSubmitted(config.knobs.promptEnvelope) ? submit(jsonlPrompt) : jsonlPrompt;
  // The release looks for the submitted entry after the leaf the attempt started from (its transcriptLeafId).
  const previousLeafId = session.leaf?.id ?? null;
  await persistPrompt(state, { prompt: withFolded(dbFolded, content), texts: [...dbFolded, ...memberTexts] }, { prompt: storedFirst, texts: [...jsonlFolded, ...memberTexts] });
  if (storedFirst !== jsonlPrompt) ctx.note('prompt-enveloped', { session: sessionKey, turn: turnId });
  assert(agent.messages.length === built.history.length + 1, `after its prompt, turn ${turnId}'s agent holds ${agent.messages.length} messages, not the history and the user message`);
  assert(agent.messages.at(-1)?.turnId === turnId, `the last message of turn ${turnId}'s agent is its own user message`);
  ctx.note('prompt-persisted', {
    session: sessionKey,
    turn: turnId,
    reused: lookup.reused,
    history: built.history.length,
    cursor: agent.lastFlushedDbIndex,
  });
  // Resuming: the reply the durable final row carries is the one to dispatch, not a new answer or an error.
  // Its durable tool calls are replayed first: each is idempotent (keyed by its call id, so nothing is sent twice)
  // and re-records its payload, as a retry that asked the LLM again would, so the closing text is judged against it.
  const answer =
    durableFinal !== undefined
      ? { toolCalls: durableToolCalls(built.own, durableFinal), result: durableFinal.content }
      : await callModel(state, batch.kind, options.attempt, submit(prompt), options.giveUp === true);
  // Hermes persists a failed run's messages before it answers with the error (run_agent.py calls _persist_session on
  // its failure returns): the run that ends at its first failure replays the tool calls its carriers show were made
  // (idempotent by call id: nothing is sent again), so their result rows reach state.db beside the error reply.
  if (durableFinal === undefined && options.giveUp === true && batch.kind === 'chat' && config.knobs.processing !== 'nanoclaw') answer.toolCalls = durableToolCalls(built.own, undefined);
  // interrupt: until its final row is durable, a run that a newer message arrived for stops and emits nothing more.
  const checkInterrupt = async (at: string): Promise<void> => {
    if (durableFinal !== undefined || options.giveUp === true || batch.kind !== 'chat' || effectiveQueueMode(config, sessionKey) !== 'interrupt') return;
    if (await newerMessageDue(inbound, outbound, batch, ctx.clock.nowMs())) throw new TurnAborted(at);
  };
  assert(new Set(answer.toolCalls.map((call) => call.id)).size === answer.toolCalls.length, `turn ${turnId}'s answer repeats a tool call id`);
  await checkInterrupt('answer');
  // What this turn is about to say, before any of it is written: the trace's record of what was produced.
  ctx.note('answer', { session: sessionKey, turn: turnId, toolCalls: answer.toolCalls.length, resumed: durableFinal !== undefined });
  for (let index = 0; index < answer.toolCalls.length; index++) {
    await checkInterrupt(`tool-${index}`);
    await toolSend(state, answer, index);
  }
  await checkInterrupt('final');
  // persist-at-end (a sabotage, pi's order): the closing text streams before its row is written (at message_end).
  const streams = config.knobs.blockStreaming !== 'off' && durableFinal === undefined && batch.kind !== 'command';
  if (streams && config.knobs.blockStreaming === 'persist-at-end') await streamResult(state, answer.result, answer.toolCalls.map((call) => call.id));
  // A partial stream under Hermes' gateway: the agent's recovery takes the streamed text as its final response and
  // appends no assistant message (conversation_loop's partial_stream_recovery), so the gateway's backfill writes it.
  const recovered = answer.streamCut === true && deps.gatewayAppend !== undefined;
  if (durableFinal === undefined && options.giveUp !== true) await keepAnswerCalls(state, answer.toolCalls.map((call) => call.id));
  await persistFinal(state, answer.result, recovered);
  // /clear: the new session is durable before the reply says so (Hermes' reset_session commits before it answers). A
  // /clear given up on answers with the error reply and resets nothing: the user is told it failed (chaos seed 931).
  if (batch.kind === 'command' && answer.result !== errorResult) await rotateSession(state);
  // Hermes' gateway appends the run's exchange once the run is over (its new messages, from the history's end), before
  // its adapter sends the response: the backfilled row is durable before the reply can be seen.
  if (deps.gatewayAppend !== undefined) await deps.gatewayAppend.afterRun(state.sessionId, agent.messages.slice(state.historyLength), answer.result, turnId);
  // The recovered reply's transcript entry follows its backfilled row, as every final entry follows its state.db row:
  // an entry written first would stand for an answer a retry may replace (a retry resumes only from state.db's row).
  if (recovered) await appendFinalEntry(state, answer.result);
  // 2026.4.24: pi's prompt() returns once the run's entries are appended; only then is the enveloped prompt entry
  // replaced (an aborted or failed run never gets here). The release's replacement is the run's own body
  // (rewrite-own-body, tests only); the fixed model's is the plain prompt it stored.
  if (durableFinal === undefined && storedFirst !== jsonlPrompt) await rewriteSubmittedPrompt(state, previousLeafId, storedFirst, config.knobs.promptEnvelope === 'rewrite-own-body' ? content : jsonlPrompt);
  // Block streaming (block-stream.ts): the closing text streams in blocks once its row is durable; a resumed turn does
  // not stream again, its final dispatch sends what the cut stream did not.
  if (streams && config.knobs.blockStreaming !== 'persist-at-end') await streamResult(state, answer.result, answer.toolCalls.map((call) => call.id));
  await dispatchResult(state, answer.result, answer.toolCalls.map((call) => call.id), durableFinal !== undefined);
  assert(recovered || (agent.messages.at(-1)?.role === 'assistant' && agent.messages.at(-1)?.toolCalls === null), `turn ${turnId} ends on its final assistant message`);
  return session.activeBranch().map((entry) => entry.id);
}

/**
 * The history the turn's request carries: a reused agent replays the rows its last turn left (Hermes' cached agent sends
 * its in-memory transcript, #45966); a new one holds the history it was built from. With the cache's count check the
 * replay is every row the session had at the lookup (rows are only ever appended); a row committed since may be
 * missing from it, as from any context built before it.
 */
function turnContext(deps: TurnDeps, lookup: CacheLookup, rows: readonly DbMessage[], turnId: string): LlmContextMessage[] {
  const replay = lookup.reused ? lookup.agent.replay : undefined;
  assert(replay === undefined || deps.config.knobs.agentCacheCoherence !== 'message-count' || replay.length <= rows.length, `the replay of turn ${turnId} holds ${replay?.length ?? 0} rows, more than the session's ${rows.length}`);
  return buildHistory(replay ?? rows, turnId).history.map((message) => {
    assert(message.role !== 'tool', `turn ${turnId}'s context holds no tool row`);
    return { role: message.role, content: message.content };
  });
}

/** A run in interrupt mode that a newer message aborted (OpenClaw aborts the active run and starts a new one). */
export class TurnAborted extends Error {
  constructor(readonly at: string) {
    super(`run aborted by a newer message (${at})`);
  }
}

/**
 * The turn's batch grew since its prompt was persisted, so the LLM is asked a new prompt and gives a new answer: the
 * payloads the earlier answer's tools sent no longer make a repeat of this answer's text (the fixed record is the
 * turn's own; seed 001's shared row, in its variants, is left to its own boundaries).
 */
async function forgetEarlierAnswer(deps: TurnDeps, outbound: SqlDatabase, sessionKey: string, turnId: string): Promise<void> {
  if (sharedPayloadRow(deps.config.bugs)) return;
  assert(turnId.length > 0, 'forgetEarlierAnswer of an unnamed turn');
  await outbound.run('DELETE FROM session_state WHERE key = ?', [turnSentPayloadsKeyFor(turnId, false)]);
  deps.ctx.note('payloads-forgotten', { session: sessionKey, turn: turnId });
}

/**
 * Before a new answer's final row is committed: when a superseded answer of the same prompt (an earlier attempt that
 * failed after some of its calls) left durable calls in the turn's rows, the record names this answer's calls. A turn
 * resuming from the final replays every durable call between its prompt and its final, the superseded answer's too,
 * and without the names would judge this answer's closing text by a payload only the superseded answer sent (chaos
 * with send-heavy runs, seed 1 run 52). The write lands before the final row, so a durable final has its names.
 */
async function keepAnswerCalls(state: TurnState, callIds: readonly string[]): Promise<void> {
  const { bugs } = state.deps.config;
  if (sharedPayloadRow(bugs) || bugs.has('send-flag')) return;
  const own = new Set(callIds);
  const superseded = durableToolCalls(state.own, undefined).filter((call) => !own.has(call.id));
  if (superseded.length === 0) return;
  const key = turnSentPayloadsKeyFor(state.turnId, false);
  await state.outbound.transaction((tx) => {
    const record = parseTurnSentPayloads(tx.query('SELECT value FROM session_state WHERE key = ?', [key])[0]?.value as string | undefined);
    const value = { turnId: state.turnId, payloads: record.payloads, calls: record.calls ?? [], answer: [...callIds] };
    tx.run('INSERT OR REPLACE INTO session_state(key, value, updated_at) VALUES (?, ?, ?)', [key, JSON.stringify(value), state.deps.ctx.clock.nowMs()]);
  });
  state.deps.ctx.note('answer-calls-kept', { session: state.sessionKey, turn: state.turnId, calls: callIds.length, superseded: superseded.length });
}

/** The batch's own messages, oldest first, one per line (what it took over from other turns is folded apart). */
function batchText(batch: Batch): string {
  return batch.members
    .filter((member) => !member.merged)
    .map((member) => member.content)
    .join('\n');
}

/** Hermes builds the turn's history from the stored transcript: no tool or empty rows; this turn's rows apart. */
function buildHistory(rows: readonly DbMessage[], turnId: string): { history: AgentMessage[]; own: DbMessage[]; trailingUsers: DbMessage[] } {
  assert(turnId.length > 0, 'the history of an unnamed turn');
  const own = rows.filter((row) => row.turnId === turnId);
  const history: AgentMessage[] = rows
    .filter((row) => row.turnId !== turnId && row.role !== 'tool' && row.content.length > 0)
    .map((row) => ({ ...row, persisted: true }));
  // Consecutive-user repair: user rows with no reply after them are folded into the new prompt.
  const trailingUsers: DbMessage[] = [];
  while (history.at(-1)?.role === 'user') trailingUsers.unshift(history.pop() as AgentMessage);
  return { history, own, trailingUsers };
}

/**
 * The unanswered messages before this turn (user rows with no reply after them, and an orphaned trailing user entry
 * in the transcript) are folded into its prompt, as OpenClaw's orphan repair and Hermes' consecutive-user repair do.
 * One that belongs to an unfinished turn (interrupted, waiting to run again) is taken over durably (claims.ts
 * mergeTurn), so it is answered once, by this turn; the fold then takes the text of every message this turn took
 * over from inbound.db, so a retry that died before persisting its prompt takes nothing twice and loses nothing. An
 * answered turn whose reply is missing from the history (only in a world with a persistence bug) is folded from the
 * history, as Hermes does; a message the host gave up on (its error reply was sent) is not folded again.
 */
async function foldUnanswered(
  deps: TurnDeps,
  inbound: SqlDatabase,
  outbound: SqlDatabase,
  sessionKey: string,
  batch: Batch,
  candidates: readonly { turnId: string; content: string }[],
  submit: (plain: string) => string = asSubmitted,
): Promise<{ folded: string[]; members: BatchMember[] }> {
  const turnId = batch.turnId;
  const repaired: string[] = [];
  assert(batch.members.length > 0, `turn ${turnId} folds into a batch with no message`);
  const policy = deps.orphanMerge ?? modelOrphanMerge;
  const trigger = runTriggerOf(batch.kind);
  // The policy compares an orphan with the prompt as the run submits it (the release's effectivePrompt, enveloped).
  const content = submit(batchText(batch));
  for (const candidate of candidates) {
    if (candidate.turnId === turnId || policy.decide({ prompt: content, trigger, orphanText: candidate.content }).take === 'left') continue;
    const claim = await claimOf(outbound, candidate.turnId);
    const given = (await inbound.query('SELECT status FROM messages_in WHERE id = ?', [candidate.turnId]))[0]?.status === 'failed';
    if (given || (claim.turnId !== null && claim.turnId !== candidate.turnId)) continue;
    if (claim.turnId !== null && claim.status !== 'completed') {
      await mergeTurn(outbound, candidate.turnId, turnId, deps.ctx.clock.nowMs());
      deps.ctx.note('merge', { session: sessionKey, turn: turnId, merged: candidate.turnId });
    } else {
      repaired.push(candidate.content);
      deps.ctx.note('history-repair', { session: sessionKey, turn: turnId, folded: candidate.turnId });
    }
  }
  const members = await turnMembers(inbound, outbound, turnId);
  const merged = members.filter((member) => member.merged).map((member) => member.content);
  assert(new Set(members.map((member) => member.id)).size === members.length, `turn ${turnId} claims a message twice`);
  // The policy's own rule for a prompt that already carries the text (the model's: a substring of the batch's text).
  const carried = policy === modelOrphanMerge ? (text: string) => content.includes(text) : (text: string) => policy.decide({ prompt: content, trigger, orphanText: text }).take !== 'merge';
  return { folded: [...new Set([...merged, ...repaired])].filter((text) => !carried(text)), members: members.length > 0 ? members : batch.members };
}

/** A prompt submitted as it is (no envelope). */
const asSubmitted = (plain: string): string => plain;

/** How a chat turn submits a prompt when the envelope knob is on: the run's message's metadata first (envelope.ts). */
async function submitter(deps: TurnDeps, inbound: SqlDatabase, sessionKey: string, batch: Batch): Promise<(plain: string) => string> {
  assert(envelopes(deps.config.knobs.promptEnvelope) && batch.kind === 'chat', `only a chat turn with the envelope on submits one (${batch.turnId})`);
  const facts: EnvelopeFacts = await envelopeFacts(inbound, sessionKey, batch.members);
  return (plain) => envelopePrompt(facts, plain);
}

/**
 * The rest of a cut-short rewrite of the last prompt entry on the branch (envelope.ts), appended by the next turn to
 * run in the session: the turn that owns it resuming, or another one first (a claim reset's backoff let a later
 * message run before it: chaos with send-heavy runs, seed 3 run 3,832, left eight entries off the branch).
 */
async function finishRewrite(deps: TurnDeps, session: SessionManagerPort, sessionKey: string): Promise<void> {
  const users = session.activeBranch().filter((entry) => entry.message.role === 'user');
  const turnId = users[users.length - 1]?.turnId;
  if (turnId === undefined || turnId.length === 0) return;
  const finished = await finishCutShortRewrite(session, turnId);
  if (finished !== undefined && finished.copied > 0) deps.ctx.note('prompt-rewrite-finished', { session: sessionKey, turn: turnId, from: finished.from, to: finished.to, copied: finished.copied });
}

/** 2026.4.24: the model call returned, so the enveloped prompt entry is replaced by the plain one (envelope.ts). */
async function rewriteSubmittedPrompt(state: TurnState, previousLeafId: string | null, submitted: string, plain: string): Promise<void> {
  const rewrite = await rewriteSubmittedTranscript(state.session, previousLeafId, submitted, plain, state.deps.config.knobs.promptEnvelope);
  state.deps.ctx.note('prompt-rewritten', { session: state.sessionKey, turn: state.turnId, from: rewrite?.from ?? null, to: rewrite?.to ?? null });
}

/** OpenClaw's trigger of a run of each row kind: a chat message is a user run, a heartbeat's system row a heartbeat run. */
export function runTriggerOf(rowKind: string): RunTrigger {
  if (rowKind === 'chat') return 'user';
  if (rowKind === 'system') return 'heartbeat';
  if (rowKind === 'task') return 'cron';
  return 'manual';
}

/**
 * The model's orphaned-user merge policy: the rules the project's reference notes on the real systems give for
 * OpenClaw's run attempt (src/agents/pi-embedded-runner/run/attempt.ts: a user- or manually-triggered run, a text of at
 * least 4 characters once trimmed: mergesQueuedText for a chat row; a command, the manual run here, folds nothing), and a text the
 * batch's own text already contains is carried, not merged again. The merged prompt is withFolded's. The pinned
 * releases' mergeOrphanedTrailingUserPrompt has neither rule (docs/MODEL.md, "The orphan merge policy, real").
 */
export const modelOrphanMerge: OrphanMergePolicy = {
  decide({ prompt, trigger, orphanText }: OrphanMergeQuestion): OrphanMergeDecision {
    if ((trigger !== 'user' && trigger !== 'manual') || orphanText.trim().length < 4) return { take: 'left', prompt };
    if (prompt.includes(orphanText)) return { take: 'carried', prompt };
    return { take: 'merge', prompt: withFolded([orphanText], prompt) };
  },
};

/**
 * OpenClaw's orphan merge runs only for user- or manually-triggered runs (a chat row here; a heartbeat's 'system' row
 * never merges: the orphan is still taken off the branch, and its own row answers it later), and only for a text of at
 * least 4 characters once trimmed.
 */
export function mergesQueuedText(rowKind: string, text: string): boolean {
  return rowKind === 'chat' && text.trim().length >= 4;
}

/** OpenClaw's merged prompt: the queued messages first, under their prefix, then the message itself. */
function withFolded(texts: readonly string[], content: string): string {
  return texts.length === 0 ? content : `${queuedPrefix}\n${texts.join('\n')}\n\n${content}`;
}

/** The queued messages a merged prompt (withFolded) carries, as one block; none for a prompt without the prefix. */
function foldedBlock(prompt: string): string[] {
  if (!prompt.startsWith(`${queuedPrefix}\n`)) return [];
  const end = prompt.indexOf('\n\n', queuedPrefix.length + 1);
  return end < 0 ? [] : [prompt.slice(queuedPrefix.length + 1, end)];
}

/** Session rotation (/clear): end the turn's session and start the next one (state.db; its JSONL file comes with its first flush). */
async function rotateSession(state: TurnState): Promise<void> {
  const next = rotatedSessionId(state.sessionKey, state.turnId);
  await state.deps.sessionDb.rotate(state.sessionId, next, state.deps.ctx.clock.nowMs());
  state.deps.ctx.note('session-rotated', { session: state.sessionKey, turn: state.turnId, from: state.sessionId, to: next });
}

async function openTranscript(deps: TurnDeps, sessionKey: string, sessionId: string): Promise<SessionManagerPort> {
  const { ctx } = deps;
  // OpenClaw's run attempt: repair the file if needed, open the SessionManager, prepare it (src/session-file-repair.ts);
  // the fixed runner also ends a last line a power loss tore just short of its newline.
  const realRepair = deps.env.gatewayParts?.sessionFileRepair?.(ctx);
  const { session, repair, reset } = await openSessionForRun(ctx, deps.sessionManagerFactory, transcriptPath(sessionId), { endTornLastLine: true, ...(realRepair === undefined ? {} : { repair: realRepair }) });
  if (repair.repaired) ctx.note('transcript-repaired', { session: sessionKey, malformed: repair.droppedLines, backup: repair.backupPath });
  else if (repair.reason === 'invalid session header') ctx.note('transcript-repair-skipped', { session: sessionKey, reason: repair.reason });
  if (reset) ctx.note('transcript-reset', { session: sessionKey });
  assert(session.leaf === undefined || session.allEntries().some((entry) => entry.id === session.leaf?.id), `the leaf of ${session.path} is one of its entries`);
  return session;
}

/** OpenClaw attempt.ts: an orphaned trailing user entry (its text already folded in) is taken off the branch. */
async function repairOrphanedTrailingUser(deps: TurnDeps, session: SessionManagerPort, sessionKey: string, turnId: string): Promise<void> {
  const leaf = session.leaf;
  if (leaf === undefined || leaf.message.role !== 'user') return;
  if (deps.config.bugs.has('orphan-leaf')) {
    // seed 003 (orphan-leaf): only the in-memory leaf moves; the orphan stays in the .jsonl.
    if (leaf.parentId !== null) session.branch(leaf.parentId);
    else session.resetLeaf();
    assert(session.leaf?.id !== leaf.id, `the orphan ${leaf.id} is no longer the leaf of ${session.path}`);
    deps.ctx.note('orphan-repair', { session: sessionKey, turn: turnId, orphan: leaf.id, persisted: false });
  } else if (deps.config.bugs.has('orphan-rewrite-inplace')) {
    // seed 003's fix direction as written: remove the entry and call the SessionManager's rewrite hook.
    session.removeEntry(leaf.id);
    await session.rewriteInPlace();
    deps.ctx.note('orphan-repair', { session: sessionKey, turn: turnId, orphan: leaf.id, persisted: true, backup: null });
  } else {
    session.removeEntry(leaf.id);
    const backup = await session.rewriteFile();
    assert(!session.allEntries().some((entry) => entry.id === leaf.id), `the orphan ${leaf.id} is gone from the entries of ${session.path}`);
    assert(session.leaf?.id !== leaf.id, `the orphan ${leaf.id} is no longer the leaf of ${session.path}`);
    deps.ctx.note('orphan-repair', { session: sessionKey, turn: turnId, orphan: leaf.id, persisted: true, backup });
  }
}

/** Hermes _init_cached_agent_for_turn. */
function initCachedAgentForTurn(agent: AiAgent, historyLength: number, config: ModelConfig, nowMs: number): void {
  assertNonNegativeInteger(historyLength, `history length of ${agent.sessionKey}`);
  assertNonNegativeInteger(agent.lastFlushedDbIndex, `the cached cursor of ${agent.sessionKey}`);
  agent.lastActivityTs = nowMs;
  agent.lastActivityDesc = 'turn';
  agent.apiCallCount = 0;
  if (config.bugs.has('flush-cursor')) return; // seed 004 (flush-cursor): the cursor of the previous turn is kept.
  agent.lastFlushedDbIndex = historyLength;
}

/**
 * The turn's user row and user entry. A turn that persisted its prompt before (a retry) writes nothing again, except
 * the texts its batch gained since (messages that arrived while it was interrupted): one more user row or entry.
 */
async function persistPrompt(state: TurnState, db: { prompt: string; texts: string[] }, jsonl: { prompt: string; texts: string[] }): Promise<void> {
  const nowMs = state.deps.ctx.clock.nowMs();
  const message = (content: string): AgentMessage => ({ role: 'user', content, toolCallId: null, toolCalls: null, toolName: null, turnId: state.turnId, persisted: true });
  const user = message(db.prompt);
  state.agent.beginTurn(state.history, user);
  assert(state.agent.messages.length === state.historyLength + 1, `turn ${state.turnId} begins with ${state.historyLength} history messages and its user message`);
  const ownRows = state.own.filter((row) => row.role === 'user').map((row) => row.content);
  const dbMissing = missingFrom(ownRows, db.texts);
  // Hermes logs a failed write and goes on; the user row is then written by the turn's first flush, before anything of
  // the turn leaves the runner, or, if the run fails early, by the gateway's append (agent_persisted false).
  if (ownRows.length === 0) user.persisted = (await ignoreBusyNoted(state, 'user-row', state.deps.sessionDb.appendMessage(state.sessionId, user, nowMs).then(() => true))) === true;
  else if (dbMissing.length > 0) await state.deps.sessionDb.appendMessage(state.sessionId, message(dbMissing.join('\n')), nowMs);
  const ownEntries = state.session
    .activeBranch()
    .filter((entry) => entry.turnId === state.turnId && entry.message.role === 'user')
    .map((entry) => entry.message.content);
  const jsonlMissing = missingFrom(ownEntries, jsonl.texts);
  if (ownEntries.length === 0) await state.session.appendMessage({ role: 'user', content: jsonl.prompt }, state.turnId);
  else if (jsonlMissing.length > 0) await state.session.appendMessage({ role: 'user', content: jsonlMissing.join('\n') }, state.turnId);
  assert(state.session.activeBranch().some((entry) => entry.turnId === state.turnId && entry.message.role === 'user'), `turn ${state.turnId}'s prompt entry is on the active branch of ${state.session.path}`);
}

/** A write whose busy failure the turn logs (a note) and survives; any other error escapes. */
async function ignoreBusyNoted<T>(state: TurnState, what: string, write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (!isBusy(error)) throw error;
    state.deps.ctx.note('persist-error', { session: state.sessionKey, turn: state.turnId, what, error: (error as Error).message });
    return undefined;
  }
}

/** The texts none of `held` contains. */
function missingFrom(held: readonly string[], texts: readonly string[]): string[] {
  return texts.filter((text) => !held.some((content) => content.includes(text)));
}

async function callModel(state: TurnState, kind: string, attempt: number, prompt: string, giveUp: boolean): Promise<LlmAnswer> {
  const { ctx } = state.deps;
  if (giveUp) return { toolCalls: [], result: errorResult };
  if (kind === 'command') return { toolCalls: [], result: `<message to="user">${clearedReply}</message>` };
  assert(prompt.length > 0, `turn ${state.turnId} asks the LLM an empty prompt`);
  // A heartbeat the gateway ran itself (heartbeat-run.ts): its answer came with the row, for this very prompt.
  // So is a scheduled task's occurrence the gateway's cron executor ran (cron-executor.ts).
  if ((kind === 'system' && state.deps.config.knobs.heartbeatRun !== null) || (kind === 'task' && state.deps.config.knobs.cron !== null)) {
    const stored = await storedHeartbeatAnswer(state.inbound, state.turnId, prompt);
    if (stored !== undefined) {
      ctx.note('heartbeat-answer-used', { session: state.sessionKey, turn: state.turnId, attempt });
      return stored;
    }
  }
  // OpenClaw's pre-prompt check: a context past the limit is compacted first (a failed summary fails the attempt).
  const compaction = state.deps.config.knobs.compaction;
  if (compaction !== null && (await compactIfNeeded(ctx, state.deps.env.llm, compaction, state.session, state.sessionKey, state.turnId))) await state.deps.heartbeat.touch(state.sessionKey);
  ctx.note('model-call', { session: state.sessionKey, turn: state.turnId, attempt });
  state.agent.apiCallCount++;
  assert(state.agent.apiCallCount === 1, `turn ${state.turnId} made ${state.agent.apiCallCount} model calls in attempt ${attempt}, not one (the count is reset for each run)`);
  try {
    return await completeWithAgentRetries(state, prompt);
  } catch (error) {
    // Hermes' gateway on a run that failed early: the user message alone is appended (skip_db when the agent wrote it).
    const user = state.agent.messages[state.historyLength];
    const append = state.deps.gatewayAppend;
    // The run's own error wins: the append failing busy as well is logged, and the attempt ends for the first error.
    if (append !== undefined && error instanceof LlmTransientError && user !== undefined) await ignoreBusyNoted(state, 'gateway-append', append.afterFailedRun(state.sessionId, user));
    throw error;
  } finally {
    await state.deps.heartbeat.touch(state.sessionKey);
  }
}

/**
 * The LLM call. Under Hermes' processing the agent retries a transient failure within its run (run_agent.py
 * `run_conversation`: max_retries 3, `jittered_backoff(retry_count, base_delay=2.0, max_delay=60.0)`, the jitter up to
 * half the delay), touching the heartbeat while it waits, as a run in progress does; the last failure escapes and ends
 * the run. Under nanoclaw's the runner retries the whole turn instead (runner.ts), so one failure escapes at once.
 */
async function completeWithAgentRetries(state: TurnState, prompt: string): Promise<LlmAnswer> {
  const { ctx, env, config } = state.deps;
  const retriesMax = config.knobs.processing === 'nanoclaw' ? 0 : config.knobs.agentRetriesMax;
  assertNonNegativeInteger(retriesMax, 'the agent retries of an LLM call');
  for (let retry = 1; ; retry++) {
    try {
      return await env.llm.complete({ sessionKey: state.sessionKey, prompt, context: state.context }, ctx.timers);
    } catch (error) {
      if (!(error instanceof LlmTransientError) || retry > retriesMax) throw error;
      const baseMs = Math.min(config.timers.agentRetryBaseMs * 2 ** (retry - 1), config.timers.agentRetryMaxMs);
      const delayMs = baseMs + ctx.random.int(0, Math.floor(baseMs / 2));
      assert(delayMs >= baseMs && delayMs <= config.timers.agentRetryMaxMs * 1.5, `retry ${retry} of turn ${state.turnId} waits ${delayMs} ms`);
      ctx.note('agent-retry', { session: state.sessionKey, turn: state.turnId, retry, delayMs, error: error.message });
      const sliceMs = Math.max(1, Math.floor(config.timers.claimStaleMs / 2));
      for (let leftMs = delayMs; leftMs > 0; leftMs -= sliceMs) {
        await ctx.timers.sleep(Math.min(sliceMs, leftMs));
        await state.deps.heartbeat.touch(state.sessionKey);
      }
    }
  }
}

/**
 * The tool calls of the answer whose final row is `final`: the turn's durable carrier rows (Hermes' tool_calls shape)
 * after its last user row before that final row, in row order. A re-formed turn's earlier attempt may have left
 * carriers of an answer it superseded before the user row of the message that interrupted it; those calls are not this
 * answer's, and replaying them would record their payloads as sent by it (chaos campaign seed 14, run 105: the resume
 * replayed the superseded answer's "working on it" call and so suppressed the new answer's closing text, equal to it,
 * which the first attempt at the same answer would have sent).
 */
function durableToolCalls(own: readonly DbMessage[], final: DbMessage | undefined): LlmAnswer['toolCalls'] {
  const end = final === undefined ? own.length : own.indexOf(final);
  assert(end >= 0, `the final row of turn ${final?.turnId ?? ''} is one of its own rows`);
  let start = end;
  while (start > 0 && own[start - 1]?.role !== 'user') start--;
  return own.slice(start, end).flatMap((message) => {
    if (message.role !== 'assistant' || message.toolCalls === null) return [];
    const calls = JSON.parse(message.toolCalls) as { id: string; function: { name: ToolName; arguments: string } }[];
    assert(Array.isArray(calls), `a tool_calls value of turn ${message.turnId} is a list`);
    return calls.map((call) => ({ id: call.id, name: call.function.name, text: (JSON.parse(call.function.arguments) as { text: string }).text }));
  });
}

function hermesToolCalls(calls: readonly LlmAnswer['toolCalls'][number][]): string {
  return JSON.stringify(calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify({ text: call.text }) } })));
}

async function toolSend(state: TurnState, answer: LlmAnswer, index: number): Promise<void> {
  const { ctx } = state.deps;
  assert(Number.isSafeInteger(index) && index >= 0 && index < answer.toolCalls.length, `tool call ${index} of turn ${state.turnId} within its ${answer.toolCalls.length} calls`);
  const call = answer.toolCalls[index];
  if (call === undefined) return;
  // The call id is the one the LLM API issued; state.db keeps the call in Hermes' (OpenAI) tool_calls shape.
  const callId = call.id;
  const toolCalls = hermesToolCalls([call]);
  const carrier: AgentMessage = {
    role: 'assistant',
    content: '',
    toolCallId: null,
    toolCalls,
    toolName: null,
    turnId: state.turnId,
    persisted: state.own.some((row) => row.toolCalls === toolCalls),
  };
  state.agent.messages.push(carrier);
  const flushedAtMs = await flush(state);
  assert(state.deps.config.bugs.has('flush-cursor') || state.deps.config.bugs.has('cursor-realign-gateway') || carrier.persisted, `the carrier of ${callId} is durable after the flush of turn ${state.turnId}`);
  await appendEntry(state, { role: 'assistant', content: '', toolCalls: [{ id: callId, name: call.name, text: call.text }] }, (entry) => entry.message.toolCalls?.[0]?.id === callId);
  ctx.note('tool-call', { session: state.sessionKey, turn: state.turnId, call: callId, tool: call.name, text: call.text });
  const message: ToolCallMessage = { type: 'tool.call', callId, sessionKey: state.sessionKey, turnId: state.turnId, name: call.name, text: call.text };
  // A call that acts on the world carries its deadline, from its carrier row's timestamp (the durable one when an
  // earlier attempt or incarnation wrote it): every incarnation computes the same one (tool-deadline.ts).
  if (deadlinedTools.includes(call.name) && state.deps.config.knobs.toolDeadlines === 'propagated') {
    const carrierAtMs = state.own.find((row) => row.toolCalls === toolCalls)?.timestampMs ?? flushedAtMs;
    message.deadlineMs = callDeadlineMs(carrierAtMs, state.deps.config.timers.toolCallDeadlineMs);
  }
  // A call without a deadline is fenced off when the runner gives up on it (tool-fence.ts). A resumed turn does not
  // call again a call whose durable result row says an earlier attempt or incarnation gave up on it (a successor
  // killed before that row was flushed calls again, and the tool server answers that the call is fenced).
  const fenced = !deadlinedTools.includes(call.name) && state.deps.config.knobs.abandonedCalls === 'fenced';
  const gaveUp = fenced && state.own.some((row) => row.role === 'tool' && row.toolCallId === callId && row.content !== 'sent');
  const ok = !gaveUp && (await callUntilAnswered(state, message));
  if (!ok && fenced && !gaveUp) {
    await abandonCall(state.outbound, callId, state.turnId, ctx.clock.nowMs());
    ctx.note('tool-call-abandoned', { session: state.sessionKey, turn: state.turnId, call: callId });
  }
  state.agent.messages.push({
    role: 'tool',
    content: ok ? 'sent' : 'error: tool server did not answer',
    toolCallId: callId,
    toolCalls: null,
    toolName: call.name,
    turnId: state.turnId,
    persisted: state.own.some((row) => row.role === 'tool' && row.toolCallId === callId),
  });
  await appendEntry(state, { role: 'tool', content: ok ? 'sent' : 'error', toolCallId: callId }, (entry) => entry.message.toolCallId === callId);
}

/**
 * The call is idempotent (its outbound row is keyed by the call id), so the runner retries it until the tool server
 * answers: giving up early would leave its outcome unknown (a held call may still be sent later) while the turn
 * goes on as if nothing was sent. Bounded: after toolCallAttemptsMax attempts the model is told the tool failed.
 */
async function callUntilAnswered(state: TurnState, message: ToolCallMessage): Promise<boolean> {
  assert(message.turnId.length > 0 && message.callId.length > 0, 'a tool call names its turn and its call id');
  for (let attempt = 1; attempt <= toolCallAttemptsMax; attempt++) {
    // Past its deadline the tool server would refuse the call: it failed, and nothing of it can act any more. Unless a
    // durable result row says an earlier attempt or incarnation had its answer: it was made, and a resumed turn says
    // so in the JSONL as state.db does (issue 44: chaos with the envelope, a power loss and a late resumption).
    if (!withinDeadline(message.deadlineMs, state.deps.ctx.clock.nowMs())) {
      if (state.own.some((row) => row.role === 'tool' && row.toolCallId === message.callId && row.content === 'sent')) return true;
      state.deps.ctx.note('tool-call-expired', { session: state.sessionKey, turn: state.turnId, call: message.callId, attempt });
      return false;
    }
    const outcome = await state.deps.rpc.call(message);
    await state.deps.heartbeat.touch(state.sessionKey);
    if (outcome === 'done') return true;
    // Fenced off: the call was given up on earlier and can never act; retrying cannot change that.
    if (outcome === 'fenced') return false;
    state.deps.ctx.note('tool-call-retry', { session: state.sessionKey, turn: state.turnId, call: message.callId, attempt });
  }
  return false;
}

/**
 * The final assistant message: pushed and flushed (with whatever tool result is not yet durable), then appended to the
 * JSONL. A `recovered` final (a partial stream's text, under Hermes' gateway) is no message of the agent's: only the
 * tool results are flushed, and its entry is appended after the gateway's backfill has written its row to state.db.
 */
async function persistFinal(state: TurnState, result: string, recovered: boolean): Promise<void> {
  if (recovered) state.deps.ctx.note('stream-recovered', { session: state.sessionKey, turn: state.turnId });
  else
    state.agent.messages.push({
      role: 'assistant',
      content: result,
      toolCallId: null,
      toolCalls: null,
      toolName: null,
      turnId: state.turnId,
      persisted: state.own.some((row) => row.role === 'assistant' && row.toolCalls === null),
    });
  await flush(state);
  assert(recovered || state.deps.config.bugs.has('flush-cursor') || state.deps.config.bugs.has('cursor-realign-gateway') || state.agent.messages.at(-1)?.persisted === true, `the final row of turn ${state.turnId} is durable after its flush`);
  if (!recovered) await appendFinalEntry(state, result);
}

async function appendFinalEntry(state: TurnState, result: string): Promise<void> {
  await appendEntry(state, { role: 'assistant', content: result }, (entry) => entry.message.role === 'assistant' && entry.message.toolCalls === undefined);
}

/** Flushes the agent's new messages to state.db; returns the timestamp the rows it wrote were given. */
async function flush(state: TurnState): Promise<number> {
  // cursor-realign-gateway (seed 004's fix as proposed) runs over Hermes' flush as the seed describes it.
  const cursorAfterLoop = state.deps.config.bugs.has('cursor-realign-gateway');
  const nowMs = state.deps.ctx.clock.nowMs();
  const { written, from, error } = await state.agent.flushMessagesToSessionDb(state.deps.sessionDb, state.historyLength, nowMs, cursorAfterLoop);
  assert(from >= state.historyLength, `turn ${state.turnId} flushed from ${from}, inside its ${state.historyLength} history messages`);
  assert(error === null || cursorAfterLoop, `only the seed-004 flush logs a write error (turn ${state.turnId}: ${error})`);
  state.deps.ctx.note('flush', { session: state.sessionKey, turn: state.turnId, from, written, cursor: state.agent.lastFlushedDbIndex, error });
  return nowMs;
}

/** Append to the transcript unless this turn's entry is already on the active branch (a resumed turn). */
async function appendEntry(state: TurnState, message: TranscriptMessage, same: (entry: SessionEntry) => boolean): Promise<void> {
  const present = state.session.activeBranch().some((entry) => entry.turnId === state.turnId && same(entry));
  if (!present) await state.session.appendMessage(message, state.turnId);
  assert(present || state.session.leaf?.turnId === state.turnId, `the entry turn ${state.turnId} appended is the leaf of ${state.session.path}`);
}

/** The user blocks of a closing text the final dispatch keeps: not a tool's repeat (`suppressed`), each text once. */
function keptBodies(forUser: readonly string[], suppressed: ReadonlySet<number>): string[] {
  // A block that repeats an earlier block of the same result (after whitespace normalisation) is one message.
  return [...new Map(forUser.filter((_, index) => !suppressed.has(index)).map((body) => [normalizeWhitespace(body), body])).values()];
}

/** The bodies of the closing text's blocks for the user. */
function userBodies(result: string): string[] {
  return parseMessageBlocks(result)
    .filter((block) => block.to === 'user')
    .map((block) => block.body);
}

/** The text limit the blocks of a stream keep within: the platform's, else OpenClaw's default chunk limit. */
function streamTextLimit(config: ModelConfig): number {
  return config.knobs.delivery?.textLimit ?? defaultStreamTextLimit;
}

/**
 * Block streaming (block-stream.ts): each kept body of the closing text streams in blocks, each written as an outbound
 * row of its own (the gateway delivers it as any row), one every streamBlockMs. Idempotent: a block row already there
 * is kept. A busy database ends the attempt; its retry resumes from the durable final row and sends the rest.
 */
async function streamResult(state: TurnState, result: string, callIds: readonly string[]): Promise<void> {
  const { ctx, config } = state.deps;
  if (result === errorResult) return;
  const forUser = userBodies(result);
  const kept = keptBodies(forUser, await suppressedBlocks(state, forUser, callIds));
  const limit = streamTextLimit(config);
  for (const body of kept) {
    const stream = streamId(state.turnId, contentHash(normalizeWhitespace(body)));
    const blocks = streamBlocks(body, limit);
    for (let index = 0; index < blocks.length; index++) {
      if (index > 0) {
        await ctx.timers.sleep(streamBlockMs);
        await state.deps.heartbeat.touch(state.sessionKey);
      }
      const content: StreamRowContent = { text: blocks[index] as string, stream, reply: body, last: index === blocks.length - 1 };
      const nowMs = ctx.clock.nowMs();
      await state.outbound.transaction((tx) => {
        const seq = Number(tx.query('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages_out')[0]?.next ?? 1);
        assert(Number.isSafeInteger(seq) && seq >= 1, `messages_out seq ${seq} of turn ${state.turnId} is not a positive integer`);
        tx.run('INSERT OR IGNORE INTO messages_out(id, seq, in_reply_to, kind, content, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [streamBlockRowId(stream, index + 1), seq, state.turnId, 'chat', JSON.stringify(content), 'stream', nowMs]);
      });
      ctx.note('stream-block', { session: state.sessionKey, turn: state.turnId, stream, block: index + 1, blocks: blocks.length });
    }
  }
}

/**
 * What the final dispatch writes of a kept body under block streaming: the whole body when none of it was streamed
 * (or always, under `resend-final`), nothing when every block was, and the blocks a cut stream did not write, joined.
 */
function finalOfStream(tx: SqlTransaction, state: TurnState, body: string): { id: string; content: string; source: string; kind: 'whole' | 'deduplicated' | 'rest' } {
  const { config } = state.deps;
  const hash = contentHash(normalizeWhitespace(body));
  const stream = streamId(state.turnId, hash);
  const blocks = streamBlocks(body, streamTextLimit(config));
  const prefix = `${stream}:`;
  const rows = tx.query('SELECT id FROM messages_out WHERE substr(id, 1, ?) = ?', [prefix.length, prefix]).map((row) => row.id as string);
  const streamed = blocks.filter((_, index) => rows.includes(streamBlockRowId(stream, index + 1))).length;
  assert(blocks.slice(0, streamed).every((_, index) => rows.includes(streamBlockRowId(stream, index + 1))), `the streamed blocks of ${stream} are its first ${streamed}`);
  const whole = { id: `${state.turnId}:result:${hash}`, content: JSON.stringify({ text: body }), source: 'result', kind: 'whole' as const };
  if (streamed === 0 || config.knobs.blockStreaming === 'resend-final') return whole;
  if (streamed >= blocks.length) return { ...whole, kind: 'deduplicated' };
  const content: StreamRowContent = { text: blocks.slice(streamed).join('\n\n'), stream, reply: body, last: true };
  return { id: streamRestRowId(stream), content: JSON.stringify(content), source: 'result', kind: 'rest' };
}

async function dispatchResult(state: TurnState, result: string, callIds: readonly string[], resumed: boolean): Promise<void> {
  const { ctx, config } = state.deps;
  const blocks = parseMessageBlocks(result);
  const forUser = blocks.filter((block) => block.to === 'user').map((block) => block.body);
  const suppressed = await suppressedBlocks(state, forUser, callIds, resumed);
  const nowMs = ctx.clock.nowMs();
  // A turn that gave up tells each message that woke the agent (rows keyed by the message, as the host's are).
  const gaveUp = result === errorResult;
  assert(suppressed.size <= forUser.length, `turn ${state.turnId} suppressed ${suppressed.size} of ${forUser.length} blocks`);
  // The await only when there is something to wait for: a turn with no such call keeps the await hops it had.
  if (gaveUp && effectsUnsettled(state)) await untilEffectsSettled(state);
  if (gaveUp) await writeErrorReplies(state.outbound, state.members, errorReply, 'runner', ctx.clock.nowMs());
  const kept = gaveUp ? [] : keptBodies(forUser, suppressed);
  // PR #2531's third boundary (after each result event) clears the shared row; send-stale, the seed's bug, is the
  // shared row that only a completed turn clears (no cold-start clear, no result boundary).
  assert(kept.length <= forUser.length - suppressed.size, `turn ${state.turnId} keeps ${kept.length} of ${forUser.length} blocks with ${suppressed.size} suppressed`);
  const seedClears = sharedPayloadRow(config.bugs) && !config.bugs.has('send-stale');
  const finals: string[] = [];
  await state.outbound.transaction((tx) => {
    for (const body of kept) {
      const seq = Number(tx.query('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages_out')[0]?.next ?? 1);
      assert(Number.isSafeInteger(seq) && seq >= 1, `messages_out seq ${seq} of turn ${state.turnId} is not a positive integer`);
      if (config.knobs.blockStreaming !== 'off') {
        const final = finalOfStream(tx, state, body);
        finals.push(final.kind);
        if (final.kind === 'deduplicated') continue;
        tx.run('INSERT OR IGNORE INTO messages_out(id, seq, in_reply_to, kind, content, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [final.id, seq, state.turnId, 'chat', final.content, final.source, nowMs]);
        continue;
      }
      tx.run(
        'INSERT OR IGNORE INTO messages_out(id, seq, in_reply_to, kind, content, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [`${state.turnId}:result:${contentHash(normalizeWhitespace(body))}`, seq, state.turnId, 'chat', JSON.stringify({ text: body }), 'result', nowMs],
      );
    }
    // Boundary: after each result event, so a follow-up does not inherit suppression. The fixed runner keeps its
    // turn-keyed payload record (it cannot leak into another turn, and a resumed turn still needs it).
    tx.run('DELETE FROM session_state WHERE key = ?', [turnSendInvokedKey]);
    if (seedClears) tx.run('DELETE FROM session_state WHERE key = ?', [turnSentPayloadsKey]);
  });
  if (finals.length > 0) ctx.note('stream-final', { session: state.sessionKey, turn: state.turnId, whole: finals.filter((kind) => kind === 'whole').length, deduplicated: finals.filter((kind) => kind === 'deduplicated').length, rest: finals.filter((kind) => kind === 'rest').length });
  ctx.note('result', {
    session: state.sessionKey,
    turn: state.turnId,
    blocks: JSON.stringify(forUser),
    kept: JSON.stringify(kept),
    dropped: blocks.length - forUser.length,
    mode: config.bugs.has('send-dup') ? 'send-dup' : config.bugs.has('send-flag') ? 'send-flag' : 'per-payload',
  });
}

/**
 * Which result blocks repeat what a tool call of this answer (its call ids) already sent this turn. A resumed turn's
 * call ids are every durable call of its prompt; the record's `answer`, when kept, names the final's own.
 */
async function suppressedBlocks(state: TurnState, bodies: readonly string[], callIds: readonly string[], resumed = false): Promise<Set<number>> {
  const { bugs } = state.deps.config;
  const suppressed = new Set<number>();
  if (bugs.has('send-dup')) return suppressed; // seed 001 (send-dup): the closing text is always dispatched.
  const payloadKey = turnSentPayloadsKeyFor(state.turnId, sharedPayloadRow(bugs));
  const rows = await state.outbound.query('SELECT key, value FROM session_state WHERE key IN (?, ?)', [payloadKey, turnSendInvokedKey]);
  if (bugs.has('send-flag')) {
    // seed 001 (send-flag): any send this turn suppresses the whole result.
    if (rows.some((row) => row.key === turnSendInvokedKey && row.value === '1')) bodies.forEach((_, index) => suppressed.add(index));
    return suppressed;
  }
  // Fixed: the turn's own record; send-stale reads the shared row, whatever a killed turn left in it.
  assert(rows.length <= 2, `${rows.length} session_state rows for two keys`);
  const record = parseTurnSentPayloads(rows.find((row) => row.key === payloadKey)?.value as string | undefined);
  // The fixed record counts only the payloads this answer's own calls sent: a superseded answer's call, repeated late
  // (the link replays it after the turn re-formed with a new prompt), says nothing about the new answer's text.
  const ownCalls = new Set(resumed && record.answer !== undefined ? record.answer : callIds);
  const payloads = record.calls === undefined ? record.payloads : record.calls.filter((call) => ownCalls.has(call.id)).map((call) => call.text);
  assert(payloads.every((payload) => typeof payload === 'string'), `turn ${state.turnId}'s sent payloads are texts`);
  bodies.forEach((body, index) => {
    if (isVerbatimDuplicate(body, payloads)) suppressed.add(index);
  });
  return suppressed;
}

/**
 * Before the error reply: wait until no call of the session that acts on the world can take effect any more (its
 * deadline and the tool server's wait for the service have passed, tool-deadline.ts), a killed predecessor's calls
 * included, so the user is never told the request failed before one of its actions happens. Bounded by the latest
 * deadline; the heartbeat is touched meanwhile, as a turn waiting to retry does (waiting is progress for the sweep).
 */
async function untilEffectsSettled(state: TurnState): Promise<void> {
  const { ctx, config } = state.deps;
  const settleAtMs = state.effectsSettleAtMs;
  if (settleAtMs === undefined || !effectsUnsettled(state)) return;
  ctx.note('give-up-waits', { session: state.sessionKey, turn: state.turnId, untilMs: settleAtMs });
  const sliceMs = Math.max(1, Math.floor(config.timers.claimStaleMs / 2));
  for (let waits = 0; ctx.clock.nowMs() < settleAtMs; waits++) {
    assert(waits <= Math.ceil((config.timers.toolCallDeadlineMs + 60_000) / sliceMs) + 1, `turn ${state.turnId} waits for its session's effects past any deadline`);
    await ctx.timers.sleep(Math.min(sliceMs, settleAtMs - ctx.clock.nowMs()));
    await state.deps.heartbeat.touch(state.sessionKey);
  }
}

/** Whether a call of the session that acts on the world may still take effect (see untilEffectsSettled). */
function effectsUnsettled(state: TurnState): boolean {
  return state.effectsSettleAtMs !== undefined && state.deps.ctx.clock.nowMs() < state.effectsSettleAtMs;
}
