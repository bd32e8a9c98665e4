// Ingestion invariants over the ledger and the final durable state, whatever internal ids the system used:
// - no-double-ingestion: each user message (found by its marker), each command (by its runId in OpenClaw's
//   `Exec finished (node=… id=<runId>, …)` line) and each command's start (its `Exec started (node=… id=<runId>)`
//   line, a report of its own) is in at most one user row of state.db and at most one user entry anywhere in its
//   session's JSONL file (a dead-end copy off the active branch is still a durable second turn), and once in it (a
//   prompt carrying one message twice ingested it twice). A rotation (/clear) starts a new session: a subject whose
//   turn was cut off unanswered before it may be asked again in the new one (the same turn, retried; chaos seed 605,
//   run 10070: a poison message's row waited out its back-off while a later /clear ran, and its turn then gave up in
//   the new session), but not once the earlier session holds an answer to it (an assistant message whose text is the
//   closing text of an LLM answer whose prompt carried it): that was a second turn. The same holds for the user events
//   of a SQLite-era release's agent DB, where the run has one (durable.ts agentDb);
// - no-lost-user-message: every message the gateway accepted (acknowledged to the platform) is, at the end, in a
//   user row of state.db and in a user entry on the JSONL active branch (its own, or the prompt it was merged into);
//   a context message (it did not mention the agent) only once it is due there (observations.ts contextDue).
import { assert } from '../kernel/assert.ts';
import { agentDbTranscriptsOf, type DbRow, familyBranch, familyRows, type JsonlEntry } from './durable.ts';
import { transcriptEntriesKept } from './envelope.ts';
import { acceptedMessages, contextDue, carries, describeSubject, type Observations, occurrences, type Subject, subjectsIn } from './observations.ts';
import { type Place, Placement } from './placement.ts';
import { placedViolation, type Violation } from './violation.ts';


export function checkIngestion(o: Observations, out: Violation[], place = new Placement(o)): void {
  for (const session of o.sessions) {
    const rows = familyRows(o.durable, session);
    const userRows = rows.filter((row) => row.role === 'user');
    const dbSessions = [...new Set(rows.map((row) => row.sessionId))].map((id) => ({
      users: rows.filter((row) => row.sessionId === id && row.role === 'user').map((row) => row.content),
      assistant: new Set(rows.filter((row) => row.sessionId === id && row.role === 'assistant').map((row) => row.content)),
    }));
    // A submission the run superseded by its plain prompt (OpenClaw's rewrite, envelope.ts) is not a second turn.
    const files = (o.durable.files.get(session) ?? []).map(transcriptEntriesKept);
    const entries = files.flat().filter((entry) => entry.role === 'user');
    const fileSessions = files.map((kept) => ({
      users: kept.filter((entry) => entry.role === 'user').map((entry) => entry.text),
      assistant: new Set(kept.filter((entry) => entry.role === 'assistant' && !entry.mirror).map((entry) => entry.text)),
    }));
    const agentDbSessions = agentDbTranscriptsOf(o.durable, session).map((transcript) => ({
      users: transcript.events.filter((event) => event.role === 'user').map((event) => event.text),
      assistant: new Set(transcript.events.filter((event) => event.role === 'assistant' && !event.mirror).map((event) => event.text)),
    }));
    const subjects: Subject[] = subjectsIn(o, session);
    for (const subject of subjects) {
      const closings = new Set(o.ledger.answers.filter((answer) => answer.sessionKey === session && carries(answer.prompt, subject)).map((answer) => answer.result));
      const inDb = ingested(dbSessions, subject, closings, 'user rows of state.db');
      if (inDb !== undefined) out.push(placedViolation('no-double-ingestion', `${session}: ${describeSubject(subject)} ${inDb}`, secondRow(place, userRows, subject)));
      const inFile = ingested(fileSessions, subject, closings, 'user entries of its JSONL file');
      if (inFile !== undefined) out.push(placedViolation('no-double-ingestion', `${session}: ${describeSubject(subject)} ${inFile}`, secondEntry(place, session, entries, subject)));
      // A SQLite-era release's agent DB, where it keeps transcripts (durable.ts agentDb): the same rule over the user
      // events of the key's sessions there, placed at the end (the agent DB is read once, at the end).
      const inAgentDb = ingested(agentDbSessions, subject, closings, 'user events of the agent DB');
      if (inAgentDb !== undefined) out.push(placedViolation('no-double-ingestion', `${session}: ${describeSubject(subject)} ${inAgentDb}`, place.end(`the agent DB holds ${describeSubject(subject)} ${inAgentDb.replace(/^is /, '')}`)));
    }
  }
  checkUserMessages(o, out, place);
}

