// The model's configuration: which seed bugs are switched on, the timers of the real systems, and the knobs a
// scenario may turn. Every bug is off by default (the fixed behaviour).
import { assert } from './assert.ts';
import type { PromptEnvelopeMode } from './envelope.ts';
import type { AgentCacheCoherence } from './agent.ts';
import type { CompactionKnobs } from './compaction.ts';
import type { HeartbeatRunKnobs } from './heartbeat-run.ts';
import type { LockReclaimMode } from './session-write-lock.ts';
import type { ToolDeadlineMode } from './tool-deadline.ts';
import type { AbandonedCallMode } from './tool-fence.ts';
import type { DeliveryKnobs, FallbackDeliveryMode } from './delivery-knobs.ts';
import type { CronKnobs } from './cron-knobs.ts';
import type { BlockStreamingMode } from './block-stream.ts';

/** The seed bugs and the seeds' own fixes as proposed that can be switched on (all off by default). */
export const bugIds = ['exec-replay', 'send-dup', 'send-flag', 'send-stale', 'orphan-leaf', 'flush-cursor', 'exec-dedupe-memory', 'sent-payloads-pr2531', 'orphan-rewrite-inplace', 'cursor-realign-gateway'] as const;
/** A seed bug (or seed fix) id. */
export type BugId = (typeof bugIds)[number];

/** One line per seed bug: its seed document and the buggy behaviour. */
export const bugDescriptions: Record<BugId, string> = {
  'exec-replay': 'seed 000: system events deduped only against the last text; a replayed exec.finished becomes a second user turn',
  'send-dup': 'seed 001: closing result text dispatched even when a tool already sent the same payload',
  'send-flag': 'seed 001: a boolean "a send happened this turn" flag suppresses the whole result, dropping distinct content',
  'send-stale': 'seed 001: turn_sent_payloads not cleared at poll-loop start after a SIGKILL, so a later turn suppresses legitimate content',
  'orphan-leaf': 'seed 003: orphaned trailing user repair moves only the in-memory leaf; the JSONL keeps the orphan',
  'flush-cursor': 'seed 004: a reused cached agent keeps lastFlushedDbIndex, so assistant replies are never written to state.db',
  'exec-dedupe-memory': "seed 000's proposed fix: exec.finished deduped by (sessionKey, runId) in memory for 10 min (2,000 keys), waking only when queued",
  'sent-payloads-pr2531': "seed 001's fix as merged (PR #2531): one shared turn_sent_payloads row, per-payload suppression, cleared at four boundaries",
  'orphan-rewrite-inplace': "seed 003's fix direction: the orphan removed from the file-backed entries and the file rewritten through pi's rewrite hook (in place, no backup, no fsync)",
  'cursor-realign-gateway': "seed 004's proposed fix: the cached agent's cursor realigned to the turn's history in the gateway path, over Hermes' flush (a commit per row, the cursor moved after the loop, a write error logged)",
};

export class UnknownBugError extends Error {
  override name = 'UnknownBugError';
}

export function isBugId(value: string): value is BugId {
  return (bugIds as readonly string[]).includes(value);
}

/** Parse "a,b" into bug ids; an unknown id is refused with the list of known ones. */
export function parseBugList(text: string): BugId[] {
  const ids = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  const out: BugId[] = [];
  for (const id of ids) {
    if (!isBugId(id)) throw new UnknownBugError(`unknown bug id "${id}" (known: ${bugIds.join(', ')})`);
    if (!out.includes(id)) out.push(id);
  }
  return out.sort((a, b) => bugIds.indexOf(a) - bugIds.indexOf(b));
}

