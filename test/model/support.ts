// Helpers shared by the symptom tests: a hand-built plan with no random faults, one run of it through runSpec with
// the fake model scripted per turn, and readers of the durable state (state.db, outbound.db, the JSONL transcript)
// and of what the user saw.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SqlJsStatic } from 'sql.js';
import { vi } from 'vitest';
import { type BugId, type BuiltModel, type LlmRequest, LlmTransientError, outboundPath, parseTranscript, type SessionEntry, SqliteBusyError, stateDbPath, transcriptPath } from '../../src/index.ts';
import { type DbMessage, SessionDb } from '../../src/session-db.ts';
import { findScenario } from '../../scenarios/index.ts';
import type { AnswerScript, LlmAnswerFact, ScriptedAnswer, VisibleMessage, World } from '../../sim/world/index.ts';
import { type RunResult, runSpec } from '../../sim/run/harness.ts';
import { type FaultStep, noFaults, type Plan, type RunSpec, sessionKey, type WorkloadStep } from '../../sim/run/plan.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';

export const session0 = sessionKey(0);

/** A plan with one session, the given workload and faults, and no random faults at all. */
export function handPlan(workload: WorkloadStep[], faults: FaultStep[] = []): Plan {
  return {
    sessions: 1,
    workload,
    faults,
    faultKnobs: noFaults,
    // Unscripted turns (exec-replay's) answer plainly: no tool calls, no repeats, no stock phrases.
    model: { toolCallPer1000: 0, toolCallsMax: 1, repeatPer1000: 0, repeatOnlyPer1000: 0, stockAnswerPer1000: 0, agentCacheSize: 8 },
    faultPhaseMs: 120_000,
    settleMs: 120_000,
  };
}

/** `user` workload step; the harness delivers it as `<text> [m<index>]` with delivery id `d<index>` (turn `in:d<index>`). */
export function user(atMs: number, text: string): WorkloadStep {
  return { kind: 'user', atMs, session: 0, text };
}

/** A group message that does not mention the agent (nanoclaw stores it as context, trigger=0). */
export function contextMessage(atMs: number, text: string): WorkloadStep {
  return { kind: 'user', atMs, session: 0, text, mentions: false };
}

/** The marker the harness puts in user message i (`[m<i>]`): a script picks its answer by it. */
export function marker(index: number): string {
  return `[m${index}]`;
}

/** A script answering the prompt that carries user message i (the last one it carries, for a merged prompt). */
export function forMessage(answers: Record<number, ScriptedAnswer>): AnswerScript {
  return (request: LlmRequest) => {
    const indices = [...request.prompt.matchAll(/\[m(\d+)\]/g)].map((match) => Number(match[1]));
    const index = indices.at(-1);
    return index === undefined ? undefined : answers[index];
  };
}

export function reply(body: string): string {
  return `<message to="user">${body}</message>`;
}

/** The line the fake LLM puts after every closing text, outside its message blocks: `\n(reply <tag>)`. */
export const replyTrailer = /\n\(reply [0-9a-f]{8}\)$/;

/** A closing text without the fake LLM's trailer line. */
export function withoutTrailer(text: string): string {
  return text.replace(replyTrailer, '');
}

/** The LLM answers the ledger recorded for a session, in the order they were returned (a retried prompt repeats). */
export function llmAnswers(result: RunResult, session = session0): LlmAnswerFact[] {
  return result.ledger.answers.filter((answer) => answer.sessionKey === session);
}

/** The answers to prompts carrying user message i (its marker), in order. */
export function answersTo(result: RunResult, index: number, session = session0): LlmAnswerFact[] {
  return llmAnswers(result, session).filter((answer) => answer.prompt.includes(marker(index)));
}

/** The prompts the LLM was asked in a session, in order (every request, retries and failed ones included). */
export function llmPrompts(result: RunResult, session = session0): string[] {
  return result.ledger.requests.filter((request) => request.sessionKey === session).map((request) => request.prompt);
}

export interface RunInput {
  bugs: BugId[];
  plan: Plan;
  seed?: number;
  /** Answer per request; undefined falls back to the fake model's default answer. */
  script?: AnswerScript;
  prepare?: (sim: Simulation, model: BuiltModel, world: World) => void;
}

export async function run(sql: SqlJsStatic, input: RunInput): Promise<RunResult> {
  return runSpec(
    { scenario: 'symptom', bugs: input.bugs, seed: input.seed ?? 1, plan: input.plan },
    {
      sql,
      prepare: (sim, model, world) => {
        world.modelApi.script = input.script;
        input.prepare?.(sim, model, world);
      },
    },
  );
}

/** Run, hand the result to `check`, then release the run's SQLite engines whatever the checks did. */
export async function withRun(sql: SqlJsStatic, input: RunInput, check: (result: RunResult) => void): Promise<void> {
  const result = await run(sql, input);
  try {
    check(result);
  } finally {
    result.sim.dispose();
  }
}

