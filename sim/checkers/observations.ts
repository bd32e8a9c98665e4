// What the checkers judge by, gathered from outside the system under test: the world's ground-truth ledger (what
// the user typed and was shown, what the LLM was asked and answered, which commands ran), the durable state read in
// the real systems' formats, and the kernel's own facts (kills and crashes, with their times). Trace events serve
// only to place a violation on the timeline (its step).
// The system's canned texts, file locations and limits come from the description of the system under test that the
// run hands in (system.ts); nothing here is imported from src/.
import type { TraceEvent } from '../kernel/trace.ts';
import type { CommandFact, Ledger, LlmAnswerFact, ShownFact, UserMessageFact } from '../world/ledger.ts';
import type { DurableState } from './durable.ts';
import { collapseWhitespace, readResultBlocks } from './formats.ts';
import { type PartsReading, readShowings } from './parts.ts';
import { cannedRepliesOf, referenceSystem, type SystemDescription } from './system.ts';

/**
 * Replies the documented model produces itself, without the LLM (a give-up after repeated errors, /clear), error
 * reply first. Kept for tests that build histories by hand; the checkers read a run's own with `cannedRepliesIn(o)`.
 */
export const cannedReplies = cannedRepliesOf(referenceSystem);

/**
 * A start, kill or crash of a process incarnation, as the kernel recorded it. A kill says what caused it: a fault of
 * the plan, a supervisor (a process of the system killing another through the kernel), or a power loss. A stop and a
 * cont are the world stalling an incarnation (SIGSTOP, a `stall` fault) and letting it go on.
 */
export interface KernelFact {
  kind: 'start' | 'kill' | 'crash' | 'stop' | 'cont';
  process: string;
  incarnation: number;
  timeMs: number;
  step: number;
  /** For a kill: who killed it. */
  cause?: 'fault' | 'supervisor' | 'power-loss';
  /** For a start: whether an earlier incarnation of the process ran before it. */
  restarted?: boolean;
  /** For a start: when the incarnation is ready (its start-up over). */
  readyAtMs?: number;
  /** For a start: whether the world made it slow (a `startup-slow` fault). */
  slow?: boolean;
}

/**
 * What every checker (built-in or registered) judges a run by: the ledger, the durable state, the kernel's starts,
 * kills and crashes, the trace (for timeline steps only) and the timing.
 */
export interface Observations {
  sessions: string[];
  ledger: Ledger;
  durable: DurableState;
  kernel: KernelFact[];
  events: readonly TraceEvent[];
  faultPhaseMs: number;
  quiescenceGraceMs: number;
  endMs: number;
  /**
   * The system under test as it describes itself (canned replies, file locations, limits), handed in by the run.
   * A run's observations always carry one; hand-built observations without it are judged by the documented model's
   * (system.ts referenceSystem).
   */
  system?: SystemDescription;
}

/** The description of the system under test the observations were made of. */
export function systemOf(o: Observations): SystemDescription {
  return o.system ?? referenceSystem;
}

/** The system's canned replies (error reply first), as its description gives them. */
export function cannedRepliesIn(o: Observations): readonly [string, string] {
  return cannedRepliesOf(systemOf(o));
}

export function kernelFacts(events: readonly TraceEvent[]): KernelFact[] {
  const out: KernelFact[] = [];
  // The kernel records a supervisor's kill and a power loss as a fault event just before the kills they make, at
  // the same instant.
  let supervisorKill: { timeMs: number; target: string } | undefined;
  let powerLossAtMs = -1;
  let slowStart: { timeMs: number; name: string } | undefined;
  events.forEach((event, step) => {
    const base = { process: String(event.fields.name), incarnation: Number(event.fields.incarnation), timeMs: event.timeMs, step };
    switch (event.kind) {
      case 'fault':
        if (event.fields.kind === 'supervisor-kill') supervisorKill = { timeMs: event.timeMs, target: String(event.fields.target) };
        else if (event.fields.kind === 'power-loss') powerLossAtMs = event.timeMs;
        else if (event.fields.kind === 'startup-slow') slowStart = { timeMs: event.timeMs, name: String(event.fields.name) };
        break;
      case 'proc.kill': {
        const bySupervisor = supervisorKill !== undefined && supervisorKill.timeMs === event.timeMs && supervisorKill.target === base.process;
        if (bySupervisor) supervisorKill = undefined;
        out.push({ kind: 'kill', ...base, cause: powerLossAtMs === event.timeMs ? 'power-loss' : bySupervisor ? 'supervisor' : 'fault' });
        break;
      }
      case 'proc.exit':
        out.push({ kind: 'crash', ...base });
        break;
      case 'proc.stop':
      case 'proc.cont':
        out.push({ kind: event.kind === 'proc.stop' ? 'stop' : 'cont', ...base });
        break;
      case 'proc.spawn':
      case 'proc.restart': {
        const slow = slowStart !== undefined && slowStart.timeMs === event.timeMs && slowStart.name === base.process;
        if (slow) slowStart = undefined;
        out.push({ kind: 'start', ...base, restarted: event.kind === 'proc.restart', readyAtMs: event.timeMs + Number(event.fields.startupMs ?? 0), slow });
        break;
      }
      default:
        break;
    }
  });
  return out;
}

