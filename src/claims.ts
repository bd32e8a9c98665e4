// nanoclaw's claims on inbound messages, in a session's two SQLite files. The host (gateway) writes `messages_in`
// in inbound.db and the runner never writes it: the runner reads due rows and records its claims in outbound.db's
// `processing_ack` (message_id, status processing | completed | failed, status_changed), which the host reads to
// sync messages_in and to find stuck claims (host-sweep.ts).
//
// Fetching due rows (nanoclaw getPendingMessages): the newest maxMessagesPerPrompt (10) pending rows whose
// process_after has passed and that have no processing_ack row, returned oldest first. A batch runs only if one of
// its rows has trigger=1: trigger=0 rows are messages the router stored as context without waking the agent (a
// group message that does not mention it); they ride along with the next batch that has a trigger.
//
// Rows a poll skips on purpose (issue 48 item 6): rows the runner acknowledged, which stay pending in inbound.db until
// the host's sweep syncs them, and tool responses (late-responses.ts), which stay pending for good. The fixed poll
// drops them before it takes the newest 10 (`filter-first`). nanoclaw at 0683c6ec5 takes the newest 10 in SQL and drops
// them after (`limit-first`, tests only): messages-in.ts getPendingMessages filters processing_ack in JS after its
// `LIMIT`, and poll-loop.ts drops kind 'system' from what that returned, so ten skipped rows above a message hide it.
//
// The fixed runner also records which turn answers which message (`turn_claims`, its own table in outbound.db; no
// checker reads it). A batch that was claimed and then interrupted (a SIGKILL; the host resets or the restarted
// runner clears its processing acks) re-forms as the same turn with the same messages, so the prompt a turn
// persisted and the prompt it asks again are the same; a turn that folds an unfinished earlier turn's messages into
// its prompt takes them over (merged), so each message is answered by one turn.
import { heldRowDueMs } from './heartbeat-run.ts';
import { assert, assertNonNegativeInteger } from './assert.ts';
import type { PollOrder, QueueMode } from './config.ts';
import { responseKind } from './late-responses.ts';
import type { SqlDatabase, SqlRow } from './ports.ts';

/** nanoclaw's maxMessagesPerPrompt default: how many due rows one batch takes. */
export const maxMessagesPerPrompt = 10;

export interface InboundRow {
  id: string;
  seq: number;
  kind: string;
  content: string;
  /** 1 wakes the agent; 0 is context stored by the router. */
  trigger: number;
  /** messages_in status: pending, or failed once the host gave up on it. */
  status: string;
}

export interface BatchMember extends InboundRow {
  /** Taken over from an earlier, unfinished turn (folded into the prompt under OpenClaw's queued prefix). */
  merged: boolean;
}

/** One turn's messages: the turn is named by its oldest trigger=1 row (nanoclaw's in_reply_to is the first row). */
export interface Batch {
  turnId: string;
  kind: string;
  /** Oldest first. */
  members: BatchMember[];
  /** The host gave up on the turn's messages (failed at claimTriesMax): the turn only closes with the error reply. */
  failed: boolean;
  /**
   * The highest seq among the rows pending when the batch was fetched: a row above it arrived while the run was
   * active (what interrupts it), a row at or below it was already waiting (a later turn's, behind a command).
   */
  horizonSeq: number;
}

function toRow(row: SqlRow): InboundRow {
  assert(Number.isSafeInteger(Number(row.seq)), `messages_in row ${String(row.id)} has seq ${String(row.seq)}, not an integer`);
  assert(Number(row.seq) >= 1, `messages_in row ${String(row.id)} has seq ${String(row.seq)}, below 1`);
  assert(Number(row.trigger) === 0 || Number(row.trigger) === 1, `messages_in row ${String(row.id)} has trigger ${String(row.trigger)}, not 0 or 1`);
  return { id: row.id as string, seq: Number(row.seq), kind: row.kind as string, content: row.content as string, trigger: Number(row.trigger), status: (row.status as string | undefined) ?? 'pending' };
}

function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

/** What an empty fetch tells the idle poller: the earliest time a pending row becomes due by time alone. */
export interface IdleFetch {
  nextDueMs: number | undefined;
}

/**
 * What a fetch skipped on purpose (issue 48 item 6), filled only when due tool responses were pending: their seqs, and
 * the ids of the newest maxMessagesPerPrompt due rows, the window a `limit-first` poll takes (coverage only).
 */
