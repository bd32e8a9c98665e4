// The model's public entry: sim/ and scenarios/ import from here only.
export { AiAgent, AgentCache, type AgentCacheCoherence, agentCacheCoherences } from './agent.ts';
export { Dashboard, dashboardName, type DashboardShown, type DashboardTurn } from './dashboard.ts';
export {
  bugDescriptions,
  type BugId,
  bugIds,
  defaultKnobs,
  defaultTimers,
  effectiveQueueMode,
  type DeliveryMirrorMode,
  deliveryMirrorModes,
  type GatewayAppendMode,
  gatewayAppendModes,
  isBugId,
  type ModelConfig,
  modelConfig,
  type ModelKnobs,
  type ModelTimers,
  parseBugList,
  type ProcessingMode,
  processingModes,
  type QueueMode,
  queueModeOf,
  queueModes,
  type RecurrenceMode,
  recurrenceModes,
  type LateResponses,
  type PollOrder,
  pollOrders,
  type ToolRowIds,
  toolRowIdModes,
  type ScheduledTask,
  type ChatClientsKnobs,
  UnknownBugError,
} from './config.ts';
export { occurrenceId, taskDueTimes, taskOccurrenceText } from './task-scheduler.ts';
export { lateResponseRowId, responseKind } from './late-responses.ts';
export { type PromptEnvelopeMode, promptEnvelopeModes } from './envelope.ts';
export { type HeartbeatRunKnobs, type HeartbeatRunMode, heartbeatRunModes } from './heartbeat-run.ts';
export { type CompactionCut, compactionCuts, type CompactionKnobs } from './compaction.ts';
export { type LockReclaimMode, lockReclaimModes } from './session-write-lock.ts';
export { type ToolDeadlineMode, toolDeadlineModes } from './tool-deadline.ts';
export { type AbandonedCallMode, abandonedCallModes } from './tool-fence.ts';
export { compactionInstruction, isCompactionPrompt } from './protocol.ts';
export { webchatName } from './protocol.ts';
export { execEventPrompt, execEventText, gatewayName, heartbeatPrompt, platformName } from './gateway.ts';
export {
  buildModel,
  type BuiltModel,
  type ComponentFactory,
  type ModelComponents,
  type ModelEnvironment,
  nodeHostName,
  type ReplaceableProcess,
  replaceableProcesses,
} from './model.ts';
export type { ExecCommand } from './node-host.ts';
export type * from './ports.ts';
export { LlmTransientError, SqliteBusyError } from './ports.ts';
export { maxMessagesPerPrompt } from './claims.ts';
export { type DeliveryKnobs, type DeliveryMode, deliveryModes, sendAckTimeoutMs } from './delivery.ts';
export { type CronKnobs, type CronMode, cronModes } from './cron-knobs.ts';
export { announceTimeoutMs } from './delivery.ts';
export { type FallbackDeliveryMode, fallbackDeliveryModes } from './delivery-knobs.ts';
export { type BlockStreamingMode, blockStreamingModes, streamBlocks, streamBlockMs } from './block-stream.ts';
export { chunkText } from './chunk.ts';
export { retryWaitMaxMs } from './host-sweep.ts';
export { runnerName } from './runner.ts';
export { stateDbPath } from './session-db.ts';
export { inboundPath, outboundPath, outboundSchema, parseTurnSentPayloads, transcriptPath, turnSentPayloadsKeyFor } from './session-dbs.ts';
export { activeBranchOf, parseTranscript, type SessionEntry } from './session-manager.ts';
export { clearedReply, errorReply, queuedPrefix } from './turn.ts';
export { contentHash, isVerbatimDuplicate, normalizeWhitespace, parseMessageBlocks } from './text.ts';
export { isToolCall, type ToolCallMessage, type ToolResultMessage, toolServerMain, toolServerName } from './tool-server.ts';
export { modelSessionManagerFactory, type SessionManagerFactory, type SessionManagerPort } from './session-manager-port.ts';
export type { GatewayParts, NodeEventsPort, OrphanMergeDecision, OrphanMergePolicy, OrphanMergeQuestion, RunTrigger } from './environment.ts';
export type { MirrorAppendOutcome, MirrorAppendPort, MirrorAppendRequest } from './delivery-mirror.ts';
export { type EnqueueResult, type SystemEvent, SystemEventQueue, type SystemEventQueuePort, systemEventsPerSessionMax } from './system-events.ts';
export { HeartbeatWakes, type HeartbeatWakesPort, type Wake, type WakeHandler, type WakeOutcome, type WakeReason, type WakeTarget } from './heartbeat-wake.ts';
