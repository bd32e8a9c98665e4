// Shared by the checker tests (docs/ARCHITECTURE.md section 5): each test file takes one invariant, runs a small
// hand-built plan of the fixed model (which passes every invariant) once untouched and once per sabotage, and expects
// exactly the named invariants to fire. A sabotage works from outside every component, through runSpec's `prepare`
// hook: SQL straight on a simulated database (committed at once, as another writer's commit would be), a file rewritten
// and fsynced by a rogue simulated process, a rogue process using the supervisor, or a world object (the network,
// the LLM API) wrapped. No sabotage reads or forges the model's own ids (turn_id, the JSONL `turnId` field, inbound
// row ids): it finds what it breaks by content, the way the checkers do, so that a checker deciding by those ids
// would be blind to it.
import type { BuiltModel, LlmRequest, SqlParams } from '../../src/index.ts';
import type { OutboundSend, SendAck } from '../../src/protocol.ts';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { readDurableState } from '../../sim/checkers/durable.ts';
import { checkLiveness } from '../../sim/checkers/liveness.ts';
import { kernelFacts, type Observations } from '../../sim/checkers/observations.ts';
import type { Violation } from '../../sim/checkers/violation.ts';
import { modelDescription, type RunResult } from '../../sim/run/harness.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { TraceEvent } from '../../sim/kernel/trace.ts';
import type { ScriptedAnswer, World } from '../../sim/world/index.ts';
import type { FaultStep, Plan } from '../../sim/run/plan.ts';
import { forMessage, handPlan, reply, type RunInput, user } from '../model/support.ts';

export type Prepare = (sim: Simulation, model: BuiltModel, world: World) => void;

/** Two chat turns on session 0, far enough apart that the first is completed and delivered before the second. */
export const twoTurns = handPlan([user(1_000, 'hello there'), user(20_000, 'second question')]);

/** Two chat turns and then a node-host command whose output becomes an exec prompt (runId `run-2`). */
export const turnsAndExec = handPlan([
  user(1_000, 'hello there'),
  user(20_000, 'second question'),
  { kind: 'exec', atMs: 40_000, session: 0, durationMs: 2_000, exitCode: 0, output: 'build ok' },
]);
export const execRunId = 'run-2';

export const firstReply = 'you are free at 2pm';
export const interim = 'checking the calendar now';
export const secondReply = 'the meeting is booked';
export const execReply = 'the build passed';

/** m0 is answered plainly; m1 sends an interim message through send_message, then answers; the exec prompt answers. */
export function twoTurnScript(request: LlmRequest): ScriptedAnswer | undefined {
  if (request.prompt.includes('Exec finished (node=')) return { toolCalls: [], result: reply(execReply) };
  return forMessage({
    0: { toolCalls: [], result: reply(firstReply) },
    1: { toolCalls: [{ name: 'send_message', text: interim }], result: reply(secondReply) },
  })(request);
}

/** Between the first two turns: the first has completed, its JSONL is synced and its reply is visible (at about 5 s). */
export const betweenTurnsMs = 10_000;

/** After every turn of the plans is over and delivered (the run itself ends at 240 s; faults stop at 120 s). */
export const afterAllTurnsMs = 200_000;

/** A run of `plan` (twoTurns by default) with the two-turn script, sabotaged by `prepare` if given. */
export function input(prepare?: Prepare, plan: Plan = twoTurns): RunInput {
  return { bugs: [], plan, script: twoTurnScript, ...(prepare === undefined ? {} : { prepare }) };
}

/** Apply several sabotages in order. */
export function both(...sabotages: Prepare[]): Prepare {
  return (sim, model, world) => {
    for (const sabotage of sabotages) sabotage(sim, model, world);
  };
}

/** Run `sql` (any statement) directly on the committed state of the database at `path`, at simulated time `atMs`. */
export function sqlAt(atMs: number, path: string, sql: string, params: SqlParams = []): Prepare {
  return (sim) => sim.at(atMs, () => void sim.sqlite.inspect(path, sql, params));
}

