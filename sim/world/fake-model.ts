// A deterministic fake of the remote model API. It is part of the environment, not of any process: a kill of the
// runner does not change what the model would answer. For a given turn the answer (tool calls and closing text)
// is a pure function of the run's seed and the turn id, as a model at temperature 0 would give, so a
// retried turn asks again and gets the same answer; transient errors and slow responses are drawn per attempt and
// only while the fault phase lasts. A scenario may script answers for specific prompts.
import type { Random } from '../../src/ports.ts';

export type ToolName = 'send_message' | 'send_file' | 'add_reaction';

export interface ToolCall {
  name: ToolName;
  /** The payload the user sees: message text, file caption, or the reaction emoji. */
  text: string;
}

export interface ModelAnswer {
  toolCalls: ToolCall[];
  /** Closing text; `<message to="user">...</message>` blocks are what the user should see. */
  result: string;
}

export interface ModelAttempt {
  latencyMs: number;
  transientError: boolean;
}

export interface ModelRequest {
  sessionKey: string;
  turnId: string;
  prompt: string;
  attempt: number;
}

export interface ModelBehaviour {
  /** Chance (per 1000) that a turn calls a tool mid-turn. */
  toolCallPer1000: number;
  /** Chance that the closing text repeats a sent payload (verbatim or with other whitespace). */
  repeatPer1000: number;
  /** Chance that the closing text is only the repeat (no new answer). */
  repeatOnlyPer1000: number;
  /** Chance that the answer is a stock phrase (so it may equal another turn's interim payload). */
  stockAnswerPer1000: number;
  transientErrorPer1000: number;
  slowPer1000: number;
  slowLatencyMsMax: number;
  latencyMsMax: number;
}

export const defaultModelBehaviour: ModelBehaviour = {
  toolCallPer1000: 400,
  repeatPer1000: 400,
  repeatOnlyPer1000: 200,
  stockAnswerPer1000: 150,
  transientErrorPer1000: 0,
  slowPer1000: 0,
  slowLatencyMsMax: 90_000,
  latencyMsMax: 3_000,
};

export const interimPhrases = [
  'on it - looking at your calendar',
  'interim update',
  'Looking it up',
  'working on it',
] as const;

export const stockAnswers = ["Tomorrow at 2pm you're free", 'done', ...interimPhrases] as const;

export type ScriptedAnswer = (request: ModelRequest) => ModelAnswer | undefined;

export class FakeModelApi {
  behaviour: ModelBehaviour = { ...defaultModelBehaviour };
  /** While false, no transient errors and no slow responses (the fault phase is over). */
  faultsActive = true;
  script: ScriptedAnswer | undefined;
  calls = 0;

  constructor(private readonly randomFor: (key: string) => Random) {}

  /** How this attempt goes: latency and whether it fails transiently. */
  attempt(request: ModelRequest): ModelAttempt {
    this.calls++;
    const random = this.randomFor(`attempt/${request.turnId}/${request.attempt}`);
    const b = this.behaviour;
    const slow = this.faultsActive && random.chance(b.slowPer1000, 1000);
    const latencyMs = slow ? random.int(b.latencyMsMax, b.slowLatencyMsMax) : random.int(200, b.latencyMsMax);
    const transientError = this.faultsActive && random.chance(b.transientErrorPer1000, 1000);
    return { latencyMs, transientError };
  }

  /** The answer for a turn (the same on every attempt). */
  answer(request: ModelRequest): ModelAnswer {
    const scripted = this.script?.(request);
    if (scripted !== undefined) return scripted;
    const random = this.randomFor(`answer/${request.turnId}`);
    const b = this.behaviour;
    const toolCalls: ToolCall[] = [];
    if (random.chance(b.toolCallPer1000, 1000)) {
      const kind = random.int(0, 9);
      if (kind < 7) toolCalls.push({ name: 'send_message', text: random.pick(interimPhrases) });
      else if (kind < 9) toolCalls.push({ name: 'send_file', text: `report-${random.int(1, 3)}.pdf` });
      else toolCalls.push({ name: 'add_reaction', text: '👍' });
    }
    const answer = random.chance(b.stockAnswerPer1000, 1000)
      ? random.pick(stockAnswers)
      : `answer ${random.int(1, 9999)} for ${request.turnId}`;
    const blocks: string[] = [];
    const sent = toolCalls.find((call) => call.name !== 'add_reaction');
    if (sent !== undefined && random.chance(b.repeatPer1000, 1000)) {
      blocks.push(random.chance(1, 2) ? sent.text : sent.text.replace(/ /g, '  \n'));
      if (!random.chance(b.repeatOnlyPer1000, 1000)) blocks.push(answer);
    } else {
      blocks.push(answer);
    }
    if (random.chance(1, 10)) blocks.push('(note to self)');
    const result = blocks
      .map((body, index) => (body === '(note to self)' ? `<message to="scratchpad">${body}</message>` : `<message to="user">${body}</message>${index === 0 ? ' ' : ''}`))
      .join('\n');
    return { toolCalls, result };
  }
}
