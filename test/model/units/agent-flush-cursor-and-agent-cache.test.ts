// The Hermes agent's SessionDB flush and the agent cache. The flush runs against a real state.db in a simulated
// process: it writes the messages from max(historyLength, lastFlushedDbIndex) that are not already persisted, one
// commit per row, advancing the cursor per message (Hermes' later fix); the flush seed 004 describes moves the
// cursor only after the loop and logs a write error, so the rows committed before it are written again by the next
// flush. A stale cursor on a reused agent skips the new turn's reply (seed 004). The cache reuses an agent only for
// an equal signature and an unchanged session message count, and evicts the least recently used past its capacity,
// never an agent whose turn is running.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgentCache, type AgentMessage, AiAgent } from '../../../src/agent.ts';
import { SqliteBusyError } from '../../../src/ports.ts';
import { type DbMessage, SessionDb } from '../../../src/session-db.ts';
import { loadSqlJs } from '../../../sim/kernel/sqlite.ts';
import { inProcess } from './support.ts';

const sql = await loadSqlJs();
const session = 'session-0';

function message(role: DbMessage['role'], content: string, turnId: string, persisted: boolean, extra: Partial<DbMessage> = {}): AgentMessage {
  return { role, content, toolCallId: null, toolCalls: null, toolName: null, turnId, persisted, ...extra };
}

function rowsOf(messages: readonly DbMessage[]): string[] {
  return messages.map((row) => `${row.turnId} ${row.role} ${row.content}`);
}

/** Persists the turn's user row (as the runner does when the prompt is persisted) and begins the turn. */
async function beginTurn(db: SessionDb, agent: AiAgent, history: AgentMessage[], user: AgentMessage, nowMs: number): Promise<void> {
  await db.appendMessage(session, user, nowMs);
  agent.beginTurn(history, { ...user, persisted: true });
}

/** Turn 1 of a session: the user prompt, a tool call, its result, the final reply. */
async function toolCallTurn(db: SessionDb, agent: AiAgent): Promise<void> {
  await beginTurn(db, agent, [], message('user', 'q1', 't1', false), 500);
  agent.messages.push(
    message('assistant', '', 't1', false, { toolCalls: '[{"id":"c1","name":"send_message"}]' }),
    message('tool', 'sent', 't1', false, { toolCallId: 'c1', toolName: 'send_message' }),
    message('assistant', 'r1', 't1', false),
  );
}

