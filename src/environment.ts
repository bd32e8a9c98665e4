// What the model needs from the world besides the process ports: the LLM API, the deployed config generation, and
// how the runner opens transcripts. Its own module so that the runner and the turn can name it without importing the
// module that builds the model (which imports them).
import type { MirrorAppendPort } from './delivery-mirror.ts';
import type { HeartbeatWakesPort, WakeHandler } from './heartbeat-wake.ts';
import type { Delivery, LlmApi, ProcessContext } from './ports.ts';
import type { NodeEvent } from './protocol.ts';
import type { SessionFileRepairPort } from './session-file-repair.ts';
import type { SessionManagerFactory } from './session-manager-port.ts';
import type { SessionWriteLockPort } from './session-write-lock.ts';
import type { SystemEventQueuePort } from './system-events.ts';

/**
 * Parts of the gateway that may be a real release's instead of the model's (sim/real, `--openclaw`). Each factory is
 * called once per gateway incarnation, so a real module's state is as fresh as the model's after a restart.
 */
export interface GatewayParts {
  /** The per-session system-event queue; `lastTextOnlyDedupe` is the model's seed-000 switch (a real queue has its own rule). */
  systemEvents?: (ctx: ProcessContext, lastTextOnlyDedupe: boolean) => SystemEventQueuePort;
  /** The heartbeat wakes, running `handler` (the model's heartbeat runner) for each wake. */
  heartbeatWakes?: (ctx: ProcessContext, timers: { coalesceMs: number; retryMs: number }, handler: WakeHandler) => HeartbeatWakesPort;
  /** Node-event ingestion in place of the gateway's own, given the queue and wakes this incarnation built and its sessions. */
  nodeEvents?: (ctx: ProcessContext, gateway: { events: SystemEventQueuePort; wakes: HeartbeatWakesPort; sessions: readonly string[] }) => NodeEventsPort;
  /**
   * The orphaned-user merge policy of the agent loop (OpenClaw's `mergeOrphanedTrailingUserPrompt`), called once per
   * runner incarnation; the repair around it (the fold, the claim, taking the orphan off the branch) stays the model's.
   */
  orphanMerge?: (ctx: ProcessContext) => OrphanMergePolicy;
  /**
   * The gateway, not the world, asks the node host to run each command (a `system.run` invoke with its runId), because
   * the node-event ingestion authorizes exec events against those invokes (OpenClaw 2026.7.1). Off: the world hands
   * the node host its commands, as before.
   */
  systemRunInvokes?: boolean;
  /**
   * The session-file repair of the run attempt in place of the model's (OpenClaw's `repairSessionFileIfNeeded`), asked
   * by the runner at each attempt; the factory answers the same repair for every call of one runner incarnation.
   */
  sessionFileRepair?: (ctx: ProcessContext) => SessionFileRepairPort;
  /**
   * The session write lock in place of the model's (src/session-write-lock.ts), called once per incarnation by each of
   * its two callers: the runner (`run-attempt`, each turn's attempt) and the gateway (`delivery-mirror`).
   */
  sessionWriteLock?: (ctx: ProcessContext, caller: 'run-attempt' | 'delivery-mirror') => SessionWriteLockPort;
  /**
   * The delivery mirror's append in place of the model's (OpenClaw's `appendAssistantMessageToSessionTranscript`),
   * called once per gateway incarnation with the run's session keys; which file, the lock around it (unless the part
   * locks itself) and what a failure does stay the model's (src/delivery-mirror.ts).
   */
  mirrorAppend?: (ctx: ProcessContext, sessions: readonly string[]) => MirrorAppendPort;
}

/** Why a run of the agent loop started, as OpenClaw names its triggers. */
export type RunTrigger = 'user' | 'manual' | 'heartbeat' | 'cron';

/** One unanswered user message put to the merge policy: the run's prompt (its own messages), its trigger, the message's text. */
export interface OrphanMergeQuestion {
  prompt: string;
  trigger: RunTrigger;
  orphanText: string;
}

/**
 * How the run takes the message: `merge` (its text goes into the prompt, under the queued prefix), `carried` (the
 * prompt already carries it: this run answers it and adds nothing), `left` (not this run's: its own turn answers it).
 * `prompt` is the prompt the policy made (with the one message merged, or unchanged).
 */
export interface OrphanMergeDecision {
  take: 'merge' | 'carried' | 'left';
  prompt: string;
}

/** The orphaned-user merge policy (src/turn.ts modelOrphanMerge is the model's). */
export interface OrphanMergePolicy {
  decide(question: OrphanMergeQuestion): OrphanMergeDecision;
}

/** Node-event ingestion: takes one `node.event` delivery (and acknowledges it when it is done with it). */
export interface NodeEventsPort {
  onNodeEvent(delivery: Delivery<NodeEvent>): Promise<void>;
}

/** What the model needs from the world besides the process ports. */
export interface ModelEnvironment {
  llm: LlmApi;
  /** The deployed config generation; cached agents built for another generation are stale. */
  configGeneration(): number;
  /** Opens the runner's transcripts; default the model's own SessionManager (sim/real hands in the real pi one). */
  sessionManagerFactory?: SessionManagerFactory;
  /** Gateway parts run as a real release's (sim/real); the model's own where absent. */
  gatewayParts?: GatewayParts;
}