/**
 * A rogue process `saboteur` that at `atMs` reads the file at `path`, writes back `edit(text)` and fsyncs it, so the
 * edit is durable (what a crash of every process would leave) before anything else touches the file.
 */
export function rewriteFileAt(atMs: number, path: string, edit: (text: string) => string): Prepare {
  return (sim) =>
    sim.spawn('saboteur', async (ctx) => {
      await ctx.timers.sleep(atMs);
      const text = await ctx.disk.read(path);
      if (text === undefined) throw new Error(`saboteur: no file at ${path}`);
      await ctx.disk.write(path, edit(text));
      await ctx.disk.fsync(path);
    });
}

/**
 * Tamper with every message a process sends: `tamper` gets the sender's name, the destination and the payload and
 * returns the payloads to put on the wire instead (none: the message is swallowed without a trace event).
 */
export function tamperNetwork(tamper: (from: string, to: string, payload: unknown) => unknown[]): Prepare {
  return (sim) => {
    const send = sim.network.send.bind(sim.network);
    sim.network.send = (sender, to, payload) => {
      for (const out of tamper(sender.name, to, payload)) send(sender, to, out);
    };
  };
}

/**
 * m0 at 1 s, hit by `fault`; the LLM API down for 10 min from 3 s, so every retry of m0's turn fails and it gives up
 * with the error reply; m1 at 20 min, after the faults (15 min), answered normally. On a key-less platform unless told.
 */
export function givenUpThenAnswered(fault: FaultStep, keylessPlatform = true): Plan {
  return {
    ...handPlan([user(1_000, 'hello there'), user(20 * 60_000, 'second question')], [fault, { kind: 'model-outage', atMs: 3_000, durationMs: 10 * 60_000 }]),
    keylessPlatform,
    faultPhaseMs: 15 * 60_000,
    settleMs: 30 * 60_000,
  };
}

/**
 * The moment the platform acknowledges the first send carrying `text` (found by its text, through the send's key, not
 * by any id of the model's), the link between platform and gateway is cut for 20 s: the acknowledgement is lost and
 * the gateway sends the message again once the link heals.
 */
export function loseFirstAckOf(text: string): Prepare {
  return (sim) => {
    const send = sim.network.send.bind(sim.network);
    const keys = new Set<string>();
    let done = false;
    sim.network.send = (sender, to, payload) => {
      const message = payload as Partial<OutboundSend> & Partial<SendAck>;
      if (message.type === 'send' && typeof message.text === 'string' && message.text.includes(text) && message.key !== undefined) keys.add(message.key);
      send(sender, to, payload);
      if (done || sender.name !== 'platform' || message.type !== 'send.ack' || message.key === undefined || !keys.has(message.key)) return;
      done = true;
      sim.network.partition('platform', 'gateway');
      sim.scheduler.schedule(20_000, () => sim.network.heal('platform', 'gateway'));
    };
  };
}

/** A line of a pi JSONL file, as parsed JSON (the header or an entry). */
export interface PiLine {
  type?: unknown;
  id?: unknown;
  parentId?: unknown;
  message?: { role?: unknown; content?: unknown };
}

/** The text of a pi message's content (a string, or its text blocks joined). */
export function piText(line: PiLine): string {
  const content = line.message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((block: { type?: unknown; text?: unknown }) => (block.type === 'text' ? String(block.text) : '')).join('');
}

/** Whether a pi line is a message entry of `role` whose text contains `fragment`. */
export function isEntry(role: string, fragment: string): (line: PiLine) => boolean {
  return (line) => line.type === 'message' && line.message?.role === role && piText(line).includes(fragment);
}

export function piLines(text: string): PiLine[] {
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as PiLine);
}

/** JSONL text with the lines `drop` matches taken out. */
export function withoutLines(text: string, drop: (line: PiLine) => boolean): string {
  return text
    .split('\n')
    .filter((line) => line.length === 0 || !drop(JSON.parse(line) as PiLine))
    .join('\n');
}

