// failure-notice-final: once the platform showed the user the system's error reply for a message (or a command), the
// system has told the user that request failed, so no later LLM request may carry it again: acting on a request the
// user was told had failed is wrong however soon it happens (a user message is typed once; sending it again would be
// a new message with its own marker). Read from the ledger alone: the error reply that answered the subject first
// (the attribution's, as its own or as its turn's mate) and every request the LLM API received after that showing.
import { type Attribution, isGivenUpReply } from './attribution.ts';
import type { ShownFact, UserMessageFact } from '../world/ledger.ts';
import { carries, cannedRepliesIn, describeSubject, isClear, normalized, type Observations, seconds, type Subject, subjectKey, subjectsIn } from './observations.ts';
import type { Placement } from './placement.ts';
import { placedViolation, type Violation } from './violation.ts';
import type { SessionSpan } from './durable.ts';

/** The error reply that first answered a subject (its own or its turn's mate), if its first canned reply is one. */
export function failureNoticeOf(o: Observations, attribution: Attribution | undefined, subject: Subject): ShownFact | undefined {
  const notice = attribution?.cannedFirst.get(subjectKey(subject));
  // An error reply given up visibly was never shown: it told the user nothing.
  return notice !== undefined && !isGivenUpReply(notice) && normalized(notice.text) === normalized(cannedRepliesIn(o)[0]) ? notice : undefined;
}

export function checkFailureNotices(o: Observations, attributions: ReadonlyMap<string, Attribution>, out: Violation[], place: Placement): void {
  for (const session of o.sessions) {
    const attribution = attributions.get(session);
    if (attribution === undefined) continue;
    for (const subject of subjectsIn(o, session)) {
      const notice = failureNoticeOf(o, attribution, subject);
      if (notice === undefined) continue;
      if ('marker' in subject && isClear(subject)) {
        checkClearNotDone(o, session, subject, notice, out, place);
        continue;
      }
      const again = o.ledger.requests.find((request) => request.sessionKey === session && request.atMs > notice.atMs && carries(request.prompt, subject));
      if (again === undefined) continue;
      const what = describeSubject(subject);
      out.push(
        placedViolation(
          'failure-notice-final',
          `${session}: the user was shown the error reply for ${what} at ${seconds(notice.atMs)}, and the LLM was asked about it again at ${seconds(again.atMs)}`,
          place.at(again.atMs, `the LLM is asked about ${what} again, after the user was shown its error reply at ${seconds(notice.atMs)}`),
        ),
      );
    }
  }
}

/**
 * A /clear the user was told had failed reset nothing (resetAfter): told it failed while its reset was made (before the
 * notice or after it), the user believes the old conversation goes on while the system started a new one (chaos seed
 * 931: the model's give-up attempt of a /clear wrote the error reply and rotated the session all the same).
 */
function checkClearNotDone(o: Observations, session: string, clear: UserMessageFact, notice: ShownFact, out: Violation[], place: Placement): void {
  const begun = resetAfter(o, clear);
  if (begun === undefined || begun.startedAtMs === null) return;
  const what = describeSubject(clear);
  const message = `${session}: the user was shown the error reply for the /clear ${what} at ${seconds(notice.atMs)}, yet state.db's session ${begun.sessionId} began at ${seconds(begun.startedAtMs)}: the reset was made`;
  out.push(
    placedViolation(
      'failure-notice-final',
      message,
      begun.startedAtMs > notice.atMs ? place.at(begun.startedAtMs, `state.db's session ${begun.sessionId} begins after the user was told the /clear failed`) : place.showing(notice, `the user is shown the error reply for a /clear whose reset was made at ${seconds(begun.startedAtMs)}`),
    ),
  );
}

/**
 * The session a /clear's reset began, as state.db's `sessions` has it: one of the key's family after its first (a
 * rotation began it) that began after the /clear came and before the key's next /clear did (that one's reset may come
 * after it).
 */
function resetAfter(o: Observations, clear: UserMessageFact): SessionSpan | undefined {
  const next = o.ledger.userMessages.find((message) => message.sessionKey === clear.sessionKey && message.sentAtMs > clear.sentAtMs && isClear(message));
  const until = next?.sentAtMs ?? Infinity;
  return (o.durable.families.get(clear.sessionKey) ?? []).slice(1).find((span) => span.startedAtMs !== null && span.startedAtMs >= clear.sentAtMs && span.startedAtMs < until);
}
