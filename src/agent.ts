// The Hermes agent and the agent cache. An agent holds the turn's message list and the SessionDB flush cursor
// `lastFlushedDbIndex`. A flush starts at max(len(conversation history), cursor), appends every message from there
// that is not durable yet and sets the cursor to len(messages). A write error (a busy database) propagates before
// the cursor moves, and the runner retries the whole turn.
//
// The cache is keyed by session with a config signature; it reuses an agent only when the signature matches and
// evicts the least recently used past its capacity. Reuse resets the activity fields and the API call count;
// seed 004's bug is that it does not realign the flush cursor to the history of the new turn.
import type { SessionDb, DbMessage } from './session-db.ts';

export interface AgentMessage extends DbMessage {
  /** Already durable (the turn's user row, written when the prompt was persisted). */
  persisted: boolean;
}

export class AiAgent {
  messages: AgentMessage[] = [];
  lastFlushedDbIndex = 0;
  lastActivityTs = 0;
  lastActivityDesc = '';
  apiCallCount = 0;

  constructor(
    readonly sessionKey: string,
    readonly signature: string,
    readonly agentId: string,
  ) {}

  beginTurn(history: readonly AgentMessage[], user: AgentMessage): void {
    this.messages = [...history, user];
  }

  /** Hermes _flush_messages_to_session_db. Returns how many rows were written. */
  async flushMessagesToSessionDb(db: SessionDb, historyLength: number, nowMs: number): Promise<{ written: number; from: number }> {
    const from = Math.max(historyLength, this.lastFlushedDbIndex);
    const pending = this.messages.slice(from).filter((message) => !message.persisted);
    await db.appendMessages(this.sessionKey, pending, nowMs);
    for (const message of this.messages.slice(from)) message.persisted = true;
    this.lastFlushedDbIndex = this.messages.length;
    return { written: pending.length, from };
  }
}

export interface CacheLookup {
  agent: AiAgent;
  reused: boolean;
  evicted: string | null;
}

export class AgentCache {
  private readonly agents = new Map<string, AiAgent>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.agents.size;
  }

  getOrCreate(sessionKey: string, signature: string, create: () => AiAgent): CacheLookup {
    const cached = this.agents.get(sessionKey);
    let evicted: string | null = null;
    if (cached !== undefined && cached.signature === signature) {
      // LRU: move to the end.
      this.agents.delete(sessionKey);
      this.agents.set(sessionKey, cached);
      return { agent: cached, reused: true, evicted };
    }
    if (cached !== undefined) this.agents.delete(sessionKey);
    const agent = create();
    this.agents.set(sessionKey, agent);
    if (this.agents.size > this.capacity) {
      const oldest = this.agents.keys().next().value as string;
      this.agents.delete(oldest);
      evicted = oldest;
    }
    return { agent, reused: false, evicted };
  }

  /** Session reset (/clear) or an explicit eviction. */
  evict(sessionKey: string): boolean {
    return this.agents.delete(sessionKey);
  }
}
