// The Hermes agent and the agent cache. An agent holds the turn's message list and the SessionDB flush cursor
// `lastFlushedDbIndex`. A flush starts at max(len(conversation history), cursor) and appends the messages from there
// that are not durable yet, one row per commit (Hermes' append_message). Two flushes exist:
// - the fixed one (Hermes' later fix) marks each message durable and advances the cursor as soon as its row is
//   committed, so a write error (a busy database) in the middle leaves the cursor just past the last committed row;
//   the error propagates and the runner retries the whole turn, which recognises the rows already written;
// - the flush seed 004 describes (`run_agent.py` _flush_messages_to_session_db before the fix) moves the cursor to
//   len(messages) only after the whole loop, and a write error is logged, not raised: the rows committed before it
//   stay unmarked, so the next flush of the turn writes them again.
//
// The cache is keyed by session with a config signature; it reuses an agent only when the signature matches and no
// other writer appended to the session since the agent last flushed (the entry remembers the session's message
// count), and evicts the least recently used past its capacity, never an agent whose turn is running (the cache
// stays over capacity instead). Reuse resets the activity fields and the API call count; seed 004's bug is that it
// does not realign the flush cursor to the history of the new turn. An agent writes to the session id it was built
// for (Hermes' AIAgent.session_id): after a rotation (/clear) the cache rebuilds it for the new id, so a cached agent
// never flushes into the session the rotation ended.
// A reused agent replays the conversation it holds in memory (Hermes #45966: the cached AIAgent carries the transcript
// as its last turn left it and sends that to the LLM): `replay` is the session's state.db rows as its last turn left
// them, read with the message count the entry keeps, so the count check is what keeps the replay current. The
// coherence mode `none` is Hermes before #46095/#46237 (no count check: a write by another process, such as the
// dashboard's turn, is never seen by the cached agent); only tests switch it on.
import { assert, assertNonNegativeInteger } from './assert.ts';
import { isBusy } from './busy.ts';
import type { SessionDb, DbMessage } from './session-db.ts';

export interface AgentMessage extends DbMessage {
  /** Already durable (the turn's user row, written when the prompt was persisted, or a row a flush committed). */
  persisted: boolean;
}

/** How a flush went: how many rows it committed, where it started, and the write error it logged (Hermes' flush). */
export interface FlushOutcome {
  written: number;
  from: number;
  /** The error the seed-004 flush logged instead of raising; null when every write committed. */
  error: string | null;
}

export class AiAgent {
  messages: AgentMessage[] = [];
  lastFlushedDbIndex = 0;
  lastActivityTs = 0;
  lastActivityDesc = '';
  apiCallCount = 0;
  /** The session's rows as this agent's last turn left them (what a reused agent replays); undefined before one ended. */
  replay: readonly DbMessage[] | undefined;

  constructor(
    readonly sessionKey: string,
    readonly signature: string,
    readonly agentId: string,
    /** The state.db session its flushes write to (a key's first session has the key as its id). */
    readonly sessionId: string = sessionKey,
  ) {}

  beginTurn(history: readonly AgentMessage[], user: AgentMessage): void {
    assert(user.role === 'user', `a turn of ${this.sessionKey} begins with a user message, not ${user.role}`);
    assert(history.every((message) => message.persisted), `the history a turn of ${this.sessionKey} begins from is durable`);
    this.messages = [...history, user];
  }

  /**
   * Hermes _flush_messages_to_session_db. `cursorAfterLoop` is the flush seed 004 describes (cursor moved after the
   * whole loop, a write error logged); otherwise the later fix (cursor and durable mark per message, errors raised).
   */
  async flushMessagesToSessionDb(db: SessionDb, historyLength: number, nowMs: number, cursorAfterLoop = false): Promise<FlushOutcome> {
    assertNonNegativeInteger(historyLength, 'flush historyLength');
    assert(historyLength < this.messages.length, `flush of ${this.sessionKey}: the turn's user message follows its ${historyLength} history messages`);
    assertNonNegativeInteger(this.lastFlushedDbIndex, `lastFlushedDbIndex of ${this.sessionKey}`);
    const from = Math.max(historyLength, this.lastFlushedDbIndex);
    let written = 0;
    for (let index = from; index < this.messages.length; index++) {
      const message = this.messages[index] as AgentMessage;
      assert(message !== undefined, `flush index ${index} within the ${this.messages.length} messages of ${this.sessionKey}`);
      if (message.persisted) {
        if (!cursorAfterLoop) this.lastFlushedDbIndex = index + 1;
        continue;
      }
      try {
      assert(message.turnId === this.messages[historyLength]?.turnId, `a flush of ${this.sessionKey} writes only its own turn's rows, not one of ${message.turnId}`);
        await db.appendMessage(this.sessionId, message, nowMs);
      } catch (error) {
        // seed 004's flush: the error is logged, the cursor stays where the flush started.
        if (cursorAfterLoop && isBusy(error)) return { written, from, error: (error as Error).message };
        throw error;
      }
      written++;
      if (cursorAfterLoop) continue;
      message.persisted = true;
      this.lastFlushedDbIndex = index + 1;
    }
    assert(cursorAfterLoop || this.lastFlushedDbIndex === Math.max(from, this.messages.length), `the fixed flush of ${this.sessionKey} leaves the cursor past its last message`);
    assert(written <= Math.max(0, this.messages.length - from), `flush of ${this.sessionKey} wrote ${written} rows from index ${from} of ${this.messages.length}`);
    for (const message of this.messages.slice(from)) message.persisted = true;
    this.lastFlushedDbIndex = Math.max(this.lastFlushedDbIndex, this.messages.length);
    return { written, from, error: null };
  }
}