export interface ModelTimers {
  /** Heartbeat wake coalesce window (OpenClaw heartbeat-wake.ts). */
  wakeCoalesceMs: number;
  wakeRetryMs: number;
  /** Full-run retry after a transient model error (OpenClaw agent-runner-execution.ts). */
  transientRetryMs: number;
  /** Runner poll loop (nanoclaw): idle and active poll intervals. */
  pollIdleMs: number;
  pollActiveMs: number;
  /** Host delivery pollers (nanoclaw): fast and slow. */
  deliveryFastMs: number;
  deliverySlowMs: number;
  deliveryAttemptsMax: number;
  /** The platform redelivers an unacknowledged inbound webhook after this long. */
  platformRedeliverMs: number;
  platformRedeliveriesMax: number;
  /** Host sweep: kill a runner whose heartbeat is older than this, or whose claim is older than claimStaleMs. */
  sweepEveryMs: number;
  heartbeatStaleMs: number;
  claimStaleMs: number;
  /** The runner touches its heartbeat this often while idle, so the sweep never kills a healthy idle runner. */
  heartbeatIdleMs: number;
  runnerRestartDelayMs: number;
  /** Exec replay dedupe window and size (the OpenClaw fix). */
  execDedupeWindowMs: number;
  execDedupeKeysMax: number;
  /** Tool call RPC timeout in the runner. */
  toolCallTimeoutMs: number;
  /**
   * A call that acts on the world (create_event) carries a deadline this long after its carrier row was written: the
   * tool server starts nothing for it later, and the runner stops retrying it (tool-deadline.ts). Three RPC timeouts.
   */
  toolCallDeadlineMs: number;
  /**
   * Hermes' agent retries a failed LLM call within its run (run_agent.py: max_retries 3, agent/retry_utils.py
   * jittered_backoff with base_delay 2 s and max_delay 60 s, plus up to half the delay as jitter).
   */
  agentRetryBaseMs: number;
  agentRetryMaxMs: number;
}

export const defaultTimers: ModelTimers = {
  wakeCoalesceMs: 250,
  wakeRetryMs: 1_000,
  transientRetryMs: 2_500,
  pollIdleMs: 1_000,
  pollActiveMs: 500,
  deliveryFastMs: 1_000,
  deliverySlowMs: 60_000,
  deliveryAttemptsMax: 3,
  platformRedeliverMs: 5_000,
  platformRedeliveriesMax: 5,
  sweepEveryMs: 60_000,
  heartbeatStaleMs: 30 * 60_000,
  claimStaleMs: 60_000,
  heartbeatIdleMs: 5 * 60_000,
  runnerRestartDelayMs: 2_000,
  execDedupeWindowMs: 10 * 60_000,
  execDedupeKeysMax: 2_000,
  toolCallTimeoutMs: 10_000,
  toolCallDeadlineMs: 30_000,
  agentRetryBaseMs: 2_000,
  agentRetryMaxMs: 60_000,
};

/**
 * OpenClaw's per-session queue modes for a message that arrives while a run is active: `collect` (the default) merges
 * the queued messages into the next run's prompt, `followup` gives each its own run in order, and `interrupt` aborts
 * the active run (which then emits nothing of its own) and starts a new one.
 */
export const queueModes = ['collect', 'followup', 'interrupt'] as const;
/** One of `queueModes`: how a session treats a message that arrives while its run is active. */
export type QueueMode = (typeof queueModes)[number];

/**
 * OpenClaw's delivery mirror, the second writer of the JSONL transcript (src/delivery-mirror.ts): off; on (its fixed
 * code: the idempotency key check over every file of the key's sessions, and the session write lock); or as OpenClaw
 * had it before PR #44063 (no key check), before PR #21828 (no lock), or as released (`current-file`: the key check
 * reads the current session's file alone, so a reply redelivered after a /clear is mirrored into both files), which
 * only tests switch on.
 */
