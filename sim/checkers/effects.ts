// effect-at-most-once (issue 23 item 3): the agent's tools act on the world (a calendar of the world creates events),
// and the world records every effect in the ledger. Each action the LLM requested takes effect at most once, and never
// after the user was shown the system's error reply for the request that asked for it: the failure notice is final,
// so acting on the request afterwards is wrong however soon it happens.
// Read from the ledger alone: an effect is traced to the tool call that requested it by its text (the LLM names each
// event uniquely, and a retried or resumed request gets the same answer, so one requested action is one text), never
// by the key or any id the system passed on; the request's subjects are the messages and commands its prompt carried,
// and their failure notice is the error reply the attribution gives them first (as failure-notice-final reads it).
import type { Attribution } from './attribution.ts';
import { failureNoticeOf } from './finality.ts';
import { carries, describeSubject, effectTools, type Observations, seconds, subjectsIn } from './observations.ts';
import type { Placement } from './placement.ts';
import { placedViolation, type Violation } from './violation.ts';

export function checkEffects(o: Observations, attributions: ReadonlyMap<string, Attribution>, out: Violation[], place: Placement): void {
  for (const session of o.sessions) {
    const effects = o.ledger.effects.filter((effect) => effect.sessionKey === session);
    if (effects.length === 0) continue;
    const byText = new Map<string, typeof effects>();
    for (const effect of effects) byText.set(effect.text, [...(byText.get(effect.text) ?? []), effect]);
    const subjects = subjectsIn(o, session);
    for (const [text, taken] of byText) {
      const first = taken[0];
      if (first === undefined) continue;
      const answers = o.ledger.answers.filter((answer) => answer.sessionKey === session && answer.toolCalls.some((call) => effectTools.includes(call.name) && call.text === text));
      if (answers.length === 0) {
        out.push(placedViolation('effect-at-most-once', `${session}: ${first.service} carried out "${text}" at ${seconds(first.atMs)}, which no LLM tool call requested`, place.at(first.atMs, `${first.service} carries out "${text}", which no tool call requested`)));
        continue;
      }
      const second = taken[1];
      if (second !== undefined) {
        out.push(
          placedViolation(
            'effect-at-most-once',
            `${session}: the requested action "${text}" took effect ${taken.length} times (${taken.map((effect) => seconds(effect.atMs)).join(', ')}; keys ${taken.map((effect) => effect.key).join(', ')})`,
            place.at(second.atMs, `${first.service} carries out "${text}" a second time`),
          ),
        );
      }
      const prompts = new Set(answers.map((answer) => answer.prompt));
      for (const subject of subjects.filter((candidate) => [...prompts].some((prompt) => carries(prompt, candidate)))) {
        const notice = failureNoticeOf(o, attributions.get(session), subject);
        if (notice === undefined) continue;
        const late = taken.find((effect) => effect.atMs > notice.atMs);
        if (late === undefined) continue;
        const what = describeSubject(subject);
        out.push(
          placedViolation(
            'effect-at-most-once',
            `${session}: the user was shown the error reply for ${what} at ${seconds(notice.atMs)}, and "${text}", an action its request asked for, took effect at ${seconds(late.atMs)}`,
            place.at(late.atMs, `${late.service} carries out "${text}" after the user was shown the error reply for ${what}`),
          ),
        );
        break;
      }
    }
  }
}
