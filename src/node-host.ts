// The node host: runs commands for an agent and reports `exec.started` (with the command line) when a command starts
// and `exec.finished` (exit code, timeout, output) when it ends, both with the full runId and sessionKey, over a
// reconnecting connection to the gateway, which resends every event the gateway has not acknowledged after a
// reconnect. A SIGKILL loses the commands it was running and its resend buffer.
//
// Who asks it to run a command. By default the world does (a workload event hands it the command). When the gateway's
// node-event ingestion authorizes exec events against the gateway's own invokes (OpenClaw 2026.7.1's handleNodeEvent,
// `GatewayParts.systemRunInvokes`), the world's command is the agent's exec tool with host=node asking the gateway
// (ExecTool): the gateway sends the node host a `system.run` invoke with the runId over the node's current
// connection, and the node host runs the command when that invoke arrives over that connection. A gateway that is
// down runs no tool, so the command never runs.
import { assertNonNegativeInteger } from './assert.ts';
import type { ProcessContext } from './ports.ts';
import { gatewayName as defaultGatewayName, messageType, type NodeEvent, type SystemRunInvoke } from './protocol.ts';

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

/** Node-event ingestion that remembers the gateway's system.run invokes to authorize exec events against them. */
export interface SystemRunAuthorizing {
  /**
   * The gateway sends the node `command` (OpenClaw's NodeRegistry.invoke): the ingestion writes the invoke through
   * `send` (its request id, and the connection it writes to) and remembers what it authorizes.
   */
  invokeSystemRun(nodeId: string, command: ExecCommand, send: (id: string, connection: number) => void): void;
}

/** Whether a node-event ingestion authorizes exec events against the gateway's invokes. */
export function isSystemRunAuthorizing(ingestion: unknown): ingestion is SystemRunAuthorizing {
  return typeof ingestion === 'object' && ingestion !== null && typeof (ingestion as Partial<SystemRunAuthorizing>).invokeSystemRun === 'function';
}

/**
 * The agent's exec tool with host=node, as the world reaches it when the gateway issues system.run: it asks the running
 * gateway incarnation to invoke the command on the node. Each gateway incarnation attaches itself when it starts.
 */
export class ExecTool {
  private gateway: { ctx: ProcessContext; invoke: (nodeId: string, command: ExecCommand) => void } | undefined;

  constructor(private readonly gatewayName: string = defaultGatewayName) {}

  /** A gateway incarnation offers its invoke (the last one to start is the running one while it runs). */
  attach(ctx: ProcessContext, invoke: (nodeId: string, command: ExecCommand) => void): void {
    this.gateway = { ctx, invoke };
  }

  /** Ask the gateway to run `command` on node `nodeId`; false when no gateway runs (the tool call fails). */
  request(nodeId: string, command: ExecCommand): boolean {
    const gateway = this.gateway;
    if (gateway === undefined || !gateway.ctx.supervisor.isRunning(this.gatewayName)) return false;
    gateway.invoke(nodeId, command);
    return true;
  }
}

export class NodeHost {
  private ctx: ProcessContext | undefined;
  /** The invokes this incarnation ran, by request id: the gateway sends an invoke once, so a repeated frame runs nothing. */
  private invoked = new Set<string>();

  constructor(
    readonly nodeId: string,
    private readonly gatewayName: string,
    /** Set when the gateway issues system.run (GatewayParts.systemRunInvokes): the world's commands go through it. */
    private readonly execTool?: ExecTool,
  ) {}

  async main(ctx: ProcessContext): Promise<void> {
    this.ctx = ctx;
    this.invoked = new Set();
    ctx.note('node-ready', { node: this.nodeId });
    if (this.execTool !== undefined) ctx.spawnTask('invokes', () => this.invokeLoop(ctx));
  }

  /** The world asks for a command now (a workload event): run it, or ask the gateway to invoke it. */
  run(command: ExecCommand): void {
    if (this.execTool === undefined) {
      this.start(command);
      return;
    }
    const asked = this.execTool.request(this.nodeId, command);
    this.ctx?.note('exec-tool', { run: command.runId, session: command.sessionKey, asked });
  }

  /** The gateway's system.run invokes: acknowledged on arrival, run when they came over the connection they were written to. */
  private async invokeLoop(ctx: ProcessContext): Promise<void> {
    for (;;) {
      const delivery = await ctx.net.receive();
      delivery.ack();
      if (messageType(delivery.payload) !== 'node.invoke') continue;
      const invoke = delivery.payload as SystemRunInvoke;
      const sameConnection = delivery.connection === invoke.connection;
      const fresh = !this.invoked.has(invoke.id);
      ctx.note('node-invoke', { run: invoke.runId, id: invoke.id, connection: delivery.connection ?? -1, ran: sameConnection && fresh });
      if (!sameConnection || !fresh) continue;
      this.invoked.add(invoke.id);
      this.start({ runId: invoke.runId, sessionKey: invoke.sessionKey, ...invoke.script });
    }
  }

  /** Start a command now; lost if the node host is down. */
  private start(command: ExecCommand): void {
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