export const deliveryMirrorModes = ['off', 'on', 'unkeyed', 'unlocked', 'current-file'] as const;
export type DeliveryMirrorMode = (typeof deliveryMirrorModes)[number];
/**
 * Hermes' gateway append, the second writer of state.db (src/gateway-append.ts): off; `skip-db` (the agent has a
 * SessionDB, so the gateway skips the database, as since Hermes #860); `no-skip-db`, the gateway writing every row
 * again as before #860; or `no-backfill`, the gateway before #44100's fix (a response that no new message of the run
 * carries, as after a partial stream's recovery, never reaches state.db); the last two only tests switch on.
 */
export const gatewayAppendModes = ['off', 'skip-db', 'no-skip-db', 'no-backfill'] as const;
export type GatewayAppendMode = (typeof gatewayAppendModes)[number];

/**
 * How the runner processes a session's messages (issue 24 item 7). `nanoclaw`: batches of due messages (up to 10,
 * by the session's queue mode) and a failed attempt runs the whole turn again (OpenClaw's 2,500 ms, then nanoclaw's
 * backoff, turnTriesMax attempts). `hermes`: Hermes' gateway, one platform message per run (its busy input mode
 * `queue`: a message that arrives while the agent runs waits for a run of its own), the agent retrying a failed LLM
 * call within its run (agentRetriesMax times), and the run ending at the first failure it cannot retry, answered with
 * the error reply. `hermes-silent` is Hermes before it surfaced a failed run's error (a failed run with no final
 * response sent nothing); only tests switch it on.
 */
export const processingModes = ['nanoclaw', 'hermes', 'hermes-silent'] as const;
export type ProcessingMode = (typeof processingModes)[number];

/**
 * A scheduled task a session was given (by an earlier conversation's schedule_task; issue 24 item 2, task-scheduler.ts):
 * once, or every everyMs, count times in all.
 */
export interface ScheduledTask {
  id: string;
  sessionKey: string;
  prompt: string;
  firstDueMs: number;
  /** null: a one-shot task (nanoclaw's recurrence NULL). */
  everyMs: number | null;
  /** How many occurrences the series has (1 for a one-shot task). */
  count: number;
}

/**
 * How the host fans out a recurring task's next occurrence: `atomic`, the insert and the clear of the completed row's
 * recurrence in one transaction (fixed); `two-step`, nanoclaw's handleRecurrence as written (two statements, a fresh
 * id), which only tests switch on.
 */
export const recurrenceModes = ['atomic', 'two-step'] as const;
export type RecurrenceMode = (typeof recurrenceModes)[number];

/**
 * How a messaging call's outbound row is keyed (issue 48 item 4): `call-id` (fixed: the API's tool-call id, so a call
 * run again writes nothing twice) or `per-execution` (nanoclaw's MCP handlers, `generateId` per execution: a call run
 * again after its caller's timeout writes a second row, even when the first one's stalled commit landed; tests only).
 */
export const toolRowIdModes = ['call-id', 'per-execution'] as const;
export type ToolRowIds = (typeof toolRowIdModes)[number];

/**
 * Tool responses the host writes after the tool that asked for them gave up waiting (issue 48 item 6; late-responses.ts):
 * at atMs, count rows of kind `response` (trigger 0) in the session's inbound.db, which no poll takes and nothing
 * acknowledges, so they stay pending for good (nanoclaw's `cli_response` after `ncl`'s pollResponse deadline, a
 * `question_response` after ask_user_question timed out).
 */
export interface LateResponses {
  sessionKey: string;
  atMs: number;
  count: number;
}

/**
 * The order of the runner's poll (claims.ts fetchBatch): `filter-first` (fixed) drops the rows it skips on purpose
 * (acknowledged rows, tool responses) before it takes the newest maxMessagesPerPrompt; `limit-first`, nanoclaw at
 * 0683c6ec5 as released (the SQL LIMIT, then the processing_ack filter and the poll loop's kind filter), which only
 * tests switch on.
 */
export const pollOrders = ['filter-first', 'limit-first'] as const;
export type PollOrder = (typeof pollOrders)[number];

