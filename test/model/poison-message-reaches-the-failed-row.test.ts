// A poison message (a shape of the world that chaos draws per run, sim/world/fake-model.ts `poisonInput`): every LLM
// request whose prompt carries it hangs while the faults last. nanoclaw's host sweep finds the claim silent past its
// tolerance, kills the runner and resets the row with tries + 1 and a backoff, until the row is marked failed at 5
// tries (src/host-sweep.ts); the fixed runner then closes the turn with the error reply. Another session that makes
// progress meanwhile does not hide the silent claim (the sweep judges a claim by its own session's heartbeat, as
// nanoclaw's heartbeat is its session container's). The sabotage is a sweep that never gives a row up: it retries the
// poison for as long as the faults last, and the liveness checkers, which read only the kernel's kills and the world's
// ledger, catch it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorReply, inboundPath } from '../../src/index.ts';
import { HostSweep } from '../../src/host-sweep.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { sessionKey, type WorkloadStep } from '../../sim/run/plan.ts';
import { poisonInput } from '../../sim/world/fake-model.ts';
import { forMessage, handPlan, invariants, marker, notes, session0, withRun } from './support.ts';

const sql = await loadSqlJs();
const session1 = sessionKey(1);

/** The faults (and so the poison's hang) last 30 min: long enough for six stale claims and their backoffs. */
const faultPhaseMs = 1_800_000;
const poison: WorkloadStep = { kind: 'user', atMs: 1_000, session: 0, text: 'can you read this?', poison: true };
/** Session 1 talks all along (one message every 40 s), so the runner makes progress while session 0's claim is silent. */
const chatter: WorkloadStep[] = Array.from({ length: 30 }, (_, index) => ({ kind: 'user', atMs: 30_000 + index * 40_000, session: 1, text: `and the weather ${index}?` }));
const twoSessions = { ...handPlan([poison, ...chatter]), sessions: 2, faultPhaseMs };
const shownIn = (result: Parameters<typeof invariants>[0], session: string): string[] => result.ledger.shown.filter((fact) => fact.sessionKey === session).map((fact) => fact.text);
const total = (row: Record<string, number>): number => Object.values(row).reduce((sum, count) => sum + count, 0);

afterEach(() => vi.restoreAllMocks());

describe('a poison message', () => {
  it('reaches the failed row from the world alone, is answered with the error reply, and every invariant holds', async () => {
    await withRun(sql, { bugs: [], plan: twoSessions }, (result) => {
      // The world put the poison in the message the user typed, and the LLM API hung on every request carrying it.
      expect(result.ledger.userMessages.find((message) => message.marker === marker(0))?.text).toContain(poisonInput);
      expect(total(result.coverage['poison-hang'])).toBe(6);
      // Six silent claims, judged by session 0's own heartbeat (never the 30-min ceiling), then the row failed.
      expect(notes(result, 'sweep-kill').map((note) => [note.fields.reason, note.fields.session])).toEqual(Array(6).fill(['claim', session0]));
      expect(notes(result, 'claim-failed').map((note) => note.fields.failed)).toEqual(['in:d0']);
      expect(total(result.coverage['failed-row'])).toBe(1);
      const failedAtMs = notes(result, 'claim-failed')[0]?.timeMs ?? Infinity;
      expect(failedAtMs).toBeLessThan(poison.atMs + 20 * 60_000);
      // nanoclaw syncs the closed turn's claim into messages_in; the user was told, once.
      expect(result.sim.sqlite.inspect(inboundPath(session0), 'SELECT status, tries FROM messages_in')).toEqual([{ status: 'completed', tries: 5 }]);
      expect(shownIn(result, session0)).toEqual([errorReply]);
      // Session 1 was answered all along: none of its messages was given up.
      expect(shownIn(result, session1)).toHaveLength(chatter.length);
      expect(shownIn(result, session1)).not.toContain(errorReply);
      expect(result.violations).toEqual([]);
    });
  });

  it('joined by a message whose tool message was already shown, leaves both answered by the error reply', async () => {
    // m0's run sends its tool message, then the runner is killed before the run ends; the poison arrives meanwhile and
    // joins m0's re-formed turn, which hangs until the host gives the row up. Both get the error reply; m0's was already
    // partly shown, and its run's last request (hung, no outcome) failed: the error reply is its, not a repeat.
    const plan = {
      ...handPlan(
        [{ kind: 'user' as const, atMs: 1_000, session: 0, text: 'can you check calendar?' }, { ...poison, atMs: 3_500 }],
        [{ kind: 'kill-at-phase', phase: 'tool-send', nth: 0, delayMs: 0, process: 'runner', restartAfterMs: 5_000 }],
      ),
      faultPhaseMs,
    };
    // m0's answer says all it has to say in its tool message (its closing text has no message for the user).
    const script = forMessage({ 0: { toolCalls: [{ name: 'send_message', text: 'on it' }], result: 'done' } });
    await withRun(sql, { bugs: [], plan, script }, (result) => {
      expect(notes(result, 'claim-failed')).toHaveLength(1);
      expect(shownIn(result, session0)).toEqual(['on it', errorReply, errorReply]);
      expect(result.violations).toEqual([]);
    });
  });

  it('a sweep that never gives the row up kills the runner for as long as the faults last: supervision and answered-in-time fire', async () => {
    // The sabotage: at claimTriesMax the row is neither failed nor backed off, so the runner takes it again at once.
    vi.spyOn(HostSweep.prototype as unknown as { giveUp: () => Promise<void> }, 'giveUp').mockImplementation(async () => {});
    await withRun(sql, { bugs: [], plan: { ...handPlan([poison]), faultPhaseMs } }, (result) => {
      expect(notes(result, 'claim-failed')).toEqual([]);
      expect(notes(result, 'sweep-kill').length).toBeGreaterThan(6);
      expect(shownIn(result, session0)).not.toContain(errorReply);
      expect(invariants(result)).toEqual(expect.arrayContaining(['supervision', 'answered-in-time']));
    });
  });
});
