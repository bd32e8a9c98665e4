// A deterministic fake of the remote LLM API, part of the world (never killed) and the ledger's witness of what the
// model was asked and what it answered. It sees only what a real API sees: the session it is called for and the
// prompt text; nothing of the system's internal ids reaches it. At temperature 0 the answer is a pure function of
// the run's seed, the session and the prompt, so a retried run that sends the same prompt gets the same answer
// (with the same API-issued tool-call ids). Every answer ends with a line outside its message blocks naming it
// (`(reply <tag>)`), so a durable assistant row can be traced to exactly one answer, while the visible blocks may
// be stock phrases that other answers also use. An answer makes 0 to toolCallsMax tool calls of mixed kinds (and, when
// a run offers the calendar, may book an event with create_event, drawn from a stream of its own). Latency,
// transient errors (alone, in streaks on one prompt, or for every request during an outage) and slow responses are
// drawn per request and only while the fault phase lasts. A quarter of the transient errors outside an outage strike
// after the whole closing text has streamed (a partial stream: the caller gets the answer marked `streamCut`, and
// Hermes' agent recovers the streamed text as its final response). Tests may script answers per request. A prompt that ends by
// asking for HEARTBEAT_OK when nothing needs attention (OpenClaw's heartbeat prompt, sent when the only news is that a
// command started) is answered `HEARTBEAT_OK`, as instructed: a closing text with no message for the user.
// A poison message (a shape chaos draws per run) carries an input the API chokes on, as an oversized attachment can:
// every request whose prompt carries it is accepted and never answered while the faults last (no byte comes back, so
// the runner's SDK reports no activity and its heartbeat stands still); when the fault phase ends it is answered as
// any other. nanoclaw's host sweep then finds the claim silent past its tolerance, kills the runner and retries the
// row with backoff, until the row is marked failed at 5 tries (src/host-sweep.ts).
// History-naming answers (issue 44 item 5, a knob of the run): the answer's last line also names the newest assistant
// message of the context the request carried (`(reply <tag>, after <token>)`, `none` for a context without one), so a
// turn answered from a stale history says so in the durable transcript. The API fixes that token at the first request
// of a prompt (per session) and gives every later request of it the same answer, so the same prompt still gets the same
// answer (the attribution identifies an answer by its prompt, sim/checkers/attribution.ts). A request that asks for
// plain text with no tools (a dashboard turn) gets a plain note naming it (`note <n> [c<tag>]`): no message blocks, no
// tool calls. Every request's context is recorded in the ledger, as the API received it.
import { type LlmAbort, LlmAbortedError, type LlmAnswer, type LlmApi, type LlmRequest, LlmTransientError, type Random, type Timers, type ToolName } from '../../src/ports.ts';
import { contentHash } from '../../src/text.ts';
import { isCompactionPrompt } from '../../src/protocol.ts';
import { assert } from '../kernel/assert.ts';
import type { Ledger } from './ledger.ts';

export interface ModelBehaviour {
  /** Chance (per 1000) that a turn calls tools mid-turn. */
  toolCallPer1000: number;
  /** How many tool calls such a turn makes, at most (1 to this many, of mixed kinds). */
  toolCallsMax: number;
  /** Chance that the closing text repeats a sent payload (verbatim or with other whitespace). */
  repeatPer1000: number;
  /** Chance that the closing text is only the repeat (no new answer). */
  repeatOnlyPer1000: number;
  /** Chance that the answer is a stock phrase (so it may equal another turn's interim payload). */
  stockAnswerPer1000: number;
  transientErrorPer1000: number;
  /** After a transient error, the same prompt fails again on up to this many more requests (an error streak). */
  errorStreakMax: number;
  slowPer1000: number;
  slowLatencyMsMax: number;
  latencyMsMax: number;
  /**
   * Chance (per 1000) that an answer also acts on the world: a `create_event` call (an event named uniquely by the
   * answer, confirmed in a block of its closing text). 0, the default, draws nothing, so existing runs are unchanged.
   */
  effectToolPer1000: number;
  /** The answer's last line names the newest assistant message of its context (issue 44 item 5); false by default. */
  namesContext: boolean;
  /**
   * Chance (per 1000) that an answer's own block is a long reply (issue 48 item 2) of longReplyCharsMin to
   * longReplyCharsMax characters, in paragraphs that name the answer: longer than a platform's message limit, so it is
   * sent in parts. 0, the default, draws nothing, so existing runs are unchanged.
   */
  longReplyPer1000: number;
  longReplyCharsMin: number;
  longReplyCharsMax: number;
}

