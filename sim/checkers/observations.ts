// What the checkers judge by, gathered from outside the system under test: the world's ground-truth ledger (what
// the user typed and was shown, what the LLM was asked and answered, which commands ran), the durable state read in
// the real systems' formats, and the kernel's own facts (kills and crashes, with their times). Trace events serve
// only to place a violation on the timeline (its step).
import { clearedReply, errorReply, normalizeWhitespace } from '../../src/index.ts';
import type { TraceEvent } from '../kernel/trace.ts';
import type { CommandFact, Ledger, LlmAnswerFact, ShownFact, UserMessageFact } from '../world/ledger.ts';
import type { DurableState } from './durable.ts';

/** Replies the system under test produces itself, without the LLM (a give-up after repeated errors, /clear). */
export const cannedReplies = [errorReply, clearedReply] as const;

/** A kill or crash of a process, as the kernel recorded it. */
export interface KernelFact {
  kind: 'kill' | 'crash';
  process: string;
  incarnation: number;
  timeMs: number;
  step: number;
}

/**
 * What every checker (built-in or registered) judges a run by: the ledger, the durable state, kills and crashes,
 * the trace (for timeline steps only) and the timing.
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
}

export function kernelFacts(events: readonly TraceEvent[]): KernelFact[] {
  const out: KernelFact[] = [];
  events.forEach((event, step) => {
    if (event.kind !== 'proc.kill' && event.kind !== 'proc.exit') return;
    out.push({
      kind: event.kind === 'proc.kill' ? 'kill' : 'crash',
      process: String(event.fields.name),
      incarnation: Number(event.fields.incarnation),
      timeMs: event.timeMs,
      step,
    });
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

export function normalized(text: string): string {
  return normalizeWhitespace(text);
}

/** The user messages the system accepted: the gateway acknowledged them to the platform. */
export function acceptedMessages(o: Observations, session?: string): UserMessageFact[] {
  return o.ledger.userMessages.filter((message) => message.acknowledgedAtMs !== null && (session === undefined || message.sessionKey === session));
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
  if ('marker' in subject) return `message ${subject.marker} (delivery ${subject.deliveryId})`;
  return 'start' in subject ? `the start of command ${subject.start.runId}` : `command ${subject.runId}`;
}

/** When the subject entered the world: the user typed it, or the workload asked for the command. */
export function subjectAtMs(subject: Subject): number {
  if ('marker' in subject) return subject.sentAtMs;
  return 'start' in subject ? subject.start.requestedAtMs : subject.requestedAtMs;
}

export function commandsOf(o: Observations, session: string): CommandFact[] {
  return o.ledger.commands.filter((command) => command.sessionKey === session);
}

/** The starts of a session's commands (each a subject of its own). */
export function commandStartsOf(o: Observations, session: string): CommandStart[] {
  return commandsOf(o, session).map((command) => ({ start: command }));
}

export function shownIn(o: Observations, session: string): ShownFact[] {
  return o.ledger.shown.filter((shown) => shown.sessionKey === session && shown.kind !== 'reaction');
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
    o.durable.rows.some((row) => row.sessionId === session && carries(row.content, subject))
  );
}
