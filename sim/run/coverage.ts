// Fault coverage: for each fault type (kills by process) and each phase of a turn, how often a fault landed there.
// The "current phase" is the phase of the most recent phase-bearing trace event of any session, so a runner kill
// right after a tool send and before the result dispatch counts as kill-runner under tool-send. A campaign sums the
// tables of its runs. Below the faults, shapes of a run that are no fault but must be reached (issue 9): a message
// row the host marked failed after 5 tries, an LLM request that hung on a poison message (the world's shape that
// leads there), an LLM response stream cut after its closing text (the shape that leads to the backfill), a session rotation (/clear), a run on a platform without idempotency keys (once per run, idle) and an
// interrupt-mode abort, a restart that waited out a start-up delay, and in Hermes' processing mode a run ended at its
// first failure and an LLM call the agent retried within its run; and each retention window of the model closing
// inside a run (issue 44 item 4). The recorder also draws each restart's start-up delay (issue 24 item 6), since a
// slow start-up is a fault: only while the faults last.
import { assert } from '../kernel/assert.ts';
import { type FaultType, faultTypes, hostProcesses, type KillableProcess, linkPairs, type Phase, phaseOfTrace, phases, type StartupKnobs } from './plan.ts';
import type { Simulation } from '../kernel/simulation.ts';
import type { FakeModelApi } from '../world/fake-model.ts';
import type { TraceEvent } from '../kernel/trace.ts';
import { ClientShapes, clientShapes } from './client-coverage.ts';
import { EnvelopeShapes, envelopeShapes } from './envelope-coverage.ts';
import { defaultTimers, occurrenceId, type ScheduledTask, taskDueTimes } from '../../src/index.ts';

const gatewayProcess: (typeof hostProcesses)[number] = 'gateway';

/**
 * What the second writers did, counted like the faults (the phase they happened in): the delivery mirror appended an
 * entry, found its idempotency key already there, or gave up on a busy session write lock; a stale lock was reclaimed;
 * Hermes' gateway appended a run's exchange with every row skipped for state.db, wrote a failed run's user row there
 * itself, or backfilled a response that no message of the run carried; Hermes' dashboard committed a turn of its own
 * (issue 44 item 5), and a cached agent was rebuilt because another writer appended to its session between two turns.
 */
export const secondWriterShapes = ['mirror-appended', 'mirror-deduped', 'mirror-lock-busy', 'lock-reclaimed', 'append-skip-db', 'append-to-db', 'append-backfill', 'dashboard-turn', 'cached-agent-rebuilt-for-another-writer'] as const;
/**
 * Where the faults met scheduled tasks (issue 24 item 2): a runner or tool server killed (or the machine's power lost)
 * while a task occurrence's turn ran; a poll that took an occurrence some earlier poll had already taken (after a kill,
 * or a claim the host reset while a stalled runner held it); the gateway killed after a turn took an occurrence and
 * before the host fanned out its series' next occurrence.
 */
export const taskShapes = ['task-kill', 'task-repoll', 'task-fanout-restart'] as const;
/**
 * Where the faults met compaction (issue 24 item 3): a compaction entry appended; the runner killed (or the power lost)
 * after a compaction started and before its entry was appended (during the summary call or between it and the append);
 * a summary call that failed (its attempt failed with it).
 */
export const compactionShapes = ['compaction', 'compaction-kill', 'compaction-summary-failed'] as const;
/**
 * Where the faults met the gateway's own heartbeat runs (issue 24 item 5): a candidate model's request given up at the
 * run's timeout; a fallback model asked after the one before it failed; a run that failed with every candidate; the
 * gateway killed (or the power lost) while a heartbeat run waited for its answer.
 */
