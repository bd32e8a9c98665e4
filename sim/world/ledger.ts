// The ground-truth ledger (docs/ARCHITECTURE.md section 5). The world keeps it: the chat platform (what the user typed,
// every redelivery, every acknowledgement, everything the user was shown), the LLM API (every request and every answer
// it returned), the external services the agent's tools act on (every effect) and the workload driver (every command
// the node host was asked to run). No process of the system under test holds a reference to it, so nothing the gateway,
// runner, tool server or node host says about itself can get in; the checkers read it beside the durable state. Facts
// are appended in simulated-time order and never edited, except the acknowledgement time of a user message, which the
// platform fills in once, and the outcome of an LLM request (answer or error, and when), which the API fills in once it
// returns.
import type { LlmContextMessage, LlmToolCall } from '../../src/ports.ts';

/** A message the user typed, with its deliveries and the acknowledgement. */
export interface UserMessageFact {
  sessionKey: string;
  deliveryId: string;
  /** The full text as typed, including the marker. */
  text: string;
  /** A unique token inside the text (`[m<i>]`) by which the message is found in prompts and transcripts. */
  marker: string;
  /**
   * Whether the user addressed the agent. False for a group message that does not mention it: the system may keep
   * it as context for a later turn but owes it no reply.
   */
  mentions: boolean;
  sentAtMs: number;
  /** Every time the platform delivered the webhook (the first delivery and each redelivery). */
  deliveriesAtMs: number[];
  /** When the gateway first acknowledged it, or null: an acknowledged message is one the system accepted. */
  acknowledgedAtMs: number | null;
  /**
   * Set for a scheduled task's occurrence (issue 24 item 2), a subject like a message the user typed: the system
   * holds the schedule (accepted from its due time on), and owes the occurrence one turn and one reply.
   */
  task?: { taskId: string; dueMs: number };
}

/** A command the node host was asked to run. */
export interface CommandFact {
  sessionKey: string;
  runId: string;
  /** The command line (reported by `exec.started`). */
  command: string;
  output: string;
  exitCode: number;
  timedOut: boolean;
  requestedAtMs: number;
}

/** A request the LLM API received, and its outcome. */
export interface LlmRequestFact {
  index: number;
  sessionKey: string;
  prompt: string;
  /**
   * The conversation history the request carried, as the API received it (empty when none): the world's own record of
   * the context an answer was given, which the stale-context invariant (sim/checkers/context.ts) reads.
   */
  context: LlmContextMessage[];
  /** The caller asked for a plain-text answer with no tools (a dashboard turn's request). */
  plain: boolean;
  atMs: number;
  /** `answer` once returned to the caller, `error` for a transient failure, `pending` until then (or for ever). */
  outcome: 'pending' | 'answer' | 'error';
  /** Index into answers when outcome is `answer`. */
  answer: number | null;
  /** When the API returned the answer or the error to the caller; null while pending (or for ever, for a hang). */
  endedAtMs: number | null;
}

/** An answer the LLM API returned: tool calls (with API-issued ids) and closing text. */
export interface LlmAnswerFact {
  index: number;
  request: number;
  sessionKey: string;
  prompt: string;
  toolCalls: LlmToolCall[];
  result: string;
  returnedAtMs: number;
}

/** Something the platform showed the user. */
export interface ShownFact {
  index: number;
  sessionKey: string;
  text: string;
  kind: string;
  atMs: number;
}

/**
 * A send the platform received (docs/ARCHITECTURE.md section 5, one send in flight): every attempt that reached it,
 * shown or dropped as a repeat of its key, in arrival order. The platform acknowledges each at once. `key` is the
 * client idempotency key the send carried (what the platform dedupes by; a key-less platform receives it and ignores
 * it).
 */
export interface SendAttemptFact {
  index: number;
  sessionKey: string;
  key: string;
  kind: string;
  text: string;
  atMs: number;
  /** Index into `shown` of the showing it gave, or null when the platform dropped it as a repeat of its key. */
  shown: number | null;
}

/**
 * A send the platform refused (issue 48 item 1): it took nothing and showed nothing, and answered the sender with a
 * typed refusal. `permanent` for a refusal no later send to that chat can get past (the chat is not found); the
 * others (flood control with its retry-after, a listener not ready yet, a text over the platform's limit) say to
 * send again, later or otherwise. Kept apart from `sendAttempts`, which are the sends the platform took.
 */
