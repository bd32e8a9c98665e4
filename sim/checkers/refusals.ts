// A platform that refuses sends, and replies in parts (issue 48), judged from the world's ledger and the durable state:
// - a part shown again (parts.ts) is a message the user saw twice: no-duplicate-visible-reply, unless the world shows
//   it was unavoidable (at-least-once.ts: a replay of the network, or a resend the sender had a reason for: a restart,
//   a wait for the answer that timed out, an answer the network lost). A resend of a part the sender knew was taken
//   (its acknowledgement came while it waited, no restart since) is a duplicate: the fault of a retry that starts the
//   reply over;
// - a reply given up visibly is not lost: the platform refused a send of it (or of one of its parts) for good (the
//   ledger's permanent refusal: the chat was not found), and the system recorded the give-up where it can be seen
//   (Hermes' delivery ledger in state.db: a `delivery_obligations` row of the session holding the reply, in state
//   `failed` or `abandoned`, written at or after the refusal). A give-up with no such record is silent, and a give-up
//   after refusals that were not permanent (flood control, a listener not ready, a text too long) loses a reply the
//   platform would have taken: both stay no-lost-reply (replies.ts), and the subjects they answer stay owed a reply.
//   A canned reply given up so (`Session cleared.` to a /clear, the error reply) answers one subject it may answer:
//   the attribution matches it as it matches a canned reply shown (attribution.ts), at the instant of its record.
import { atLeastOnceRepeats } from './at-least-once.ts';
import { cannedRepliesIn, normalized, type Observations, partsIn } from './observations.ts';
import { squashed } from './parts.ts';
import type { Placement } from './placement.ts';
import { placedViolation, type Violation } from './violation.ts';

/** Parts shown again with no reason the world shows for it (no-duplicate-visible-reply). */
export function checkPartRepeats(o: Observations, out: Violation[], place: Placement): void {
  const excuse = atLeastOnceRepeats(o);
  for (const session of o.sessions) {
    for (const { shown, text } of partsIn(o, session).repeats) {
      if (excuse.excused(shown)) continue;
      const what = `a part of the reply "${text.slice(0, 60)}…" ("${shown.text.slice(0, 40)}…")`;
      out.push(placedViolation('no-duplicate-visible-reply', `${session}: the user saw ${what} again, with no reason the world shows for sending it again`, place.showing(shown, `the user is shown ${what} again`)));
    }
  }
}

/** The permanent refusals of sends of `text` (whole or a part of it) in the session. */
function permanentRefusals(o: Observations, session: string, text: string): { atMs: number; reason: string }[] {
  const whole = squashed(text);
  return o.ledger.sendRefusals.filter((refusal) => refusal.sessionKey === session && refusal.permanent && squashed(refusal.text).length > 0 && whole.includes(squashed(refusal.text)));
}

/** The times the system recorded giving up on `text` in the session (failed or abandoned delivery obligations), at or after `fromMs`, in order. */
function giveUpRecords(o: Observations, session: string, text: string, fromMs: number): number[] {
  return (o.durable.deliveryObligations ?? [])
    .filter((row) => row.sessionKey === session && (row.state === 'failed' || row.state === 'abandoned') && normalized(row.content) === text && row.updatedAtMs >= fromMs)
    .map((row) => row.updatedAtMs)
    .sort((a, b) => a - b);
}

/** The records of a visible give-up of `text` (its normalised text): those written at or after its first permanent refusal. */
function visibleGiveUps(o: Observations, session: string, text: string): number[] {
  const first = permanentRefusals(o, session, text)[0];
  return first === undefined ? [] : giveUpRecords(o, session, text, first.atMs);
}

/** Whether a reply (its normalised text) that was never shown was given up visibly: refused for good, the give-up recorded. */
export function givenUpVisibly(o: Observations, session: string, text: string): boolean {
  return givenUpAtMs(o, session, text) !== undefined;
}

/** When a reply (its normalised text) was given up visibly: the first record of the give-up after a permanent refusal. */
export function givenUpAtMs(o: Observations, session: string, text: string): number | undefined {
  return visibleGiveUps(o, session, text)[0];
}

/**
 * The system's canned replies (its clear reply, its error reply) given up visibly in the session, one per recorded
 * give-up: a failed or abandoned delivery obligation holding the text, written at or after a permanent refusal of a
 * send of it. Each is one reply the system owed and gave up on, in the order the give-ups were recorded.
 */
export function cannedGiveUps(o: Observations, session: string): { text: string; atMs: number }[] {
  return cannedRepliesIn(o)
    .flatMap((canned) => {
      const text = normalized(canned);
      return visibleGiveUps(o, session, text).map((atMs) => ({ text, atMs }));
    })
    .sort((a, b) => a.atMs - b.atMs);
}

/** For a lost reply's message: what the refusals and records say about it (empty when there were none). */
export function refusalNote(o: Observations, session: string, text: string): string {
  const permanent = permanentRefusals(o, session, text);
  const recorded = giveUpRecords(o, session, text, -Infinity).length > 0;
  if (permanent.length > 0 && !recorded) return ' (the platform refused it for good, and the give-up is recorded nowhere: given up silently)';
  if (permanent.length === 0 && recorded) {
    const whole = squashed(text);
    const reasons = [...new Set(o.ledger.sendRefusals.filter((refusal) => refusal.sessionKey === session && whole.includes(squashed(refusal.text))).map((refusal) => refusal.reason))];
    return ` (given up after ${reasons.length === 0 ? 'no refusal' : `refusals that were not permanent: ${reasons.join(', ')}`})`;
  }
  return '';
}
