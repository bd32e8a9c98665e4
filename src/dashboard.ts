// Hermes' dashboard backend (issue 44 item 5): a second process on the gateway's machine that shares the sessions'
// state.db (Hermes' SessionDB under one HERMES_HOME) and runs turns of its own in a session the gateway also serves, as
// the desktop app's `hermes dashboard` does (NousResearch/hermes-agent #45966). Its user types at the dashboard; a turn
// reads the key's current session's history from state.db, asks the LLM (no tools, a plain-text answer: nothing of it
// goes to the chat platform), then appends the user message and the answer to that session, each counted in
// sessions.message_count as append_message counts it, and only then shows the answer to its user. The gateway's runner
// never hears of it: its cached agent learns of the new rows only from the message count (agent.ts). Departs: the two
// rows are one transaction, into a session no /clear has ended since the turn read it (else the turn starts again in
// the key's new session, at most dashboardRoundsMax times); Hermes appends one row per commit to the session shown.
// Turns run one at a time, in the order typed. A transient LLM error is retried after retryMs, at most triesMax times;
// a turn that never got an answer writes nothing and shows its user nothing.
import { assert } from './assert.ts';
import { retryBusy } from './busy.ts';
import { type LlmAnswer, type LlmApi, type LlmContextMessage, LlmTransientError, type ProcessContext } from './ports.ts';
import { type DbMessage, SessionDb } from './session-db.ts';

export const dashboardName = 'dashboard';

/** How often a dashboard turn asks the LLM before it gives up, and how long it waits between two asks. */
export const dashboardTriesMax = 5;
export const dashboardRetryMs = 2_500;
/** How often a turn starts again because a /clear ended the session it read before it could write. */
export const dashboardRoundsMax = 3;

/** A turn the dashboard's user typed: `id` names it in the rows it writes (the model's own column). */
export interface DashboardTurn {
  id: string;
  sessionKey: string;
  text: string;
}

/** Told when the turn is over: the answer shown to the dashboard's user, or null when it got none. */
export type DashboardShown = (answer: string | null) => void;

export class Dashboard {
  private ctx: ProcessContext | undefined;
  private db: Promise<SessionDb> | undefined;
  private readonly queue: { turn: DashboardTurn; shown: DashboardShown }[] = [];
  private draining = false;

  constructor(private readonly llm: LlmApi) {}

  async main(ctx: ProcessContext): Promise<void> {
    this.ctx = ctx;
    this.queue.length = 0;
    this.draining = false;
    this.db = SessionDb.open(ctx.sqlite);
    await this.db;
    ctx.note('dashboard-ready', { incarnation: ctx.incarnation });
  }

  /** The dashboard's user typed a turn (a workload event): it runs after the ones typed before it. */
  submit(turn: DashboardTurn, shown: DashboardShown): void {
    const ctx = this.ctx;
    assert(turn.text.length > 0, `dashboard turn ${turn.id} has a text`);
    if (ctx === undefined) {
      shown(null);
      return;
    }
    this.queue.push({ turn, shown });
    assert(this.queue.length <= 1_000, 'the dashboard queues at most 1,000 turns');
    if (this.draining) return;
    this.draining = true;
    ctx.spawnTask('dashboard-turns', () => this.drain(ctx));
  }

  private async drain(ctx: ProcessContext): Promise<void> {
    for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) next.shown(await this.runTurn(ctx, next.turn));
    this.draining = false;
  }

  private async runTurn(ctx: ProcessContext, turn: DashboardTurn): Promise<string | null> {
    const db = await (this.db ?? SessionDb.open(ctx.sqlite));
    const row = (role: 'user' | 'assistant', content: string): DbMessage => ({ role, content, toolCallId: null, toolCalls: null, toolName: null, turnId: turn.id });
    for (let round = 1; round <= dashboardRoundsMax; round++) {
      const sessionId = await db.currentSessionId(turn.sessionKey);
      // Hermes builds the history from the stored transcript: no tool rows, no empty carriers.
      const context: LlmContextMessage[] = (await db.messages(sessionId)).flatMap((message) => (message.role === 'tool' || message.content.length === 0 ? [] : [{ role: message.role, content: message.content }]));
      ctx.note('dashboard-ask', { session: turn.sessionKey, turn: turn.id, sessionId, context: context.length, round });
      const answer = await this.ask(ctx, turn, context);
      if (answer === undefined) break;
      const written = await retryBusy(ctx, () => db.appendTurnIfOpen(sessionId, [row('user', turn.text), row('assistant', answer.result)], ctx.clock.nowMs()));
      ctx.note(written ? 'dashboard-turn' : 'dashboard-session-ended', { session: turn.sessionKey, turn: turn.id, sessionId });
      if (written) return answer.result;
    }
    ctx.note('dashboard-failed', { session: turn.sessionKey, turn: turn.id });
    return null;
  }

  private async ask(ctx: ProcessContext, turn: DashboardTurn, context: readonly LlmContextMessage[]): Promise<LlmAnswer | undefined> {
    for (let attempt = 1; attempt <= dashboardTriesMax; attempt++) {
      try {
        const answer = await this.llm.complete({ sessionKey: turn.sessionKey, prompt: turn.text, context, plain: true }, ctx.timers);
        assert(answer.toolCalls.length === 0, `the dashboard offers no tools, yet turn ${turn.id} got a tool call`);
        return answer;
      } catch (error) {
        if (!(error instanceof LlmTransientError)) throw error;
        ctx.note('dashboard-retry', { session: turn.sessionKey, turn: turn.id, attempt });
        await ctx.timers.sleep(dashboardRetryMs);
      }
    }
    return undefined;
  }
}