export const heartbeatRunShapes = ['heartbeat-run-timeout', 'heartbeat-run-failover', 'heartbeat-run-failed', 'heartbeat-run-kill'] as const;
/**
 * The model's retention windows closing inside a run (issue 44 item 4; docs/MODEL.md "Retention windows"): a node
 * host's resend of an exec event deduped more than execDedupeWindowMs (10 min) after the event was first taken (the
 * window the durable exec keys had until issue 44; they are now kept by count); the sweep killing a runner whose claim
 * (and session heartbeat) was silent past claimStaleMs (60 s), or whose heartbeat was older than heartbeatStaleMs (30
 * min, the ceiling); a tool call that acts on the world let go at its deadline (toolCallDeadlineMs, 30 s); the platform
 * giving up redelivering a webhook (platformRedeliveriesMax redeliveries, platformRedeliverMs apart).
 */
export const windowShapes = ['exec-resend-after-window', 'claim-stale-kill', 'heartbeat-stale-kill', 'tool-deadline-passed', 'redelivery-ended'] as const;
/**
 * A platform that refuses and limits (issue 48 items 1 and 2): a send refused by flood control (with a retry-after), for
 * a chat not found, for a listener not ready yet after a gateway start, for a text over the limit; a send whose answer
 * was lost or late (ambiguous), of a whole message or of a part of a long reply; a reply delivered in parts; a reply
 * the gateway gave up on.
 */
export const platformShapes = ['send-rate-limited', 'send-chat-not-found', 'send-listener-not-ready', 'send-too-long', 'send-ambiguous', 'part-ambiguous', 'reply-in-parts', 'delivery-given-up'] as const;
/**
 * Rows left pending by design (issue 48 item 6): a poll took a message while tool responses it skips on purpose lay
 * above it (`poll-skipped-rows`), and one where a message it took lay beyond the newest 10 due rows, the window a poll
 * that limits before it filters takes (`poll-window-filled`: nanoclaw's order would not have taken it then).
 */
export const skippedRowShapes = ['poll-skipped-rows', 'poll-window-filled'] as const;
/**
 * Stalled writes (issue 48 item 4): a SQLite write or an fsync stalled (`write-stall`, the world's fault) and landed
 * after its stall (`write-stall-landed`); a deadline fired while a stalled write of its session, database or file was
 * still pending (`deadline-during-stall`: the runner's tool-call timeout or retry, a busy timeout behind the stalled
 * writer, the sweep's kill of a silent claim, the session write lock's timeout on a transcript whose fsync stalls); and such a stalled write landed after the deadline gave up
 * (`stall-landed-after-deadline`).
 */
export const stallShapes = ['write-stall', 'write-stall-landed', 'deadline-during-stall', 'stall-landed-after-deadline'] as const;
/**
 * Work that overlaps (issue 48 item 5): a cron attempt started while an earlier attempt's request of the same
 * occurrence still ran (`cron-retry-overlapped`); an answer that came after its attempt had timed out, so the executor
 * was told the attempt failed and the work was done later (`cron-late-completion`); such an answer, or any second
 * one, reconciled with its occurrence once that had left the executor's hands (`cron-answer-reconciled`: the fixed
 * executor withdraws the requests still out, or drops an answer that finds the row released; the sabotage runs it
 * again); an
 * occurrence whose attempts all failed, handed to the chat lane (`cron-handed-over`); and a call the tool server read
 * only after its caller had given up on it (`dependency-late-for-caller`: refused past its deadline, or fenced).
 */
export const overlapShapes = ['cron-retry-overlapped', 'cron-late-completion', 'cron-answer-reconciled', 'cron-handed-over', 'dependency-late-for-caller'] as const;
/**
 * Fallback delivery paths (issue 48 item 3): a task's output whose announce did not report delivery in its 15 s
 * (`announce-failed`), and one delivered by the direct send, its fallback (`delivered-by-fallback`).
 */
export const fallbackShapes = ['announce-failed', 'delivered-by-fallback'] as const;
/**
 * Block streaming (issue 48 item 2): a block of a reply streamed as its own send (`blocks-streamed`), a final dispatch
 * that left out a body its blocks had streamed (`final-deduplicated`), and one that sent only the rest of a stream a
 * fault cut (`block-stream-cut`).
 */
