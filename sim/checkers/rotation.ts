// transcript-consistent across session rotations (/clear; Hermes' reset_session, OpenClaw's /new): a key's
// conversation spans its family of sessions (durable.ts), and each part of it belongs to the session that was current
// when it was written. Decided from state.db's `sessions` and `messages` columns, the JSONL files and the ledger:
// - a session a rotation ended (`ended_at`) holds no row written after its end: a writer that kept the old session id
//   (a cached agent that did not follow the rotation) put it there;
// - a message the user typed after seeing the k-th `Session cleared.` is in no transcript of the first k sessions: the
//   user was told the session was new, so a rotation that was not durable before that reply (lost with a restart)
//   shows as a later message landing in the old session. On a key-less platform the user may see one
//   `Session cleared.` twice (its acknowledgement was lost and the gateway sent it again, or the network replayed it):
//   such a repeat (at-least-once.ts) tells of no new rotation, so it is not paired with a later /clear.
import type { ShownFact, UserMessageFact } from '../world/ledger.ts';
import { atLeastOnceRepeats } from './at-least-once.ts';
import { familyRows } from './durable.ts';
import { carries, isClear, normalized, type Observations, shownIn, systemOf } from './observations.ts';
import { type Place, Placement } from './placement.ts';
import { placedViolation, type Violation } from './violation.ts';

/** Placed at the commit of the first row in the wrong session, or the check that first saw the entry there (placement.ts). */
function violation(message: string, place: Place): Violation {
  return placedViolation('transcript-consistent', message, place);
}

export function checkRotations(o: Observations, out: Violation[], place = new Placement(o)): void {
  for (const session of o.sessions) {
    checkEndedSessions(o, session, out, place);
    checkGenerations(o, session, out, place);
  }
}

function checkEndedSessions(o: Observations, session: string, out: Violation[], place: Placement): void {
  const rows = familyRows(o.durable, session);
  for (const span of o.durable.families.get(session) ?? []) {
    const endedAtMs = span.endedAtMs;
    if (endedAtMs === null) continue;
    const late = rows.filter((row) => row.sessionId === span.sessionId && row.timestamp > endedAtMs);
    if (late.length === 0) continue;
    const first = late[0];
    if (first === undefined) continue;
    const what = late.map((row) => `${row.role} row ${row.id} at ${row.timestamp} ms`).join(', ');
    const at = place.rowCommit(first, `${first.role} row ${first.id} of session ${span.sessionId}, which ended at ${endedAtMs} ms,`);
    out.push(violation(`${session}: state.db session ${span.sessionId} ended at ${endedAtMs} ms (${span.endReason ?? 'no reason'}) but holds ${late.length} rows written after (${what})`, at));
  }
}

/**
 * The times the user saw `Session cleared.` answer a /clear of theirs (each /clear answered once, earliest first). A
 * key-less repeat of an earlier `Session cleared.` answers none: paired with the next /clear, it would date that
 * rotation before the system made it.
 */
export function clearsSeen(o: Observations, session: string): number[] {
  const clears = o.ledger.userMessages.filter((message) => message.sessionKey === session && isClear(message));
  const repeats = atLeastOnceRepeats(o);
  const seen: number[] = [];
  let next = 0;
  const clearedReply = systemOf(o).clearedReply;
  for (const shown of shownIn(o, session).filter((fact: ShownFact) => normalized(fact.text) === normalized(clearedReply))) {
    const clear = clears[next];
    // Asked of every showing in order, so that each excused repeat claims the send it repeats (at-least-once.ts).
    if (repeats.excused(shown) || clear === undefined || clear.sentAtMs >= shown.atMs) continue;
    next++;
    seen.push(shown.atMs);
  }
  return seen;
}

function checkGenerations(o: Observations, session: string, out: Violation[], place: Placement): void {
  const seen = clearsSeen(o, session);
  if (seen.length === 0) return;
  const family = (o.durable.families.get(session) ?? []).map((span) => span.sessionId);
  const rows = familyRows(o.durable, session).filter((row) => row.role === 'user');
  const files = o.durable.files.get(session) ?? [];
  const messages = o.ledger.userMessages.filter((message: UserMessageFact) => message.sessionKey === session && !isClear(message));
  for (const message of messages) {
    const owed = seen.filter((atMs) => atMs < message.sentAtMs).length;
    if (owed === 0) continue;
    const inDb = rows.filter((row) => carries(row.content, message)).map((row) => ({ where: 'state.db', sessionId: row.sessionId, copy: () => place.rowCommit(row, `${message.marker} in session ${row.sessionId}`) }));
    const inFiles = files.flatMap((file) => {
      const entry = file.entries.find((candidate) => candidate.role === 'user' && carries(candidate.text, message));
      const sessionId = file.sessionId ?? session;
      return entry === undefined ? [] : [{ where: 'its JSONL file', sessionId, copy: () => place.entrySeen(session, entry, `${message.marker} in session ${sessionId}`) }];
    });
    for (const { where, sessionId, copy } of [...inDb, ...inFiles]) {
      const generation = family.indexOf(sessionId);
      if (generation >= owed) continue;
      out.push(
        violation(
          `${session}: message ${message.marker} was typed after the user saw ${owed} "${systemOf(o).clearedReply}" replies, but ${where} holds it in session ${sessionId} (the key's session ${generation + 1} of ${family.length})`,
          copy(),
        ),
      );
      break;
    }
  }
}
