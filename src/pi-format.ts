// pi's JSONL session format (@mariozechner/pi-coding-agent, session version 3), as the real SessionManager writes
// it: line 1 `{"type":"session","version":3,"id":<uuid>,"timestamp":<ISO>,"cwd"}`, then one entry per line,
// `{"type":"message","id":<8 hex>,"parentId","timestamp":<ISO>,"message":<AgentMessage>}`. A user message's content
// is a string (or text blocks); an assistant message's content is a list of `text` and `toolCall` blocks with the
// provider fields beside it; a tool result is `{"role":"toolResult","toolCallId","toolName","content":[text]}`.
// The model keeps one field of its own on each entry (`turnId`, for its own resume logic); a file without it (one
// the real SessionManager wrote) loads all the same, and no checker reads it.
import { assert, assertNonNegativeInteger } from './assert.ts';

/**
 * pi's header test (`loadEntriesFromFile`): an object with `type` "session" and a string `id`. OpenClaw's repair step
 * asks the id to be non-empty as well (`isSessionHeader` in `src/agents/session-file-repair.ts`).
 */
export function isSessionHeader(value: unknown): value is { type: 'session'; id: string } & Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as { type?: unknown; id?: unknown };
  return record.type === 'session' && typeof record.id === 'string';
}

/** Simulated time 0 is this instant (2026-01-01T00:00:00Z), so ISO timestamps look like real ones. */
export const simEpochMs = Date.UTC(2026, 0, 1);

// Both conversions are pure and asked again and again for the same instants (every line of a transcript at every
// load and rewrite), so their answers are remembered (up to timesMax of each, then forgotten at once).
const timesMax = 4_096;
const isoStrings = new Map<number, string>();
const simTimes = new Map<string, number>();

export function isoAt(simMs: number): string {
  let iso = isoStrings.get(simMs);
  if (iso === undefined) {
    if (isoStrings.size >= timesMax) isoStrings.clear();
    iso = new Date(simEpochMs + simMs).toISOString();
    isoStrings.set(simMs, iso);
  }
  return iso;
}

/** An ISO timestamp (or a number of simulated ms, as older gatesim files had) back to simulated ms. */
export function simMsOf(timestamp: unknown): number {
  if (typeof timestamp === 'number') return timestamp;
  if (typeof timestamp === 'string') {
    let simMs = simTimes.get(timestamp);
    if (simMs === undefined) {
      if (simTimes.size >= timesMax) simTimes.clear();
      const ms = Date.parse(timestamp);
      simMs = Number.isNaN(ms) ? 0 : ms - simEpochMs;
      simTimes.set(timestamp, simMs);
    }
    return simMs;
  }
  return 0;
}

/** `other`: an entry the model does not interpret (model_change, label, a custom role...), kept as it was. */
export type Role = 'user' | 'assistant' | 'tool' | 'other';

/** The model's view of one transcript message. */
export interface TranscriptMessage {
  role: Role;
  content: string;
  toolCalls?: { id: string; name: string; text: string }[];
  toolCallId?: string;
  /** OpenClaw's delivery mirror: an assistant copy of a delivered reply, marked provider openclaw, model delivery-mirror. */
  mirror?: { idempotencyKey: string };
}

/** The markers OpenClaw puts on a delivery mirror entry (`appendAssistantMessageToSessionTranscript`). */
export const deliveryMirrorProvider = 'openclaw';
export const deliveryMirrorModel = 'delivery-mirror';

interface TextBlock {
  type: 'text';
  text: string;
}

interface ToolCallBlock {
  type: 'toolCall';
  id: string;
  name: string;
  arguments: { text?: unknown };
}

export function toPiMessage(message: TranscriptMessage, simMs: number): Record<string, unknown> {
  assert(message.role !== 'other', 'the model writes only the roles it knows (user, assistant, tool)');
  assertNonNegativeInteger(simMs, 'a message timestamp');
  const timestamp = simEpochMs + simMs;
  if (message.role === 'user') return { role: 'user', content: message.content, timestamp };
  if (message.role === 'tool') {
    return { role: 'toolResult', toolCallId: message.toolCallId ?? '', toolName: '', content: [{ type: 'text', text: message.content }], isError: message.content !== 'sent', timestamp };
  }
  const content: (TextBlock | ToolCallBlock)[] = [];
  if (message.content.length > 0) content.push({ type: 'text', text: message.content });
  for (const call of message.toolCalls ?? []) content.push({ type: 'toolCall', id: call.id, name: call.name, arguments: { text: call.text } });
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  if (message.mirror !== undefined) {
    const { idempotencyKey } = message.mirror;
    return { role: 'assistant', content, api: 'openai-responses', provider: deliveryMirrorProvider, model: deliveryMirrorModel, usage, stopReason: 'stop', timestamp, idempotencyKey };
  }
  return {
    role: 'assistant',
    content,
    api: 'anthropic-messages',
    provider: 'anthropic',
    model: 'gatesim-fake',
    usage,
    stopReason: (message.toolCalls ?? []).length > 0 ? 'toolUse' : 'stop',
    timestamp,
  };
}

/** The text of a message's content: a string, or the text blocks joined. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((block): block is TextBlock => typeof block === 'object' && block !== null && (block as TextBlock).type === 'text' && typeof (block as TextBlock).text === 'string')
    .map((block) => block.text)
    .join('');
}

/** A pi AgentMessage back to the model's view; undefined for roles the model does not use. */
export function fromPiMessage(value: unknown): TranscriptMessage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (record.role === 'user') return { role: 'user', content: contentText(record.content) };
  if (record.role === 'toolResult' || record.role === 'tool') {
    return { role: 'tool', content: contentText(record.content), toolCallId: typeof record.toolCallId === 'string' ? record.toolCallId : '' };
  }
  if (record.role !== 'assistant') return undefined;
  const blocks = Array.isArray(record.content) ? record.content : [];
  const toolCalls = blocks
    .filter((block): block is ToolCallBlock => typeof block === 'object' && block !== null && (block as ToolCallBlock).type === 'toolCall')
    .map((block) => ({ id: String(block.id), name: String(block.name), text: typeof block.arguments?.text === 'string' ? block.arguments.text : '' }));
  const message: TranscriptMessage = { role: 'assistant', content: contentText(record.content) };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  if (isDeliveryMirror(record)) message.mirror = { idempotencyKey: typeof record.idempotencyKey === 'string' ? record.idempotencyKey : '' };
  return message;
}

/** OpenClaw's test for a delivery mirror (`isRedundantDeliveryMirror`): an assistant message with both markers. */
export function isDeliveryMirror(message: Record<string, unknown>): boolean {
  return message.role === 'assistant' && message.provider === deliveryMirrorProvider && message.model === deliveryMirrorModel;
}
