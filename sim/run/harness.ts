// The harness: one run of the model from a RunSpec (scenario, bugs, seed, plan). It builds the simulation and the
// model, applies the plan's workload and faults (timed ones at their instant, phase-triggered ones when the trace
// shows the phase), stops the faults at faultPhaseMs, lets the run settle fault-free, and hands the trace and the
// durable state to the checkers. The world (platform, LLM API, deployed config) is built here, beside the model, and
// keeps the ground-truth ledger; the model sees it only through its ports. A scenario (or the caller) may run some of
// the model's processes with components of its own, written against the same ports.
import type { SqlJsStatic } from 'sql.js';
import {
  buildModel,
  type BuiltModel,
  clearedReply,
  type CronKnobs,
  cronModes,
  type FallbackDeliveryMode,
  fallbackDeliveryModes,
  errorReply,
  gatewayName,
  maxMessagesPerPrompt,
  type ModelComponents,
  modelConfig,
  nodeHostName,
  platformName,
  type Random,
  type ChatClientsKnobs,
  type RecurrenceMode,
  runnerName,
  type ScheduledTask,
  sendAckTimeoutMs,
  retryWaitMaxMs,
  stateDbPath,
  taskDueTimes,
  taskOccurrenceText,
  transcriptPath,
  webchatName,
} from '../../src/index.ts';
import type { AgentCacheCoherence, CompactionKnobs, GatewayParts, LateResponses, ModelKnobs, PollOrder, SessionManagerFactory } from '../../src/index.ts';
import type { OpenclawChoice } from '../real/openclaw/gateway-parts.ts';
import { aroundTheParts, type AroundTheParts } from '../real/openclaw/surroundings.ts';
import { buildWorld, type Ledger, type World } from '../world/index.ts';
import { poisonInput } from '../world/fake-model.ts';
import { assert } from '../kernel/assert.ts';
import { checkRun, type SystemDescription, TranscriptMonitor, type Violation } from '../checkers/index.ts';
import { type FaultCoverage, FaultRecorder } from './coverage.ts';
import { labelDecisiveSteps } from './decisive.ts';
import { clientPointNotes, type FaultStep, linkPairs, type Phase, phaseOfTrace, type RunSpec, sessionKey } from './plan.ts';
import { WebChatClient } from '../world/client.ts';
import { Simulation } from '../kernel/simulation.ts';
import { findScenario } from '../../scenarios/index.ts';
import type { TraceEvent } from '../kernel/trace.ts';

/**
 * The model as the checkers know it: its canned replies, file locations and limits, from its public exports. The
 * checkers import nothing from src/ (docs/ARCHITECTURE.md section 5); a real component hands its own description
 * instead.
 */
export const modelDescription: SystemDescription = Object.freeze({
  name: 'gatesim model',
  errorReply,
  clearedReply,
  stateDbPath,
  transcriptPath,
  maxMessagesPerPrompt,
  sendAckTimeoutMs,
  retryWaitMaxMs,
});

/**
 * After the faults stop, the system may still act on what happened during them for this long (quiescent-after-heal):
 * nanoclaw's host sweep runs once a minute, so a claim that went stale just before the heal is acted on by the next
 * sweep, up to 60 s later; 5 s more for the kill and the restart.
 */
export const quiescenceGraceMs = 65_000;

/**
 * One finished run: the verdict and violations, the trace hash, fault coverage, and the simulation, model and world
 * it ran in.
 */
export interface RunResult {
  spec: RunSpec;
  verdict: 'pass' | 'fail';
  violations: Violation[];
  steps: number;
  simTimeMs: number;
  traceHash: string;
  coverage: FaultCoverage;
  sim: Simulation;
  model: BuiltModel;
  world: World;
  /** The ground truth the checkers judged by. */
  ledger: Ledger;
  /** The code that ran besides gatesim's own model (reports name it: a failure of real code is not the model's). */
  realCode: RealCode;
}

/**
 * What ran in place of parts of gatesim's model: a pinned OpenClaw release's parts, the real pi SessionManager, and
 * the processes that ran a component of the caller's own (passed to the run or declared by its scenario).
 */
export interface RealCode {
  openclaw?: OpenclawChoice;
  /**
   * Around the OpenClaw parts: the release's settings this run applied (surroundings.ts) and the fixed model's defences
   * that stayed in force; reports name them (sim/cli/real-code.ts). Absent without OpenClaw parts.
   */
  openclawAround?: AroundTheParts;
  sessionManager: 'model' | 'pi';
  custom: readonly string[];
}