export const blockStreamShapes = ['blocks-streamed', 'final-deduplicated', 'block-stream-cut'] as const;
/** Other shapes of a run counted beside the faults (not fault types: the plan does not switch them on and off). */
export const shapeTypes = ['failed-row', 'poison-hang', 'stream-cut', 'session-rotation', 'keyless-run', 'interrupt-abort', 'startup-wait', 'first-failure-end', 'agent-retry', ...taskShapes, ...clientShapes, ...compactionShapes, ...heartbeatRunShapes, ...windowShapes, ...skippedRowShapes, ...stallShapes, ...overlapShapes, ...fallbackShapes, ...blockStreamShapes] as const;
export type ShapeType = (typeof shapeTypes)[number];
/** The rows of the coverage table: fault types, then the shapes the system took. */
export const coverageRows = [...faultTypes, ...secondWriterShapes, ...shapeTypes, ...envelopeShapes, ...platformShapes] as const;
export type CoverageRow = (typeof coverageRows)[number];

/** How many faults of each type (and shapes of each kind) landed in each phase of a turn (or while idle). */
export type FaultCoverage = Record<CoverageRow, Record<Phase | 'idle', number>>;

export function emptyCoverage(): FaultCoverage {
  const coverage = {} as FaultCoverage;
  for (const type of coverageRows) {
    const row = { idle: 0 } as Record<Phase | 'idle', number>;
    for (const phase of phases) row[phase] = 0;
    coverage[type] = row;
  }
  return coverage;
}

export function addCoverage(into: FaultCoverage, from: FaultCoverage): void {
  for (const type of coverageRows) for (const [phase, count] of Object.entries(from[type])) into[type][phase as Phase] += count;
}

export class FaultRecorder {
  readonly coverage = emptyCoverage();
  private phase: Phase | 'idle' = 'idle';
  private inPowerLoss = false;
  private readonly reorders = new ReorderDetector();
  private readonly tasks = new TaskShapes();
  private readonly clients = new ClientShapes();
  private readonly envelope = new EnvelopeShapes();
  private readonly stalls = new StallShapes();

  constructor(
    private readonly sim: Simulation,
    private readonly modelApi?: FakeModelApi,
  ) {
    sim.trace.onEvent((event) => this.observe(event));
  }

  /** The occurrences of the run's scheduled tasks whose series goes on (the host fans out a next one after each). */
  scheduledTasks(tasks: readonly ScheduledTask[]): void {
    for (const task of tasks) for (const dueMs of taskDueTimes(task).slice(0, -1)) this.tasks.followed.add(occurrenceId(task.id, dueMs));
  }

  /** The run's platform ignores client idempotency keys. */
  keylessRun(): void {
    this.coverage['keyless-run'].idle++;
  }

  private faultsActive = true;
  private startup: StartupKnobs | undefined;

  /** After the fault phase ends, no new fault lands (a delayed phase-triggered one included). */
  get active(): boolean {
    return this.faultsActive;
  }

  /** The faults stop: a slow start-up still running ends within a normal one. */
  set active(value: boolean) {
    this.faultsActive = value;
    if (!value && this.startup !== undefined) this.sim.processes.hurryStartups(this.startup.msMax);
  }