export interface SendRefusalFact {
  index: number;
  sessionKey: string;
  key: string;
  kind: string;
  text: string;
  atMs: number;
  reason: 'rate-limit' | 'not-found' | 'not-ready' | 'too-long';
  permanent: boolean;
  /** For a rate limit: the wait the platform asked for (ms); else 0. */
  retryAfterMs: number;
}

/**
 * An effect an external service of the world carried out (issue 23 item 3): the calendar created an event. `key` is
 * the idempotency key the request carried (the tool-call id the LLM API issued, when the system passes it on), `text`
 * the event as the request described it (the LLM's tool call names it uniquely, so the checkers trace an effect to
 * the call by its text, not by any id the system chose).
 */
export interface EffectFact {
  index: number;
  sessionKey: string;
  service: string;
  key: string;
  text: string;
  atMs: number;
}

/**
 * A chat.send the WebChat client wrote (issue 24 item 1): the message's typed key (its delivery id), the key the send
 * carried (the same on a retry, unless the client draws a fresh one) and the connection it was written to.
 */
export interface ClientSendFact {
  index: number;
  sessionKey: string;
  typedKey: string;
  key: string;
  connection: number;
  atMs: number;
}

/** A `chat` final the WebChat client received over its connection, and the showing it gave. */
export interface ClientEventFact {
  index: number;
  sessionKey: string;
  seq: number;
  messageId: string;
  connection: number;
  atMs: number;
  /** Index into `shown` of the showing it gave (the client shows every final it receives). */
  shown: number;
}

/**
 * A turn the user typed at Hermes' dashboard (issue 44 item 5), a second writer of the session's state.db: its text
 * (with its marker `[w<i>]`), when it was typed, and when the dashboard showed its answer (null: never). The dashboard
 * shows an answer only once both of its rows are committed, so a turn shown at shownAtMs was durable by then.
 */
export interface DashboardTurnFact {
  index: number;
  sessionKey: string;
  text: string;
  marker: string;
  typedAtMs: number;
  shownAtMs: number | null;
  /** The answer the dashboard showed (the LLM's closing text), or null. */
  answer: string | null;
}

/**
 * The ground truth of a run, written by the world only: what the user typed and saw, what the LLM was asked and
 * answered, which commands ran.
 */
export class Ledger {
  readonly userMessages: UserMessageFact[] = [];
  readonly commands: CommandFact[] = [];
  readonly requests: LlmRequestFact[] = [];
  readonly answers: LlmAnswerFact[] = [];
  /**
   * The summary requests a compaction made (src/compaction.ts; the API knows them by their instruction): not turn
   * requests, so no invariant reads them as asking about a subject; `summary` is the text returned (null: failed or pending).
   */
  readonly summaries: { sessionKey: string; prompt: string; atMs: number; summary: string | null }[] = [];
  readonly shown: ShownFact[] = [];
  readonly sendAttempts: SendAttemptFact[] = [];
  /** Sends the platform refused (issue 48 item 1), in arrival order. */
  readonly sendRefusals: SendRefusalFact[] = [];
  readonly effects: EffectFact[] = [];
  /** What the WebChat client sent and received (issue 24 item 1); its messages and showings are in userMessages and shown. */
  readonly clientSends: ClientSendFact[] = [];
  readonly clientEvents: ClientEventFact[] = [];
  /** What the dashboard's user typed and was shown (issue 44 item 5). */
  readonly dashboardTurns: DashboardTurnFact[] = [];
  /** Whether the platform drops a repeat of a client idempotency key; a key-less one shows every send it accepts. */
  platformHonoursKeys = true;
  private readonly byDelivery = new Map<string, UserMessageFact>();

  userTyped(fact: Omit<UserMessageFact, 'deliveriesAtMs' | 'acknowledgedAtMs'>): void {
    if (this.byDelivery.has(fact.deliveryId)) throw new Error(`ledger: delivery id ${fact.deliveryId} typed twice`);
    const full: UserMessageFact = { ...fact, deliveriesAtMs: [], acknowledgedAtMs: null };
    this.userMessages.push(full);
    this.byDelivery.set(fact.deliveryId, full);
  }

