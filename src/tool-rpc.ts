// The runner's side of the tool protocol: a call goes to the tool server process and its result comes back as a
// message; a call whose result does not arrive in time counts as failed.
import type { ToolCallMessage, ToolResultMessage } from './tool-server.ts';

export interface ToolRpc {
  call(message: ToolCallMessage): Promise<boolean>;
}

export function isToolResult(payload: unknown): payload is ToolResultMessage {
  return typeof payload === 'object' && payload !== null && (payload as { type?: unknown }).type === 'tool.result';
}