export const defaultModelBehaviour: ModelBehaviour = {
  toolCallPer1000: 400,
  toolCallsMax: 1,
  repeatPer1000: 400,
  repeatOnlyPer1000: 200,
  stockAnswerPer1000: 150,
  transientErrorPer1000: 0,
  errorStreakMax: 0,
  slowPer1000: 0,
  slowLatencyMsMax: 90_000,
  latencyMsMax: 3_000,
  effectToolPer1000: 0,
  namesContext: false,
  longReplyPer1000: 0,
  longReplyCharsMin: 0,
  longReplyCharsMax: 0,
};

const longReplyWords = ['the', 'flight', 'leaves', 'at', 'nine', 'and', 'your', 'meeting', 'notes', 'say', 'that', 'invoice', 'was', 'paid', 'on', 'Monday', 'while', 'weather', 'stays', 'dry', 'for', 'build', 'passed', 'every', 'check', 'groceries', 'arrive', 'later', 'summary', 'follows'];

/** A long reply of about `chars` characters naming the answer in every paragraph (no markup, no parentheses). */
export function longReplyText(random: Random, tag: string, chars: number): string {
  const paragraphs: string[] = [];
  let length = 0;
  for (let n = 1; length < chars; n++) {
    const words = [`Part ${n} of answer a${tag}:`];
    const target = random.int(200, 700);
    let paragraph = words[0] as string;
    while (paragraph.length < target) paragraph += ` ${random.pick(longReplyWords)}`;
    paragraphs.push(`${paragraph}.`);
    length += paragraph.length + 3;
  }
  return paragraphs.join('\n\n');
}

/** Of the transient errors that are not an outage, the share (per 1000) that cut the stream after the closing text. */
export const streamCutPer1000 = 250;

/** The input a poison message carries: a prompt holding it hangs until the fault phase ends. */
export const poisonInput = '[attached: core.dump, 48 GB]';

export const interimPhrases = ['on it - looking at your calendar', 'interim update', 'Looking it up', 'working on it'] as const;

/** What the agent books in the calendar when an answer acts on the world. */
export const eventTitles = ['team sync', 'dentist', 'flight check-in', 'call with Sam'] as const;

export const stockAnswers = ["Tomorrow at 2pm you're free", 'done', ...interimPhrases] as const;

/** A scripted answer: tool calls may leave out their ids (the API issues them). */
export interface ScriptedAnswer {
  toolCalls: { id?: string; name: ToolName; text: string }[];
  result: string;
}

export type AnswerScript = (request: LlmRequest) => ScriptedAnswer | undefined;

/** OpenClaw's heartbeat token: nothing needs attention. */
export const heartbeatOk = 'HEARTBEAT_OK';

/** Whether the prompt's last instruction is to reply HEARTBEAT_OK when nothing needs attention. */
export function asksForHeartbeatOk(prompt: string): boolean {
  return /reply HEARTBEAT_OK\.?\s*$/.test(prompt);
}

/** The token an answer names its context by: a hash of the context's newest assistant message, or `none`. */
export function contextToken(context: LlmRequest['context']): string {
  const newest = [...(context ?? [])].reverse().find((message) => message.role === 'assistant');
  return newest === undefined ? 'none' : contentHash(newest.content);
}

/** The tag naming the answer to a prompt: the same for every request with that session and prompt. */
export function answerTag(request: LlmRequest): string {
  return contentHash(`${request.sessionKey}\n${request.prompt}`);
}

export class FakeModelApi implements LlmApi {
  behaviour: ModelBehaviour = { ...defaultModelBehaviour };
  /** While false, no transient errors and no slow responses (the fault phase is over). */
  faultsActive = true;
  /** When the fault phase ends: a slow response in flight then completes promptly (the slowness was a fault). */
  faultsEndAtMs = Number.MAX_SAFE_INTEGER;
  script: AnswerScript | undefined;
  calls = 0;
  /** An outage: every request that arrives before this instant fails (a fault of the plan, set by the harness). */
  outageUntilMs = 0;
  private readonly requestsPerPrompt = new Map<string, number>();
  /** Prompts in an error streak: how many more requests fail. */
  private readonly streaks = new Map<string, number>();
  /** The context token each prompt's answer names: fixed at its first request (namesContext only). */
  private readonly contextTokens = new Map<string, string>();