/** How to run a RunSpec: the SQL engine (loadSqlJs()), and optional hooks and component replacements. */
export interface RunOptions {
  sql: SqlJsStatic;
  /** Kernel setting under test (scheduler.ts); default settleQuietHopsDefault. */
  settleQuietHops?: number;
  /**
   * Which SessionManager the runner opens transcripts with: the model's own (default) or the real pi one, loaded
   * through sim/real (needs the optional real/ package; a missing one is an Error saying how to install it).
   */
  sessionManager?: 'model' | 'pi';
  /** Test hook, called after the world is configured and before any process starts (e.g. to script the model). */
  prepare?: (sim: Simulation, model: BuiltModel, world: World) => void;
  /** Processes to run with a component of one's own; these win over the scenario's own `components`. */
  components?: ModelComponents;
  /**
   * Gateway parts run as a pinned OpenClaw release's (sim/real/openclaw; needs the optional openclaw/ workspace, and a
   * missing one is an Error saying how to install it). What the real code reaches that is not simulated fails the run.
   * Around them the model follows the release where docs/MODEL.md knows it (surroundings.ts), unless `around: 'model'`.
   */
  openclaw?: OpenclawChoice;
}

/**
 * Real code reached what the simulated world does not cover (a network call, a database on a path before node:sqlite
 * is simulated): the run has no verdict. A limit of gatesim's simulation, not a finding about the release.
 */
export class RealCodeEscapeError extends Error {
  override name = 'RealCodeEscapeError';
}