export interface SkippedRows {
  responseSeqs: number[];
  limitWindow: Set<string>;
}

/** The order of the poll and what the caller learns of the rows it skipped. */
export interface FetchOptions {
  order?: PollOrder;
  skipped?: SkippedRows;
}

/**
 * Whether a row of this kind is a turn of its own, never in one batch with another row: a command (/clear), as
 * nanoclaw's poll loop handles commands apart from the query, and a heartbeat's row ('system', gateway.ts
 * persistHeartbeatPrompt), as OpenClaw runs a heartbeat as a run of its own in the session's lane
 * (`runHeartbeatOnce`), never in one prompt with a message. The heartbeat's lane check keeps a row that wants a run
 * from being waiting when the heartbeat row is written, but not one that comes due after the write and before the
 * runner's next poll: a scheduled task's occurrence, stored ahead with a lower seq, then came first in the batch's
 * prompt, which ended by asking for HEARTBEAT_OK, and the occurrence was never answered.
 */
export function runsAlone(kind: string): boolean {
  return kind === 'command' || kind === 'system';
}

/**
 * The next batch, or undefined when no due row has trigger=1 (then `idle`, if given, learns when a pending row
 * becomes due by time alone: until then and until the databases change, every fetch returns undefined). The due rows
 * up to the first command or heartbeat row form the batch (each is a turn of its own, runsAlone). A due row that an
 * unfinished turn claimed brings that turn back with every message it claimed, and the batch's other due rows join
 * it: nanoclaw fetches whatever is pending again after a SIGKILL (the turn's runTurn releases them if its answer is
 * already durable).
 */