  constructor(
    private readonly randomFor: (key: string) => Random,
    private readonly ledger: Ledger,
    private readonly nowMs: () => number,
    /** Where the world marks the faults it injects (a slow response, a transient error) on the trace. */
    private readonly recordFault: (fields: Record<string, string | number>) => void = () => {},
  ) {}

  async complete(request: LlmRequest, timers: Timers, abort?: LlmAbort): Promise<LlmAnswer> {
    this.calls++;
    const tag = answerTag(request);
    const nth = (this.requestsPerPrompt.get(tag) ?? 0) + 1;
    this.requestsPerPrompt.set(tag, nth);
    // A compaction's summary request is recorded apart from the turn requests (it asks about no subject).
    const summarising = isCompactionPrompt(request.prompt);
    const summaryFact: Ledger['summaries'][number] | undefined = summarising ? { sessionKey: request.sessionKey, prompt: request.prompt, atMs: this.nowMs(), summary: null } : undefined;
    if (summaryFact !== undefined) this.ledger.summaries.push(summaryFact);
    const fact = summarising ? undefined : this.ledger.requestReceived(request.sessionKey, request.prompt, this.nowMs(), request.context, request.plain === true);
    if (this.behaviour.namesContext && !this.contextTokens.has(tag)) this.contextTokens.set(tag, contextToken(request.context));
    const random = this.randomFor(`attempt/${tag}/${nth}`);
    const b = this.behaviour;
    const slow = this.faultsActive && random.chance(b.slowPer1000, 1000);
    const normalMs = random.int(200, b.latencyMsMax);
    const slowMs = slow ? random.int(b.latencyMsMax, b.slowLatencyMsMax) : 0;
    // Slow or hanging on a poison input, the response comes no later than the end of the faults (plus a normal latency).
    const afterFaultsMs = Math.max(normalMs, this.faultsEndAtMs - this.nowMs() + normalMs);
    const poisoned = this.faultsActive && !summarising && request.prompt.includes(poisonInput);
    const latencyMs = poisoned ? afterFaultsMs : slow ? Math.min(slowMs, afterFaultsMs) : normalMs;
    const outage = this.faultsActive && this.nowMs() < this.outageUntilMs;
    const streak = this.streaks.get(tag) ?? 0;
    const transientError = this.faultsActive && !poisoned && (outage || streak > 0 || random.chance(b.transientErrorPer1000, 1000));
    if (streak > 0) this.streaks.set(tag, streak - 1);
    else if (transientError && !outage && b.errorStreakMax > 0) this.streaks.set(tag, random.int(0, b.errorStreakMax));
    // A connection that breaks while the API is up may break after the whole closing text has streamed: the caller
    // has the text but no end of stream (drawn last, so the draws above are those of every other request).
    const streamCut = transientError && !outage && !summarising && random.chance(streamCutPer1000, 1000);
    if (poisoned) this.recordFault({ kind: 'poison-hang', session: request.sessionKey, latencyMs });
    else if (slow) this.recordFault({ kind: 'model-slow', session: request.sessionKey, latencyMs });
    if (streamCut) this.recordFault({ kind: 'stream-cut', session: request.sessionKey });
    else if (transientError) this.recordFault({ kind: 'model-error', session: request.sessionKey, cause: outage ? 'outage' : streak > 0 ? 'streak' : 'chance' });
    if (abort === undefined) await timers.sleep(latencyMs);
    else if (await abandoned(timers, latencyMs, abort)) {
      // The caller gave the request up (its run timed out): no answer reaches it, and it failed for the caller now.
      if (fact !== undefined) this.ledger.requestFailed(fact, this.nowMs());
      throw new LlmAbortedError(`LLM request given up by its caller (${tag}, request ${nth})`);
    }
    if (transientError && !streamCut) {
      if (fact !== undefined) this.ledger.requestFailed(fact, this.nowMs());
      throw new LlmTransientError(`transient LLM error (${tag}, request ${nth})`);
    }
    if (summaryFact !== undefined) {
      summaryFact.summary = `Summary of ${request.prompt.split('\n').length - 2} earlier lines [s${tag}]`;
      return { toolCalls: [], result: summaryFact.summary };
    }
    assert(fact !== undefined, 'a turn request is in the ledger');
    const answer = this.answer(request, tag);
    this.ledger.answerReturned(fact, answer, this.nowMs());
    return streamCut ? { ...answer, streamCut } : answer;
  }

