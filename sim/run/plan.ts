// A plan: everything one run of the model needs besides the seed. Workload (what users and commands do), faults
// with their timing, and knobs. Scenarios generate plans with fast-check, so a failing plan shrinks; the seed
// string encodes a plan exactly.
import type { AgentCacheCoherence, BlockStreamingMode, BugId, CompactionCut, CronKnobs, FallbackDeliveryMode, DeliveryMirrorMode, DeliveryMode, GatewayAppendMode, HeartbeatRunKnobs, LockReclaimMode, ProcessingMode, PromptEnvelopeMode, PollOrder, QueueMode, RecurrenceMode, ToolDeadlineMode, AbandonedCallMode, ToolRowIds } from '../../src/index.ts';

export { type QueueMode, queueModes } from '../../src/index.ts';

/** The phases of a turn, in order (shared by the trace, fault triggers, coverage and reports). */
export const phases = ['ingest', 'prompt-persisted', 'model-call', 'abort', 'tool-send', 'result-dispatch', 'flush', 'delivery'] as const;
/** A phase of a turn. */
export type Phase = (typeof phases)[number];

/** The processes a plan may SIGKILL. */
export const killableProcesses = ['gateway', 'runner', 'tool-server', 'node-host'] as const;
/** A process a plan may SIGKILL. */
export type KillableProcess = (typeof killableProcesses)[number];

/**
 * The processes on the gateway's machine: a power loss kills them all and drops what the disk had not written back.
 * The node host runs on a device of its own, and the chat platform and the LLM API are the outside world.
 */
export const hostProcesses = ['gateway', 'runner', 'tool-server'] as const;

/** The network links a link fault may hit, by index. */
export const linkPairs = [
  ['platform', 'gateway'],
  ['gateway', 'node-host'],
  ['runner', 'tool-server'],
] as const;
export type LinkPair = (typeof linkPairs)[number];

/** What users and commands do: a message, a command, a /clear or a config change, at a simulated time. */
export type WorkloadStep =
  /**
   * `mentions: false`: a group message that does not mention the agent (context; absent means it does). `poison`: the
   * message carries an input the LLM API never answers while the faults last (sim/world/fake-model.ts `poisonInput`).
   */
  | { kind: 'user'; atMs: number; session: number; text: string; mentions?: boolean; poison?: boolean }
  | { kind: 'exec'; atMs: number; session: number; durationMs: number; exitCode: number; output: string }
  | { kind: 'clear'; atMs: number; session: number }
  | { kind: 'config-bump'; atMs: number }
  /**
   * A turn typed at Hermes' dashboard (issue 44 item 5, src/dashboard.ts): a second process appends a user message and
   * its answer to the session's state.db, between the gateway's turns (its text gets the marker `[w<i>]`).
   */
  | { kind: 'dashboard'; atMs: number; session: number; text: string };

/** A fault: a kill, a power loss or a reset (each timed or at a phase), a partition or a hold. */
export type FaultStep =
  | { kind: 'kill'; atMs: number; process: KillableProcess; restartAfterMs: number }
  /** Kill `process` when the nth event of `phase` happens (0-based), after delayMs. */
  | { kind: 'kill-at-phase'; phase: Phase; nth: number; delayMs: number; process: KillableProcess; restartAfterMs: number }
  | { kind: 'partition'; atMs: number; link: number; healAfterMs: number }
  | { kind: 'hold'; atMs: number; link: number; releaseAfterMs: number }
  | { kind: 'reset'; atMs: number; link: number }
  | { kind: 'reset-at-phase'; phase: Phase; nth: number; delayMs: number; link: number }
  /** The gateway's machine loses power (every host process dies, unsynced writes are lost); it boots after restartAfterMs. */
  | { kind: 'power-loss'; atMs: number; restartAfterMs: number }
  /** A power loss when the nth event of `phase` happens (0-based), after delayMs. */
  | { kind: 'power-loss-at-phase'; phase: Phase; nth: number; delayMs: number; restartAfterMs: number }
  /** A power loss right after the nth append to a JSONL transcript (0-based), before any fsync of it can complete. */
  | { kind: 'power-loss-at-append'; nth: number; restartAfterMs: number }
  /** `process` stalls (SIGSTOP) for durationMs, then goes on (SIGCONT): slow, not dead. */
  | { kind: 'stall'; atMs: number; process: KillableProcess; durationMs: number }
  /** The LLM API is down: every request fails for durationMs. */
  | { kind: 'model-outage'; atMs: number; durationMs: number }
  /** The WebChat client's WebSocket to the gateway dies (issue 24 item 1); the client reconnects and resumes. */
  | { kind: 'client-drop'; atMs: number }
  /** The client's WebSocket dies when the nth event of `point` happens (0-based), after delayMs. */
  | { kind: 'client-drop-at'; point: ClientPoint; nth: number; delayMs: number };