export async function fetchBatch(
  inbound: SqlDatabase,
  outbound: SqlDatabase,
  nowMs: number,
  mode: QueueMode = 'collect',
  idle?: IdleFetch,
  options: FetchOptions = {},
): Promise<Batch | undefined> {
  // The time test is done here, not in SQL: the query then has no parameter that changes every poll, so while the
  // table is unchanged an idle poll is answered from the SQLite adapter's read cache.
  assertNonNegativeInteger(nowMs, 'fetchBatch nowMs');
  const stored = await inbound.query("SELECT id, seq, kind, content, trigger, status, process_after, created_at FROM messages_in WHERE status IN ('pending', 'failed') ORDER BY seq DESC");
  // A tool response is no work of the runner's: no poll takes it (late-responses.ts).
  const pending = stored.filter((row) => row.kind !== responseKind);
  if (pending.length === 0) return undefined;
  if (idle !== undefined) {
    for (const row of pending) {
      const dueMs = Number(row.process_after);
      if (dueMs > nowMs && dueMs < heldRowDueMs && (idle.nextDueMs === undefined || dueMs < idle.nextDueMs)) idle.nextDueMs = dueMs;
    }
  }
  const horizonSeq = Number(pending[0]?.seq);
  const acks = await outbound.query('SELECT message_id, status FROM processing_ack');
  const acked = new Set(acks.map((row) => row.message_id as string));
  // Answered, though the host's sweep has not yet synced its messages_in status (it does so once a minute).
  const done = new Set(acks.filter((row) => row.status !== 'processing').map((row) => row.message_id as string));
  // A failed row (the host gave up on it) is not due for nanoclaw; the fixed runner still closes its turn (reformed).
  const dueByTime = (row: SqlRow) => Number(row.process_after) <= nowMs;
  const taken = (row: SqlRow) => row.kind !== responseKind && !acked.has(row.id as string);
  if (options.skipped !== undefined && stored.length > pending.length) {
    options.skipped.responseSeqs = stored.filter((row) => row.kind === responseKind && dueByTime(row)).map((row) => Number(row.seq));
    options.skipped.limitWindow = new Set(stored.filter(dueByTime).slice(0, maxMessagesPerPrompt).map((row) => row.id as string));
  }
  // filter-first drops the rows it skips on purpose, then takes the newest 10; limit-first (nanoclaw as released) takes
  // the newest 10 due rows, then drops them, so the window can hold none of the rows the poll would take.
  const window = options.order === 'limit-first' ? stored.filter(dueByTime).slice(0, maxMessagesPerPrompt).filter(taken) : pending.filter((row) => dueByTime(row) && taken(row)).slice(0, maxMessagesPerPrompt);
  const due = window.reverse().map(toRow);
  assert(due.length <= maxMessagesPerPrompt, `${due.length} due rows in one fetch, above maxMessagesPerPrompt ${maxMessagesPerPrompt}`);
  assert(due.every((row, index) => index === 0 || (due[index - 1] as InboundRow).seq < row.seq), 'due rows come oldest first, by strictly increasing seq');
  if (!due.some((row) => row.trigger === 1)) return undefined;
  const claims = await outbound.query(`SELECT message_id, turn_id FROM turn_claims WHERE message_id IN (${placeholders(due.length)})`, due.map((row) => row.id));
  const turnOf = (row: InboundRow) => claims.find((claim) => claim.message_id === row.id)?.turn_id as string | undefined;
  const fresh = due.filter((row) => turnOf(row) === undefined && row.status === 'pending');
  const alone = fresh.findIndex((row) => runsAlone(row.kind));
  const uptoAlone = alone < 0 ? fresh : fresh.slice(0, alone);
  // followup: each message waits for a run of its own (the context rows before it ride along); collect and
  // interrupt take every due message into one run.
  const firstTrigger = uptoAlone.findIndex((row) => row.trigger === 1);
  const followup = mode === 'followup' && firstTrigger >= 0;
  const before = followup ? uptoAlone.slice(0, firstTrigger + 1) : uptoAlone;
  const resumed = due.map(turnOf).find((turnId) => turnId !== undefined);
  if (resumed !== undefined) return reformed(inbound, outbound, resumed, mode === 'followup' ? [] : before, horizonSeq);
  const members = before.some((row) => row.trigger === 1) ? before : fresh.slice(alone, alone + 1);
  const head = members.find((row) => row.trigger === 1);
  if (head === undefined) return undefined;
  assert(members.every((row) => row.status === 'pending'), `a fresh batch for ${head.id} takes only pending rows`);
  assert(!runsAlone(head.kind) || members.length === 1, `the ${head.kind} row ${head.id} runs as a turn of its own, not with ${members.length - 1} other rows`);
  // A /clear waits for every message before it that still wants a run (one backing off after a stuck claim, say):
  // the session it ends is theirs, and one run after the rotation would be ingested again in the new session.
  // A scheduled task's occurrence stored ahead of its due time (task-scheduler.ts) has not come yet: the /clear is not
  // after it (a row backing off keeps its due time, so it is still waited for). Nor is a heartbeat row the gateway holds
  // for its own run (heartbeat-run.ts): OpenClaw's heartbeat is no request of the chat lane, and the gateway's retry of
  // it waits for the lane, so a /clear waiting for it waited for good (chaos seed 161: a failed heartbeat run's row, a
  // /clear after it, and every later message of the session never ran).
  const waitedFor =
    head.kind === 'command'
      ? pending.filter(
          (row) =>
            row.status === 'pending' &&
            !done.has(row.id as string) &&
            Number(row.trigger) === 1 &&
            Number(row.seq) < head.seq &&
            Number(row.process_after) !== heldRowDueMs &&
            !(row.kind === 'task' && Number(row.created_at) > nowMs),
        )
      : [];
  if (waitedFor.length > 0) {
    // What it waits for may lie beyond the newest rows this fetch looked at (a backlog behind a turn the host reset
    // with backoff): the oldest of those that is due and not being processed runs first, else the /clear would wait
    // for a run that no fetch ever starts (chaos seed 8: a session's lane idle to the end of the run).
    const blocker = waitedFor.filter((row) => Number(row.process_after) <= nowMs && !acked.has(row.id as string)).at(-1);
    if (blocker === undefined) return undefined;
    const blockerTurn = (await outbound.query('SELECT turn_id FROM turn_claims WHERE message_id = ?', [blocker.id as string]))[0]?.turn_id as string | undefined;
    if (blockerTurn !== undefined) return reformed(inbound, outbound, blockerTurn, [], horizonSeq);
    return { turnId: blocker.id as string, kind: blocker.kind as string, members: [{ ...toRow(blocker), merged: false }], failed: false, horizonSeq };
  }
  return { turnId: head.id, kind: head.kind, members: members.map((row) => ({ ...row, merged: false })), failed: false, horizonSeq };
}