/** JSONL text with a copy (id `copyId`, same parent) of the first line `match` accepts, right after it: a dead end. */
export function withDeadEndCopy(text: string, match: (line: PiLine) => boolean, copyId: string): string {
  const lines = text.split('\n');
  const index = lines.findIndex((line) => line.length > 0 && match(JSON.parse(line) as PiLine));
  if (index < 0) throw new Error('withDeadEndCopy: no matching line');
  const original = JSON.parse(lines[index] ?? '') as Record<string, unknown>;
  lines.splice(index + 1, 0, JSON.stringify({ ...original, id: copyId }));
  return lines.join('\n');
}

/** The entries of the session's durable (synced) JSONL file. */
export function durableEntries(result: RunResult, path: string): PiLine[] {
  return piLines(result.sim.disk.peekSynced(path) ?? '').filter((line) => line.type === 'message');
}

/** A row of Hermes' `messages` table, read by Hermes' columns only. */
export interface HermesRow {
  id: number;
  role: string;
  content: string;
  toolCalls: string | null;
}

export function hermesRows(result: RunResult, path: string): HermesRow[] {
  return result.sim.sqlite.inspect(path, 'SELECT id, role, content, tool_calls FROM messages ORDER BY timestamp, id').map((row) => ({
    id: Number(row.id),
    role: String(row.role),
    content: String(row.content ?? ''),
    toolCalls: row.tool_calls === null ? null : String(row.tool_calls),
  }));
}

/** What the platform showed the user, in order (from the world's ledger). */
export function shown(result: RunResult): string[] {
  return result.ledger.shown.map((fact) => fact.text);
}

export function messagesOf(result: RunResult, invariant: string): string[] {
  return result.violations.filter((violation) => violation.invariant === invariant).map((violation) => violation.message);
}

/**
 * The observations the checkers make of a finished run of one session (as harness.ts builds them, the durable state as
 * synced), handed to `edit` first: a test takes out or changes one piece of evidence (a record, a refusal, a showing)
 * and sees what the verdict read from it.
 */
export function observationsOf(result: RunResult, session: string, edit: (o: Observations) => Observations = (o) => o): Observations {
  return edit({
    sessions: [session],
    ledger: result.ledger,
    durable: readDurableState(result.sim, [session], 'synced', modelDescription),
    kernel: kernelFacts(result.sim.trace.events),
    events: result.sim.trace.events,
    faultPhaseMs: result.spec.plan.faultPhaseMs,
    quiescenceGraceMs: 65_000,
    endMs: result.simTimeMs,
    system: modelDescription,
  });
}

/** A run's observations of one session, with or without the system's records of its give-ups (state.db's delivery obligations). */
export function observationsWithGiveUps(result: RunResult, session: string, withRecords: boolean): Observations {
  return observationsOf(result, session, (o) => (withRecords ? o : { ...o, durable: { ...o.durable, deliveryObligations: [] } }));
}

/** The ledger with some of its facts replaced (the ledger is a class; its other fields and methods kept). */
export function ledgerWith(ledger: RunResult['ledger'], facts: Partial<RunResult['ledger']>): RunResult['ledger'] {
  return Object.assign(Object.create(Object.getPrototypeOf(ledger) as object) as RunResult['ledger'], ledger, facts);
}

/**
 * The observations with the platform's refusals hidden (a sabotage): the ledger's record of each and the trace's
 * `send-refused` fault events, which become events of a kind no checker reads.
 */
export function withoutRefusals(o: Observations): Observations {
  const hidden = (event: TraceEvent): TraceEvent => (event.kind === 'fault' && event.fields.kind === 'send-refused' ? { ...event, fields: { ...event.fields, kind: 'hidden' } } : event);
  return { ...o, events: o.events.map(hidden), ledger: ledgerWith(o.ledger, { sendRefusals: [] }) };
}

/** The liveness invariants' verdicts on the observations (the attribution made from them). */
export function livenessOf(o: Observations): Violation[] {
  const out: Violation[] = [];
  checkLiveness(o, attributeAll(o), out);
  return out;
}
