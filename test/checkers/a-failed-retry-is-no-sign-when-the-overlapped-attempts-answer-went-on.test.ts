// Canned replies (sim/checkers/attribution.ts), evidence 1: a subject whose last request had failed by the showing
// shows that its turn gave up on it. The gateway's cron executor retries a task occurrence while its first attempt
// still runs (issue 48 item 5): the first attempt's answer came back in the millisecond the retry failed, and the
// runner's turn went on with that answer (its rows reached state.db later). A failed last request is no sign then.
// Found by a chaos campaign with every run send-heavy (seed 11, run 1046): the occurrence took the error reply that
// ended a command's turn, and every later error reply of the session went to the message before its own, until the
// last message had none (no-lost-reply, every-inbound-answered); its plan is frozen. Only an attempt that overlapped
// the failed one counts: a first version that took any answered request whose turn went on called two error replies
// of a later plan duplicates (seed 11, run 254: the turn's retry was asked after its answer came back, and the turn
// that gave up wrote rows of that answer beside its error reply), frozen too.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:1';

describe('a failed retry of an overlapped attempt', () => {
  it('is no sign of giving up when the first attempt answered and its turn went on', async () => {
    await withFrozenPlan(sql, 'error-reply-beside-an-overlapped-cron-attempt', (result) => {
      expect(result.violations).toEqual([]);
      const occurrence = '00:35:19.776Z';
      const attempts = result.ledger.requests.filter((request) => request.sessionKey === session && request.prompt.includes(occurrence));
      // Two attempts of one prompt: the first answered, the retry asked later and failed, both ending at one instant.
      expect(attempts.map((request) => request.outcome)).toEqual(['answer', 'error']);
      expect(attempts[0]?.endedAtMs).toBe(attempts[1]?.endedAtMs);
      const replyAt = (atMs: number) => result.ledger.shown.find((fact) => fact.sessionKey === session && fact.atMs === atMs);
      const attribution = attributeAll(observationsOf(result, session)).get(session);
      // The error reply that ended the command's turn is the command's, and each message's is its own.
      expect(attribution?.cannedFor.get('run:run-10')).toBe(replyAt(2_279_838));
      expect(attribution?.cannedFor.get('start:run-10')).toBe(replyAt(2_279_838));
      expect(attribution?.cannedFor.get('[m15]')).toBe(replyAt(3_295_331));
      expect(attribution?.cannedFor.get('[m16]')).toBe(replyAt(3_458_382));
      expect(attribution?.cannedFor.get('[m17]')).toBe(replyAt(3_481_449));
    });
  });

  it('is still a sign when the retry was asked after the answer came back (no overlap)', async () => {
    await withFrozenPlan(sql, 'error-replies-after-a-retry-asked-once-its-answer-came-back', (result) => {
      expect(result.violations).toEqual([]);
      // A subject whose last request failed after an answered request of the same prompt had ended before it was asked.
      const requests = result.ledger.requests.filter((request) => request.sessionKey === session);
      const sequential = requests.some(
        (failed) =>
          failed.outcome === 'error' &&
          requests.some((answered) => answered.prompt === failed.prompt && answered.outcome === 'answer' && (answered.endedAtMs ?? Infinity) < failed.atMs),
      );
      expect(sequential).toBe(true);
      expect(result.ledger.shown.filter((fact) => fact.sessionKey === session && fact.text.startsWith('Sorry')).length).toBeGreaterThan(1);
    });
  });
});