/** Run one plan of the model in a fresh simulation and check every invariant (built-in, then registered ones). */
export async function runSpec(spec: RunSpec, options: RunOptions): Promise<RunResult> {
  const plan = spec.plan;
  const endMs = plan.faultPhaseMs + plan.settleMs;
  const sim = new Simulation({
    seed: `gatesim/${spec.seed}`,
    sql: options.sql,
    simTimeMsMax: endMs,
    keepTrace: true,
    ...(options.settleQuietHops === undefined ? {} : { settleQuietHops: options.settleQuietHops }),
  });
  const sessions = Array.from({ length: plan.sessions }, (_, index) => sessionKey(index));
  const queueModes = Object.fromEntries(sessions.map((session, index) => [session, plan.queueModes?.[index] ?? 'collect']));
  const knobs: Partial<ModelKnobs> = { agentCacheSize: plan.model.agentCacheSize, queueModes, ...plan.secondWriters, ...(plan.processing === undefined ? {} : { processing: plan.processing }), ...scheduledTasks(plan), ...(plan.promptEnvelope === undefined ? {} : { promptEnvelope: plan.promptEnvelope }), ...clientKnobs(plan), ...compactionKnobs(plan), ...(plan.heartbeatRun === undefined ? {} : { heartbeatRun: plan.heartbeatRun }), ...(plan.toolDeadlines === undefined ? {} : { toolDeadlines: plan.toolDeadlines }), ...(plan.abandonedCalls === undefined ? {} : { abandonedCalls: plan.abandonedCalls }), ...dashboardKnobs(plan), ...deliveryKnobs(plan), ...lateResponseKnobs(plan), ...(plan.toolRowIds === undefined ? {} : { toolRowIds: plan.toolRowIds }), ...(plan.blockStreaming === undefined ? {} : { blockStreaming: plan.blockStreaming }) };
  // Around a release's parts the model follows the release where docs/MODEL.md knows it (sim/real/openclaw/surroundings.ts).
  const around = options.openclaw === undefined ? undefined : aroundTheParts(options.openclaw, { bugs: spec.bugs, knobs });
  const config = modelConfig({ bugs: around?.setup.bugs ?? spec.bugs, sessions, knobs: around?.setup.knobs ?? knobs });
  const world = buildWorld({
    timers: config.timers,
    gatewayName,
    configGeneration: config.knobs.configGeneration,
    randomFor: (key) => sim.prng.fork(key) as Random,
    nowMs: () => sim.clock.nowMs(),
    recordFault: (fields) => sim.trace.record('fault', fields),
    keylessPlatform: plan.keylessPlatform === true,
  });
  const sessionManagerFactory = options.sessionManager === 'pi' ? await piFactory(sim) : undefined;
  const gatewayParts = options.openclaw === undefined ? undefined : await openclawParts(sim, options.openclaw);
  const components = { ...findScenario(spec.scenario)?.components, ...options.components };
  const model = buildModel(
    config,
    {
      llm: world.modelApi,
      configGeneration: () => world.deployed.configGeneration,
      ...(sessionManagerFactory === undefined ? {} : { sessionManagerFactory }),
      ...(gatewayParts === undefined ? {} : { gatewayParts }),
    },
    components,
  );
  const recorder = new FaultRecorder(sim, world.modelApi);
  if (plan.keylessPlatform === true) recorder.keylessRun();
  if (plan.startup !== undefined) recorder.startupDelays(plan.startup);
  if (plan.tasks !== undefined) recorder.scheduledTasks(model.config.knobs.tasks);
  // A SQLite-era release keeps an agent DB the checkers read with their own reader (sim/checkers/agent-db.ts, loaded
  // here: the checks are synchronous); the description says where it is. Every other run's description is the model's.
  const system: SystemDescription = gatewayParts?.agentDbPath === undefined ? modelDescription : Object.freeze({ ...modelDescription, agentDbPath: gatewayParts.agentDbPath });
  if (system.agentDbPath !== undefined) await (await import('../checkers/agent-db.ts')).loadAgentDbReader();
  const monitor = new TranscriptMonitor(sim, sessions, system);
  // The model's note of a completed turn triggers the transcript check; the check itself reads only the files.
  sim.trace.onEvent((event) => {
    if (event.kind === 'model.turn-completed') monitor.check(event.index, event.timeMs);
  });
  configureWorld(sim, model, world, spec);
  configurePlatform(sim, world, spec.plan);
  // Client connections (issue 24 item 1): the WebChat client is a process of the world, beside the platform.
  const client = clientOf(sim, world, spec);
  options.prepare?.(sim, model, world);
  sim.spawn(platformName, (ctx) => world.platform.main(ctx));
  if (client !== undefined) sim.spawn(client.name, (ctx) => client.main(ctx));
  // The calendar exists only in runs that offer the agent an action on the world (a run without it spawns nothing new).
  if (plan.model.effectToolPer1000 !== undefined) sim.spawn(world.calendar.name, (ctx) => world.calendar.main(ctx));
  for (const process of model.processes) sim.spawn(process.name, process.main);
  scheduleWorkload(sim, model, world, spec, client);
  for (const task of model.config.knobs.tasks) scheduleOccurrences(sim, world, task);
  for (const fault of plan.faults) scheduleFault(sim, recorder, fault);
  sim.at(plan.faultPhaseMs, () => {
    recorder.active = false;
    endFaultPhase(sim, world);
  });
  const summary = await sim.run();
  gatewayParts?.finish?.();
  if (gatewayParts !== undefined && gatewayParts.escapes.length > 0) {
    throw new RealCodeEscapeError(`openclaw ${options.openclaw?.release}: the real code reached what the simulation does not cover: ${gatewayParts.escapes.slice(0, 3).join('; ')}${gatewayParts.escapes.length > 3 ? ` (and ${gatewayParts.escapes.length - 3} more)` : ''}`);
  }
  const violations = labelDecisiveSteps(checkRun({ sim, ledger: world.ledger, sessions, faultPhaseMs: plan.faultPhaseMs, quiescenceGraceMs, endMs, monitor, system }), sim.trace.events);
  return {
    spec,
    verdict: violations.length === 0 ? 'pass' : 'fail',
    violations,
    steps: summary.steps,
    simTimeMs: summary.simTimeMs,
    get traceHash(): string {
      return summary.traceHash;
    },
    coverage: recorder.coverage,
    sim,
    model,
    world,
    ledger: world.ledger,
    realCode: {
      ...(options.openclaw === undefined ? {} : { openclaw: options.openclaw }),
      ...(around === undefined ? {} : { openclawAround: { revision: around.revision, applied: around.applied, defences: around.defences } }),
      sessionManager: options.sessionManager === 'pi' ? 'pi' : 'model',
      custom: Object.keys(components).filter((name) => components[name as keyof typeof components] !== undefined).sort(),
    },
  };
}

/** A pinned OpenClaw release's gateway parts; sim/real/openclaw is loaded only when a run asks for it. */
async function openclawParts(sim: Simulation, choice: OpenclawChoice): Promise<GatewayParts & { escapes: string[]; finish?: () => void; agentDbPath?: string }> {
  const { openclawInstalled, OpenclawWorkspaceMissingError } = await import('../real/openclaw/releases.ts');
  if (!openclawInstalled(choice.release)) throw new OpenclawWorkspaceMissingError(choice.release);
  const { openclawGatewayPartsFor, isSqliteEra } = await import('../real/openclaw/gateway-parts.ts');
  // The SQLite era's node:sqlite runs on an engine loaded once per host process (an instance loads synchronously).
  if (isSqliteEra(choice.release)) await (await import('../real/openclaw-hooks/sqlite.mjs')).loadSimulatedSqlite();
  return openclawGatewayPartsFor(sim, choice);
}