  /**
   * Each restart of a process takes a start-up delay drawn from the run's PRNG (its own sub-stream, so no other draw
   * moves): msMin to msMax, and while the faults last a slow one (a `startup-slow` fault) with chance slowPer1000.
   */
  startupDelays(knobs: StartupKnobs): void {
    assert(knobs.msMin >= 0 && knobs.msMin <= knobs.msMax, `start-up delays of ${knobs.msMin} to ${knobs.msMax} ms`);
    assert(knobs.slowMsMin <= knobs.slowMsMax && knobs.slowPer1000 >= 0 && knobs.slowPer1000 <= 1000, 'slow start-ups are a range and a chance per 1000');
    this.startup = knobs;
    const random = this.sim.prng.fork('startup');
    this.sim.processes.startupDelay = (name) => {
      // Every draw is made on every restart, so one draw's outcome never shifts the next restart's.
      const slow = random.chance(knobs.slowPer1000, 1000);
      const slowMs = random.int(knobs.slowMsMin, knobs.slowMsMax);
      const normalMs = random.int(knobs.msMin, knobs.msMax);
      if (!slow || !this.faultsActive) return normalMs;
      this.sim.trace.record('fault', { kind: 'startup-slow', name, startupMs: slowMs });
      return slowMs;
    };
  }

  kill(process: KillableProcess, restartAfterMs: number): void {
    if (!this.active) return;
    if (this.sim.kill(process)) this.sim.restart(process, restartAfterMs);
  }

  /** The gateway's machine loses power; it boots after restartAfterMs and the gateway starts the runner and tool server. */
  powerLoss(restartAfterMs: number): void {
    if (!this.active) return;
    // The kills a power loss makes are counted as the power loss, not as kills of their own.
    this.inPowerLoss = true;
    this.sim.powerLoss(hostProcesses);
    this.inPowerLoss = false;
    this.sim.restart(gatewayProcess, restartAfterMs);
  }

  /** `process` stalls for durationMs (the same incarnation goes on afterwards, unless it was killed meanwhile). */
  stall(process: KillableProcess, durationMs: number): void {
    if (!this.active) return;
    const incarnation = this.sim.processes.current(process);
    if (incarnation === undefined || !this.sim.stop(process)) return;
    this.sim.scheduler.schedule(durationMs, () => {
      if (this.sim.processes.current(process) === incarnation) this.sim.cont(process);
    });
  }

  /** The LLM API (the world) goes down for durationMs: every request fails. */
  modelOutage(durationMs: number): void {
    if (!this.active || this.modelApi === undefined) return;
    this.modelApi.outageUntilMs = Math.max(this.modelApi.outageUntilMs, this.sim.clock.nowMs() + durationMs);
    this.sim.trace.record('fault', { kind: 'model-outage', durationMs });
  }

  /** The WebChat client's WebSocket to the gateway dies (issue 24 item 1): a reset of their connection. */
  clientDrop(): void {
    if (!this.active) return;
    this.sim.network.reset('webchat', gatewayProcess);
  }

  linkFault(kind: 'partition' | 'hold' | 'reset', link: number, undoAfterMs: number): void {
    if (!this.active) return;
    const pair = linkPairs[link % linkPairs.length] ?? linkPairs[0];
    const [a, b] = pair;
    const network = this.sim.network;
    if (kind === 'partition') {
      network.partition(a, b);
      this.sim.scheduler.schedule(undoAfterMs, () => network.heal(a, b));
    } else if (kind === 'hold') {
      network.hold(a, b);
      network.hold(b, a);
      this.sim.scheduler.schedule(undoAfterMs, () => {
        network.release(a, b);
        network.release(b, a);
      });
    } else {
      network.reset(a, b);
    }
  }

  /** Compactions started and not yet appended (or failed), by session. */
  private readonly compacting = new Set<string>();

  /** Whether the event kills the runner (or the machine) while a compaction is between its start and its entry. */
  private compactionKilled(event: TraceEvent): boolean {
    if (event.kind === 'model.compaction-start') this.compacting.add(String(event.fields.session));
    else if (event.kind === 'model.compaction' || event.kind === 'model.compaction-failed') this.compacting.delete(String(event.fields.session));
    if (this.compacting.size === 0) return false;
    const killed = (event.kind === 'proc.kill' && event.fields.name === 'runner') || (event.kind === 'fault' && event.fields.kind === 'power-loss');
    if (!killed) return false;
    this.compacting.clear();
    return true;
  }

