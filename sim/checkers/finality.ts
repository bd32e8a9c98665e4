// failure-notice-final: once the platform showed the user the system's error reply for a message (or a command), the
// system has told the user that request failed, so no later LLM request may carry it again: acting on a request the
// user was told had failed is wrong however soon it happens (a user message is typed once; sending it again would be
// a new message with its own marker). Read from the ledger alone: the error reply that answered the subject first
// (the attribution's, as its own or as its turn's mate) and every request the LLM API received after that showing.
import type { Attribution } from './attribution.ts';
import { carries, cannedRepliesIn, commandStartsOf, commandsOf, describeSubject, normalized, type Observations, type Subject, subjectKey } from './observations.ts';
import type { Placement } from './placement.ts';
import { placedViolation, type Violation } from './violation.ts';

export function checkFailureNotices(o: Observations, attributions: ReadonlyMap<string, Attribution>, out: Violation[], place: Placement): void {
  const errorReply = normalized(cannedRepliesIn(o)[0]);
  for (const session of o.sessions) {
    const attribution = attributions.get(session);
    if (attribution === undefined) continue;
    const subjects: Subject[] = [...o.ledger.userMessages.filter((message) => message.sessionKey === session), ...commandsOf(o, session), ...commandStartsOf(o, session)];
    for (const subject of subjects) {
      const notice = attribution.cannedFirst.get(subjectKey(subject));
      if (notice === undefined || normalized(notice.text) !== errorReply) continue;
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

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