/** The trace step at (or just after) a simulated instant: where a ledger fact sits on the timeline. */
export function stepAt(o: Observations, timeMs: number): number {
  let low = 0;
  let high = o.events.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((o.events[middle]?.timeMs ?? Infinity) < timeMs) low = middle + 1;
    else high = middle;
  }
  return Math.min(low, Math.max(0, o.events.length - 1));
}

/** The world's tools whose calls act on an external service (the calendar) rather than message the user. */
export const effectTools: readonly string[] = ['create_event'];

/** Tool calls that show the user no text of their own: a reaction, and an action on the world. */
export function showsNoText(toolName: string): boolean {
  return toolName === 'add_reaction' || effectTools.includes(toolName);
}

/** Text as nanoclaw compares it: whitespace runs collapsed, trimmed, case kept (the checkers' own reader, formats.ts). */
export function normalized(text: string): string {
  return collapseWhitespace(text);
}

/** The user messages the system accepted: the gateway acknowledged them to the platform. */
export function acceptedMessages(o: Observations, session?: string): UserMessageFact[] {
  return o.ledger.userMessages.filter((message) => message.acknowledgedAtMs !== null && (session === undefined || message.sessionKey === session));
}

/** The accepted messages that addressed the agent (a group message that does not mention it is owed no reply). */
export function addressedMessages(o: Observations, session?: string): UserMessageFact[] {
  return acceptedMessages(o, session).filter((message) => message.mentions);
}

/**
 * Whether an accepted context message (one that did not mention the agent) must be in the transcripts by the end.
 * It must when an LLM request carried it (the system took it up), and when a later message that did mention the
 * agent was taken up while the context still fitted nanoclaw's batch: the later message was typed after the context
 * was acknowledged and fewer than maxMessagesPerPrompt other messages of the session (and commands) came in between
 * (counted generously, from 30 s before the context was typed, the platform's redelivery window, to the request).
 */
export function contextDue(o: Observations, context: UserMessageFact): boolean {
  const requests = o.ledger.requests.filter((request) => request.sessionKey === context.sessionKey);
  if (requests.some((request) => carries(request.prompt, context))) return true;
  const ackMs = context.acknowledgedAtMs;
  if (ackMs === null) return false;
  return addressedMessages(o, context.sessionKey).some((later) => {
    // A scheduled task's occurrence was stored when it was scheduled, maybe before the context came: its run may leave
    // the context to the chat's next message (a followup lane takes the rows up to its first trigger, in stored order).
    if (later.task !== undefined) return false;
    if (later.sentAtMs <= ackMs || isClear(later)) return false;
    const first = requests.find((request) => carries(request.prompt, later));
    if (first === undefined) return false;
    const between =
      o.ledger.userMessages.filter((other) => other !== context && other.sessionKey === context.sessionKey && other.sentAtMs >= context.sentAtMs - 30_000 && other.sentAtMs <= first.atMs).length +
      commandsOf(o, context.sessionKey).filter((command) => command.requestedAtMs <= first.atMs).length;
    return between < systemOf(o).maxMessagesPerPrompt;
  });
}

/**
 * OpenClaw's exec event lines name a command's run twice: `Exec started (node=… id=<runId>): <command>` when it starts
 * and `Exec finished (node=… id=<runId>, …)` when it ends. The finish (its result) is the command's report; the
 * start is a report of its own.
 */
export function mentionsRun(text: string, runId: string): boolean {
  return new RegExp(`Exec finished \\(node=[^\\s,()]+ id=${escapeRegExp(runId)},`).test(text);
}

/** Whether a text carries the `Exec started` line of a run. */
export function mentionsStart(text: string, runId: string): boolean {
  return new RegExp(`Exec started \\(node=[^\\s,()]+ id=${escapeRegExp(runId)}\\)`).test(text);
}

/** The start of a command, as its `Exec started` line reports it: ingested at most once, like the command's finish. */
export interface CommandStart {
  start: CommandFact;
}