  /** Sessions whose gateway heartbeat run waits for an answer. */
  private readonly heartbeatRunning = new Set<string>();

  /** Whether the event kills the gateway (or the machine) while one of its heartbeat runs waits for its answer. */
  private heartbeatRunKilled(event: TraceEvent): boolean {
    const session = String(event.fields.session);
    if (event.kind === 'model.heartbeat-run') this.heartbeatRunning.add(session);
    else if (event.kind === 'model.heartbeat-run-failover' || event.kind === 'model.heartbeat-run-released' || event.kind === 'model.heartbeat-run-failed' || event.kind === 'model.exec-ingest') this.heartbeatRunning.delete(session);
    if (this.heartbeatRunning.size === 0) return false;
    const killed = (event.kind === 'proc.kill' && event.fields.name === 'gateway') || (event.kind === 'fault' && event.fields.kind === 'power-loss');
    if (!killed) return false;
    this.heartbeatRunning.clear();
    return true;
  }

  private observe(event: TraceEvent): void {
    const phase = phaseOfTrace(event);
    if (phase !== undefined) this.phase = phase;
    const type = this.faultTypeOf(event);
    if (type !== undefined) this.coverage[type][this.phase]++;
    for (const shape of this.tasks.observe(event)) this.coverage[shape][this.phase]++;
    if (this.compactionKilled(event)) this.coverage['compaction-kill'][this.phase]++;
    if (this.heartbeatRunKilled(event)) this.coverage['heartbeat-run-kill'][this.phase]++;
    for (const shape of this.clients.observe(event)) this.coverage[shape][this.phase]++;
    for (const shape of this.envelope.observe(event)) this.coverage[shape][this.phase]++;
    for (const shape of this.stalls.observe(event)) this.coverage[shape][this.phase]++;
    for (const shape of overlapShapesOf(event)) this.coverage[shape][this.phase]++;
    if (event.kind === 'model.stream-block') this.coverage['blocks-streamed'][this.phase]++;
    if (event.kind === 'model.stream-final') {
      if (Number(event.fields.deduplicated) > 0) this.coverage['final-deduplicated'][this.phase]++;
      if (Number(event.fields.rest) > 0) this.coverage['block-stream-cut'][this.phase]++;
    }
    if (event.kind === 'model.poll-skipped') {
      this.coverage['poll-skipped-rows'][this.phase]++;
      if (event.fields.beyondWindow === true) this.coverage['poll-window-filled'][this.phase]++;
    }
  }

  /** When each exec event (session, run, event) was first taken up by the gateway. */
  private readonly execTaken = new Map<string, number>();