export interface StateRow {
  role: string;
  content: string;
  toolCalls: string | null;
  turnId: string;
}

/** The session's rows of state.db, in Hermes' read order. */
export function stateRows(result: RunResult, session = session0): StateRow[] {
  return result.sim.sqlite
    .inspect(stateDbPath, 'SELECT role, content, tool_calls, turn_id FROM messages WHERE session_id = ? ORDER BY timestamp, id', [session])
    .map((row) => ({
      role: String(row.role),
      content: String(row.content ?? ''),
      toolCalls: row.tool_calls === null ? null : String(row.tool_calls),
      turnId: String(row.turn_id ?? ''),
    }));
}

export interface OutboundRow {
  id: string;
  inReplyTo: string;
  kind: string;
  text: string;
  source: string;
  delivered: boolean;
}

export function outboundRows(result: RunResult, session = session0): OutboundRow[] {
  return result.sim.sqlite
    .inspect(outboundPath(session), 'SELECT id, in_reply_to, kind, content, source, delivered FROM messages_out ORDER BY seq')
    .map((row) => ({
      id: String(row.id),
      inReplyTo: String(row.in_reply_to),
      kind: String(row.kind),
      text: (JSON.parse(String(row.content)) as { text: string }).text,
      source: String(row.source),
      delivered: Number(row.delivered) === 1,
    }));
}

export function visible(result: RunResult, session = session0): VisibleMessage[] {
  return result.world.platform.visible.filter((message) => message.sessionKey === session);
}

/**
 * What the user saw, in order, as [turn, text]: the turn is the in_reply_to of the model's outbound row the platform
 * message came from (joined by the idempotency key, which is the row id); '?' when no row has that key.
 */
export function seenByTurn(result: RunResult, session = session0): [string, string][] {
  const turnOf = new Map(outboundRows(result, session).map((row) => [row.id, row.inReplyTo]));
  return visible(result, session).map((message) => [turnOf.get(message.key) ?? '?', message.text]);
}

export function transcript(result: RunResult, session = session0): SessionEntry[] {
  const text = result.sim.disk.peek(transcriptPath(session));
  if (text === undefined) throw new Error(`no transcript for ${session}`);
  const parsed = parseTranscript(text);
  if (parsed.malformedLines > 0) throw new Error(`transcript of ${session} has ${parsed.malformedLines} malformed lines`);
  return parsed.entries;
}

/** Backups the transcript repair wrote (`<file>.bak-<pid>-<time>`), with their entries. */
export function transcriptBackups(result: RunResult, session = session0): { path: string; entries: SessionEntry[] }[] {
  const prefix = `${transcriptPath(session)}.bak-`;
  return result.sim.disk
    .paths()
    .filter((path) => path.startsWith(prefix) && result.sim.disk.peek(path) !== undefined)
    .map((path) => ({ path, entries: parseTranscript(result.sim.disk.peek(path) ?? '').entries }));
}

export function invariants(result: RunResult): string[] {
  return [...new Set(result.violations.map((violation) => violation.invariant))].sort();
}

/** Trace notes of one model kind, as field records. */
export function notes(result: RunResult, kind: string): { timeMs: number; fields: Record<string, unknown> }[] {
  return result.sim.trace.events.filter((event) => event.kind === `model.${kind}`).map((event) => ({ timeMs: event.timeMs, fields: event.fields }));
}

/**
 * A `prepare` hook that makes the LLM API slow for one message: a request whose prompt carries message `index`'s
 * marker waits `delayMs` of simulated time before it is answered (only the first such request when `firstOnly`).
 */
export function delayRequestsFor(index: number, delayMs: number, firstOnly = false): (sim: Simulation, model: BuiltModel, world: World) => void {
  return (_sim, _model, world) => {
    const api = world.modelApi;
    const complete = api.complete.bind(api);
    let delayed = false;
    api.complete = async (request, timers) => {
      if (request.prompt.includes(marker(index)) && !(firstOnly && delayed)) {
        delayed = true;
        await timers.sleep(delayMs);
      }
      return complete(request, timers);
    };
  };
}

/** A `prepare` hook: the first request whose prompt carries message `index`'s marker fails (a 503 after 500 ms). */
export function failFirstRequestFor(index: number): (sim: Simulation, model: BuiltModel, world: World) => void {
  return (_sim, _model, world) => {
    const api = world.modelApi;
    const complete = api.complete.bind(api);
    let failed = false;
    api.complete = async (request, timers) => {
      if (failed || !request.prompt.includes(marker(index))) return complete(request, timers);
      failed = true;
      await timers.sleep(500);
      throw new LlmTransientError('503 overloaded');
    };
  };
}