/**
 * Client connections (issue 24 item 1, chat-send.ts): sessions whose user chats through OpenClaw's WebChat client,
 * which sends `chat.send` over a WebSocket to the gateway and is shown the run's `chat` events. `dedupe`: how the
 * gateway dedupes a repeated idempotency key: `durable` (fixed: the key is the messages_in row id), `memory` (OpenClaw's
 * dedupe map, lost with the process and pruned 5 min after use), `off` (tests only). `replay`: what a resumed
 * connection is sent: the finals after the client's last seq (`after`, fixed) or from it (`inclusive`, tests only).
 */
export interface ChatClientsKnobs {
  sessions: readonly string[];
  dedupe: 'durable' | 'memory' | 'off';
  replay: 'after' | 'inclusive';
}

export interface ModelKnobs {
  /** Queue mode per session key (collect where not given). */
  queueModes: Readonly<Record<string, QueueMode>>;
  /** Agent cache capacity (LRU), per runner. */
  agentCacheSize: number;
  /** Config signature generation: bumping it makes cached agents stale (evicted on next use). */
  configGeneration: number;
  /** Runs a turn may retry after transient errors before giving up with an error reply. */
  turnTriesMax: number;
  /** The second writers (off unless a run switches them on). */
  deliveryMirror: DeliveryMirrorMode;
  /** How the session write lock removes a stale lock: `claimed` (fixed) or OpenClaw 2026.4.24's `unguarded` (tests only). */
  lockReclaim: LockReclaimMode;
  /** Deadlines of the calls that act on the world: `propagated` (fixed, tool-deadline.ts) or `none` (before the fix, tests only). */
  toolDeadlines: ToolDeadlineMode;
  /** Calls without a deadline: `fenced` (fixed: a call the runner gave up on never acts, tool-fence.ts) or `unfenced` (tests only). */
  abandonedCalls: AbandonedCallMode;
  /** How the tool server keys a messaging call's row: `call-id` (fixed) or nanoclaw's `per-execution` (tests only). */
  toolRowIds: ToolRowIds;
  gatewayAppend: GatewayAppendMode;
  /** nanoclaw's processing (batches, full-run retries) or Hermes' (one message per run, ends at its first failure). */
  processing: ProcessingMode;
  /** In Hermes' processing, how often the agent retries a failed LLM call within its run. */
  agentRetriesMax: number;
  /** Scheduled tasks the sessions were given (issue 24 item 2; task-scheduler.ts); none by default. */
  tasks: readonly ScheduledTask[];
  /** How the host fans out a recurring task's next occurrence: `atomic` (fixed) or nanoclaw's `two-step` (tests only). */
  recurrence: RecurrenceMode;
  /** Tool responses written after their tool gave up (issue 48 item 6; late-responses.ts); none by default. */
  lateResponses: readonly LateResponses[];
  /** The order of the runner's poll: `filter-first` (fixed) or nanoclaw's `limit-first` (tests only). */
  pollOrder: PollOrder;
  /** The metadata envelope of a submitted prompt and how the stored one is kept (issue 24 item 4; envelope.ts). */
  promptEnvelope: PromptEnvelopeMode;
  /** Client connections (issue 24 item 1; chat-send.ts): no client session by default. */
  clients: ChatClientsKnobs;
  /** The context limit a run compacts the transcript at (issue 24 item 3; compaction.ts); null: no compaction. */
  compaction: CompactionKnobs | null;
  /** Who runs a heartbeat (issue 24 item 5; heartbeat-run.ts): null, the runner from a prompt row; else the gateway's own run. */
  heartbeatRun: HeartbeatRunKnobs | null;
  /**
   * Hermes' dashboard backend runs beside the gateway and appends its own turns to the sessions' state.db (issue 44
   * item 5; dashboard.ts); off by default (no process is spawned for it).
   */
  dashboard: boolean;
  /** How the agent cache knows a cached agent is current: `message-count` (fixed, Hermes #46237) or `none` (tests only). */
  agentCacheCoherence: AgentCacheCoherence;
  /**
   * A platform that refuses sends and has a message length limit (issue 48; delivery.ts): the limit replies are split
   * at, and how the delivery handles parts and refusals (`fixed`, or a test's sabotage); null (the default): every
   * reply goes out whole in one send, as before.
   */
  delivery: DeliveryKnobs | null;
  /**
   * Scheduled tasks run by the gateway's executor outside the chat lane, each attempt under a timeout of its own and
   * retried after a backoff while the timed-out request may still answer (issue 48 item 5; cron-executor.ts); null
   * (the default): the runner's chat lane runs a task row as it comes due.
   */
  cron: CronKnobs | null;
  /**
   * A scheduled task's output delivered on two paths, the announce and its direct fallback (issue 48 item 3;
   * delivery.ts); null (the default): a task's output goes out as any row does.
   */
  fallbackDelivery: FallbackDeliveryMode | null;
  /**
   * Block streaming of a reply (issue 48 item 2; block-stream.ts): `off` (the default: a reply goes out when the turn
   * ends), `on` (a chat turn's closing text streams in blocks, each its own send, and the final sends only what was not
   * streamed), or a test's sabotage.
   */
  blockStreaming: BlockStreamingMode;
}