/** The real pi SessionManager on this simulation's disk; sim/real is loaded only when a run asks for it. */
async function piFactory(sim: Simulation): Promise<SessionManagerFactory> {
  const { loadPiSessionManager, piMissingMessage } = await import('../real/loader.ts');
  const { piSessionManagerFactory } = await import('../real/pi-session-manager.ts');
  const pi = await loadPiSessionManager();
  if (pi === undefined) throw new Error(piMissingMessage);
  return piSessionManagerFactory(sim, pi);
}

function configureWorld(sim: Simulation, model: BuiltModel, world: World, spec: RunSpec): void {
  const { faultKnobs, model: knobs } = spec.plan;
  for (const [a, b] of linkPairs) {
    for (const [from, to] of [[a, b], [b, a]] as const) {
      const reconnecting = model.links.some((link) => link.from === from && link.to === to && link.reconnecting);
      sim.network.configure(from, to, {
        delayMsMin: 1,
        delayMsMax: Math.max(2, faultKnobs.delayMsMax),
        dropPer1000: faultKnobs.dropPer1000,
        duplicatePer1000: faultKnobs.duplicatePer1000,
        reorder: faultKnobs.reorder,
        reconnecting,
        reconnectDelayMs: 1_000,
      });
    }
  }
  sim.disk.faults = { ...sim.disk.faults, tearPer1000: faultKnobs.diskTearPer1000, backgroundSyncPer1000: faultKnobs.diskWritebackPer1000 };
  sim.sqlite.faults = { ...sim.sqlite.faults, busyPer1000: faultKnobs.sqlBusyPer1000 };
  configureWriteStalls(sim, spec.plan);
  const api = world.modelApi;
  api.faultsEndAtMs = spec.plan.faultPhaseMs;
  api.behaviour = {
    ...api.behaviour,
    toolCallPer1000: knobs.toolCallPer1000,
    repeatPer1000: knobs.repeatPer1000,
    repeatOnlyPer1000: knobs.repeatOnlyPer1000,
    stockAnswerPer1000: knobs.stockAnswerPer1000,
    transientErrorPer1000: faultKnobs.modelErrorPer1000,
    errorStreakMax: faultKnobs.modelErrorStreakMax,
    toolCallsMax: knobs.toolCallsMax,
    slowPer1000: faultKnobs.modelSlowPer1000,
    effectToolPer1000: knobs.effectToolPer1000 ?? 0,
    namesContext: spec.plan.contextAnswers === true,
  };
}

function scheduleWorkload(sim: Simulation, model: BuiltModel, world: World, spec: RunSpec, client?: WebChatClient): void {
  const clientSessions = new Set((spec.plan.clients?.sessions ?? []).map((session) => sessionKey(session % spec.plan.sessions)));
  spec.plan.workload.forEach((step, index) => {
    const session = sessionKey(step.kind === 'config-bump' ? 0 : step.session % spec.plan.sessions);
    // A client session's user types into the WebChat client (a direct chat: every message addresses the agent).
    const viaClient = client !== undefined && clientSessions.has(session);
    switch (step.kind) {
      case 'user': {
        const text = `${step.text} ${step.poison === true ? `${poisonInput} ` : ''}${userMarker(index)}`;
        sim.at(step.atMs, () => (viaClient ? client.userSays(session, text, userMarker(index)) : world.platform.userSays(session, `d${index}`, text, userMarker(index), step.mentions ?? true)));
        break;
      }
      case 'clear':
        sim.at(step.atMs, () => (viaClient ? client.userSays(session, `/clear ${userMarker(index)}`, userMarker(index)) : world.platform.userSays(session, `d${index}`, `/clear ${userMarker(index)}`, userMarker(index))));
        break;
      case 'exec':
        sim.at(step.atMs, () => {
          const runId = `run-${index}`;
          const command = { runId, sessionKey: session, command: world.commandLine(runId), durationMs: step.durationMs, exitCode: step.exitCode, timedOut: false, output: step.output };
          world.ledger.commandRequested({ ...command, requestedAtMs: sim.clock.nowMs() });
          model.nodeHost.run(command);
        });
        break;
      case 'dashboard':
        sim.at(step.atMs, () => dashboardTurn(sim, model, world, session, `${step.text} ${dashboardMarker(index)}`, dashboardMarker(index)));
        break;
      case 'config-bump':
        sim.at(step.atMs, () => {
          world.deployed.configGeneration++;
          sim.trace.record('fault', { kind: 'config-bump', generation: world.deployed.configGeneration });
        });
        break;
    }
  });
}

