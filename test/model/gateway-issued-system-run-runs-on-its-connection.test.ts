// With GatewayParts.systemRunInvokes (OpenClaw 2026.7.1's node-events), the world's command is the agent's exec tool
// asking the running gateway, which sends the node host a system.run invoke over the node's current connection: the
// node host runs an invoke that came over the connection it was written to, once per request id; one written to a
// connection that has since died runs nothing (a frame never arrives over another socket); with the gateway down the
// tool call fails and nothing runs. The node host's exec events name the connection they came over.
import { describe, expect, it } from 'vitest';
import type { ProcessContext } from '../../src/ports.ts';
import { ExecTool, NodeHost } from '../../src/node-host.ts';
import type { NodeEvent, SystemRunInvoke } from '../../src/protocol.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';

const sql = await loadSqlJs();

function command(runId: string) {
  return { runId, sessionKey: 'agent:main:chat:0', command: `echo ${runId}`, durationMs: 1_000, exitCode: 1, timedOut: false, output: 'ok' };
}

describe('system.run issued by the gateway', () => {
  it('runs an invoke over the connection it was written to, once; not one written to a dead connection; not with the gateway down', async () => {
    const sim = new Simulation({ seed: 'gateway-issued-system-run', sql, simTimeMsMax: 100_000 });
    sim.network.configure('node-host', 'gateway', { reconnecting: true });
    sim.network.configure('gateway', 'node-host', { reconnecting: true });
    const execTool = new ExecTool('gateway');
    const nodeHost = new NodeHost('node-1', 'gateway', execTool);
    const events: string[] = [];
    let gatewayCtx: ProcessContext | undefined;
    const invoke = (ctx: ProcessContext, runId: string, connection: number, id = `i-${runId}`) => {
      const { sessionKey, ...script } = command(runId);
      ctx.net.send('node-host', { type: 'node.invoke', command: 'system.run', id, nodeId: 'node-1', runId, sessionKey, connection, script } satisfies SystemRunInvoke);
    };
    sim.spawn('gateway', async (ctx) => {
      gatewayCtx = ctx;
      execTool.attach(ctx, (_nodeId, asked) => invoke(ctx, asked.runId, ctx.net.connection?.('node-host') ?? -1));
      for (;;) {
        const delivery = await ctx.net.receive();
        delivery.ack();
        const event = delivery.payload as NodeEvent;
        events.push(`${event.event} ${event.runId} @${delivery.connection ?? -1}`);
      }
    });
    sim.spawn('node-host', (ctx) => nodeHost.main(ctx));
    sim.at(1_000, () => nodeHost.run(command('run-0')));
    // The same invoke frame twice: the command runs once.
    sim.at(5_000, () => {
      if (gatewayCtx !== undefined) {
        invoke(gatewayCtx, 'run-1', 0);
        invoke(gatewayCtx, 'run-1', 0);
      }
    });
    sim.at(10_000, () => sim.network.reset('gateway', 'node-host'));
    // Written to connection 0, which died at 10 s: arrives over connection 1 and runs nothing.
    sim.at(15_000, () => {
      if (gatewayCtx !== undefined) invoke(gatewayCtx, 'run-2', 0);
    });
    sim.at(20_000, () => nodeHost.run(command('run-3')));
    sim.at(30_000, () => sim.kill('gateway'));
    sim.at(31_000, () => nodeHost.run(command('run-4')));
    await sim.run();
    const invokes = sim.trace.events.filter((event) => event.kind === 'model.node-invoke').map((event) => event.fields);
    const asked = sim.trace.events.filter((event) => event.kind === 'model.exec-tool').map((event) => [event.fields.run, event.fields.asked]);
    sim.dispose();
    expect(events).toEqual([
      'exec.started run-0 @0',
      'exec.finished run-0 @0',
      'exec.started run-1 @0',
      'exec.finished run-1 @0',
      'exec.started run-3 @1',
      'exec.finished run-3 @1',
    ]);
    expect(invokes.map((fields) => [fields.run, fields.connection, fields.ran])).toEqual([
      ['run-0', 0, true],
      ['run-1', 0, true],
      ['run-1', 0, false],
      ['run-2', 1, false],
      ['run-3', 1, true],
    ]);
    expect(asked).toEqual([
      ['run-0', true],
      ['run-3', true],
      ['run-4', false],
    ]);
  });
});