export const defaultKnobs: ModelKnobs = {
  queueModes: {},
  agentCacheSize: 8,
  configGeneration: 0,
  turnTriesMax: 5,
  deliveryMirror: 'off',
  lockReclaim: 'claimed',
  toolDeadlines: 'propagated',
  abandonedCalls: 'fenced',
  toolRowIds: 'call-id',
  gatewayAppend: 'off',
  processing: 'nanoclaw',
  agentRetriesMax: 3,
  tasks: [],
  recurrence: 'atomic',
  lateResponses: [],
  pollOrder: 'filter-first',
  promptEnvelope: 'off',
  clients: { sessions: [], dedupe: 'durable', replay: 'after' },
  compaction: null,
  heartbeatRun: null,
  dashboard: false,
  agentCacheCoherence: 'message-count',
  delivery: null,
  cron: null,
  fallbackDelivery: null,
  blockStreaming: 'off',
};

/** The model's configuration: bugs switched on, sessions, timers and knobs. */
export interface ModelConfig {
  bugs: ReadonlySet<BugId>;
  sessions: readonly string[];
  timers: ModelTimers;
  knobs: ModelKnobs;
}

/** The queue mode of a session. */
export function queueModeOf(config: ModelConfig, sessionKey: string): QueueMode {
  return config.knobs.queueModes[sessionKey] ?? 'collect';
}

/**
 * The queue mode a session's lane runs with: its own under nanoclaw's processing; under Hermes', `followup` (one
 * message per run, the next waiting for a run of its own: Hermes' busy input mode `queue`).
 */
export function effectiveQueueMode(config: ModelConfig, sessionKey: string): QueueMode {
  return config.knobs.processing === 'nanoclaw' ? queueModeOf(config, sessionKey) : 'followup';
}

/** A model configuration with the default timers and knobs, overridden where given. */
export function modelConfig(partial: {
  bugs?: Iterable<BugId>;
  sessions: readonly string[];
  timers?: Partial<ModelTimers>;
  knobs?: Partial<ModelKnobs>;
}): ModelConfig {
  assert(partial.sessions.length > 0, 'a model needs at least one session');
  assert(new Set(partial.sessions).size === partial.sessions.length, `session keys are distinct (each has one lane): ${partial.sessions.join(', ')}`);
  assert(Object.values(partial.timers ?? {}).every((value) => Number.isSafeInteger(value) && value >= 0), 'timers are whole milliseconds, not below 0');
  return {
    bugs: new Set(partial.bugs ?? []),
    sessions: partial.sessions,
    timers: { ...defaultTimers, ...partial.timers },
    knobs: { ...defaultKnobs, ...partial.knobs },
  };
}
