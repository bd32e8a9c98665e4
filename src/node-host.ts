// The node host: runs commands for an agent and reports `exec.started` (with the command line) when a command starts
// and `exec.finished` (exit code, timeout, output) when it ends, both with the full runId and sessionKey, over a
// reconnecting connection to the gateway, which resends every event the gateway has not acknowledged after a
// reconnect. A SIGKILL loses the commands it was running and its resend buffer.
import { assertNonNegativeInteger } from './assert.ts';
import type { ProcessContext } from './ports.ts';
import type { NodeEvent } from './protocol.ts';

export interface ExecCommand {
  runId: string;
  sessionKey: string;
  /** The command line (`exec.started` names it). */
  command: string;
  durationMs: number;
  exitCode: number;
  timedOut: boolean;
  output: string;
}

export class NodeHost {
  private ctx: ProcessContext | undefined;

  constructor(
    readonly nodeId: string,
    private readonly gatewayName: string,
  ) {}

  async main(ctx: ProcessContext): Promise<void> {
    this.ctx = ctx;
    ctx.note('node-ready', { node: this.nodeId });
  }

  /** Start a command now (called from a workload event); lost if the node host is down. */
  run(command: ExecCommand): void {
    const ctx = this.ctx;
    if (ctx === undefined) return;
    const event = (kind: NodeEvent['event']): NodeEvent => ({
      type: 'node.event',
      event: kind,
      nodeId: this.nodeId,
      runId: command.runId,
      sessionKey: command.sessionKey,
      command: command.command,
      exitCode: command.exitCode,
      timedOut: command.timedOut,
      output: command.output,
    });
    assertNonNegativeInteger(command.durationMs, `the duration of ${command.runId}`);
    ctx.note('exec-run', { run: command.runId, session: command.sessionKey });
    ctx.net.send(this.gatewayName, event('exec.started'));
    ctx.timers.setTimer(command.durationMs, () => ctx.net.send(this.gatewayName, event('exec.finished')));
  }
}
