// context-holds-durable-turns (issue 44 item 5): every LLM request's context holds every durable turn of its session
// that was committed before the context was built. Judged from the world's ground truth and the durable state alone:
// - the context of a request is what the LLM API received with it (the ledger records it as sent);
// - a durable turn is a pair of state.db rows of the session, a user message and its answer, whose commit the world can
//   bound from above: a turn typed at the dashboard (a second writer of state.db) was committed when the dashboard showed
//   its answer to its user (it shows only once both rows are committed), and a turn of the agent's own whose closing
//   text carries a block no other answer of the session has, as a block or as a tool payload, was committed when the
//   user was first shown that block (a final row is written before its reply leaves the runner; a tool payload leaves
//   before it);
// - a context was built after its request's turn took up the messages the prompt carries: a request whose prompt carries
//   a message typed (or a dashboard turn typed, or a task occurrence due) after a turn was committed was built after it.
// So a request is judged against a turn only when that order is certain, which is what keeps it free of false alarms for
// a context built before a concurrent append (that append is for the next context to hold).
// "Holds": the context carries the turn's answer as an assistant message, verbatim, and its user message as a user
// message or, folded, in the prompt. The contexts the model sends are Hermes' conversation history from state.db, which
// OpenClaw's compaction (of the JSONL) does not shorten; a session a /clear (or anything else) ended before the request
// owes it nothing, so a new session's context starts empty.
import type { DashboardTurnFact, LlmAnswerFact, LlmRequestFact } from '../world/ledger.ts';
import { type DbRow, familyRows } from './durable.ts';
import { collapseWhitespace, readResultBlocks } from './formats.ts';
import { type Observations, shownIn } from './observations.ts';
import type { Placement } from './placement.ts';
import { placedViolation, type Violation } from './violation.ts';

/** A durable turn: its two rows' texts, the state.db session it is in, and when it was surely committed by. */
interface DurableTurn {
  name: string;
  sessionId: string;
  user: string | undefined;
  answer: string;
  committedByMs: number;
}

export function checkContexts(o: Observations, out: Violation[], place: Placement): void {
  for (const session of o.sessions) {
    const turns = [...dashboardTurnsOf(o, session), ...ownTurnsOf(o, session)];
    if (turns.length === 0) continue;
    const ended = new Map((o.durable.families.get(session) ?? []).map((span) => [span.sessionId, span.endedAtMs]));
    const typed = typedTimes(o, session);
    for (const request of o.ledger.requests.filter((candidate) => candidate.sessionKey === session)) {
      const builtAfterMs = builtAfter(request, typed);
      if (builtAfterMs === undefined) continue;
      for (const turn of turns) {
        if (turn.committedByMs >= builtAfterMs) continue;
        const endedAtMs = ended.get(turn.sessionId) ?? null;
        if (endedAtMs !== null && endedAtMs <= request.atMs) continue;
        const missing = missingFrom(request, turn);
        if (missing === undefined) continue;
        const message = `${session}: the LLM request at ${request.atMs} ms was built after ${turn.name} was durable (by ${turn.committedByMs} ms, in ${turn.sessionId}), yet its context of ${request.context.length} messages lacks ${missing}`;
        out.push(placedViolation('context-holds-durable-turns', message, place.at(request.atMs, `the LLM is asked with a context that lacks ${turn.name}`)));
        break;
      }
    }
  }
}

/** The dashboard's turns of the session that it showed, with their durable rows. */
function dashboardTurnsOf(o: Observations, session: string): DurableTurn[] {
  const rows = familyRows(o.durable, session);
  return o.ledger.dashboardTurns.flatMap((fact: DashboardTurnFact) => {
    if (fact.shownAtMs === null || fact.answer === null) return [];
    const answer = rows.find((row) => row.role === 'assistant' && row.content === fact.answer);
    if (answer === undefined) return [];
    return [{ name: `dashboard turn ${fact.marker}`, sessionId: answer.sessionId, user: fact.text, answer: answer.content, committedByMs: fact.shownAtMs }];
  });
}

