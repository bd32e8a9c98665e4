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
}

export interface SendAck {
  type: 'send.ack';
  key: string;
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

export type Message = InboundMessage | InboundAck | OutboundSend | SendAck | NodeEvent | SystemRunInvoke;

export function messageType(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const type = (payload as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
}
