// Hermes' gateway append (src/gateway-append.ts): after the run the gateway appends the exchange through its
// SessionStore's own SessionDB, with skip_db because the agent has a SessionDB that already flushed the rows, so
// state.db holds each message once and only Hermes' legacy JSONL gets the gateway's copy; a run that failed early
// appends its user message alone, with skip_db too (#42039), unless the agent's own write of it failed: then the
// gateway writes it to state.db itself (newer Hermes' agent_persisted false), once. Hermes before #860 (`no-skip-db`) wrote every row again,
// which the checkers catch. The backfill (#44100) writes the response to state.db itself when no new message of the
// run carries it: here on the part alone; a partial stream reaches it in a run
// (a-partial-stream-is-backfilled-by-hermes-gateway.test.ts).
import { describe, expect, it, vi } from 'vitest';
import { type AgentMessage } from '../../src/agent.ts';
import { GatewayTranscriptAppend, hermesTranscriptPath } from '../../src/gateway-append.ts';
import { type GatewayAppendMode, SqliteBusyError } from '../../src/index.ts';
import { SessionDb } from '../../src/session-db.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { Plan } from '../../sim/run/plan.ts';
import type { BuiltModel } from '../../src/index.ts';
import type { World } from '../../sim/world/index.ts';
import { twoTurns, twoTurnScript } from '../checkers/support.ts';
import { failFirstRequestFor, invariants, marker, notes, session0, stateRows, withRun } from './support.ts';

/** The first request carrying message 0 fails (a 503), so that run fails early and the turn is retried. */
const firstCallFails = failFirstRequestFor(0);
import { inProcess } from './units/support.ts';

const sql = await loadSqlJs();

function withAppend(gatewayAppend: GatewayAppendMode): Plan {
  return { ...twoTurns, secondWriters: { deliveryMirror: 'off', gatewayAppend } };
}


function hermesLines(sim: Simulation): { role: string; content: string }[] {
  return (sim.disk.peek(hermesTranscriptPath(session0)) ?? '').split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line) as { role: string; content: string });
}

function message(role: AgentMessage['role'], content: string, extra: Partial<AgentMessage> = {}): AgentMessage {
  return { role, content, toolCallId: null, toolCalls: null, toolName: null, turnId: 't1', persisted: true, ...extra };
}

describe("Hermes' gateway append", () => {
  it('skips state.db when the agent persisted the rows: state.db is as without it, the legacy JSONL has the exchange', async () => {
    let without: ReturnType<typeof stateRows> = [];
    await withRun(sql, { bugs: [], plan: withAppend('off'), script: twoTurnScript, prepare: firstCallFails }, (result) => {
      without = stateRows(result);
    });
    await withRun(sql, { bugs: [], plan: withAppend('skip-db'), script: twoTurnScript, prepare: firstCallFails }, (result) => {
      expect(stateRows(result)).toEqual(without);
      const appends = notes(result, 'gateway-append');
      expect(appends.map((note) => note.fields.path)).toEqual(['failed-early', 'run', 'run']);
      expect(appends.every((note) => note.fields.toDb === 0)).toBe(true);
      // The failed run's user message, then each run's new messages: user, (tool-call carrier, tool result,) reply.
      expect(hermesLines(result.sim).map((line) => line.role)).toEqual(['user', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
      expect(result.violations).toEqual([]);
    });
  });

  it('without skip_db (Hermes before #860) every row is written twice: both transcript invariants fire', async () => {
    await withRun(sql, { bugs: [], plan: withAppend('no-skip-db'), script: twoTurnScript, prepare: firstCallFails }, (result) => {
      // Message 0: the agent's user row, the failed run's and the completed run's copies.
      expect(stateRows(result).filter((row) => row.role === 'user' && row.content.includes(marker(0)))).toHaveLength(3);
      expect(invariants(result)).toEqual(['no-double-ingestion', 'one-assistant-row-per-visible-reply']);
    });
  });

  it("writes the failed run's user row to state.db itself when the agent's own write of it failed (agent_persisted false)", async () => {
    // The runner's first write of message 0's user row finds state.db locked; the run then fails early.
    const userRowBusyOnce = (sim: Simulation, model: BuiltModel, world: World): void => {
      firstCallFails(sim, model, world);
      const appendMessage = SessionDb.prototype.appendMessage;
      let thrown = false;
      vi.spyOn(SessionDb.prototype, 'appendMessage').mockImplementation(async function (this: SessionDb, sessionId, row, atMs) {
        if (thrown || row.role !== 'user' || !row.content.includes(marker(0))) return appendMessage.call(this, sessionId, row, atMs);
        thrown = true;
        throw new SqliteBusyError('/data/state.db');
      });
    };
    try {
      await withRun(sql, { bugs: [], plan: withAppend('skip-db'), script: twoTurnScript, prepare: userRowBusyOnce }, (result) => {
        expect(notes(result, 'persist-error').map((note) => note.fields.what)).toEqual(['user-row']);
        const appends = notes(result, 'gateway-append');
        expect(appends.map((note) => [note.fields.path, note.fields.toDb])).toEqual([['failed-early', 1], ['run', 0], ['run', 0]]);
        expect(Object.values(result.coverage['append-to-db']).reduce((sum, count) => sum + count, 0)).toBe(1);
        // The gateway's row is the turn's: the retried run recognised it and wrote none of its own.
        expect(stateRows(result).filter((row) => row.role === 'user' && row.content.includes(marker(0)))).toHaveLength(1);
        expect(result.violations).toEqual([]);
      });
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('backfills the response to state.db itself when no new message of the run carries it (#44100)', async () => {
    const { value } = await inProcess(sql, 'gateway-append', async (ctx) => {
      const store = await SessionDb.open(ctx.sqlite);
      const append = new GatewayTranscriptAppend(ctx, 'skip-db', store);
      // A recovery run: the agent's new messages end at a tool result, while the response went out.
      const carrier = message('assistant', '', { toolCalls: '[{"id":"c1"}]' });
      await append.afterRun('s', [message('user', 'q1'), carrier, message('tool', 'sent', { toolCallId: 'c1' })], 'recovered answer', 't1');
      // A normal run: its reply is among the new messages, so nothing reaches state.db.
      await append.afterRun('s', [message('user', 'q2'), message('assistant', 'r2')], 'r2', 't2');
      return (await store.messages('s')).map((row) => `${row.role} ${row.content}`);
    });
    expect(value).toEqual(['assistant recovered answer']);
  });
});