  private faultTypeOf(event: TraceEvent): CoverageRow | undefined {
    const fields = event.fields;
    switch (event.kind) {
      case 'model.claim-failed':
        return 'failed-row';
      case 'model.session-rotated':
        return 'session-rotation';
      case 'model.turn-aborted':
        return 'interrupt-abort';
      case 'proc.ready':
        return 'startup-wait';
      case 'model.turn-failed-first':
        return 'first-failure-end';
      case 'model.agent-retry':
        return 'agent-retry';
      case 'model.compaction':
        return 'compaction';
      case 'model.compaction-failed':
        return 'compaction-summary-failed';
      case 'model.heartbeat-run':
        return Number(fields.candidate) > 0 ? 'heartbeat-run-failover' : undefined;
      case 'model.heartbeat-run-failover':
        return fields.reason === 'timeout' ? 'heartbeat-run-timeout' : undefined;
      case 'model.heartbeat-run-failed':
        return 'heartbeat-run-failed';
      case 'model.system-event':
        this.execTaken.set(execEventKey(fields), Math.min(this.execTaken.get(execEventKey(fields)) ?? event.timeMs, event.timeMs));
        return undefined;
      case 'model.exec-duplicate-dropped':
        return event.timeMs - (this.execTaken.get(execEventKey(fields)) ?? event.timeMs) > defaultTimers.execDedupeWindowMs ? 'exec-resend-after-window' : undefined;
      case 'model.sweep-kill':
        return fields.reason === 'heartbeat' ? 'heartbeat-stale-kill' : fields.reason === 'claim' ? 'claim-stale-kill' : undefined;
      case 'model.tool-call-expired':
        return 'tool-deadline-passed';
      case 'model.delivered':
        return Number(fields.parts ?? 1) > 1 ? 'reply-in-parts' : undefined;
      case 'model.delivery-given-up':
        return 'delivery-given-up';
      case 'model.inbound-abandoned':
        return 'redelivery-ended';
      case 'model.mirror-appended':
      case 'model.mirror-deduped':
        return event.kind === 'model.mirror-appended' ? 'mirror-appended' : 'mirror-deduped';
      case 'model.mirror-skipped':
        return 'mirror-lock-busy';
      case 'model.session-lock-reclaimed':
        return 'lock-reclaimed';
      case 'model.dashboard-turn':
        return 'dashboard-turn';
      case 'model.agent-rebuilt':
        return fields.reason === 'another-writer' ? 'cached-agent-rebuilt-for-another-writer' : undefined;
      case 'model.gateway-append':
        if (Number(fields.backfilled) > 0) return 'append-backfill';
        return Number(fields.toDb) > 0 ? 'append-to-db' : 'append-skip-db';
      case 'proc.kill':
        return this.inPowerLoss ? undefined : killType(String(fields.name));
      case 'net.resend':
        this.reorders.resent(event);
        return undefined;
      case 'net.partition':
        return 'partition';
      case 'net.hold':
        return 'hold';
      case 'net.reset':
        return 'reset';
      case 'net.duplicate':
        return 'duplicate';
      case 'net.drop':
        return fields.reason === 'fault' ? 'drop' : undefined;
      case 'net.deliver':
        return this.reorders.reordered(event) ? 'reorder' : undefined;
      case 'sql.busy':
        return 'sql-busy';
      case 'proc.stop':
        return 'stall';
      case 'disk.crash':
        return Number(fields.tornBytes) > 0 ? 'disk-tear' : undefined;
      case 'disk.sync':
        return fields.reason === 'writeback' ? 'disk-writeback' : undefined;
      case 'fault':
        // The LLM API (the world) marks the slow responses and transient errors it injects.
        if (fields.kind === 'model-error') return fields.cause === 'outage' ? undefined : 'model-error';
        if (fields.kind === 'poison-hang' || fields.kind === 'stream-cut' || fields.kind === 'startup-slow') return fields.kind;
        // The platform (the world) marks the refusals and the ambiguous answers it injects (issue 48).
        if (fields.kind === 'send-refused') return refusalRows[String(fields.reason)];
        if (fields.kind === 'send-ambiguous') return String(fields.key).includes('#') ? 'part-ambiguous' : 'send-ambiguous';
        return fields.kind === 'model-slow' || fields.kind === 'power-loss' || fields.kind === 'model-outage' ? fields.kind : undefined;
      default:
        return undefined;
    }
  }
}

/** The processes of the gateway's machine, which a power loss takes down together. */
const machineProcesses: readonly string[] = hostProcesses;

/** Stalled writes and the deadlines that race them (stallShapes), from the kernel's and the model's trace events. */
class StallShapes {
  /** Stalled writes under way, by stall number: the database, the writer, whether a deadline fired meanwhile. */
  private readonly pending = new Map<string, { path: string; process: string; raced: boolean }>();