/**
 * Where a client connection can be cut (issue 24 item 1): `send`, the client wrote a chat.send (before its answer);
 * `answer`, the gateway wrote the answer; `final`, the gateway wrote a reply's `chat` final (mid-stream); `shown`, the
 * client showed a final (after it).
 */
export const clientPoints = ['send', 'answer', 'final', 'shown'] as const;
export type ClientPoint = (typeof clientPoints)[number];

/** The trace note of each client point. */
export const clientPointNotes: Readonly<Record<ClientPoint, string>> = {
  send: 'model.client-send',
  answer: 'model.chat-send',
  final: 'model.chat-final',
  shown: 'model.client-shown',
};

/**
 * Client connections (issue 24 item 1): sessions whose user chats through OpenClaw's WebChat client (chat.send over a
 * WebSocket) instead of the platform. `dedupe`, `replay` and `retryKey` are the model's and the client's ways of doing
 * it (absent: the fixed `durable`, `after` and `same`; the others are tests' sabotages, `memory` OpenClaw's own map).
 */
export interface ClientPlan {
  sessions: number[];
  dedupe?: 'durable' | 'memory' | 'off';
  replay?: 'after' | 'inclusive';
  retryKey?: 'same' | 'fresh';
}

export const faultTypes = ['kill-gateway', 'kill-runner', 'kill-tool-server', 'kill-node-host', 'power-loss', 'partition', 'hold', 'reset', 'drop', 'duplicate', 'reorder', 'disk-tear', 'disk-writeback', 'sql-busy', 'model-error', 'model-slow', 'model-outage', 'stall', 'startup-slow'] as const;
export type FaultType = (typeof faultTypes)[number];

/** Fault rates for the whole fault phase: network, disk, SQLite and LLM faults (per 1000). */
export interface FaultKnobs {
  dropPer1000: number;
  duplicatePer1000: number;
  reorder: boolean;
  delayMsMax: number;
  diskTearPer1000: number;
  diskWritebackPer1000: number;
  sqlBusyPer1000: number;
  modelErrorPer1000: number;
  /** After a model error, the same prompt fails on up to this many more requests. */
  modelErrorStreakMax: number;
  modelSlowPer1000: number;
}

/** The fake LLM's behaviour (per 1000) and the agent cache size of a run. */
export interface ModelKnobsPlan {
  toolCallPer1000: number;
  /** A turn that calls tools makes 1 to this many calls. */
  toolCallsMax: number;
  repeatPer1000: number;
  repeatOnlyPer1000: number;
  stockAnswerPer1000: number;
  agentCacheSize: number;
  /**
   * Chance (per 1000) that an answer also creates a calendar event (an effect in the world, issue 23 item 3). Absent:
   * the run has no calendar and the LLM draws nothing for it (every plan made before it runs unchanged).
   */
  effectToolPer1000?: number;
}

/**
 * The start-up delay of a restarted process (container start, module load), drawn per restart from the run's PRNG:
 * msMin to msMax, and while the faults last, with chance slowPer1000, a slow one of slowMsMin to slowMsMax (a fault:
 * an image pulled again, a cold module cache, a loaded machine).
 */
export interface StartupKnobs {
  msMin: number;
  msMax: number;
  slowPer1000: number;
  slowMsMin: number;
  slowMsMax: number;
}

/**
 * A scheduled task a session was given before the run (issue 24 item 2): due first at firstDueMs, then every everyMs
 * (null: once), count occurrences in all. The world knows the schedule; the system stores it as nanoclaw does.
 */
export interface TaskPlan {
  session: number;
  prompt: string;
  firstDueMs: number;
  everyMs: number | null;
  count: number;
}

/**
 * A platform that refuses sends and limits a message's length (issue 48 items 1 and 2; sim/world/platform.ts): the
 * limit (Telegram 4096, Discord 2000; the gateway splits longer replies into parts), and while the faults last, flood
 * control per 1000 sends with a retry-after of 1 s to retryAfterMsMax, windows when a session's chat is not found,
 * the listener not ready for up to notReadyMsMax after each gateway start, and answers lost or late per 1000 sends.
 * `longReplyPer1000` is the share of answers whose own block is a long reply (1.2 to 3 times the limit).
 */
