// Canned replies (sim/checkers/attribution.ts), evidence 1: a failed last request is no sign that a turn gave up when
// an attempt overlapping it answered and its turn went on: state.db got a row of that answer after the showing, or
// holds the answer's closing text as a final row (a turn that gives up writes the error reply as its final row, and
// only tool rows of the answer beside it). Send-heavy chaos seed 2, run 17,215: the cron executor's first attempt for
// an occurrence of task t0 answered as its retry failed (1,226,759 and 1,226,812 ms); the chat lane's turn wrote the
// answer's final row at once and dispatched it after m0's error reply was shown (1,227,284 ms). The failed retry was
// taken for the occurrence's giving up, so it took m0's error reply, m0 took m11's, m11 took m20's, and m20's answer was
// called lost (no-lost-reply).
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';
const replyAtMs = 1_227_284;

describe("a failed retry beside an overlapping attempt's answer that its turn finished with", () => {
  it("is no sign that the task occurrence gave up: each error reply goes to its own message", async () => {
    await withFrozenPlan(sql, 'report-lost-send-heavy-seed-2', (result) => {
      expect(result.violations).toEqual([]);
      const occurrence = result.ledger.requests.filter((request) => request.sessionKey === session && request.prompt.includes('2026-01-01T00:19:16.874Z'));
      // Two overlapping attempts: the first answered, the retry asked while it ran failed just after, both before the reply.
      expect(occurrence.map((request) => request.outcome)).toEqual(['answer', 'error']);
      const [first, retry] = occurrence;
      expect(first?.endedAtMs).toBeLessThan(retry?.endedAtMs ?? -Infinity);
      expect(retry?.atMs).toBeLessThan(first?.endedAtMs ?? -Infinity);
      expect(retry?.endedAtMs).toBeLessThan(replyAtMs);
      // The turn wrote the first attempt's closing text as a final row before the reply was shown.
      const o = observationsOf(result, session);
      const answer = result.ledger.answers[first?.answer ?? -1];
      const final = o.durable.rows.find((row) => row.role === 'assistant' && row.content === answer?.result);
      expect(final?.timestamp).toBeLessThanOrEqual(replyAtMs);
      const attribution = attributeAll(o).get(session);
      const at = (atMs: number) => result.ledger.shown.find((fact) => fact.sessionKey === session && fact.atMs === atMs);
      expect(attribution?.cannedFor.get('[m0]')).toBe(at(replyAtMs));
      expect(attribution?.cannedFor.get('[m11]')).toBe(at(1_448_309));
      expect(attribution?.cannedFor.get('[m20]')).toBe(at(1_744_134));
    });
  });
});