/**
 * An interrupted turn, as it claimed its messages, with the rows joining it. A turn the host gave up on takes no
 * new rows: it only closes with the error reply (the fixed runner's; nanoclaw leaves a failed row alone).
 */
async function reformed(inbound: SqlDatabase, outbound: SqlDatabase, turnId: string, joining: readonly InboundRow[], horizonSeq: number): Promise<Batch | undefined> {
  const claimed = await turnMembers(inbound, outbound, turnId, "AND m.status IN ('pending', 'failed')");
  const head = claimed.find((row) => row.id === turnId) ?? claimed.find((row) => row.trigger === 1);
  if (head === undefined) return undefined;
  const failed = claimed.some((row) => row.status === 'failed');
  // A command (/clear) or a heartbeat row is a turn of its own, re-formed or not: the messages behind it wait for
  // their own batch.
  const takesNew = !failed && !runsAlone(head.kind);
  const members = [...claimed, ...(takesNew ? joining.map((row) => ({ ...row, merged: false })) : [])].sort((a, b) => a.seq - b.seq);
  assert(new Set(members.map((member) => member.id)).size === members.length, `turn ${turnId} re-forms with a message twice`);
  assert(takesNew || members.length === claimed.length, `turn ${turnId}, given up by the host or a turn of its own, takes no new message`);
  assert(members.every((member) => member.seq <= horizonSeq), `turn ${turnId} re-forms with a message above its fetch's horizon ${horizonSeq}`);
  return { turnId, kind: head.kind, members, failed, horizonSeq };
}

/**
 * Whether a due message with trigger=1 arrived while the run was active, after every message of the batch, and the
 * re-formed turn would take it in (an interrupt-mode run aborts). A message that was already waiting when the batch
 * was fetched (one another unfinished turn claimed, say) does not interrupt, nor does one behind a pending command or
 * heartbeat row (it waits for that row's own batch, which waits for this turn; a heartbeat row the gateway holds is
 * never due, so it stops no batch): aborting for either would re-form this turn without it and abort it again, for
 * ever.
 */
export async function newerMessageDue(inbound: SqlDatabase, outbound: SqlDatabase, batch: Batch, nowMs: number): Promise<boolean> {
  assert(batch.members.length > 0, `turn ${batch.turnId} has no message to compare a newer one with`);
  const newest = Math.max(batch.horizonSeq, ...batch.members.map((member) => member.seq));
  assert(Number.isSafeInteger(newest), `turn ${batch.turnId}: its newest seq ${newest} is not an integer`);
  const command = await inbound.query(
    `SELECT MIN(seq) AS seq FROM messages_in WHERE status = 'pending' AND (kind = 'command' OR (kind = 'system' AND process_after < ${heldRowDueMs})) AND seq > ?`,
    [newest],
  );
  const before = command[0]?.seq === null || command[0]?.seq === undefined ? Number.MAX_SAFE_INTEGER : Number(command[0].seq);
  const later = await inbound.query("SELECT id, process_after FROM messages_in WHERE status = 'pending' AND trigger = 1 AND kind = 'chat' AND seq > ? AND seq < ?", [newest, before]);
  if (later.length === 0) return false;
  const acked = new Set((await outbound.query('SELECT message_id FROM processing_ack')).map((row) => row.message_id as string));
  return later.some((row) => Number(row.process_after) <= nowMs && !acked.has(row.id as string));
}

/**
 * An aborted run gives its messages back as a SIGKILL would (their processing acks go; the turn keeps its claims), so
 * the next fetch re-forms the turn with the message that interrupted it: a new run, asked a new prompt.
 */
export async function abandonBatch(outbound: SqlDatabase, batch: Batch): Promise<void> {
  assert(batch.members.length > 0, `turn ${batch.turnId} abandons a batch with no message`);
  await outbound.transaction((tx) => {
    for (const member of batch.members) tx.run("DELETE FROM processing_ack WHERE message_id = ? AND status = 'processing'", [member.id]);
  });
}

/** Give back messages a turn claimed but will not answer (its answer was decided before they came): due again. */
export async function releaseMembers(outbound: SqlDatabase, ids: readonly string[]): Promise<void> {
  assert(new Set(ids).size === ids.length, `released message ids repeat: ${ids.join(',')}`);
  if (ids.length === 0) return;
  await outbound.transaction((tx) => {
    for (const id of ids) {
      tx.run('DELETE FROM turn_claims WHERE message_id = ?', [id]);
      tx.run('DELETE FROM processing_ack WHERE message_id = ?', [id]);
    }
  });
}

