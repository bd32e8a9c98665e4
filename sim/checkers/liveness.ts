// every-inbound-answered (liveness): after the fault phase the run goes on fault-free for settleMs; by the end,
// every accepted inbound message (a chat message the gateway acknowledged, or an exec prompt it persisted) must be
// finished and answered by a visible reply of its own turn or of the turn it was merged into.
import { answeringTurn } from './ingestion.ts';
import { type Observations, replyPayloads } from './observations.ts';
import { classOf, type Violation } from './violation.ts';

export function checkLiveness(o: Observations, out: Violation[]): void {
  const answered = new Set(replyPayloads(o.visible).map((reply) => reply.turnId));
  for (const row of o.accepted) {
    const turn = answeringTurn(o, row.id);
    let problem: string | undefined;
    if (row.status === undefined) problem = 'was acknowledged but never queued';
    else if (row.status !== 'completed') problem = `is still ${row.status}`;
    else if (!answered.has(turn)) problem = turn === row.id ? 'got no visible reply' : `was merged into ${turn}, which got no visible reply`;
    if (problem === undefined) continue;
    out.push({
      invariant: 'every-inbound-answered',
      message: `inbound ${row.id} (${row.sessionKey}) ${problem} ${o.endMs - o.faultPhaseMs} ms after the faults stopped`,
      step: Math.max(0, o.events.length - 1),
      timeMs: o.endMs,
      class: classOf('every-inbound-answered'),
    });
  }
}
