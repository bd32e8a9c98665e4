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

/**
 * A start, kill or crash of a process incarnation, as the kernel recorded it. A kill says what caused it: a fault of
 * the plan, a supervisor (a process of the system killing another through the kernel), or a power loss.
 */
export interface KernelFact {
  kind: 'start' | 'kill' | 'crash';
  process: string;
  incarnation: number;
  timeMs: number;
  step: number;
  /** For a kill: who killed it. */
  cause?: 'fault' | 'supervisor' | 'power-loss';
  /** For a start: whether an earlier incarnation of the process ran before it. */
  restarted?: boolean;
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
}

export function kernelFacts(events: readonly TraceEvent[]): KernelFact[] {
  const out: KernelFact[] = [];
  // The kernel records a supervisor's kill and a power loss as a fault event just before the kills they make, at
  // the same instant.
  let supervisorKill: { timeMs: number; target: string } | undefined;
  let powerLossAtMs = -1;
  events.forEach((event, step) => {
    const base = { process: String(event.fields.name), incarnation: Number(event.fields.incarnation), timeMs: event.timeMs, step };
    switch (event.kind) {
      case 'fault':
        if (event.fields.kind === 'supervisor-kill') supervisorKill = { timeMs: event.timeMs, target: String(event.fields.target) };
        else if (event.fields.kind === 'power-loss') powerLossAtMs = event.timeMs;
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
      case 'proc.spawn':
      case 'proc.restart':
        out.push({ kind: 'start', ...base, restarted: event.kind === 'proc.restart' });
        break;
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

export function normalized(text: string): string {
  return normalizeWhitespace(text);
}

/** The user messages the system accepted: the gateway acknowledged them to the platform. */
export function acceptedMessages(o: Observations, session?: string): UserMessageFact[] {
  return o.ledger.userMessages.filter((message) => message.acknowledgedAtMs !== null && (session === undefined || message.sessionKey === session));
}

/** pi/OpenClaw's exec event text names the run as `id=<runId>,` (finished) in the prompt. */
export function mentionsRun(text: string, runId: string): boolean {
  return text.includes(`Exec finished (node=`) && new RegExp(`\\bid=${escapeRegExp(runId)}[,)]`).test(text);
}

/** Whether a text (prompt, row, entry) carries a user message or a command. */
export function carries(text: string, subject: UserMessageFact | CommandFact): boolean {
  return 'marker' in subject ? text.includes(subject.marker) : mentionsRun(text, subject.runId);
}

export function commandsOf(o: Observations, session: string): CommandFact[] {
  return o.ledger.commands.filter((command) => command.sessionKey === session);
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

/** A command the system took up: its run is in an LLM prompt or in a durable transcript (a silent run never is). */
export function takenUp(o: Observations, session: string, command: CommandFact): boolean {
  return (
    o.ledger.requests.some((request) => request.sessionKey === session && carries(request.prompt, command)) ||
    o.durable.rows.some((row) => row.sessionId === session && carries(row.content, command))
  );
}
