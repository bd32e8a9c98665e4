// Liveness, after the faults stop (the run then goes on fault-free for settleMs):
// - every-inbound-answered: by the end, every accepted user message and every command the system took up (its run
//   is in an LLM prompt or a durable transcript) is answered: a reply the user saw belongs to an answer whose prompt
//   carried it, or one of the system's own replies was assigned to it (`Session cleared.` for a /clear, the error
//   reply after giving up; each canned reply answers one message, see attribution.ts). A command's start owes no
//   reply: OpenClaw's heartbeat for it asks for HEARTBEAT_OK when nothing needs attention, which nobody is shown;
// - quiescent-after-heal: once the faults have stopped and a stated grace has passed (quiescenceGraceMs, 15 s: the
//   time a supervisor needs to act on what went wrong during the faults, e.g. a claim that went stale under a slow
//   model call just before the heal), no process is killed or crashes again (the kernel's own record of kills and
//   crashes, not the model's notes): no crash loop, no supervisor killing a healthy successor.
import type { CommandFact, UserMessageFact } from '../world/ledger.ts';
import type { Attribution } from './attribution.ts';
import { acceptedMessages, carries, commandsOf, describeSubject, type Observations, subjectKey, takenUp } from './observations.ts';
import { classOf, type Violation } from './violation.ts';

export function checkLiveness(o: Observations, attributions: Map<string, Attribution>, out: Violation[]): void {
  for (const session of o.sessions) {
    const attribution = attributions.get(session);
    if (attribution === undefined) continue;
    const subjects: (UserMessageFact | CommandFact)[] = [...acceptedMessages(o, session), ...commandsOf(o, session).filter((command) => takenUp(o, session, command))];
    for (const subject of subjects) {
      if (answered(attribution, subject)) continue;
      out.push({
        invariant: 'every-inbound-answered',
        message: `${session}: ${describeSubject(subject)} got no reply ${o.endMs - o.faultPhaseMs} ms after the faults stopped`,
        step: Math.max(0, o.events.length - 1),
        timeMs: o.endMs,
        class: classOf('every-inbound-answered'),
      });
    }
  }
  checkQuiescence(o, out);
}

function answered(a: Attribution, subject: UserMessageFact | CommandFact): boolean {
  for (const slot of a.slotOf.values()) if (carries(slot.answer.prompt, subject)) return true;
  return a.cannedFor.has(subjectKey(subject));
}

function checkQuiescence(o: Observations, out: Violation[]): void {
  const quietFromMs = o.faultPhaseMs + o.quiescenceGraceMs;
  const late = o.kernel.filter((fact) => fact.timeMs > quietFromMs);
  if (late.length === 0) return;
  const first = late[0] as (typeof late)[number];
  const summary = late
    .slice(0, 5)
    .map((fact) => `${fact.process} ${fact.kind === 'kill' ? 'killed' : 'crashed'} at ${fact.timeMs} ms`)
    .join(', ');
  out.push({
    invariant: 'quiescent-after-heal',
    message: `${late.length} kills or crashes after the faults stopped at ${o.faultPhaseMs} ms (grace ${o.quiescenceGraceMs} ms): ${summary}${late.length > 5 ? ', …' : ''}`,
    step: first.step,
    timeMs: first.timeMs,
    class: classOf('quiescent-after-heal'),
  });
}
