// Ingestion invariants over the ledger and the final durable state, whatever internal ids the system used:
// - no-double-ingestion: each user message (found by its marker) and each command (by its runId in OpenClaw's
//   `Exec finished (node=… id=<runId>, …)` text) is in at most one user row of state.db and at most one user entry
//   anywhere in its session's JSONL file (a dead-end copy off the active branch is still a durable second turn);
// - no-lost-user-message: every message the gateway accepted (acknowledged to the platform) is, at the end, in a
//   user row of state.db and in a user entry on the JSONL active branch (its own, or the prompt it was merged into).
import type { CommandFact, UserMessageFact } from '../world/ledger.ts';
import { activeBranch } from './durable.ts';
import { acceptedMessages, carries, commandsOf, type Observations, stepAt } from './observations.ts';
import { classOf, type InvariantName, type Violation } from './violation.ts';

function violation(o: Observations, invariant: InvariantName, message: string, atMs: number): Violation {
  return { invariant, message, step: stepAt(o, atMs), timeMs: atMs, class: classOf(invariant) };
}

function describe(subject: UserMessageFact | CommandFact): string {
  return 'marker' in subject ? `message ${subject.marker} (delivery ${subject.deliveryId})` : `command ${subject.runId}`;
}

export function checkIngestion(o: Observations, out: Violation[]): void {
  for (const session of o.sessions) {
    const userRows = o.durable.rows.filter((row) => row.sessionId === session && row.role === 'user');
    const entries = (o.durable.transcripts.get(session)?.entries ?? []).filter((entry) => entry.role === 'user');
    const subjects: (UserMessageFact | CommandFact)[] = [...o.ledger.userMessages.filter((message) => message.sessionKey === session), ...commandsOf(o, session)];
    for (const subject of subjects) {
      const inDb = userRows.filter((row) => carries(row.content, subject)).length;
      const inFile = entries.filter((entry) => carries(entry.text, subject)).length;
      const atMs = 'marker' in subject ? subject.sentAtMs : subject.requestedAtMs;
      if (inDb > 1) out.push(violation(o, 'no-double-ingestion', `${session}: ${describe(subject)} is in ${inDb} user rows of state.db`, atMs));
      if (inFile > 1) out.push(violation(o, 'no-double-ingestion', `${session}: ${describe(subject)} is in ${inFile} user entries of its JSONL file`, atMs));
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
    out.push(violation(o, 'no-lost-user-message', `${message.sessionKey}: ${describe(message)} was accepted but never reached ${where}`, o.endMs));
  }
}
