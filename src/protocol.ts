// Messages between the processes and the simulated platform, and the processes' names (network endpoints).

/** The chat platform endpoint (part of the world). */
export const platformName = 'platform';
/** The gateway process. */
export const gatewayName = 'gateway';
/** The agent runner process. */
export const runnerName = 'runner';
/** The tool server process. */
export const toolServerName = 'tool-server';
/** The node host process. */
export const nodeHostName = 'node-host';
/** The external service the tool server's `create_event` acts on (a calendar, part of the world). */
export const calendarServiceName = 'calendar';

/** The tool server asks the service to create an event; `key` is its idempotency key (the API's tool-call id). */
export interface EventCreateMessage {
  type: 'event.create';
  key: string;
  sessionKey: string;
  text: string;
}

/** The service's confirmation: the event with that key exists (created now, or by an earlier request). */
export interface EventCreatedMessage {
  type: 'event.created';
  key: string;
}

export interface InboundMessage {
  type: 'inbound';
  deliveryId: string;
  sessionKey: string;
  text: string;
  /** The platform's isMention: false for a group message that does not address the agent. */
  mention: boolean;
}

export interface InboundAck {
  type: 'inbound.ack';
  deliveryId: string;
}

export interface OutboundSend {
  type: 'send';
  /** Client idempotency key: the outbound row id, derived from the turn and the block. */
  key: string;
  sessionKey: string;
  text: string;
  kind: string;
  /**
   * Which send of the sender this is (delivery.ts, sends in parts): the platform's answer names it, as an HTTP response
   * belongs to its request, so an answer the network replays later is not taken for a later send's.
   */
  attempt?: number;
}

export interface SendAck {
  type: 'send.ack';
  key: string;
}

/**
 * A typed refusal of a send (issue 48 item 1), as real chat APIs answer: `rate-limit` (Telegram's 429 "Too Many
 * Requests: retry after N", Discord's 429, with `retry_after`), `not-found` (Telegram's 400 "chat not found": the bot
 * was removed from the chat; permanent), `not-ready` (the gateway's channel listener is not connected yet after a
 * restart: OpenClaw's "No active WhatsApp Web listener"; transient), `too-long` (Telegram's 400 "message is too long").
 * The platform took nothing: the user saw nothing of it.
 */
export const sendRefusalReasons = ['rate-limit', 'not-found', 'not-ready', 'too-long'] as const;
export type SendRefusalReason = (typeof sendRefusalReasons)[number];

export interface SendRefused {
  type: 'send.refused';
  key: string;
  reason: SendRefusalReason;
  /** For `rate-limit`: how long the platform asks the sender to wait (retry_after, whole seconds, in ms). */
  retryAfterMs: number;
  /** The refused send's `attempt`, when it had one. */
  attempt?: number;
}

export interface NodeEvent {
  type: 'node.event';
  event: 'exec.started' | 'exec.finished';
  nodeId: string;
  runId: string;
  sessionKey: string;
  /** The command line, as `exec.started` reports it. */
  command: string;
  exitCode: number;
  timedOut: boolean;
  output: string;
}

/**
 * The gateway asks the node host to run a command (OpenClaw's `node.invoke.request` of `system.run`, sent by the
 * gateway's NodeRegistry to the node's current connection when the agent's exec tool runs with host=node), with the
 * runId its exec events will carry. `connection` is the connection the gateway wrote it to: a frame written to one
 * WebSocket never arrives over another, so the node host runs an invoke only when it came over that connection.
 * `script` is the world's script of what running the command does (duration, exit code, output), not on the wire.
 */
export interface SystemRunInvoke {
  type: 'node.invoke';
  command: 'system.run';
  /** The invoke's request id (OpenClaw's `id`). */
  id: string;
  nodeId: string;
  runId: string;
  sessionKey: string;
  connection: number;
  script: { command: string; durationMs: number; exitCode: number; timedOut: boolean; output: string };
}

export type Message = InboundMessage | InboundAck | OutboundSend | SendAck | SendRefused | NodeEvent | SystemRunInvoke;

export function messageType(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const type = (payload as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
}

// Client connections (issue 24 item 1, chat-send.ts): OpenClaw's own clients over a WebSocket to the gateway. Every
// frame names the connection it was written to and its number among the frames its sender wrote there: a receiver
// acts on a frame only over that connection and only once (a WebSocket over TCP neither moves a frame to another
// connection nor delivers it twice; the kernel's connection resends unacknowledged messages, which this undoes).

/** The WebChat client's endpoint (part of the world, sim/world/client.ts). */
export const webchatName = 'webchat';
export interface ChatSendRequest {
  type: 'chat.send';
  sessionKey: string;
  message: string;
  idempotencyKey: string;
  /** The connection the client wrote it to. */
  connection: number;
  frame: number;
}

export type ChatSendStatus = 'started' | 'in_flight' | 'ok';

export interface ChatSendResponse {
  type: 'chat.send.res';
  /** OpenClaw's runId is the client's idempotency key. */
  runId: string;
  status: ChatSendStatus;
  connection: number;
  frame: number;
}

export interface ChatResumeRequest {
  type: 'chat.resume';
  sessions: { sessionKey: string; afterSeq: number }[];
  connection: number;
  frame: number;
}

export interface ChatResumed {
  type: 'chat.resumed';
  connection: number;
  frame: number;
}

/** A `chat` event of state final: one reply of the session's run, with the session's stream seq. */
export interface ChatFinalEvent {
  type: 'chat';
  state: 'final';
  sessionKey: string;
  seq: number;
  messageId: string;
  text: string;
  kind: string;
  connection: number;
  frame: number;
}

/** One endpoint's frame numbers over its WebSocket connections: the next to write on each, the last read on each. */
export class WebSocketFrames {
  private readonly written = new Map<number, number>();
  private readonly read = new Map<number, number>();

  /** The number of the next frame written to `connection`. */
  next(connection: number): number {
    const frame = (this.written.get(connection) ?? 0) + 1;
    this.written.set(connection, frame);
    return frame;
  }

  /** Whether a frame that arrived over `arrivedOver` is acted on: it was written to that connection and not read yet. */
  accept(frame: { connection: number; frame: number }, arrivedOver: number | undefined): boolean {
    if (arrivedOver !== frame.connection) return false;
    const last = this.read.get(frame.connection) ?? 0;
    if (frame.frame <= last) return false;
    this.read.set(frame.connection, frame.frame);
    return true;
  }
}

/**
 * The opening line of a compaction's summary request (src/compaction.ts): the LLM API (the world) tells a summary
 * request from a turn's by it, as a real API is told what to do by its prompt.
 */
export const compactionInstruction = 'Summarise the conversation below for a handoff: what was asked, what was answered, what is still open.';

export function isCompactionPrompt(prompt: string): boolean {
  return prompt.startsWith(compactionInstruction);
}