export interface PlatformPlan {
  textLimit: number;
  rateLimitPer1000: number;
  retryAfterMsMax: number;
  notFound: { session: number; atMs: number; durationMs: number }[];
  notReadyMsMax: number;
  ambiguousPer1000: number;
  longReplyPer1000: number;
}

/** Everything one run needs besides its seed: sessions, workload, faults, knobs and timing. */
export interface Plan {
  sessions: number;
  workload: WorkloadStep[];
  faults: FaultStep[];
  faultKnobs: FaultKnobs;
  model: ModelKnobsPlan;
  /** OpenClaw's queue mode of each session, by session number (collect where not given). */
  queueModes?: QueueMode[];
  /**
   * The second writers (OpenClaw's delivery mirror, Hermes' gateway append); absent: both off. `lockReclaim`: how the
   * session write lock removes a stale lock (absent: the fixed `claimed`; `unguarded`, OpenClaw 2026.4.24's, tests only).
   */
  secondWriters?: { deliveryMirror: DeliveryMirrorMode; gatewayAppend: GatewayAppendMode; lockReclaim?: LockReclaimMode };
  /**
   * Deadlines of the tool calls that act on the world (src/tool-deadline.ts); absent: the fixed `propagated`; `none`
   * (the model before the fix: a stale call acts whenever it reaches the tool server) is for tests only.
   */
  toolDeadlines?: ToolDeadlineMode;
  /**
   * Whether a call without a deadline that its runner gave up on is fenced off (src/tool-fence.ts); absent: the fixed
   * `fenced`; `unfenced` (the model before the fix: the tool server carries it out whenever it reads it) is for tests only.
   */
  abandonedCalls?: AbandonedCallMode;
  /** The chat platform ignores client idempotency keys (drawn per run by chaos only; absent: it honours them). */
  keylessPlatform?: boolean;
  /** How long a restarted process takes to start (issue 24 item 6); absent: a restart runs at once, as before. */
  startup?: StartupKnobs;
  /**
   * How the runner processes messages (issue 24 item 7): nanoclaw's batches and full-run retries, or Hermes' one
   * message per run ending at its first failure; absent: nanoclaw's.
   */
  processing?: ProcessingMode;
  /** Scheduled tasks (issue 24 item 2); absent: none, and the gateway runs no task scheduler. */
  tasks?: TaskPlan[];
  /** How the host fans out a recurring task's next occurrence; absent: the fixed `atomic` one (`two-step`: tests only). */
  recurrence?: RecurrenceMode;
  /**
   * The metadata envelope of a submitted prompt (issue 24 item 4, src/envelope.ts): `submit-then-rewrite` (2026.4.24),
   * `transform` (2026.7.1), `rewrite-drops-entry` and `rewrite-own-body` (tests only); absent: off.
   */
  promptEnvelope?: PromptEnvelopeMode;
  /**
   * A context limit (issue 24 item 3): a run whose transcript context is estimated past contextTokensMax compacts it
   * first, keeping about keepRecentTokens; absent: no compaction. `cut` (tests only) sabotages the kept part.
   */
  compaction?: { contextTokensMax: number; keepRecentTokens: number; cut?: CompactionCut };
  /**
   * Gateway-side heartbeat runs (issue 24 item 5, src/heartbeat-run.ts): the gateway asks the LLM itself under the run's
   * timeout and fallbacks, and a failed run is retried after retryMs (`gateway`); `gateway-no-retry` (OpenClaw 2026.4.24)
   * and `gateway-consume-first` (tests only); absent: the runner runs a heartbeat from its prompt row.
   */
  heartbeatRun?: HeartbeatRunKnobs;
  /** Client connections (issue 24 item 1); absent: every session chats through the platform. */
  clients?: ClientPlan;
  /**
   * The fake LLM's answers name the newest assistant message of the context they were given (issue 44 item 5,
   * sim/world/fake-model.ts); absent: off, and every answer reads as in plans made before it.
   */
  contextAnswers?: boolean;
  /**
   * How the runner's agent cache knows a cached agent is current (src/agent.ts); absent: the fixed `message-count`;
   * `none` (Hermes before #46095: a dashboard's turn is never seen by the cached agent) is for tests only.
   */
  agentCacheCoherence?: AgentCacheCoherence;
  /** A platform that refuses sends and limits a message's length (issue 48); absent: it takes every send whole. */
  platform?: PlatformPlan;
  /**
   * How the gateway's delivery handles parts and refusals (src/delivery.ts); absent: the fixed `fixed`; the others
   * are tests' sabotages. Only with `platform`.
   */
  deliveryMode?: DeliveryMode;
  /**
   * Tool responses the host writes after their tool gave up (issue 48 item 6, src/late-responses.ts): at atMs, count
   * rows in the session's inbound.db that every poll skips and that stay pending; absent: none.
   */
  lateResponses?: { session: number; atMs: number; count: number }[];
  /**
   * The order of the runner's poll (src/claims.ts fetchBatch); absent: the fixed `filter-first`; `limit-first`
   * (nanoclaw at 0683c6ec5: the LIMIT before the processing_ack and kind filters) is for tests only.
   */
  pollOrder?: PollOrder;
  /**
   * Stalled writes (issue 48 item 4, sim/kernel/sqlite.ts, sim/kernel/disk.ts): while the faults last, per1000 of the
   * SQLite writes take msMin..msMax to commit and hold the database's write lock meanwhile (another process's write
   * waits behind it up to nanoclaw's busy_timeout, 5 s, then fails with "database is locked"), and per1000 of the
   * fsyncs take as long to return; absent: nothing stalls.
   */
  writeStalls?: { per1000: number; msMin: number; msMax: number };
  /**
   * How the tool server keys the outbound row of a messaging call (src/tool-server.ts); absent: the fixed `call-id`;
   * `per-execution` (nanoclaw's MCP handlers: a fresh id each time the call runs, so a retry after a timed-out call
   * whose stalled commit landed writes a second row) is for tests only.
   */
  toolRowIds?: ToolRowIds;
  /**
   * Scheduled tasks run by the gateway's cron executor, outside the chat lane (issue 48 item 5, src/cron-executor.ts):
   * each attempt under timeoutMs, a retry after the backoff while the timed-out request may still answer; absent: off
   * (the runner's chat lane runs a task row as it comes due). `mode` `retry-blind` is for tests only. Only with `tasks`.
   */
  cron?: CronKnobs;
  /**
   * A scheduled task's output on two paths (issue 48 item 3, src/delivery.ts `deliverWithFallback`): the announce,
   * waited for 15 s, then the direct send as its fallback; absent: off (a task's output goes out as any row does).
   * `fresh-key` and `no-fallback` are for tests only.
   */
  fallbackDelivery?: FallbackDeliveryMode;
  /**
   * Block streaming of a reply (issue 48 item 2, src/block-stream.ts): absent, off; `on`, a chat turn's closing text
   * streams in blocks, each its own send, and the final sends only what was not streamed; `resend-final` and
   * `drop-failed-block` are tests' sabotages.
   */
  blockStreaming?: BlockStreamingMode;
  /** Faults stop at this time; afterwards the run goes on fault-free for settleMs (liveness). */
  faultPhaseMs: number;
  settleMs: number;
}