/**
 * A `prepare` hook: every request whose prompt carries `fragment` gets its answer from the LLM (the ledger records it)
 * and the caller an error all the same, as if the response were lost on the way back: the runner retries, then gives up.
 */
export function answerLostOn(fragment: string): (sim: Simulation, model: BuiltModel, world: World) => void {
  return (_sim, _model, world) => {
    const api = world.modelApi;
    const complete = api.complete.bind(api);
    api.complete = async (request, timers) => {
      const answer = await complete(request, timers);
      if (request.prompt.includes(fragment)) throw new LlmTransientError('connection reset after the response');
      return answer;
    };
  };
}

/** A `prepare` hook: the gateway is SIGKILLed right after its first mirror append, before it marks the row delivered; it restarts 1 s later. */
export function killGatewayAfterFirstMirror(sim: Simulation): void {
  let done = false;
  sim.trace.onEvent((event) => {
    if (done || event.kind !== 'model.mirror-appended') return;
    done = true;
    sim.scheduler.schedule(0, () => {
      if (sim.kill('gateway')) sim.restart('gateway', 1_000);
    });
  });
}

/**
 * A `prepare` hook: the first state.db row write that `match` picks fails busy (the database was locked), and
 * `onThrow` runs then. It spies on SessionDb, so the caller restores it (vi.restoreAllMocks) when the run is over.
 */
export function rowWriteBusyOnce(match: (row: DbMessage) => boolean, onThrow: (sim: Simulation, world: World) => void = () => {}): (sim: Simulation, model: BuiltModel, world: World) => void {
  return (sim, _model, world) => {
    const appendMessage = SessionDb.prototype.appendMessage;
    let thrown = false;
    vi.spyOn(SessionDb.prototype, 'appendMessage').mockImplementation(async function (this: SessionDb, sessionId, row, atMs) {
      if (thrown || !match(row)) return appendMessage.call(this, sessionId, row, atMs);
      thrown = true;
      onThrow(sim, world);
      throw new SqliteBusyError(stateDbPath);
    });
  };
}

/** A `prepare` hook: the LLM API is down (its own outage: each request fails) from `fromMs` until `untilMs`. */
export function outageBetween(fromMs: number, untilMs: number): (sim: Simulation, model: BuiltModel, world: World) => void {
  return (sim, _model, world) => {
    sim.at(fromMs, () => {
      world.modelApi.outageUntilMs = untilMs;
    });
  };
}

/** Replays a seed string (a campaign's plan, from its scenario, bugs, seed and path), hands the run to `check`, then releases it. */
/**
 * Replays the run a regression test was found as, from its frozen plan (test/fixtures/plans/<name>.json, written by
 * test/fixtures/freeze-plan.ts from the campaign's seed string): a seed string is refused once its scenario's
 * generator changes, while the plan it stood for is plain data and replays under every build of the same model.
 * `edit` changes the plan first (a test's variant of the model).
 */
export async function withFrozenPlan(sql: SqlJsStatic, name: string, check: (result: RunResult) => void, edit: (plan: Plan) => Plan = (plan) => plan): Promise<void> {
  const file = fileURLToPath(new URL(`../fixtures/plans/${name}.json`, import.meta.url));
  const fixture = JSON.parse(readFileSync(file, 'utf8')) as { foundAs: string; spec: RunSpec };
  if (findScenario(fixture.spec.scenario) === undefined) throw new Error(`no scenario ${fixture.spec.scenario} for the frozen plan ${name}`);
  const result = await runSpec({ ...fixture.spec, plan: edit(fixture.spec.plan) }, { sql });
  try {
    check(result);
  } finally {
    result.sim.dispose();
  }
}

/**
 * Seed 001's kill shape: in:d0's answer sends `interim` through send_message and the runner is SIGKILLed right after
 * the tool server recorded the send (the 2nd tool-send event: tool-call, tool-sent); it comes back 8 s later, and
 * in:d1, which arrived meanwhile, joins the re-formed turn. Its new answer (by the last message a prompt carries: the
 * second prompt carries in:d0 and in:d1, and is answered as in:d1) closes with exactly that interim message.
 */
export const sendThenKill = (() => {
  const interim = 'on it - looking at your calendar';
  const killAfterSend: FaultStep = { kind: 'kill-at-phase', phase: 'tool-send', nth: 1, delayMs: 0, process: 'runner', restartAfterMs: 8_000 };
  return {
    interim,
    plan: handPlan([user(1_000, 'am I free tomorrow?'), user(6_000, 'what are you doing right now?')], [killAfterSend]),
    script: forMessage({
      0: { toolCalls: [{ name: 'send_message', text: interim }], result: reply("Tomorrow at 2pm you're free") },
      1: { toolCalls: [], result: reply(interim) },
    }),
  };
})();