/** The messages a turn claimed, oldest first (its batch and what it took over), with their inbound rows. */
export async function turnMembers(inbound: SqlDatabase, outbound: SqlDatabase, turnId: string, filter = ''): Promise<BatchMember[]> {
  assert(turnId.length > 0, 'turnMembers of an unnamed turn');
  const claims = await outbound.query('SELECT message_id, merged FROM turn_claims WHERE turn_id = ?', [turnId]);
  if (claims.length === 0) return [];
  const rows = await inbound.query(
    `SELECT m.id, m.seq, m.kind, m.content, m.trigger, m.status FROM messages_in m WHERE m.id IN (${placeholders(claims.length)}) ${filter} ORDER BY m.seq`,
    claims.map((claim) => claim.message_id as string),
  );
  assert(rows.length <= claims.length, `turn ${turnId} has ${rows.length} inbound rows for ${claims.length} claims`);
  return rows.map((row) => ({ ...toRow(row), merged: Number(claims.find((claim) => claim.message_id === row.id)?.merged) === 1 }));
}

/** nanoclaw markProcessing, plus the fixed runner's record of the turn each message belongs to. */
export async function claimBatch(outbound: SqlDatabase, batch: Batch, nowMs: number): Promise<void> {
  assert(batch.members.length > 0, `turn ${batch.turnId} claims a batch with no message`);
  assertNonNegativeInteger(nowMs, `claimBatch nowMs of turn ${batch.turnId}`);
  await outbound.transaction((tx) => {
    for (const member of batch.members) {
      tx.run("INSERT OR REPLACE INTO processing_ack(message_id, status, status_changed) VALUES (?, 'processing', ?)", [member.id, nowMs]);
      tx.run('INSERT OR IGNORE INTO turn_claims(message_id, turn_id, merged, claimed_at) VALUES (?, ?, 0, ?)', [member.id, batch.turnId, nowMs]);
    }
  });
}

/** nanoclaw markCompleted for every message the turn claimed (what it took over included). */
export async function completeTurn(outbound: SqlDatabase, turnId: string, nowMs: number): Promise<void> {
  assert(turnId.length > 0, 'completeTurn of an unnamed turn');
  assertNonNegativeInteger(nowMs, `completeTurn nowMs of turn ${turnId}`);
  await outbound.run(
    "INSERT OR REPLACE INTO processing_ack(message_id, status, status_changed) SELECT message_id, 'completed', ? FROM turn_claims WHERE turn_id = ?",
    [nowMs, turnId],
  );
}

/** Where a message stands with the runner: the turn that claimed it, and its processing_ack status (if any). */
export async function claimOf(outbound: SqlDatabase, messageId: string): Promise<{ turnId: string | null; status: string | null }> {
  const claim = (await outbound.query('SELECT turn_id FROM turn_claims WHERE message_id = ?', [messageId]))[0];
  const ack = (await outbound.query('SELECT status FROM processing_ack WHERE message_id = ?', [messageId]))[0];
  assert(ack === undefined || ack.status === 'processing' || ack.status === 'completed' || ack.status === 'failed', `processing_ack of ${messageId} has status ${String(ack?.status)}`);
  return { turnId: (claim?.turn_id as string | undefined) ?? null, status: (ack?.status as string | undefined) ?? null };
}

/** The running turn `intoTurnId` takes over every message an unfinished turn claimed. */
export async function mergeTurn(outbound: SqlDatabase, fromTurnId: string, intoTurnId: string, nowMs: number): Promise<void> {
  assert(fromTurnId !== intoTurnId, `turn ${intoTurnId} takes over its own messages`);
  await outbound.transaction((tx) => {
    const ids = tx.query('SELECT message_id FROM turn_claims WHERE turn_id = ?', [fromTurnId]).map((row) => row.message_id as string);
    assert(ids.length > 0, `turn ${intoTurnId} takes over ${fromTurnId}, which claimed nothing`);
    for (const id of ids) {
      tx.run('UPDATE turn_claims SET turn_id = ?, merged = 1 WHERE message_id = ?', [intoTurnId, id]);
      tx.run("INSERT OR REPLACE INTO processing_ack(message_id, status, status_changed) VALUES (?, 'processing', ?)", [id, nowMs]);
    }
  });
}