  /** The answer to a prompt (the same on every request). */
  private answer(request: LlmRequest, tag: string): LlmAnswer {
    const scripted = this.script?.(request) ?? (request.plain === true ? this.note(tag) : asksForHeartbeatOk(request.prompt) ? { toolCalls: [], result: heartbeatOk } : this.generate(tag));
    const after = this.behaviour.namesContext ? `, after ${this.contextTokens.get(tag) ?? contextToken(request.context)}` : '';
    assert(request.plain !== true || scripted.toolCalls.length === 0, 'a plain request offers no tools, so its answer calls none');
    return {
      toolCalls: scripted.toolCalls.map((call, index) => ({ id: call.id ?? `toolu_${tag}_${index}`, name: call.name, text: call.text })),
      result: `${scripted.result}\n(reply ${tag}${after})`,
    };
  }

  /** The answer to a plain request (a dashboard turn): a note naming the answer, for its reader alone. */
  private note(tag: string): ScriptedAnswer {
    return { toolCalls: [], result: `note ${this.randomFor(`answer/${tag}`).int(1, 9999)} [c${tag}]` };
  }

  private generate(tag: string): ScriptedAnswer {
    const random = this.randomFor(`answer/${tag}`);
    const b = this.behaviour;
    const toolCalls: ScriptedAnswer['toolCalls'] = [];
    if (random.chance(b.toolCallPer1000, 1000)) {
      const count = random.int(1, Math.max(1, b.toolCallsMax));
      for (let call = 0; call < count; call++) {
        const kind = random.int(0, 9);
        const next: ScriptedAnswer['toolCalls'][number] =
          kind < 7 ? { name: 'send_message', text: random.pick(interimPhrases) } : kind < 9 ? { name: 'send_file', text: `report-${random.int(1, 3)}.pdf` } : { name: 'add_reaction', text: '👍' };
        // One answer does not send the same thing twice.
        if (!toolCalls.some((earlier) => earlier.name === next.name && earlier.text === next.text)) toolCalls.push(next);
      }
    }
    const stockOrShort = random.chance(b.stockAnswerPer1000, 1000) ? random.pick(stockAnswers) : `answer ${random.int(1, 9999)} [a${tag}]`;
    // A long reply (issue 48 item 2), drawn from a stream of its own so the draws above and below are a run's without it.
    const long = b.longReplyPer1000 > 0 ? this.randomFor(`long/${tag}`) : undefined;
    const answer = long !== undefined && long.chance(b.longReplyPer1000, 1000) ? longReplyText(long, tag, long.int(b.longReplyCharsMin, b.longReplyCharsMax)) : stockOrShort;
    const blocks: string[] = [];
    const payloads = toolCalls.filter((call) => call.name !== 'add_reaction');
    const sent = payloads.length === 0 ? undefined : random.pick(payloads);
    if (sent !== undefined && random.chance(b.repeatPer1000, 1000)) {
      blocks.push(random.chance(1, 2) ? sent.text : sent.text.replace(/ /g, '  \n'));
      if (!random.chance(b.repeatOnlyPer1000, 1000)) blocks.push(answer);
    } else {
      blocks.push(answer);
    }
    if (random.chance(1, 10)) blocks.push('(note to self)');
    // An action on the world, drawn from a stream of its own (so the draws above are those of a run without it): the
    // event's text names the answer, so each requested action is one text, and the closing text confirms it.
    if (b.effectToolPer1000 > 0) {
      const effects = this.randomFor(`effect/${tag}`);
      if (effects.chance(b.effectToolPer1000, 1000)) {
        const event = `${effects.pick(eventTitles)} at ${effects.int(8, 18)}:00 [e${tag}]`;
        toolCalls.push({ name: 'create_event', text: event });
        blocks.push(event);
      }
    }
    const result = blocks
      .map((body, index) => (body === '(note to self)' ? `<message to="scratchpad">${body}</message>` : `<message to="user">${body}</message>${index === 0 ? ' ' : ''}`))
      .join('\n');
    return { toolCalls, result };
  }
}

/** Waits the latency unless the caller aborts first; true when it did. */
function abandoned(timers: Timers, latencyMs: number, abort: LlmAbort): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = timers.setTimer(latencyMs, () => resolve(false));
    abort.onAbort(() => {
      timer.cancel();
      resolve(true);
    });
  });
}