/** How the cache decides a cached agent is still current: by the session's message count (fixed), or not at all. */
export const agentCacheCoherences = ['message-count', 'none'] as const;
export type AgentCacheCoherence = (typeof agentCacheCoherences)[number];

export interface CacheLookup {
  agent: AiAgent;
  reused: boolean;
  /** Why a cached agent was not reused: its signature differs, its session rotated, or another writer appended. */
  rebuilt: 'signature' | 'rotated' | 'another-writer' | null;
  /** The sessions whose agents were evicted to make room (never one whose turn is running). */
  evicted: string[];
}

interface CacheEntry {
  agent: AiAgent;
  /** The session's message count (state.db's sessions.message_count) when the agent last finished a turn. */
  messageCount: number;
}

export class AgentCache {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly running = new Set<string>();

  constructor(
    private readonly capacity: number,
    private readonly coherence: AgentCacheCoherence = 'message-count',
  ) {
    assert(capacity >= 1, 'an agent cache holds at least one agent');
    assert(Number.isSafeInteger(capacity), `an agent cache capacity is a whole number, not ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached agent for the session if its signature matches and nobody else appended since; else a new one. */
  getOrCreate(sessionKey: string, signature: string, messageCount: number, create: () => AiAgent, sessionId = sessionKey): CacheLookup {
    assertNonNegativeInteger(messageCount, `message count of ${sessionKey}`);
    const cached = this.entries.get(sessionKey);
    const rotated = cached !== undefined && cached.agent.sessionId !== sessionId;
    // Hermes before #46095 reused an agent whatever another process had written since (coherence `none`).
    const current = this.coherence === 'none' || cached?.messageCount === messageCount;
    if (cached !== undefined && !rotated && cached.agent.signature === signature && current) {
      assert(cached.agent.sessionKey === sessionKey, `the agent cached for ${sessionKey} is for ${cached.agent.sessionKey}`);
      // LRU: move to the end.
      this.entries.delete(sessionKey);
      this.entries.set(sessionKey, cached);
      return { agent: cached.agent, reused: true, rebuilt: null, evicted: [] };
    }
    const rebuilt = cached === undefined ? null : cached.agent.signature !== signature ? 'signature' : rotated ? 'rotated' : 'another-writer';
    this.entries.delete(sessionKey);
    const agent = create();
    assert(agent.sessionKey === sessionKey && agent.signature === signature, `the agent created for ${sessionKey} (${signature}) is for ${agent.sessionKey} (${agent.signature})`);
    assert(agent.sessionId === sessionId, 'a new agent is built for the session it is looked up for');
    this.entries.set(sessionKey, { agent, messageCount });
    return { agent, reused: false, rebuilt, evicted: this.enforceCapacity() };
  }

  /** A turn of the session's agent starts: until it ends, the agent is never evicted. */
  begin(sessionKey: string): void {
    assert(!this.running.has(sessionKey), `a turn of ${sessionKey} begins while another of its turns runs`);
    this.running.add(sessionKey);
  }

  /**
   * The turn ended: the entry remembers the session's message count the agent's own writes left, and the agent the
   * rows it replays on reuse (Hermes re-baselines the count after each turn, #46237). `rows`, when given, are the
   * session's rows read at the same instant as the count (one per row: append_message counts each).
   */
  end(sessionKey: string, messageCount: number, rows?: readonly DbMessage[]): void {
    assert(this.running.has(sessionKey), `a turn of ${sessionKey} ends without having begun`);
    assert(rows === undefined || rows.length === messageCount, `the ${rows?.length ?? 0} rows ${sessionKey}'s agent replays are its ${messageCount} counted messages`);
    this.running.delete(sessionKey);
    const entry = this.entries.get(sessionKey);
    if (entry === undefined) return;
    entry.messageCount = messageCount;
    if (rows !== undefined) entry.agent.replay = rows;
  }

  /** Session reset (/clear) or an explicit eviction. */
  evict(sessionKey: string): boolean {
    assert(!this.running.has(sessionKey), `the agent of ${sessionKey} is evicted while its turn runs`);
    return this.entries.delete(sessionKey);
  }

  /**
   * Hermes _enforce_agent_cache_cap: only the first (size - capacity) entries in LRU order are candidates, and a
   * candidate whose turn is running is skipped rather than evicting a newer entry; the cache may stay over capacity.
   */
  private enforceCapacity(): string[] {
    const excess = this.entries.size - this.capacity;
    if (excess <= 0) return [];
    const candidates = [...this.entries.keys()].slice(0, excess).filter((key) => !this.running.has(key));
    for (const key of candidates) this.entries.delete(key);
    assert(this.entries.size >= this.capacity, `eviction stops at the capacity ${this.capacity}, the cache holds ${this.entries.size}`);
    return candidates;
  }
}