/** One run: scenario name, bug set, simulation seed and plan. */
export interface RunSpec {
  scenario: string;
  bugs: BugId[];
  seed: number;
  plan: Plan;
}

/** Fault knobs with every fault off. */
export const noFaults: FaultKnobs = {
  dropPer1000: 0,
  duplicatePer1000: 0,
  reorder: false,
  delayMsMax: 20,
  diskTearPer1000: 0,
  diskWritebackPer1000: 0,
  sqlBusyPer1000: 0,
  modelErrorPer1000: 0,
  modelErrorStreakMax: 0,
  modelSlowPer1000: 0,
};

/** The session key of session number `index` (as OpenClaw names a chat session). */
export function sessionKey(index: number): string {
  return `agent:main:chat:${index}`;
}


/** The phase of a turn a trace event belongs to, if any (shared by fault triggers, coverage and the viewer). */
export function phaseOfTrace(event: { kind: string }): Phase | undefined {
  switch (event.kind) {
    case 'model.ingest':
    case 'model.system-event':
    case 'model.exec-ingest':
      return 'ingest';
    case 'model.turn-start':
    case 'model.orphan-repair':
    case 'model.merge':
    case 'model.prompt-persisted':
      return 'prompt-persisted';
    case 'model.model-call':
    case 'model.heartbeat-run':
    case 'model.cron-attempt':
    case 'model.compaction-start':
    case 'model.compaction-summarised':
      return 'model-call';
    case 'model.turn-aborted':
      return 'abort';
    case 'model.tool-call':
    case 'model.tool-sent':
      return 'tool-send';
    case 'model.result':
    case 'model.stream-block':
      return 'result-dispatch';
    case 'model.flush':
      return 'flush';
    case 'model.deliver-attempt':
    case 'model.delivered':
    case 'model.visible':
      return 'delivery';
    default:
      return undefined;
  }
}
