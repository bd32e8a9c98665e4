// The model's public entry: sim/ and scenarios/ import from here only.
export { AiAgent, AgentCache } from './agent.ts';
export {
  bugDescriptions,
  type BugId,
  bugIds,
  defaultKnobs,
  defaultTimers,
  isBugId,
  type ModelConfig,
  modelConfig,
  type ModelKnobs,
  type ModelTimers,
  parseBugList,
  UnknownBugError,
} from './config.ts';
export { defaultModelBehaviour, FakeModelApi, interimPhrases, type ModelAnswer, type ModelBehaviour, type ModelRequest, stockAnswers } from '../sim/world/fake-model.ts';
export { execEventText, gatewayName, platformName } from './gateway.ts';
export { buildModel, type BuiltModel, type ModelWorld, nodeHostName } from './model.ts';
export type { ExecCommand } from './node-host.ts';
export type { UserMessage, VisibleMessage } from '../sim/world/platform.ts';
export type * from './ports.ts';
export { SqliteBusyError } from './ports.ts';
export { runnerName } from './runner.ts';
export { stateDbPath } from './session-db.ts';
export { inboundPath, outboundPath, transcriptPath } from './session-dbs.ts';
export { activeBranchOf, parseTranscript, type SessionEntry } from './session-manager.ts';
export { errorReply, queuedPrefix } from './turn.ts';
export { contentHash, isVerbatimDuplicate, normalizeWhitespace, parseMessageBlocks } from './text.ts';
export { toolServerName } from './tool-server.ts';