/**
 * Issue 48: the platform's limit as the gateway's delivery knob (it splits at the platform's limit), with the mode.
 * A plan's platform is checked here, before anything runs: a bad one is an Error that says what is wrong.
 */
function deliveryKnobs(plan: RunSpec['plan']): { delivery: { textLimit: number; mode: NonNullable<RunSpec['plan']['deliveryMode']> } } | Record<string, never> {
  const platform = plan.platform;
  if (platform === undefined) {
    if (plan.deliveryMode !== undefined) throw new Error(`a plan's deliveryMode (${plan.deliveryMode}) needs its platform (the limit and the refusals it handles)`);
    return {};
  }
  if (!Number.isSafeInteger(platform.textLimit) || platform.textLimit < 100) throw new Error(`a platform's textLimit is a whole number of characters, at least 100, not ${platform.textLimit}`);
  for (const [name, rate] of [['rateLimitPer1000', platform.rateLimitPer1000], ['ambiguousPer1000', platform.ambiguousPer1000], ['longReplyPer1000', platform.longReplyPer1000]] as const) {
    if (!Number.isSafeInteger(rate) || rate < 0 || rate > 1000) throw new Error(`a platform's ${name} is a whole number from 0 to 1000, not ${rate}`);
  }
  if (!Number.isSafeInteger(platform.retryAfterMsMax) || platform.retryAfterMsMax < 1_000) throw new Error(`a platform's retryAfterMsMax is whole milliseconds, at least 1000 (a retry-after is 1 s or more), not ${platform.retryAfterMsMax}`);
  if (!Number.isSafeInteger(platform.notReadyMsMax) || platform.notReadyMsMax < 0) throw new Error(`a platform's notReadyMsMax is whole milliseconds, not ${platform.notReadyMsMax}`);
  for (const window of platform.notFound) {
    if (![window.session, window.atMs, window.durationMs].every((value) => Number.isSafeInteger(value) && value >= 0)) throw new Error(`a platform's not-found window has a session, a time and a duration, whole and not negative: ${JSON.stringify(window)}`);
  }
  return { delivery: { textLimit: platform.textLimit, mode: plan.deliveryMode ?? 'fixed' } };
}

/**
 * Issue 48: the platform's refusals and ambiguous answers, drawn from a sub-stream of their own; the fake LLM's long
 * replies (1.2 to 3 times the limit); the listener not ready after each gateway start (the kernel's own start events).
 */
function configurePlatform(sim: Simulation, world: World, plan: RunSpec['plan']): void {
  const platform = plan.platform;
  if (platform === undefined) return;
  world.platform.configureRefusals(
    {
      textLimit: platform.textLimit,
      rateLimitPer1000: platform.rateLimitPer1000,
      retryAfterMsMax: platform.retryAfterMsMax,
      notFound: platform.notFound.map((window) => ({ sessionKey: sessionKey(window.session % plan.sessions), fromMs: window.atMs, toMs: Math.min(plan.faultPhaseMs, window.atMs + window.durationMs) })),
      notReadyMsMax: platform.notReadyMsMax,
      ambiguousPer1000: platform.ambiguousPer1000,
    },
    sim.prng.fork('world/platform-refusals') as Random,
    (fields) => sim.trace.record('fault', fields),
  );
  world.modelApi.behaviour = { ...world.modelApi.behaviour, longReplyPer1000: platform.longReplyPer1000, longReplyCharsMin: Math.ceil(platform.textLimit * 1.2), longReplyCharsMax: platform.textLimit * 3 };
  sim.trace.onEvent((event: TraceEvent) => {
    if ((event.kind === 'proc.spawn' || event.kind === 'proc.restart') && event.fields.name === gatewayName) world.platform.gatewayStarted(event.timeMs + Number(event.fields.startupMs ?? 0));
  });
}

/**
 * nanoclaw's busy timeout on the session databases (`PRAGMA busy_timeout = 5000`, container/agent-runner/src/db/
 * connection.ts): how long a write waits behind a stalled writer before "database is locked".
 */
export const stalledWriterBusyTimeoutMs = 5_000;