  /**
   * A scheduled task's occurrence fell due (the schedule the run set up, which the world knows): a subject owed a
   * reply, found by its text (the occurrence as the system renders it, unique by task and due time). No platform
   * delivered it; it counts as accepted at its due time, since the system stored the schedule before.
   */
  taskDue(fact: { sessionKey: string; taskId: string; dueMs: number; text: string }): void {
    const deliveryId = `task:${fact.taskId}@${fact.dueMs}`;
    if (this.byDelivery.has(deliveryId)) throw new Error(`ledger: occurrence ${deliveryId} due twice`);
    const full: UserMessageFact = {
      sessionKey: fact.sessionKey,
      deliveryId,
      text: fact.text,
      marker: fact.text,
      mentions: true,
      sentAtMs: fact.dueMs,
      deliveriesAtMs: [],
      acknowledgedAtMs: fact.dueMs,
      task: { taskId: fact.taskId, dueMs: fact.dueMs },
    };
    this.userMessages.push(full);
    this.byDelivery.set(deliveryId, full);
  }

  delivered(deliveryId: string, atMs: number): void {
    this.byDelivery.get(deliveryId)?.deliveriesAtMs.push(atMs);
  }

  acknowledged(deliveryId: string, atMs: number): void {
    const fact = this.byDelivery.get(deliveryId);
    if (fact !== undefined && fact.acknowledgedAtMs === null) fact.acknowledgedAtMs = atMs;
  }

  commandRequested(fact: CommandFact): void {
    this.commands.push(fact);
  }

  requestReceived(sessionKey: string, prompt: string, atMs: number, context: readonly LlmContextMessage[] = [], plain = false): LlmRequestFact {
    const fact: LlmRequestFact = { index: this.requests.length, sessionKey, prompt, context: context.map((message) => ({ ...message })), plain, atMs, outcome: 'pending', answer: null, endedAtMs: null };
    this.requests.push(fact);
    return fact;
  }

  requestFailed(request: LlmRequestFact, atMs: number): void {
    request.outcome = 'error';
    request.endedAtMs = atMs;
  }

  answerReturned(request: LlmRequestFact, answer: { toolCalls: LlmToolCall[]; result: string }, atMs: number): void {
    const fact: LlmAnswerFact = {
      index: this.answers.length,
      request: request.index,
      sessionKey: request.sessionKey,
      prompt: request.prompt,
      toolCalls: answer.toolCalls.map((call) => ({ ...call })),
      result: answer.result,
      returnedAtMs: atMs,
    };
    this.answers.push(fact);
    request.outcome = 'answer';
    request.answer = fact.index;
    request.endedAtMs = atMs;
  }

  userShown(sessionKey: string, text: string, kind: string, atMs: number): void {
    this.shown.push({ index: this.shown.length, sessionKey, text, kind, atMs });
  }

  /** An external service carried out an action (once per effect: a request it deduped by its key is no effect). */
  effectTaken(fact: Omit<EffectFact, 'index'>): void {
    this.effects.push({ index: this.effects.length, ...fact });
  }

  /** The dashboard's user typed a turn. */
  dashboardTyped(fact: Omit<DashboardTurnFact, 'index' | 'shownAtMs' | 'answer'>): DashboardTurnFact {
    const full: DashboardTurnFact = { index: this.dashboardTurns.length, ...fact, shownAtMs: null, answer: null };
    this.dashboardTurns.push(full);
    return full;
  }

  /** The dashboard showed its user the answer to a turn (once). */
  dashboardShown(fact: DashboardTurnFact, answer: string, atMs: number): void {
    if (fact.shownAtMs !== null) throw new Error(`ledger: dashboard turn ${fact.marker} shown twice`);
    fact.shownAtMs = atMs;
    fact.answer = answer;
  }

  /** The WebChat client wrote a chat.send. */
  clientSent(fact: Omit<ClientSendFact, 'index'>): void {
    this.clientSends.push({ index: this.clientSends.length, ...fact });
  }

  /** The WebChat client received a chat final (and showed it). */
  clientReceived(fact: Omit<ClientEventFact, 'index'>): void {
    this.clientEvents.push({ index: this.clientEvents.length, ...fact });
  }

  /** The platform refused a send (it showed nothing of it). */
  sendRefused(fact: Omit<SendRefusalFact, 'index'>): void {
    this.sendRefusals.push({ index: this.sendRefusals.length, ...fact });
  }

  /** The platform received a send (shown: the index of the showing it gave, or null for a dropped repeat of its key). */
  sendReceived(fact: Omit<SendAttemptFact, 'index'>): void {
    this.sendAttempts.push({ index: this.sendAttempts.length, ...fact });
  }
}