describe('AiAgent.flushMessagesToSessionDb', () => {
  it('writes the unpersisted messages from max(historyLength, cursor) and moves the cursor to len(messages)', async () => {
    const { value } = await inProcess(sql, 'flush', async (ctx) => {
      const db = await SessionDb.open(ctx.sqlite);
      const agent = new AiAgent(session, 'sig', 'main');
      const history = [message('user', 'old question', 't0', true), message('assistant', 'old answer', 't0', true)];
      agent.beginTurn(history, message('user', 'q1', 't1', true));
      agent.messages.push(message('assistant', '', 't1', false, { toolCalls: '[]' }), message('tool', 'ok', 't1', false, { toolCallId: 'c1' }), message('assistant', 'r1', 't1', false));
      const first = await agent.flushMessagesToSessionDb(db, history.length, 1_000);
      const cursorAfterFirst = agent.lastFlushedDbIndex;
      const second = await agent.flushMessagesToSessionDb(db, history.length, 2_000);
      return { first, cursorAfterFirst, second, persisted: agent.messages.map((held) => held.persisted), rows: await db.messages(session) };
    });
    // The user row was persisted with the prompt, so the first flush writes only what the turn produced.
    expect(value.first).toEqual({ written: 3, from: 2, error: null });
    expect(value.cursorAfterFirst).toBe(6);
    expect(rowsOf(value.rows)).toEqual(['t1 assistant ', 't1 tool ok', 't1 assistant r1']);
    expect(value.rows[1]).toMatchObject({ toolCallId: 'c1' });
    expect(value.persisted).toEqual([true, true, true, true, true, true]);
    // Nothing new: the second flush starts at the cursor and writes nothing.
    expect(value.second).toEqual({ written: 0, from: 6, error: null });
  });

  it('starts at the cursor when it is past the history, skipping the messages before it', async () => {
    const { value } = await inProcess(sql, 'flush-from-cursor', async (ctx) => {
      const db = await SessionDb.open(ctx.sqlite);
      const agent = new AiAgent(session, 'sig', 'main');
      agent.beginTurn([message('user', 'h', 't0', true)], message('user', 'q1', 't1', false));
      agent.messages.push(message('assistant', 'a', 't1', false), message('assistant', 'b', 't1', false), message('assistant', 'c', 't1', false));
      agent.lastFlushedDbIndex = 3;
      const result = await agent.flushMessagesToSessionDb(db, 1, 10);
      return { result, cursor: agent.lastFlushedDbIndex, rows: await db.messages(session), persisted: agent.messages.map((held) => held.persisted) };
    });
    expect(value.result).toEqual({ written: 2, from: 3, error: null });
    expect(rowsOf(value.rows)).toEqual(['t1 assistant b', 't1 assistant c']);
    expect(value.cursor).toBe(5);
    // Messages before the cursor are neither written nor marked.
    expect(value.persisted).toEqual([true, false, false, true, true]);
  });

  it('seed 004: a reused agent whose cursor was not realigned skips the next turn\'s reply', async () => {
    const { value } = await inProcess(sql, 'stale-cursor', async (ctx) => {
      const db = await SessionDb.open(ctx.sqlite);
      const agent = new AiAgent(session, 'sig', 'main');
      await toolCallTurn(db, agent);
      const turn1 = await agent.flushMessagesToSessionDb(db, 0, 1_000);
      const cursorAfterTurn1 = agent.lastFlushedDbIndex;
      // Turn 2 reuses the agent. Hermes builds its history from state.db without tool rows and empty messages, so
      // the history (2) is shorter than the message list turn 1 left the cursor at (4).
      const history = (await db.messages(session)).filter((row) => row.role !== 'tool' && row.content.length > 0).map((row) => ({ ...row, persisted: true }));
      await beginTurn(db, agent, history, message('user', 'q2', 't2', false), 1_500);
      agent.messages.push(message('assistant', 'r2', 't2', false));
      const turn2 = await agent.flushMessagesToSessionDb(db, history.length, 2_000);
      return { turn1, cursorAfterTurn1, historyLength: history.length, turn2, cursor: agent.lastFlushedDbIndex, rows: await db.messages(session) };
    });
    expect(value.turn1).toEqual({ written: 3, from: 0, error: null });
    expect(value.cursorAfterTurn1).toBe(4);
    expect(value.historyLength).toBe(2);
    expect(value.turn2).toEqual({ written: 0, from: 4, error: null });
    expect(value.cursor).toBe(4);
    // state.db keeps the turn's user row but not its reply: assistant, then a trailing user.
    expect(rowsOf(value.rows)).toEqual(['t1 user q1', 't1 assistant ', 't1 tool sent', 't1 assistant r1', 't2 user q2']);
  });

  it('the fix: realigning the cursor to the turn\'s history writes the reply', async () => {
    const { value } = await inProcess(sql, 'realigned-cursor', async (ctx) => {
      const db = await SessionDb.open(ctx.sqlite);
      const agent = new AiAgent(session, 'sig', 'main');
      await toolCallTurn(db, agent);
      await agent.flushMessagesToSessionDb(db, 0, 1_000);
      const history = (await db.messages(session)).filter((row) => row.role !== 'tool' && row.content.length > 0).map((row) => ({ ...row, persisted: true }));
      agent.lastFlushedDbIndex = history.length;
      await beginTurn(db, agent, history, message('user', 'q2', 't2', false), 1_500);
      agent.messages.push(message('assistant', 'r2', 't2', false));
      const turn2 = await agent.flushMessagesToSessionDb(db, history.length, 2_000);
      return { turn2, rows: await db.messages(session) };
    });
    expect(value.turn2).toEqual({ written: 1, from: 2, error: null });
    expect(rowsOf(value.rows).filter((row) => row.startsWith('t2'))).toEqual(['t2 user q2', 't2 assistant r2']);
  });

  it('a failed write leaves the cursor and the persisted flags as they were, so a later flush writes the rows', async () => {
    const { value } = await inProcess(sql, 'flush-busy', async (ctx, sim) => {
      const db = await SessionDb.open(ctx.sqlite);
      const agent = new AiAgent(session, 'sig', 'main');
      agent.beginTurn([], message('user', 'q1', 't1', true));
      agent.messages.push(message('assistant', 'r1', 't1', false));
      sim.sqlite.faults = { ...sim.sqlite.faults, busyPer1000: 1_000 };
      const failure = await agent.flushMessagesToSessionDb(db, 0, 1_000).then(
        () => 'resolved',
        (error: unknown) => error,
      );
      const after = { cursor: agent.lastFlushedDbIndex, persisted: agent.messages.map((held) => held.persisted), rows: (await db.messages(session)).length };
      sim.sqlite.faults = { ...sim.sqlite.faults, busyPer1000: 0 };
      const retry = await agent.flushMessagesToSessionDb(db, 0, 2_000);
      return { failure, after, retry, rows: await db.messages(session) };
    });
    expect(value.failure).toBeInstanceOf(SqliteBusyError);
    // The cursor stops just past the last durable message (the user row), so the retry starts at the reply.
    expect(value.after).toEqual({ cursor: 1, persisted: [true, false], rows: 0 });
    expect(value.retry).toEqual({ written: 1, from: 1, error: null });
    expect(rowsOf(value.rows)).toEqual(['t1 assistant r1']);
  });
});