/** Issue 48 item 4: the plan's stalled SQLite writes and fsyncs, from the start of the faults (the heal stops new ones). */
function configureWriteStalls(sim: Simulation, plan: RunSpec['plan']): void {
  const stalls = plan.writeStalls;
  if (stalls === undefined) return;
  if (!Number.isSafeInteger(stalls.per1000) || stalls.per1000 < 0 || stalls.per1000 > 1000) throw new Error(`stalled writes per 1000 writes are 0 to 1000, not ${stalls.per1000}`);
  if (!Number.isSafeInteger(stalls.msMin) || !Number.isSafeInteger(stalls.msMax) || stalls.msMin < 1 || stalls.msMax < stalls.msMin || stalls.msMax > 600_000) throw new Error(`a write stalls for msMin..msMax, whole, 1 ms to 10 min: ${stalls.msMin}..${stalls.msMax}`);
  sim.sqlite.enableWriteStalls({ ...stalls, busyTimeoutMs: stalledWriterBusyTimeoutMs }, () => sim.clock.nowMs(), sim.scheduler);
  sim.disk.enableFsyncStalls(stalls);
}

/**
 * Issue 48 item 6: the plan's bursts of late tool responses (rows every poll skips) as the gateway's knob, and the
 * order of the runner's poll. A bad burst is an Error that says what is wrong.
 */
function lateResponseKnobs(plan: RunSpec['plan']): { lateResponses?: LateResponses[]; pollOrder?: PollOrder } {
  for (const burst of plan.lateResponses ?? []) {
    if (![burst.session, burst.atMs].every((value) => Number.isSafeInteger(value) && value >= 0)) throw new Error(`a burst of late responses has a session and a time, whole and not negative: ${JSON.stringify(burst)}`);
    if (!Number.isSafeInteger(burst.count) || burst.count < 1 || burst.count > 100) throw new Error(`a burst of late responses has 1 to 100 rows, not ${burst.count}`);
  }
  return {
    ...(plan.lateResponses === undefined ? {} : { lateResponses: plan.lateResponses.map((burst) => ({ sessionKey: sessionKey(burst.session % plan.sessions), atMs: burst.atMs, count: burst.count })) }),
    ...(plan.pollOrder === undefined ? {} : { pollOrder: plan.pollOrder }),
  };
}

/** Issue 44 item 5: Hermes' dashboard runs when the plan types a turn at it; the agent cache's coherence mode. */
function dashboardKnobs(plan: RunSpec['plan']): { dashboard?: boolean; agentCacheCoherence?: AgentCacheCoherence } {
  return {
    ...(plan.workload.some((step) => step.kind === 'dashboard') ? { dashboard: true } : {}),
    ...(plan.agentCacheCoherence === undefined ? {} : { agentCacheCoherence: plan.agentCacheCoherence }),
  };
}

/** The unique token the workload puts in the text of dashboard turn i (a step of the workload, like userMarker). */
export function dashboardMarker(index: number): string {
  return `[w${index}]`;
}

/** The dashboard's user types a turn: the world records it, and the answer the dashboard shows when it shows it. */
function dashboardTurn(sim: Simulation, model: BuiltModel, world: World, sessionKey: string, text: string, marker: string): void {
  const fact = world.ledger.dashboardTyped({ sessionKey, text, marker, typedAtMs: sim.clock.nowMs() });
  assert(model.dashboard !== undefined, 'a run whose plan types at the dashboard runs it');
  model.dashboard.submit({ id: `dashboard:${marker}`, sessionKey, text }, (answer) => {
    if (answer !== null) world.ledger.dashboardShown(fact, answer, sim.clock.nowMs());
  });
}

/** The plan's context limit as the model's compaction knob (the fixed cut unless a test sabotages it). */
function compactionKnobs(plan: RunSpec['plan']): { compaction: CompactionKnobs } | Record<string, never> {
  if (plan.compaction === undefined) return {};
  return { compaction: { contextTokensMax: plan.compaction.contextTokensMax, keepRecentTokens: plan.compaction.keepRecentTokens, cut: plan.compaction.cut ?? 'turn-start' } };
}