/** nanoclaw clearStaleProcessingAcks: at poll-loop start, a previous incarnation's claims are dropped. */
export async function clearStaleProcessingAcks(outbound: SqlDatabase): Promise<number> {
  return (await outbound.run("DELETE FROM processing_ack WHERE status = 'processing'")).changes;
}

/** Turns whose messages are not all done: an interrupted turn that will run again. */
export async function unfinishedTurns(outbound: SqlDatabase): Promise<Set<string>> {
  const rows = await outbound.query(
    "SELECT DISTINCT turn_id FROM turn_claims WHERE message_id NOT IN (SELECT message_id FROM processing_ack WHERE status IN ('completed', 'failed'))",
  );
  return new Set(rows.map((row) => row.turn_id as string));
}

/**
 * The runner's acknowledgements: whether a claim is being processed, and every message it acknowledged. With
 * triggerWaiting, whether the session has work in flight or waiting (OpenClaw's heartbeat runner skips then): a claim
 * being processed, or a pending row with trigger=1 the runner has not finished (context rows wait for a trigger; a task
 * occurrence stored ahead waits for its due time).
 */
export async function laneAcks(outbound: SqlDatabase): Promise<{ processing: boolean; acked: Set<string> }> {
  const acks = await outbound.query('SELECT message_id, status FROM processing_ack');
  return { processing: acks.some((ack) => ack.status === 'processing'), acked: new Set(acks.map((ack) => ack.message_id as string)) };
}

/**
 * The pending rows that want a run (trigger=1), for triggerWaiting; also run inside an inbound.db transaction. The
 * time test is triggerWaiting's, not the query's, so that the query keeps no parameter that changes at every check.
 */
export const pendingTriggersSql = `SELECT id, kind, created_at FROM messages_in WHERE status = 'pending' AND trigger = 1 AND process_after < ${heldRowDueMs}`;

/**
 * Whether one of the pending rows that want a run (pendingTriggersSql) is not yet acknowledged by the runner at nowMs.
 * A scheduled task's occurrence stored ahead of its due time (task-scheduler.ts: its created_at is its due time) is no
 * request until that time comes: OpenClaw's heartbeat skips while its lane has work queued or running
 * (`getQueueSize(sessionLane) > 0`, dist/heartbeat-runner-CjYcq5k0.js `runHeartbeatOnce`; the depth counts queued and
 * active tasks only, dist/command-queue-B716cKY1.js `getLaneDepth`), and a scheduled job enters the lane when it is
 * due, as nanoclaw's runner fetches a task row only once its process_after has passed. Counting it from the moment it
 * was stored held every exec completion of the session until the last task stored ahead had run (chaos seed 3 run
 * 6143: a command answered two hours late, its wake retried every second behind two tasks due at 1 h 55 min and
 * 2 h 13 min). An occurrence whose time has come counts, also while it backs off after a stuck claim (its due time
 * stays), as a message backing off does.
 */
export function triggerWaiting(pending: readonly SqlRow[], acked: ReadonlySet<string>, nowMs: number): boolean {
  assertNonNegativeInteger(nowMs, 'triggerWaiting nowMs');
  return pending.some((row) => !acked.has(row.id as string) && !(row.kind === 'task' && Number(row.created_at) > nowMs));
}

/** The system's error reply to each message with trigger=1 among `members`, as outbound rows (idempotent by id). */
export async function writeErrorReplies(outbound: SqlDatabase, members: readonly InboundRow[], text: string, source: string, nowMs: number): Promise<number> {
  assert(text.length > 0, 'an error reply has text');
  return outbound.transaction((tx) => {
    let written = 0;
    for (const member of members.filter((candidate) => candidate.trigger === 1)) {
      const seq = Number(tx.query('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages_out')[0]?.next ?? 1);
      assert(Number.isSafeInteger(seq) && seq >= 1, `messages_out seq ${seq} for ${member.id}:error is not a positive integer`);
      written += tx.run(
        'INSERT OR IGNORE INTO messages_out(id, seq, in_reply_to, kind, content, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [`${member.id}:error`, seq, member.id, 'chat', JSON.stringify({ text }), source, nowMs],
      ).changes;
    }
    assert(written <= members.length, `${written} error replies written for ${members.length} messages`);
    return written;
  });
}