/** A SessionDB whose nth append (1-based) fails with "database is locked"; the others land in `rows`. */
function failingDb(failOn: number): { db: SessionDb; rows: DbMessage[] } {
  const rows: DbMessage[] = [];
  let calls = 0;
  const db = {
    appendMessage: (_session: string, row: DbMessage) => {
      calls++;
      if (calls === failOn) return Promise.reject(new SqliteBusyError('/data/state.db'));
      rows.push({ ...row });
      return Promise.resolve();
    },
  } as unknown as SessionDb;
  return { db, rows };
}

/** A turn whose flush has two rows to write: the tool row of the last call and the final reply. */
function twoRowTurn(): AiAgent {
  const agent = new AiAgent(session, 'sig', 'main');
  agent.beginTurn([], message('user', 'q1', 't1', true));
  agent.messages.push(message('tool', 'sent', 't1', false, { toolCallId: 'c1' }), message('assistant', 'r1', 't1', false));
  return agent;
}

describe('a write error in the middle of a flush (one commit per row)', () => {
  it('the fixed flush: the committed row is marked and the cursor passes it; the error propagates; the retry writes only the rest', async () => {
    const agent = twoRowTurn();
    const { db, rows } = failingDb(2);
    await expect(agent.flushMessagesToSessionDb(db, 0, 1_000)).rejects.toBeInstanceOf(SqliteBusyError);
    expect(agent.lastFlushedDbIndex).toBe(2);
    expect(agent.messages.map((held) => held.persisted)).toEqual([true, true, false]);
    expect(await agent.flushMessagesToSessionDb(db, 0, 2_000)).toEqual({ written: 1, from: 2, error: null });
    expect(rowsOf(rows)).toEqual(['t1 tool sent', 't1 assistant r1']);
  });

  it("seed 004's flush: the error is logged, the cursor stays, and the next flush writes the committed row again", async () => {
    const agent = twoRowTurn();
    const { db, rows } = failingDb(2);
    const first = await agent.flushMessagesToSessionDb(db, 0, 1_000, true);
    expect(first).toEqual({ written: 1, from: 0, error: 'database is locked: /data/state.db' });
    expect(agent.lastFlushedDbIndex).toBe(0);
    expect(agent.messages.map((held) => held.persisted)).toEqual([true, false, false]);
    expect(await agent.flushMessagesToSessionDb(db, 0, 2_000, true)).toEqual({ written: 2, from: 0, error: null });
    expect(agent.lastFlushedDbIndex).toBe(3);
    // The tool row is in state.db twice.
    expect(rowsOf(rows)).toEqual(['t1 tool sent', 't1 tool sent', 't1 assistant r1']);
  });

  it("seed 004's flush: when the error hits the last flush of the turn, the reply never reaches state.db", async () => {
    const agent = twoRowTurn();
    const { db, rows } = failingDb(2);
    expect((await agent.flushMessagesToSessionDb(db, 0, 1_000, true)).error).not.toBeNull();
    expect(rowsOf(rows)).toEqual(['t1 tool sent']);
  });
});