/** The plan's scheduled tasks as the model's knobs (task `t<i>`, its prompt marked `[t<i>]`), with the fanout mode. */
function scheduledTasks(plan: RunSpec['plan']): { tasks: ScheduledTask[]; recurrence?: RecurrenceMode; cron?: CronKnobs; fallbackDelivery?: FallbackDeliveryMode } | Record<string, never> {
  if (plan.tasks === undefined) return {};
  const tasks = plan.tasks.map((task, index) => ({
    id: `t${index}`,
    sessionKey: sessionKey(task.session % plan.sessions),
    prompt: `${task.prompt} [t${index}]`,
    firstDueMs: task.firstDueMs,
    everyMs: task.everyMs,
    count: task.count,
  }));
  if (plan.fallbackDelivery !== undefined && !fallbackDeliveryModes.includes(plan.fallbackDelivery)) throw new Error(`the fallback delivery is one of ${fallbackDeliveryModes.join(', ')}, not ${String(plan.fallbackDelivery)}`);
  return { tasks, ...(plan.recurrence === undefined ? {} : { recurrence: plan.recurrence }), ...cronKnobs(plan), ...(plan.fallbackDelivery === undefined ? {} : { fallbackDelivery: plan.fallbackDelivery }) };
}

/** Issue 48 item 5: the gateway's cron executor, checked (a bad knob is an Error that says what is wrong). */
function cronKnobs(plan: RunSpec['plan']): { cron?: CronKnobs } {
  const cron = plan.cron;
  if (cron === undefined) return {};
  if (!cronModes.includes(cron.mode)) throw new Error(`the cron executor's mode is one of ${cronModes.join(', ')}, not ${String(cron.mode)}`);
  if (!Number.isSafeInteger(cron.timeoutMs) || cron.timeoutMs < 1) throw new Error(`a cron attempt's timeout is a positive whole number of ms, not ${cron.timeoutMs}`);
  if (!Number.isSafeInteger(cron.attemptsMax) || cron.attemptsMax < 1 || cron.attemptsMax > 10) throw new Error(`the cron executor makes 1 to 10 attempts, not ${cron.attemptsMax}`);
  if (cron.backoffMs.length === 0 || !cron.backoffMs.every((ms) => Number.isSafeInteger(ms) && ms >= 0)) throw new Error(`the cron backoff is a list of whole, non-negative waits: ${JSON.stringify(cron.backoffMs)}`);
  return { cron: { mode: cron.mode, timeoutMs: cron.timeoutMs, backoffMs: [...cron.backoffMs], attemptsMax: cron.attemptsMax } };
}

/**
 * The world knows the schedule the run set up: at each due time the ledger records the occurrence as a subject owed a
 * reply, found by its text as the system renders a task occurrence (the description of the system under test).
 */
function scheduleOccurrences(sim: Simulation, world: World, task: ScheduledTask): void {
  for (const dueMs of taskDueTimes(task)) {
    sim.at(dueMs, () => world.ledger.taskDue({ sessionKey: task.sessionKey, taskId: task.id, dueMs, text: taskOccurrenceText(task.prompt, dueMs) }));
  }
}

/** The plan's client sessions as the model's knobs (issue 24 item 1), with the gateway's dedupe and replay. */
function clientKnobs(plan: RunSpec['plan']): { clients: ChatClientsKnobs } | Record<string, never> {
  if (plan.clients === undefined) return {};
  const sessions = [...new Set(plan.clients.sessions.map((session) => sessionKey(session % plan.sessions)))];
  return { clients: { sessions, dedupe: plan.clients.dedupe ?? 'durable', replay: plan.clients.replay ?? 'after' } };
}

/**
 * The WebChat client of a run with client sessions, and its WebSocket to the gateway: a connection (connection ids,
 * a drop kills it) with the run's delays and drop rate; no duplicate and no reorder (TCP neither repeats nor
 * reorders what a WebSocket carries).
 */
function clientOf(sim: Simulation, world: World, spec: RunSpec): WebChatClient | undefined {
  const plan = spec.plan;
  if (plan.clients === undefined) return undefined;
  const sessions = clientKnobs(plan).clients?.sessions ?? [];
  for (const [from, to] of [[webchatName, gatewayName], [gatewayName, webchatName]] as const) {
    sim.network.configure(from, to, { delayMsMin: 1, delayMsMax: Math.max(2, plan.faultKnobs.delayMsMax), dropPer1000: plan.faultKnobs.dropPer1000, reconnecting: true, reconnectDelayMs: 1_000 });
  }
  return new WebChatClient(webchatName, gatewayName, world.ledger, sim.prng.fork('world/webchat') as Random, sessions, plan.clients.retryKey ?? 'same');
}

/** The unique token the workload puts in the text of user message i, by which the checkers find it. */
export function userMarker(index: number): string {
  return `[m${index}]`;
}

