// Ingestion invariants over the final durable state:
// - no-double-ingestion: each inbound delivery id and each exec runId produces at most one user turn: at most one
//   user row per turn in state.db, at most one user entry per turn anywhere in its JSONL file (a dead-end copy is
//   still a durable second turn for whatever reads the file), at most one system prompt row per exec runId;
// - no-lost-user-message: every accepted inbound message that its session finished reaches the transcript: its text
//   is in a user row in state.db and a user entry on the JSONL active branch, its own or that of the turn it was
//   merged into.
import { activeBranchOf } from '../../src/index.ts';
import type { Observations } from './observations.ts';
import { classOf, type InvariantName, type Violation } from './violation.ts';

function violation(o: Observations, invariant: InvariantName, message: string, step?: number): Violation {
  const at = step ?? Math.max(0, o.events.length - 1);
  return { invariant, message, step: at, timeMs: o.events[at]?.timeMs ?? o.endMs, class: classOf(invariant) };
}

/** The turn that answered an inbound row: itself, or the turn it was merged into (followed to the end). */
export function answeringTurn(o: Observations, rowId: string): string {
  let turn = rowId;
  for (let hops = 0; hops < o.inbound.length; hops++) {
    const row = o.inbound.find((candidate) => candidate.id === turn);
    if (row?.mergedInto == null) return turn;
    turn = row.mergedInto;
  }
  return turn;
}

export function checkIngestion(o: Observations, out: Violation[]): void {
  const userRows = new Map<string, number>();
  for (const row of o.stateRows) if (row.role === 'user') userRows.set(row.turnId, (userRows.get(row.turnId) ?? 0) + 1);
  for (const [turnId, count] of userRows) {
    if (count > 1) out.push(violation(o, 'no-double-ingestion', `state.db has ${count} user rows for turn ${turnId}`));
  }
  for (const [session, transcript] of o.transcripts) {
    const counts = new Map<string, number>();
    for (const entry of transcript.entries) if (entry.message.role === 'user') counts.set(entry.turnId, (counts.get(entry.turnId) ?? 0) + 1);
    for (const [turnId, count] of counts) {
      if (count > 1) out.push(violation(o, 'no-double-ingestion', `${session}.jsonl holds ${count} user entries for turn ${turnId}`));
    }
  }
  const execRows = new Map<string, string[]>();
  for (const row of o.inbound) {
    if (row.kind !== 'system') continue;
    for (const match of row.content.matchAll(/Exec finished \(node=\S+ id=([^,]+),/g)) {
      const runId = match[1] ?? '';
      execRows.set(runId, [...(execRows.get(runId) ?? []), row.id]);
    }
  }
  for (const [runId, rows] of execRows) {
    if (rows.length <= 1) continue;
    const second = o.events.findIndex((event) => event.kind === 'model.exec-ingest' && event.fields.row === rows[1]);
    out.push(violation(o, 'no-double-ingestion', `exec ${runId} became ${rows.length} user turns (${rows.join(', ')})`, second < 0 ? undefined : second));
  }
  checkUserMessages(o, out);
}

function checkUserMessages(o: Observations, out: Violation[]): void {
  for (const row of o.accepted) {
    // A message still pending is the liveness checker's; one accepted without a row has been lost already.
    if (row.status !== undefined && row.status !== 'completed') continue;
    const turn = answeringTurn(o, row.id);
    // The message's own text must be in the answering turn's user row (its own prompt, or merged into another).
    const carries = (role: string, turnId: string, content: string): boolean => role === 'user' && turnId === turn && content.includes(row.text);
    const inDb = o.stateRows.some((candidate) => carries(candidate.role, candidate.turnId, candidate.content));
    const branch = activeBranchOf(o.transcripts.get(row.sessionKey)?.entries ?? []);
    const inJsonl = branch.some((entry) => carries(entry.message.role, entry.turnId, entry.message.content));
    if (!inDb || !inJsonl) {
      const where = !inDb ? 'state.db' : 'the JSONL active branch';
      out.push(violation(o, 'no-lost-user-message', `inbound ${row.id} (${row.sessionKey}) never reached ${where}`));
    }
  }
}
