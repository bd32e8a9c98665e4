// Tracing what the user saw back to what the LLM produced, from the ledger alone. An LLM answer is identified by
// its prompt (at temperature 0 the same prompt gets the same answer, so a retried run is one logical answer). Each
// logical answer offers one slot per distinct (whitespace-normalised) payload meant for the user: each tool
// send_message/send_file payload and each `<message to="user">` block of its closing text; a block that repeats a
// tool payload verbatim shares that payload's slot, so showing both is a duplicate and showing one is complete.
// Every message shown (reactions aside) must fill an open slot of an answer returned before it was shown, in its
// session; a message that finds none was shown again (a duplicate) or was never produced. Showings fill slots of
// answers still standing first, then the earliest; any order fills the same number, so the counts are exact and
// only the naming of which answer a stock phrase belonged to can be ambiguous.
//
// An answer stands unless it was superseded (a later answer in the session was asked a prompt carrying every user
// message and command of its prompt, as happens when a message is merged into a later turn) or given up (an error
// reply was shown after it and the system did not ask that prompt again after the error reply).
import { parseMessageBlocks } from '../../src/index.ts';
import type { LlmToolCall } from '../../src/ports.ts';
import type { LlmAnswerFact, ShownFact } from '../world/ledger.ts';
import { answersIn, cannedReplies, carries, commandsOf, normalized, type Observations, shownIn } from './observations.ts';

export interface Slot {
  answer: LogicalAnswer;
  /** Normalised payload text. */
  text: string;
  /** The tool calls that carry this payload (empty for a block of the closing text only). */
  toolCalls: LlmToolCall[];
  shownBy: ShownFact | null;
}

export interface LogicalAnswer {
  sessionKey: string;
  prompt: string;
  result: string;
  toolCalls: LlmToolCall[];
  first: LlmAnswerFact;
  /** Markers of user messages and ids of commands the prompt carries. */
  subjects: string[];
  slots: Slot[];
  superseded: boolean;
  gaveUp: boolean;
}

export interface Unexplained {
  shown: ShownFact;
  reason: 'shown-again' | 'never-produced';
  /** For shown-again: the slot it repeats. */
  repeats: Slot | undefined;
}

export interface Attribution {
  session: string;
  answers: LogicalAnswer[];
  slotOf: Map<ShownFact, Slot>;
  canned: ShownFact[];
  unexplained: Unexplained[];
}

export function attributeAll(o: Observations): Map<string, Attribution> {
  return new Map(o.sessions.map((session) => [session, attribute(o, session)]));
}

function attribute(o: Observations, session: string): Attribution {
  const answers = logicalAnswers(o, session);
  const shown = shownIn(o, session);
  const slotOf = new Map<ShownFact, Slot>();
  const canned: ShownFact[] = [];
  const unexplained: Unexplained[] = [];
  const cannedBudget = cannedBudgets(o, session);
  for (const fact of shown) {
    const text = normalized(fact.text);
    const open = answers
      .filter((answer) => answer.first.returnedAtMs <= fact.atMs)
      .flatMap((answer) => answer.slots.filter((slot) => slot.shownBy === null && slot.text === text));
    const slot = open.find((candidate) => !candidate.answer.superseded && !candidate.answer.gaveUp) ?? open[0];
    if (slot !== undefined) {
      slot.shownBy = fact;
      slotOf.set(fact, slot);
      continue;
    }
    const budget = cannedBudget.get(text);
    if (budget !== undefined && budget > 0) {
      cannedBudget.set(text, budget - 1);
      canned.push(fact);
      continue;
    }
    const repeats = answers.flatMap((answer) => answer.slots).find((candidate) => candidate.text === text);
    unexplained.push({ shown: fact, reason: repeats !== undefined || budget !== undefined ? 'shown-again' : 'never-produced', repeats });
  }
  markGivenUp(o, answers, canned);
  return { session, answers, slotOf, canned, unexplained };
}

function logicalAnswers(o: Observations, session: string): LogicalAnswer[] {
  const byPrompt = new Map<string, LogicalAnswer>();
  const subjectsOf = (prompt: string): string[] => [
    ...o.ledger.userMessages.filter((message) => message.sessionKey === session && carries(prompt, message)).map((message) => message.marker),
    ...commandsOf(o, session).filter((command) => carries(prompt, command)).map((command) => `run:${command.runId}`),
  ];
  for (const fact of answersIn(o, session)) {
    if (byPrompt.has(fact.prompt)) continue;
    const answer: LogicalAnswer = {
      sessionKey: session,
      prompt: fact.prompt,
      result: fact.result,
      toolCalls: fact.toolCalls,
      first: fact,
      subjects: subjectsOf(fact.prompt),
      slots: [],
      superseded: false,
      gaveUp: false,
    };
    answer.slots = slotsOf(answer);
    byPrompt.set(fact.prompt, answer);
  }
  const answers = [...byPrompt.values()];
  for (const answer of answers) {
    answer.superseded = answers.some(
      (later) => later !== answer && later.first.index > answer.first.index && answer.subjects.length > 0 && answer.subjects.every((subject) => later.subjects.includes(subject)),
    );
  }
  return answers;
}

function slotsOf(answer: LogicalAnswer): Slot[] {
  const slots = new Map<string, Slot>();
  for (const call of answer.toolCalls) {
    if (call.name === 'add_reaction') continue;
    const text = normalized(call.text);
    const slot = slots.get(text) ?? { answer, text, toolCalls: [], shownBy: null };
    slot.toolCalls.push(call);
    slots.set(text, slot);
  }
  for (const block of parseMessageBlocks(answer.result)) {
    if (block.to !== 'user') continue;
    const text = normalized(block.body);
    if (!slots.has(text)) slots.set(text, { answer, text, toolCalls: [], shownBy: null });
  }
  return [...slots.values()];
}

/** How many of each canned reply the session may show: one per /clear, one error reply per message or command. */
function cannedBudgets(o: Observations, session: string): Map<string, number> {
  const messages = o.ledger.userMessages.filter((message) => message.sessionKey === session);
  const clears = messages.filter((message) => message.text.trim().toLowerCase().startsWith('/clear')).length;
  const [error, cleared] = cannedReplies.map(normalized);
  return new Map([
    [error ?? '', messages.length - clears + commandsOf(o, session).length],
    [cleared ?? '', clears],
  ]);
}

function markGivenUp(o: Observations, answers: LogicalAnswer[], canned: readonly ShownFact[]): void {
  const errorShown = canned.filter((fact) => normalized(fact.text) === normalized(cannedReplies[0])).map((fact) => fact.atMs);
  for (const answer of answers) {
    const lastAskedMs = Math.max(...o.ledger.requests.filter((request) => request.sessionKey === answer.sessionKey && request.prompt === answer.prompt).map((request) => request.atMs));
    answer.gaveUp = errorShown.some((atMs) => atMs >= answer.first.returnedAtMs && atMs >= lastAskedMs);
  }
}