function scheduleFault(sim: Simulation, recorder: FaultRecorder, fault: FaultStep): void {
  switch (fault.kind) {
    case 'kill':
      sim.at(fault.atMs, () => recorder.kill(fault.process, fault.restartAfterMs));
      break;
    case 'kill-at-phase':
      onPhase(sim, recorder, fault.phase, fault.nth, () =>
        sim.scheduler.schedule(fault.delayMs, () => recorder.kill(fault.process, fault.restartAfterMs)),
      );
      break;
    case 'power-loss':
      sim.at(fault.atMs, () => recorder.powerLoss(fault.restartAfterMs));
      break;
    case 'power-loss-at-phase':
      onPhase(sim, recorder, fault.phase, fault.nth, () => sim.scheduler.schedule(fault.delayMs, () => recorder.powerLoss(fault.restartAfterMs)));
      break;
    case 'power-loss-at-append': {
      let seen = 0;
      sim.trace.onEvent((event: TraceEvent) => {
        if (event.kind !== 'disk.append' || !String(event.fields.path).endsWith('.jsonl') || seen++ !== fault.nth) return;
        // From a kernel event at the same instant: the append is in the page cache and its fsync (at least 1 ms) has
        // not completed.
        sim.scheduler.schedule(0, () => recorder.powerLoss(fault.restartAfterMs));
      });
      break;
    }
    case 'stall':
      sim.at(fault.atMs, () => recorder.stall(fault.process, fault.durationMs));
      break;
    case 'model-outage':
      sim.at(fault.atMs, () => recorder.modelOutage(fault.durationMs));
      break;
    case 'partition':
      sim.at(fault.atMs, () => recorder.linkFault('partition', fault.link, fault.healAfterMs));
      break;
    case 'hold':
      sim.at(fault.atMs, () => recorder.linkFault('hold', fault.link, fault.releaseAfterMs));
      break;
    case 'reset':
      sim.at(fault.atMs, () => recorder.linkFault('reset', fault.link, 0));
      break;
    case 'reset-at-phase':
      onPhase(sim, recorder, fault.phase, fault.nth, () => sim.scheduler.schedule(fault.delayMs, () => recorder.linkFault('reset', fault.link, 0)));
      break;
    case 'client-drop':
      sim.at(fault.atMs, () => recorder.clientDrop());
      break;
    case 'client-drop-at': {
      let seen = 0;
      sim.trace.onEvent((event: TraceEvent) => {
        if (event.kind !== clientPointNotes[fault.point] || !recorder.active || seen++ !== fault.nth) return;
        sim.scheduler.schedule(fault.delayMs, () => recorder.clientDrop());
      });
      break;
    }
  }
}

/** Call `then` (from a kernel event) when the nth trace event of `phase` is recorded. */
function onPhase(sim: Simulation, recorder: FaultRecorder, phase: Phase, nth: number, then: () => void): void {
  let seen = 0;
  let fired = false;
  sim.trace.onEvent((event: TraceEvent) => {
    if (fired || phaseOfTrace(event) !== phase) return;
    // Faults stop with the fault phase: a trigger that has not fired by then never fires.
    if (!recorder.active) return;
    if (seen++ === nth) {
      fired = true;
      then();
    }
  });
}

function endFaultPhase(sim: Simulation, world: World): void {
  sim.trace.record('fault', { kind: 'fault-phase-end' });
  for (const [a, b] of linkPairs) {
    for (const [from, to] of [[a, b], [b, a]] as const) {
      sim.network.configure(from, to, { dropPer1000: 0, duplicatePer1000: 0, reorder: false, delayMsMax: 20 });
      sim.network.heal(from, to);
      sim.network.release(from, to);
    }
  }
  if (sim.processes.isRunning(webchatName)) {
    for (const [from, to] of [[webchatName, gatewayName], [gatewayName, webchatName]] as const) sim.network.configure(from, to, { dropPer1000: 0, delayMsMax: 20 });
  }
  sim.disk.faults = { ...sim.disk.faults, tearPer1000: 0 };
  sim.sqlite.faults = { ...sim.sqlite.faults, busyPer1000: 0 };
  sim.sqlite.stopWriteStalls();
  sim.disk.stopFsyncStalls();
  world.modelApi.faultsActive = false;
  world.platform.faultsActive = false;
  // A stalled process goes on; anything still down comes back (the gateway supervises the runner and tool server).
  for (const name of sim.processes.names()) sim.cont(name);
  for (const name of [gatewayName, nodeHostName, runnerName]) {
    if (!sim.processes.isRunning(name)) sim.restart(name, 0);
  }
  assert(sim.clock.nowMs() >= 0, 'clock');
}