/**
 * The agent's own answers whose closing text has a block no other answer of the session produces (as a block or a tool
 * payload), with a durable final row: committed by the first showing of that block after the answer came back.
 */
function ownTurnsOf(o: Observations, session: string): DurableTurn[] {
  const answers = o.ledger.answers.filter((answer) => answer.sessionKey === session);
  const resultsOf = new Map<string, Set<string>>();
  // A tool payload is shown before its answer's final row is written (a run makes its calls first), so a block equal to
  // any tool payload, the answer's own included, bounds no commit (chaos seed 3, run 2332: the closing text repeated
  // the answer's own send_message payload, whose showing was taken for the final row's commit 25 s too early).
  const toolPayloads = new Set(answers.flatMap((answer) => answer.toolCalls.map((call) => collapseWhitespace(call.text))));
  for (const answer of answers) {
    for (const block of readResultBlocks(answer.result)) {
      const body = collapseWhitespace(block.body);
      resultsOf.set(body, (resultsOf.get(body) ?? new Set()).add(answer.result));
    }
  }
  const rows = familyRows(o.durable, session);
  // As the user reads them (a reply in parts is shown whole at its last part): a part alone shows no block's text.
  const shown = shownIn(o, session).map((fact) => ({ atMs: fact.atMs, text: collapseWhitespace(fact.text) }));
  const seen = new Set<string>();
  return answers.flatMap((answer: LlmAnswerFact) => {
    if (seen.has(answer.result)) return [];
    seen.add(answer.result);
    const final: DbRow | undefined = rows.find((row) => row.role === 'assistant' && row.content === answer.result);
    if (final === undefined) return [];
    const unique = readResultBlocks(answer.result).map((block) => collapseWhitespace(block.body)).filter((body) => resultsOf.get(body)?.size === 1 && !toolPayloads.has(body));
    const firstShownMs = Math.min(...shown.filter((fact) => fact.atMs >= answer.returnedAtMs && unique.includes(fact.text)).map((fact) => fact.atMs));
    if (!Number.isFinite(firstShownMs)) return [];
    return [{ name: `the answer "${unique[0]?.slice(0, 40) ?? ''}"`, sessionId: final.sessionId, user: undefined, answer: answer.result, committedByMs: firstShownMs }];
  });
}

/** When each thing the session's prompts may carry was typed (or fell due): its marker and the instant. */
function typedTimes(o: Observations, session: string): { marker: string; atMs: number }[] {
  return [
    ...o.ledger.userMessages.filter((message) => message.sessionKey === session).map((message) => ({ marker: message.marker, atMs: message.sentAtMs })),
    ...o.ledger.dashboardTurns.filter((fact) => fact.sessionKey === session).map((fact) => ({ marker: fact.marker, atMs: fact.typedAtMs })),
  ];
}

/** The latest instant a request's context was surely built after: the newest of what its prompt carries, if anything. */
function builtAfter(request: LlmRequestFact, typed: readonly { marker: string; atMs: number }[]): number | undefined {
  const carried = typed.filter((item) => request.prompt.includes(item.marker)).map((item) => item.atMs);
  return carried.length === 0 ? undefined : Math.max(...carried);
}

/** What of the turn the request's context does not hold, or undefined when it holds it. */
function missingFrom(request: LlmRequestFact, turn: DurableTurn): string | undefined {
  const hasAnswer = request.context.some((message) => message.role === 'assistant' && message.content === turn.answer);
  if (!hasAnswer) return `its answer ("${turn.answer.split('\n')[0]?.slice(0, 60) ?? ''}")`;
  if (turn.user === undefined) return undefined;
  const user = turn.user;
  const hasUser = request.context.some((message) => message.role === 'user' && message.content.includes(user)) || request.prompt.includes(user);
  return hasUser ? undefined : `its user message ("${user.slice(0, 60)}")`;
}
