// Ingestion invariants over the ledger and the final durable state, whatever internal ids the system used:
// - no-double-ingestion: each user message (found by its marker), each command (by its runId in OpenClaw's
//   `Exec finished (node=… id=<runId>, …)` line) and each command's start (its `Exec started (node=… id=<runId>)`
//   line, a report of its own) is in at most one user row of state.db and at most one user entry anywhere in its
//   session's JSONL file (a dead-end copy off the active branch is still a durable second turn), and once in it (a
//   prompt carrying one message twice ingested it twice);
// - no-lost-user-message: every message the gateway accepted (acknowledged to the platform) is, at the end, in a
//   user row of state.db and in a user entry on the JSONL active branch (its own, or the prompt it was merged into);
//   a context message (it did not mention the agent) only once it is due there (observations.ts contextDue).
import { familyBranch, familyEntries, familyRows } from './durable.ts';
import { acceptedMessages, commandStartsOf, commandsOf, contextDue, carries, describeSubject, type Observations, occurrences, stepAt, type Subject, subjectAtMs } from './observations.ts';
import { classOf, type InvariantName, type Violation } from './violation.ts';

function violation(o: Observations, invariant: InvariantName, message: string, atMs: number): Violation {
  return { invariant, message, step: stepAt(o, atMs), timeMs: atMs, class: classOf(invariant) };
}

export function checkIngestion(o: Observations, out: Violation[]): void {
  for (const session of o.sessions) {
    const userRows = familyRows(o.durable, session).filter((row) => row.role === 'user');
    const entries = familyEntries(o.durable, session).filter((entry) => entry.role === 'user');
    const subjects: Subject[] = [...o.ledger.userMessages.filter((message) => message.sessionKey === session), ...commandsOf(o, session), ...commandStartsOf(o, session)];
    for (const subject of subjects) {
      const atMs = subjectAtMs(subject);
      const inDb = ingested(userRows.map((row) => row.content), subject, 'user rows of state.db');
      const inFile = ingested(entries.map((entry) => entry.text), subject, 'user entries of its JSONL file');
      for (const where of [inDb, inFile]) if (where !== undefined) out.push(violation(o, 'no-double-ingestion', `${session}: ${describeSubject(subject)} ${where}`, atMs));
    }
  }
  checkUserMessages(o, out);
}

/**
 * How a subject was ingested more than once among `texts` (a transcript's user rows or entries), or undefined: in
 * several of them, or several times in one (a prompt that carries the same message twice, as one batch holding two
 * inbound rows of one delivery would).
 */
function ingested(texts: readonly string[], subject: Subject, where: string): string | undefined {
  const counts = texts.map((text) => occurrences(text, subject)).filter((count) => count > 0);
  if (counts.length > 1) return `is in ${counts.length} ${where}`;
  const [count] = counts;
  return count !== undefined && count > 1 ? `is ${count} times in one of the ${where}` : undefined;
}

function checkUserMessages(o: Observations, out: Violation[]): void {
  for (const message of acceptedMessages(o)) {
    if (!message.mentions && !contextDue(o, message)) continue;
    const inDb = familyRows(o.durable, message.sessionKey).some((row) => row.role === 'user' && carries(row.content, message));
    const branch = familyBranch(o.durable, message.sessionKey);
    const inJsonl = branch.some((entry) => entry.role === 'user' && carries(entry.text, message));
    if (inDb && inJsonl) continue;
    const where = !inDb ? 'state.db' : 'the JSONL active branch';
    const context = message.mentions ? '' : ' (context for a later message)';
    out.push(violation(o, 'no-lost-user-message', `${message.sessionKey}: ${describeSubject(message)}${context} was accepted but never reached ${where}`, o.endMs));
  }
}