/** What a prompt or a transcript may carry: a user message, a command's finish (the command) or its start. */
export type Subject = UserMessageFact | CommandFact | CommandStart;

/** Whether a text (prompt, row, entry) carries a user message, a command (its finish) or a command's start. */
export function carries(text: string, subject: Subject): boolean {
  if ('marker' in subject) return text.includes(subject.marker);
  return 'start' in subject ? mentionsStart(text, subject.start.runId) : mentionsRun(text, subject.runId);
}

/** A subject's name in attributions and canned-reply assignments. */
export function subjectKey(subject: Subject): string {
  if ('marker' in subject) return subject.marker;
  return 'start' in subject ? `start:${subject.start.runId}` : `run:${subject.runId}`;
}

/** A subject as a violation message names it. */
export function describeSubject(subject: Subject): string {
  if ('marker' in subject) return subject.task === undefined ? `message ${subject.marker} (delivery ${subject.deliveryId})` : `the occurrence of task ${subject.task.taskId} due at ${subject.task.dueMs} ms`;
  return 'start' in subject ? `the start of command ${subject.start.runId}` : `command ${subject.runId}`;
}

/** Whether a subject is a user's /clear (a request to reset the session, which asks the LLM nothing). */
export function isClear(subject: Subject): boolean {
  return 'marker' in subject && subject.text.trim().toLowerCase().startsWith('/clear');
}

/** When the subject entered the world: the user typed it, or the workload asked for the command. */
export function subjectAtMs(subject: Subject): number {
  if ('marker' in subject) return subject.sentAtMs;
  return 'start' in subject ? subject.start.requestedAtMs : subject.requestedAtMs;
}

/** How many times a text carries a user message (its marker) or a command (its `Exec finished (node=… id=<runId>…` line). */
export function occurrences(text: string, subject: Subject): number {
  if ('marker' in subject) return text.split(subject.marker).length - 1;
  if ('start' in subject) return [...text.matchAll(new RegExp(`Exec started \\(node=[^\\s,()]+ id=${escapeRegExp(subject.start.runId)}\\)`, 'g'))].length;
  return [...text.matchAll(new RegExp(`Exec finished \\(node=[^\\s,()]+ id=${escapeRegExp(subject.runId)},`, 'g'))].length;
}

/** Every subject of a session: the user messages, the commands and the commands' starts, in that order. */
export function subjectsIn(o: Observations, session: string): Subject[] {
  return [...o.ledger.userMessages.filter((message) => message.sessionKey === session), ...commandsOf(o, session), ...commandStartsOf(o, session)];
}

/** A simulated instant as a message gives it (`12.3s`). */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

export function commandsOf(o: Observations, session: string): CommandFact[] {
  return o.ledger.commands.filter((command) => command.sessionKey === session);
}

/** The starts of a session's commands (each a subject of its own). */
export function commandStartsOf(o: Observations, session: string): CommandStart[] {
  return commandsOf(o, session).map((command) => ({ start: command }));
}

/**
 * The messages a session's user saw (reactions aside), as the user reads them: a long reply shown in parts is one
 * showing, at its last part (parts.ts); every other showing is the ledger's own.
 */
export function shownIn(o: Observations, session: string): ShownFact[] {
  return partsIn(o, session).showings;
}

const partsReadings = new WeakMap<Observations, Map<string, PartsReading>>();

/** A session's showings read with parts joined (parts.ts), against every text the LLM produced there and the canned replies. */
export function partsIn(o: Observations, session: string): PartsReading {
  const bySession = partsReadings.get(o) ?? new Map<string, PartsReading>();
  partsReadings.set(o, bySession);
  const known = bySession.get(session);
  if (known !== undefined) return known;
  const texts = [
    ...answersIn(o, session).flatMap((answer) => [...readResultBlocks(answer.result).map((block) => block.body), ...answer.toolCalls.map((call) => call.text)]),
    ...cannedRepliesIn(o),
  ].map(normalized);
  const reading = readShowings(
    o.ledger.shown.filter((shown) => shown.sessionKey === session && shown.kind !== 'reaction'),
    texts,
  );
  bySession.set(session, reading);
  return reading;
}

export function answersIn(o: Observations, session: string): LlmAnswerFact[] {
  return o.ledger.answers.filter((answer) => answer.sessionKey === session);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A command (or its start) the system took up: its line is in an LLM prompt or a durable row (a silent run never is). */
export function takenUp(o: Observations, session: string, subject: CommandFact | CommandStart): boolean {
  return (
    o.ledger.requests.some((request) => request.sessionKey === session && carries(request.prompt, subject)) ||
    o.durable.rows.some((row) => row.sessionKey === session && carries(row.content, subject))
  );
}
