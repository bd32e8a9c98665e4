// The model's assertions (src/assert.ts) fire on state that the model itself never produces: each case calls a core
// function on a sabotaged state and expects a ModelAssertionError that says what broke, and calls it on the same
// state unsabotaged to show the assertion stays quiet there. That the fixed model never trips one is the fuzz
// campaign's part (`npm run -s sim -- fuzz --all`: a tripped assertion crashes a process, which no-process-crash
// reports).
import { describe, expect, it } from 'vitest';
import { AgentCache, type AgentMessage, AiAgent } from '../../src/agent.ts';
import { ModelAssertionError } from '../../src/assert.ts';
import { fetchBatch } from '../../src/claims.ts';
import { modelConfig } from '../../src/config.ts';
import { claimTriesMax, HostSweep } from '../../src/host-sweep.ts';
import type { ProcessContext } from '../../src/ports.ts';
import { SessionDb, stateDbPath, stateDbSchema } from '../../src/session-db.ts';
import { SessionDbs } from '../../src/session-dbs.ts';
import { SessionManager } from '../../src/session-manager.ts';
import { type SystemEvent, SystemEventQueue, systemEventsPerSessionMax } from '../../src/system-events.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { inProcess } from './units/support.ts';

const sql = await loadSqlJs();
const sessionKey = 'session-0';

function message(role: AgentMessage['role'], content: string, turnId: string, persisted: boolean): AgentMessage {
  return { role, content, toolCallId: null, toolCalls: null, toolName: null, turnId, persisted };
}

/** Runs `main` in a simulated process and returns the error it crashed with (undefined when it did not). */
async function crashOf(seed: string, main: (ctx: ProcessContext) => Promise<void>): Promise<unknown> {
  try {
    await inProcess(sql, seed, main);
    return undefined;
  } catch (error) {
    return error;
  }
}

function expectAssertion(error: unknown, says: RegExp): void {
  expect(error).toBeInstanceOf(ModelAssertionError);
  expect((error as Error).message).toMatch(says);
}

describe('model assertions', () => {
  it('a flush whose history length reaches past its message list (a cursor beyond its list)', async () => {
    const flush = (historyLength: number) =>
      crashOf('assert-flush', async (ctx) => {
        const db = await SessionDb.open(ctx.sqlite);
        const agent = new AiAgent(sessionKey, 'sig', 'main');
        const history = [message('user', 'old question', 't0', true), message('assistant', 'old answer', 't0', true)];
        agent.beginTurn(history, message('user', 'q1', 't1', true));
        agent.messages.push(message('assistant', 'r1', 't1', false));
        await agent.flushMessagesToSessionDb(db, historyLength, 1_000);
      });
    expect(await flush(2)).toBeUndefined();
    expectAssertion(await flush(4), /the turn's user message follows its 4 history messages/);
  });

  it("state.db's message_count read back after an append: it must count the session's rows", async () => {
    const append = (sabotage: boolean) =>
      crashOf('assert-message-count', async (ctx) => {
        const db = await SessionDb.open(ctx.sqlite);
        await db.appendMessage(sessionKey, message('user', 'q1', 't1', false), 1_000);
        // Another handle on the same state.db, as a second writer would have: the count no longer matches the rows.
        if (sabotage) await (await ctx.sqlite.open(stateDbPath, stateDbSchema)).run('UPDATE sessions SET message_count = 7 WHERE id = ?', [sessionKey]);
        await db.appendMessage(sessionKey, message('assistant', 'r1', 't1', false), 2_000);
      });
    expect(await append(false)).toBeUndefined();
    expectAssertion(await append(true), /sessions\.message_count of session-0 counts its rows/);
  });

  it('a claim reset more often than claimTriesMax', async () => {
    const sweep = (tries: number) =>
      crashOf('assert-claim-tries', async (ctx) => {
        const config = modelConfig({ sessions: [sessionKey] });
        const dbs = new SessionDbs(ctx.sqlite);
        const inbound = await dbs.inboundDb(sessionKey);
        const outbound = await dbs.outboundDb(sessionKey);
        // A context row (trigger 0, so nothing is due) with a stuck claim; the runner is down, so the sweep resets it.
        await inbound.run("INSERT INTO messages_in(id, seq, kind, content, trigger, tries, created_at) VALUES ('in:1', 1, 'chat', 'hi', 0, ?, 0)", [tries]);
        await outbound.run("INSERT INTO processing_ack(message_id, status, status_changed) VALUES ('in:1', 'processing', 0)");
        await new HostSweep(ctx, config, dbs, 'runner').sweep();
      });
    expect(await sweep(claimTriesMax - 1)).toBeUndefined();
    expectAssertion(await sweep(claimTriesMax + 2), new RegExp(`in:1 was reset ${claimTriesMax + 2} times, above claimTriesMax ${claimTriesMax}`));
  });

  it('an inbound row whose trigger is neither 0 nor 1', async () => {
    const fetch = (trigger: number) =>
      crashOf('assert-trigger', async (ctx) => {
        const dbs = new SessionDbs(ctx.sqlite);
        const inbound = await dbs.inboundDb(sessionKey);
        await inbound.run("INSERT INTO messages_in(id, seq, kind, content, trigger, created_at) VALUES ('in:1', 1, 'chat', 'hi', ?, 0)", [trigger]);
        await fetchBatch(inbound, await dbs.outboundDb(sessionKey), ctx.clock.nowMs());
      });
    expect(await fetch(1)).toBeUndefined();
    expectAssertion(await fetch(2), /messages_in row in:1 has trigger 2, not 0 or 1/);
  });

  it('a transcript leaf that is no entry', async () => {
    const leafOf = (sabotage: boolean) =>
      crashOf('assert-leaf', async (ctx) => {
        const session = await SessionManager.open(ctx.disk, '/t.jsonl', (min, max) => ctx.random.int(min, max), () => ctx.clock.nowMs(), ctx.incarnation);
        await session.appendMessage({ role: 'user', content: 'q1' }, 't1');
        if (sabotage) (session as unknown as { leafId: string }).leafId = 'deadbeef';
        void session.leaf;
      });
    expect(await leafOf(false)).toBeUndefined();
    expectAssertion(await leafOf(true), /the leaf deadbeef of \/t\.jsonl is an entry/);
  });

  it("an agent cache told a turn ended that never began (the begin/end pair)", () => {
    const cache = new AgentCache(2);
    cache.getOrCreate(sessionKey, 'sig', 0, () => new AiAgent(sessionKey, 'sig', 'main'));
    cache.begin(sessionKey);
    expect(() => cache.end(sessionKey, 1)).not.toThrow();
    expect(() => cache.end(sessionKey, 1)).toThrow(new ModelAssertionError('a turn of session-0 ends without having begun'));
  });

  it('more system events requeued than a session queue holds', () => {
    const queue = new SystemEventQueue({ nowMs: () => 0 }, false);
    const event = (index: number): SystemEvent => ({ text: `event ${index}`, ts: 0, contextKey: null, trusted: false, onDurable: [], execKey: null });
    const events = (count: number) => Array.from({ length: count }, (_, index) => event(index));
    expect(() => queue.requeue(sessionKey, events(systemEventsPerSessionMax))).not.toThrow();
    expect(() => queue.requeue(sessionKey, events(systemEventsPerSessionMax + 1))).toThrow(
      new ModelAssertionError(`${systemEventsPerSessionMax + 1} events requeued for session-0, above the bound`),
    );
  });
});