  observe(event: TraceEvent): (typeof stallShapes)[number][] {
    const fields = event.fields;
    if (event.kind === 'fault' && (fields.kind === 'write-stall' || fields.kind === 'fsync-stall')) {
      this.pending.set(`${String(fields.kind)}:${String(fields.stall)}`, { path: String(fields.path), process: String(fields.process), raced: false });
      return ['write-stall'];
    }
    if (event.kind === 'fault' && fields.kind === 'power-loss') {
      for (const [stall, pending] of [...this.pending]) if (machineProcesses.includes(pending.process)) this.pending.delete(stall);
      return [];
    }
    if (event.kind === 'proc.kill') {
      // A killed writer's stall never lands (its SQLite write is rolled back; its fsync never returns).
      for (const [stall, pending] of [...this.pending]) if (pending.process === fields.name) this.pending.delete(stall);
      return [];
    }
    if (event.kind === 'sql.stall-end' || event.kind === 'disk.stall-end') {
      const key = `${event.kind === 'sql.stall-end' ? 'write-stall' : 'fsync-stall'}:${String(fields.stall)}`;
      const pending = this.pending.get(key);
      this.pending.delete(key);
      if (pending === undefined || fields.landed !== true) return [];
      return pending.raced ? ['write-stall-landed', 'stall-landed-after-deadline'] : ['write-stall-landed'];
    }
    const raced = this.racedBy(event);
    if (raced === undefined) return [];
    let any = false;
    for (const pending of this.pending.values()) {
      if (!raced(pending.path)) continue;
      pending.raced = true;
      any = true;
    }
    return any ? ['deadline-during-stall'] : [];
  }

  /** For a deadline that fired, which stalled databases it raced (by the session it names, or its database). */
  private racedBy(event: TraceEvent): ((path: string) => boolean) | undefined {
    const fields = event.fields;
    switch (event.kind) {
      case 'sql.busy':
        return fields.cause === 'stalled-writer' ? (path) => path === fields.path : undefined;
      case 'model.tool-call-retry':
      case 'model.tool-call-expired':
        return inSession(String(fields.session));
      case 'model.sweep-kill':
        return fields.session === undefined || fields.session === null ? undefined : inSession(String(fields.session));
      case 'model.session-lock-timeout':
        // The session write lock of a transcript, held by a writer whose fsync of it stalls.
        return (path) => path === fields.path;
      default:
        return undefined;
    }
  }
}

/** Whether a path is one of the session's databases (a closure made only for the events that name a session). */
function inSession(session: string): (path: string) => boolean {
  const prefix = `/data/sessions/${encodeURIComponent(session)}/`;
  return (path) => path.startsWith(prefix);
}

/** The coverage row of each refusal the platform marks. */
const refusalRows: Readonly<Record<string, (typeof platformShapes)[number]>> = {
  'rate-limit': 'send-rate-limited',
  'not-found': 'send-chat-not-found',
  'not-ready': 'send-listener-not-ready',
  'too-long': 'send-too-long',
};

function execEventKey(fields: TraceEvent['fields']): string {
  return `${String(fields.session)}|${String(fields.run)}|${String(fields.event)}`;
}

function killType(process: string): FaultType | undefined {
  switch (process) {
    case 'gateway':
      return 'kill-gateway';
    case 'runner':
      return 'kill-runner';
    case 'tool-server':
      return 'kill-tool-server';
    case 'node-host':
      return 'kill-node-host';
    default:
      return undefined;
  }
}

/**
 * A delivery overtaken by a later message on its link; a resend after a reconnect is not a reorder. Shared by the
 * coverage report and the trace viewer, so both count the same reorders. Feed it the trace in order.
 */
export class ReorderDetector {
  private readonly lastDeliveredId = new Map<string, number>();
  private readonly resentIds = new Set<number>();

  /** A `net.resend` event: that message's later deliveries are resends, not reorders. */
  resent(event: TraceEvent): void {
    this.resentIds.add(Number(event.fields.id));
  }

  /** A `net.deliver` event: whether it arrived after a later message of its link. */
  reordered(event: TraceEvent): boolean {
    const link = `${String(event.fields.from)}->${String(event.fields.to)}`;
    const id = Number(event.fields.id);
    if (this.resentIds.has(id)) return false;
    const last = this.lastDeliveredId.get(link) ?? 0;
    this.lastDeliveredId.set(link, Math.max(last, id));
    return id < last;
  }
}