describe('AgentCache', () => {
  function creator(signature: string, made: AiAgent[]): (sessionKey: string) => () => AiAgent {
    return (sessionKey) => () => {
      const agent = new AiAgent(sessionKey, signature, 'main');
      made.push(agent);
      return agent;
    };
  }

  it('reuses the cached agent, with its state, for an equal signature', () => {
    const cache = new AgentCache(4);
    const made: AiAgent[] = [];
    const create = creator('model-v1', made);
    const first = cache.getOrCreate('s1', 'model-v1', 0, create('s1'));
    first.agent.lastFlushedDbIndex = 7;
    const second = cache.getOrCreate('s1', 'model-v1', 0, create('s1'));
    expect(first).toMatchObject({ reused: false, evicted: [] });
    expect(second).toMatchObject({ reused: true, evicted: [] });
    expect(second.agent).toBe(first.agent);
    // The cache resets nothing: the stale cursor of seed 004 comes through reuse.
    expect(second.agent.lastFlushedDbIndex).toBe(7);
    expect(made).toHaveLength(1);
  });

  it('creates a new agent when the signature differs, replacing the old one', () => {
    const cache = new AgentCache(4);
    const made: AiAgent[] = [];
    const old = cache.getOrCreate('s1', 'model-v1', 0, creator('model-v1', made)('s1'));
    const fresh = cache.getOrCreate('s1', 'model-v2', 0, creator('model-v2', made)('s1'));
    expect(fresh.reused).toBe(false);
    expect(fresh.agent).not.toBe(old.agent);
    expect(fresh.agent.signature).toBe('model-v2');
    expect(cache.size).toBe(1);
    expect(cache.getOrCreate('s1', 'model-v2', 0, creator('model-v2', made)('s1')).agent).toBe(fresh.agent);
    expect(made).toHaveLength(2);
  });

  it('evicts the least recently used session past its capacity and names it', () => {
    const cache = new AgentCache(2);
    const create = creator('sig', []);
    cache.getOrCreate('a', 'sig', 0, create('a'));
    cache.getOrCreate('b', 'sig', 0, create('b'));
    expect(cache.getOrCreate('a', 'sig', 0, create('a')).reused).toBe(true);
    const third = cache.getOrCreate('c', 'sig', 0, create('c'));
    expect(third).toMatchObject({ reused: false, evicted: ['b'] });
    expect(cache.size).toBe(2);
    expect(cache.getOrCreate('a', 'sig', 0, create('a')).reused).toBe(true);
    expect(cache.getOrCreate('b', 'sig', 0, create('b'))).toMatchObject({ reused: false, evicted: ['c'] });
  });

  it('evict() removes a session (reporting whether it was cached); the next lookup creates afresh', () => {
    const cache = new AgentCache(2);
    const create = creator('sig', []);
    const first = cache.getOrCreate('s1', 'sig', 0, create('s1'));
    expect(cache.evict('s1')).toBe(true);
    expect(cache.evict('s1')).toBe(false);
    expect(cache.evict('never')).toBe(false);
    expect(cache.size).toBe(0);
    const next = cache.getOrCreate('s1', 'sig', 0, create('s1'));
    expect(next.reused).toBe(false);
    expect(next.agent).not.toBe(first.agent);
  });

  it('rebuilds the agent when another writer appended to the session since its last turn', () => {
    const cache = new AgentCache(4);
    const create = creator('sig', []);
    const first = cache.getOrCreate('s1', 'sig', 0, create('s1'));
    cache.begin('s1');
    cache.end('s1', 4);
    expect(cache.getOrCreate('s1', 'sig', 4, create('s1'))).toMatchObject({ reused: true, rebuilt: null });
    cache.begin('s1');
    cache.end('s1', 4);
    const after = cache.getOrCreate('s1', 'sig', 5, create('s1'));
    expect(after).toMatchObject({ reused: false, rebuilt: 'another-writer' });
    expect(after.agent).not.toBe(first.agent);
    expect(cache.getOrCreate('s1', 'sig2', 5, creator('sig2', [])('s1'))).toMatchObject({ reused: false, rebuilt: 'signature' });
  });

  it('never evicts an agent whose turn is running: the cache stays over capacity until the next insert', () => {
    const cache = new AgentCache(1);
    const create = creator('sig', []);
    cache.getOrCreate('a', 'sig', 0, create('a'));
    cache.begin('a');
    const second = cache.getOrCreate('b', 'sig', 0, create('b'));
    expect(second.evicted).toEqual([]);
    expect(cache.size).toBe(2);
    cache.end('a', 2);
    // Only the least recently used entries past the capacity are candidates: 'a' is now evicted, not the newer 'b'.
    cache.begin('b');
    expect(cache.getOrCreate('c', 'sig', 0, create('c')).evicted).toEqual(['a']);
    expect(cache.size).toBe(2);
    cache.end('b', 2);
    expect(cache.getOrCreate('a', 'sig', 2, create('a')).evicted).toEqual(['b', 'c']);
  });

  it('behaves as an LRU map keyed by session with signature-checked reuse (reference model)', () => {
    const step = fc.oneof(
      { weight: 4, arbitrary: fc.record({ kind: fc.constant('get' as const), key: fc.constantFrom('a', 'b', 'c', 'd', 'e'), signature: fc.constantFrom('v1', 'v2') }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('evict' as const), key: fc.constantFrom('a', 'b', 'c', 'd', 'e') }) },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(step, { maxLength: 40 }), (capacity, steps) => {
        const cache = new AgentCache(capacity);
        // Reference: keys in recency order (least recent first) with the agent cached for each.
        let reference: [string, AiAgent][] = [];
        for (const action of steps) {
          const index = reference.findIndex(([key]) => key === action.key);
          if (action.kind === 'evict') {
            expect(cache.evict(action.key)).toBe(index >= 0);
            if (index >= 0) reference.splice(index, 1);
            continue;
          }
          const cached = index >= 0 ? reference[index]?.[1] : undefined;
          const lookup = cache.getOrCreate(action.key, action.signature, 0, () => new AiAgent(action.key, action.signature, 'main'));
          const reusable = cached !== undefined && cached.signature === action.signature;
          expect(lookup.reused).toBe(reusable);
          if (reusable) expect(lookup.agent).toBe(cached);
          else expect(lookup.agent).not.toBe(cached);
          if (index >= 0) reference.splice(index, 1);
          reference.push([action.key, lookup.agent]);
          const evicted = reference.length > capacity ? (reference[0]?.[0] ?? null) : null;
          if (evicted !== null) reference = reference.slice(1);
          expect(lookup.evicted).toEqual(evicted === null ? [] : [evicted]);
          expect(cache.size).toBe(reference.length);
        }
      }),
    );
  });
});