/** One session of a family as one transcript holds it: its user texts, and its assistant texts. */
interface SessionTexts {
  users: string[];
  assistant: ReadonlySet<string>;
}

/**
 * How a subject was ingested more than once in a family's sessions (a transcript's user rows or entries, session by
 * session in family order), or undefined: in several user texts of one session, several times in one (a prompt that
 * carries the same message twice, as one batch holding two inbound rows of one delivery would), or again in a later
 * session after an earlier one that holds it holds an answer to it (one of `closings`, the closing texts of the LLM
 * answers whose prompts carried it).
 */
function ingested(sessions: readonly SessionTexts[], subject: Subject, closings: ReadonlySet<string>, where: string): string | undefined {
  const counted = sessions.map((texts) => ({ counts: texts.users.map((text) => occurrences(text, subject)).filter((count) => count > 0), answered: [...texts.assistant].some((text) => closings.has(text)) }));
  const total = counted.reduce((sum, { counts }) => sum + counts.length, 0);
  const holding = counted.filter(({ counts }) => counts.length > 0);
  if (holding.some(({ counts }) => counts.length > 1) || holding.slice(0, -1).some(({ answered }) => answered)) return `is in ${total} ${where}`;
  const count = holding.flatMap(({ counts }) => counts).find((one) => one > 1);
  return count !== undefined ? `is ${count} times in one of the ${where}` : undefined;
}

/** Where the second copy of a subject became durable in state.db: the commit of its second user row (rows are in time order). */
function secondRow(place: Placement, rows: readonly DbRow[], subject: Subject): Place {
  const carrying = rows.filter((row) => occurrences(row.content, subject) > 0);
  const [first, second] = carrying;
  if (second !== undefined) return place.rowCommit(second, `a second user row carrying ${describeSubject(subject)}`);
  assert(first !== undefined, `a user row of state.db carries ${describeSubject(subject)}`);
  return place.rowCommit(first, `a user row carrying ${describeSubject(subject)} twice`);
}

/** Where the second copy of a subject became durable in the JSONL file: the check that saw the copy that made two. */
function secondEntry(place: Placement, session: string, entries: readonly JsonlEntry[], subject: Subject): Place {
  const seen = entries
    .filter((entry) => occurrences(entry.text, subject) > 0)
    .map((entry) => place.entrySeen(session, entry, `a second user entry carrying ${describeSubject(subject)}`))
    .sort((a, b) => a.step - b.step);
  const copy = seen[1] ?? seen[0];
  assert(copy !== undefined, `a user entry of ${session} carries ${describeSubject(subject)}`);
  return copy;
}

/**
 * A lost user message is placed where the system took it in: the arrival at the platform of the gateway's
 * acknowledgement. What happened to it next follows on the timeline; the end only proves that it never arrived.
 */
function checkUserMessages(o: Observations, out: Violation[], place: Placement): void {
  for (const message of acceptedMessages(o)) {
    if (!message.mentions && !contextDue(o, message)) continue;
    const inDb = familyRows(o.durable, message.sessionKey).some((row) => row.role === 'user' && carries(row.content, message));
    const branch = familyBranch(o.durable, message.sessionKey);
    const inJsonl = branch.some((entry) => entry.role === 'user' && carries(entry.text, message));
    if (inDb && inJsonl) continue;
    const where = !inDb ? 'state.db' : 'the JSONL active branch';
    const context = message.mentions ? '' : ' (context for a later message)';
    const at = place.acknowledgement(message, `the gateway's acknowledgement of ${message.marker} reaches the platform: the system took it in, and it never reaches ${where}`);
    out.push(placedViolation('no-lost-user-message', `${message.sessionKey}: ${describeSubject(message)}${context} was accepted but never reached ${where}`, at));
  }
}
