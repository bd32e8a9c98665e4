// The runner's side of the tool protocol: a call goes to the tool server process and its result comes back as a
// message; a call whose result does not arrive in time counts as failed.
import type { ToolCallMessage, ToolOutcome, ToolResultMessage } from './tool-server.ts';

export type { ToolOutcome } from './tool-server.ts';

export interface ToolRpc {
  /** The call's outcome; `failed` also when no answer came in time. */
  call(message: ToolCallMessage): Promise<ToolOutcome>;
}

/** The outcome a tool server's answer reports. */
export function toolOutcome(result: ToolResultMessage): ToolOutcome {
  return result.ok ? 'done' : result.fenced === true ? 'fenced' : 'failed';
}

export function isToolResult(payload: unknown): payload is ToolResultMessage {
  return typeof payload === 'object' && payload !== null && (payload as { type?: unknown }).type === 'tool.result';
}
