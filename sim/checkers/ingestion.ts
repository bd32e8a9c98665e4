// Ingestion invariants over the ledger and the final durable state, whatever internal ids the system used:
// - no-double-ingestion: each user message (found by its marker), each command (by its runId in OpenClaw's
//   `Exec finished (node=… id=<runId>, …)` line) and each command's start (its `Exec started (node=… id=<runId>)`
//   line, a report of its own) is in at most one user row of state.db and at most one user entry anywhere in its
//   session's JSONL file (a dead-end copy off the active branch is still a durable second turn);
// - no-lost-user-message: every message the gateway accepted (acknowledged to the platform) is, at the end, in a
//   user row of state.db and in a user entry on the JSONL active branch (its own, or the prompt it was merged into).
import { activeBranch } from './durable.ts';
import { acceptedMessages, carries, commandStartsOf, commandsOf, describeSubject, type Observations, stepAt, type Subject, subjectAtMs } from './observations.ts';
import { classOf, type InvariantName, type Violation } from './violation.ts';

function violation(o: Observations, invariant: InvariantName, message: string, atMs: number): Violation {
  return { invariant, message, step: stepAt(o, atMs), timeMs: atMs, class: classOf(invariant) };
}

export function checkIngestion(o: Observations, out: Violation[]): void {
  for (const session of o.sessions) {
    const userRows = o.durable.rows.filter((row) => row.sessionId === session && row.role === 'user');
    const entries = (o.durable.transcripts.get(session)?.entries ?? []).filter((entry) => entry.role === 'user');
    const subjects: Subject[] = [...o.ledger.userMessages.filter((message) => message.sessionKey === session), ...commandsOf(o, session), ...commandStartsOf(o, session)];
    for (const subject of subjects) {
      const inDb = userRows.filter((row) => carries(row.content, subject)).length;
      const inFile = entries.filter((entry) => carries(entry.text, subject)).length;
      const atMs = subjectAtMs(subject);
      if (inDb > 1) out.push(violation(o, 'no-double-ingestion', `${session}: ${describeSubject(subject)} is in ${inDb} user rows of state.db`, atMs));
      if (inFile > 1) out.push(violation(o, 'no-double-ingestion', `${session}: ${describeSubject(subject)} is in ${inFile} user entries of its JSONL file`, atMs));
    }
  }
  checkUserMessages(o, out);
}

function checkUserMessages(o: Observations, out: Violation[]): void {
  for (const message of acceptedMessages(o)) {
    const inDb = o.durable.rows.some((row) => row.sessionId === message.sessionKey && row.role === 'user' && carries(row.content, message));
    const branch = activeBranch(o.durable.transcripts.get(message.sessionKey)?.entries ?? []);
    const inJsonl = branch.some((entry) => entry.role === 'user' && carries(entry.text, message));
    if (inDb && inJsonl) continue;
    const where = !inDb ? 'state.db' : 'the JSONL active branch';
    out.push(violation(o, 'no-lost-user-message', `${message.sessionKey}: ${describeSubject(message)} was accepted but never reached ${where}`, o.endMs));
  }
}
