// Session rotation: a /clear ends the session and starts a new one (Hermes' reset_session: a state.db session whose
// parent_session_id is the old one; a JSONL file of its own). The checkers read a key's conversation across every
// session of its family (transcript-consistent, with the others counting rows and entries over the family).
// Sabotages, from outside the model, as SQL triggers on state.db:
// - the cached agent keeps writing to the old session id: every assistant or tool row inserted into a rotated
//   session is moved to its parent (the session the rotation ended), its count with it (so the model's own
//   assertion that message_count counts a session's rows holds, as it would for an agent that wrote there);
// - the rotation is not durable: the new session row is deleted as soon as it is inserted, and the old one reopened,
//   as a rotation kept in memory and lost with a restart would leave it (the runner is killed after the reply).
import { describe, expect, it } from 'vitest';
import { clearedReply, stateDbPath, transcriptPath } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import { delayRequestsFor, forMessage, handPlan, invariants, marker, reply, type RunInput, session0, user, withRun } from '../model/support.ts';
import { both, firstReply, messagesOf, type Prepare, secondReply, shown, sqlAt } from './support.ts';

const sql = await loadSqlJs();
const m2 = marker(2);

/** m0, then /clear, then m2 (the script answers m0 and the message after the /clear). */
const plan = handPlan([user(1_000, 'hello there'), { kind: 'clear', atMs: 20_000, session: 0 }, user(40_000, 'second question')]);

const script = forMessage({ 0: { toolCalls: [], result: reply(firstReply) }, 2: { toolCalls: [], result: reply(secondReply) } });

function input(prepare?: Prepare): RunInput {
  return { bugs: [], plan, script, ...(prepare === undefined ? {} : { prepare }) };
}

/** Installed before any traffic: state.db exists once the runner has opened it (at start). */
const atStartMs = 500;

const agentKeepsOldSession: Prepare = sqlAt(
  atStartMs,
  stateDbPath,
  `CREATE TRIGGER keep_old_session AFTER INSERT ON messages
   WHEN NEW.role IN ('assistant', 'tool') AND (SELECT parent_session_id FROM sessions WHERE id = NEW.session_id) IS NOT NULL
   BEGIN
     UPDATE sessions SET message_count = message_count + 1 WHERE id = (SELECT parent_session_id FROM sessions WHERE id = NEW.session_id);
     UPDATE sessions SET message_count = message_count - 1 WHERE id = NEW.session_id;
     UPDATE messages SET session_id = (SELECT parent_session_id FROM sessions WHERE id = NEW.session_id) WHERE id = NEW.id;
   END`,
);

const rotationNotDurable: Prepare = sqlAt(
  atStartMs,
  stateDbPath,
  `CREATE TRIGGER lose_rotation AFTER INSERT ON sessions WHEN NEW.parent_session_id IS NOT NULL
   BEGIN UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = NEW.parent_session_id; DELETE FROM sessions WHERE id = NEW.id; END`,
);

/** The runner restarts after the /clear's reply (a rotation kept in its memory would be gone). */
const killRunnerAfterClear: Prepare = (sim) =>
  sim.at(30_000, () => {
    sim.processes.kill('runner');
    sim.processes.restart('runner', 1_000);
  });

function notesAt(result: RunResult, name: string): number[] {
  return result.sim.trace.events.filter((event) => event.kind === `model.${name}`).map((event) => event.timeMs);
}

function sessionsOf(result: RunResult): { id: string; parent: string | null; endReason: string | null }[] {
  return result.sim.sqlite.inspect(stateDbPath, 'SELECT id, parent_session_id, end_reason FROM sessions ORDER BY started_at, id').map((row) => ({
    id: String(row.id),
    parent: row.parent_session_id === null ? null : String(row.parent_session_id),
    endReason: row.end_reason === null ? null : String(row.end_reason),
  }));
}

/** m0's first LLM request hangs, so the host's sweep kills the runner and m0's row backs off; the /clear comes then. */
const hangsOnce = delayRequestsFor(0, 3_600_000, true);

describe('session rotation (/clear)', () => {
  it('waits for a message before the /clear that is backing off, so it is answered in the session it came to', async () => {
    const backoff = { ...handPlan([user(1_000, 'hello there'), { kind: 'clear', atMs: 40_000, session: 0 }]), faultPhaseMs: 300_000 };
    await withRun(sql, { bugs: [], plan: backoff, script, prepare: hangsOnce }, (result) => {
      const resetAtMs = notesAt(result, 'claim-reset');
      expect(resetAtMs.length).toBeGreaterThan(0);
      expect(shown(result)).toEqual([firstReply, clearedReply]);
      const rows = result.sim.sqlite.inspect(stateDbPath, 'SELECT session_id FROM messages WHERE content LIKE ?', [`%${marker(0)}%`]);
      expect(rows.map((row) => row.session_id)).toEqual([session0]);
      expect(result.violations).toEqual([]);
    });
  });

  it('starts a new state.db session and JSONL file, and the fixed model passes', async () => {
    await withRun(sql, input(), (result) => {
      const sessions = sessionsOf(result);
      expect(sessions).toHaveLength(2);
      expect(sessions[0]).toEqual({ id: session0, parent: null, endReason: 'session_reset' });
      expect(sessions[1]?.parent).toBe(session0);
      const next = sessions[1]?.id ?? '';
      const rows = result.sim.sqlite.inspect(stateDbPath, 'SELECT session_id, role, content FROM messages ORDER BY id');
      // The message after the /clear and its reply are in the new session only.
      expect(rows.filter((row) => String(row.content).includes(m2) || String(row.content).includes(secondReply)).map((row) => row.session_id)).toEqual([next, next]);
      expect(result.sim.disk.peekSynced(transcriptPath(next))).toContain(m2);
      expect(result.sim.disk.peekSynced(transcriptPath(session0))).not.toContain(m2);
      expect(shown(result)).toEqual([firstReply, clearedReply, secondReply]);
      expect(result.violations).toEqual([]);
      // The coverage report counts the rotation, and no key-less run.
      expect(Object.values(result.coverage['session-rotation']).reduce((sum, count) => sum + count, 0)).toBe(1);
      expect(result.coverage['keyless-run'].idle).toBe(0);
    });
  });

  it('fires transcript-consistent when the cached agent keeps writing to the old session id', async () => {
    await withRun(sql, input(agentKeepsOldSession), (result) => {
      expect(shown(result)).toEqual([firstReply, clearedReply, secondReply]);
      expect(invariants(result)).toEqual(['transcript-consistent']);
      expect(messagesOf(result, 'transcript-consistent')[0]).toMatch(new RegExp(`^${session0}: state\\.db session ${session0} ended at \\d+ ms \\(session_reset\\) but holds 1 rows written after \\(assistant row`));
    });
  });

  it('fires transcript-consistent when the new session was not durable before the reply', async () => {
    await withRun(sql, input(both(rotationNotDurable, killRunnerAfterClear)), (result) => {
      expect(sessionsOf(result)).toEqual([{ id: session0, parent: null, endReason: null }]);
      expect(shown(result)).toEqual([firstReply, clearedReply, secondReply]);
      expect(invariants(result)).toEqual(['transcript-consistent']);
      expect(messagesOf(result, 'transcript-consistent')).toEqual([
        `${session0}: message ${m2} was typed after the user saw 1 "${clearedReply}" replies, but state.db holds it in session ${session0} (the key's session 1 of 1)`,
      ]);
    });
  });
});