/** Follows the model's notes of task runs and the kernel's kills to count where faults met scheduled tasks (labels only). */
class TaskShapes {
  /** Occurrences whose series goes on after them. */
  readonly followed = new Set<string>();
  /** The occurrences each turn took (noted `task-run`, or taken over from an unfinished turn: `merge`). */
  private readonly occurrencesOf = new Map<string, string[]>();
  /** Turns with task occurrences that run now (not completed, their runner not killed since). */
  private readonly running = new Set<string>();
  private readonly taken = new Set<string>();
  /** Occurrences a turn took whose next occurrence the host has not fanned out yet. */
  private readonly awaitingFanout = new Set<string>();

  observe(event: TraceEvent): (typeof taskShapes)[number][] {
    const fields = event.fields;
    switch (event.kind) {
      case 'model.task-run':
        return this.take(String(fields.turn), String(fields.occurrences).split(','));
      case 'model.merge':
        return this.take(String(fields.turn), this.occurrencesOf.get(String(fields.merged)) ?? []);
      case 'model.turn-completed':
        this.running.delete(String(fields.turn));
        return [];
      case 'model.task-recurrence':
        this.awaitingFanout.delete(String(fields.after));
        return [];
      case 'proc.kill': {
        const name = String(fields.name);
        const shapes: (typeof taskShapes)[number][] = [];
        if ((name === 'runner' || name === 'tool-server') && this.running.size > 0) shapes.push('task-kill');
        // The runner's turns die with it; a later run of the same occurrence takes it again.
        if (name === 'runner') this.running.clear();
        if (name === 'gateway' && this.awaitingFanout.size > 0) shapes.push('task-fanout-restart');
        return shapes;
      }
      default:
        return [];
    }
  }

  /** A turn takes occurrences: a repoll when an earlier poll had taken one of them. */
  private take(turn: string, occurrences: readonly string[]): (typeof taskShapes)[number][] {
    if (occurrences.length === 0) return [];
    const repoll = occurrences.some((id) => this.taken.has(id));
    for (const id of occurrences) {
      this.taken.add(id);
      // Run, its successor not yet fanned out (the sabotage fans out after the run, the fixed host once it is due).
      if (this.followed.has(id)) this.awaitingFanout.add(id);
    }
    this.occurrencesOf.set(turn, [...new Set([...(this.occurrencesOf.get(turn) ?? []), ...occurrences])]);
    this.running.add(turn);
    return repoll ? ['task-repoll'] : [];
  }
}

/** The work-overlap and fallback-delivery shapes one trace event shows (issue 48 items 5 and 3; labels only). */
function overlapShapesOf(event: TraceEvent): ((typeof overlapShapes)[number] | (typeof fallbackShapes)[number])[] {
  const fields = event.fields;
  switch (event.kind) {
    case 'model.cron-attempt':
      return Number(fields.overlapping) > 0 ? ['cron-retry-overlapped'] : [];
    case 'model.cron-released':
      return fields.late === true ? ['cron-late-completion'] : [];
    case 'model.cron-withdrawn':
      return ['cron-answer-reconciled'];
    case 'model.cron-answer-dropped':
    case 'model.cron-answer-run-again':
      return fields.late === true ? ['cron-late-completion', 'cron-answer-reconciled'] : ['cron-answer-reconciled'];
    case 'model.cron-handed-over':
      return ['cron-handed-over'];
    case 'model.announce-failed':
      return ['announce-failed'];
    case 'model.delivered':
      return fields.path === 'fallback' ? ['delivered-by-fallback'] : [];
    case 'model.tool-refused':
    case 'model.tool-fenced':
      return ['dependency-late-for-caller'];
    default:
      return [];
  }
}
