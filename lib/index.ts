// gatesim's public entry (the package's `exports`): one curated list, no `export *`. A gateway engineer runs and
// fuzzes scenarios from their own repository, registers scenarios and invariants of their own, and swaps a
// component of the model for one written against the ports. Everything else in the repository is internal.

// Running: one seeded run, a replay from a seed string, a fuzz campaign.
export {
  fuzz,
  type FuzzFailureReport,
  type FuzzOptions,
  type FuzzReport,
  reproduce,
  type ReproduceOptions,
  runScenario,
  type RunScenarioOptions,
  scenarioNamed,
  type ScenarioRun,
  SeedStringError,
} from './run.ts';
// The lower-level pieces those builders use: a plan from a scenario and seed, one run of the harness, a campaign.
export { generateSpec } from '../sim/run/generate.ts';
export { type RunOptions, type RunResult, runSpec, userMarker } from '../sim/run/harness.ts';
export { type FuzzFailure, type FuzzLimits, fuzzScenario, type ScenarioOutcome } from '../sim/cli/fuzz.ts';
export { decodeSeedString, encodeSeedString, type SeedHeader } from '../sim/cli/seed-string.ts';
export { loadSqlJs } from '../sim/kernel/sqlite.ts';
export type { Simulation } from '../sim/kernel/simulation.ts';
export type { TraceEvent } from '../sim/kernel/trace.ts';
export type { FaultCoverage } from '../sim/run/coverage.ts';

// Scenarios: the registry and the building blocks of plans.
/** fast-check, the same instance gatesim's scenarios are built with: write your scenario's plan arbitrary with it. */
export { default as fc } from 'fast-check';
export { findScenario, registerScenario, type Scenario, scenarioNames, scenarios } from '../scenarios/index.ts';
export {
  byTime,
  clearStep,
  configBump,
  execStep,
  faultKnobs,
  killAtPhase,
  linkFault,
  modelKnobs,
  phaseArb,
  resetAtPhase,
  settleMs,
  swarmFaultKnobs,
  timedKill,
  userStep,
} from '../scenarios/common.ts';
export {
  type FaultKnobs,
  type FaultStep,
  type KillableProcess,
  killableProcesses,
  linkPairs,
  type ModelKnobsPlan,
  noFaults,
  type Phase,
  phases,
  type Plan,
  type RunSpec,
  sessionKey,
  type WorkloadStep,
} from '../sim/run/plan.ts';

// Checkers: the invariants, the observations they read, and a registry for one's own.
export {
  activeBranch,
  builtinInvariantNames,
  type BuiltinInvariantName,
  type CustomInvariant,
  type CustomViolation,
  customInvariants,
  type DbRow,
  type DurableState,
  type FailureClass,
  type InvariantName,
  invariantNames,
  type JsonlEntry,
  type KernelFact,
  type Observations,
  parsePiTranscript,
  registerInvariant,
  type Transcript,
  type Violation,
} from '../sim/checkers/index.ts';

// The ground-truth ledger the world keeps.
export {
  type CommandFact,
  Ledger,
  type LlmAnswerFact,
  type LlmRequestFact,
  type ShownFact,
  type UserMessageFact,
  type World,
} from '../sim/world/index.ts';

// The ports a component is written against.
export {
  type Clock,
  type Delivery,
  type Disk,
  type LlmAnswer,
  type LlmApi,
  type LlmRequest,
  type LlmToolCall,
  LlmTransientError,
  type Network,
  type ProcessContext,
  type ProcessMain,
  type Random,
  type Sqlite,
  SqliteBusyError,
  type SqlDatabase,
  type SqlParams,
  type SqlRow,
  type SqlRunResult,
  type SqlTransaction,
  type SqlValue,
  type Supervisor,
  type TimerHandle,
  type Timers,
  type ToolName,
  type TraceValue,
} from '../src/ports.ts';

// The model: its configuration, seed bugs, process names, the components one may swap, and the tool protocol.
export {
  type BugId,
  bugDescriptions,
  bugIds,
  buildModel,
  type BuiltModel,
  type ComponentFactory,
  gatewayName,
  inboundPath,
  isToolCall,
  type ModelComponents,
  type ModelConfig,
  modelConfig,
  type ModelEnvironment,
  nodeHostName,
  outboundPath,
  outboundSchema,
  parseTurnSentPayloads,
  platformName,
  type QueueMode,
  queueModeOf,
  queueModes,
  replaceableProcesses,
  type ReplaceableProcess,
  runnerName,
  stateDbPath,
  type ToolCallMessage,
  type ToolResultMessage,
  toolServerMain,
  toolServerName,
  transcriptPath,
  turnSentPayloadsKeyFor,
} from '../src/index.ts';
