// 2026.7.1's own handleNodeEvent (src/gateway/server-node-events.ts) in place of the model's node-event ingestion
// (`--openclaw 2026.7.1`, part node-events), with the release's own NodeRegistry (src/gateway/node-registry.ts) as the
// gateway's: an exec event is taken only when the gateway sent the node a system.run invoke with its runId over the
// connection the event came over. Through the adapter: an event of a run the gateway never invoked is refused
// (`unmatched_exec_event`) and acknowledged at once; a start is taken, and taken again after a drain while its run is
// still authorized (a replayed exec.started on one connection); a finish is taken once and its replay refused (the
// terminal event consumed the authorization); an invoke written to one connection authorizes nothing on the next (the
// old connection was unregistered). The model's network gives each connection a new number. A run gives the same trace
// hash twice in one process and in fresh processes. Slow: each gateway instance loads the release's closure. Without
// the openclaw/ workspace the suite skips, naming `npm ci --prefix openclaw`.
import { describe, expect, it } from 'vitest';
import type { Delivery, ProcessContext } from '../../src/ports.ts';
import type { NodeEvent } from '../../src/protocol.ts';
import type { HeartbeatWakesPort, SystemEventQueuePort } from '../../src/index.ts';
import { isSystemRunAuthorizing } from '../../src/node-host.ts';
import { findScenario } from '../../scenarios/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { openclawGatewayPartsFor } from '../../sim/real/openclaw/gateway-parts.ts';
import { parseOpenclawChoice } from '../../sim/real/openclaw/choice.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runThenRepro, runTwice } from './openclaw-runs.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('2026.7.1 node-events tests', ['2026.7.1']);

const session = 'agent:main:chat:0';
const parts = ['system-events', 'heartbeat-wake', 'node-events'] as const;

function execEvent(event: NodeEvent['event'], runId: string): NodeEvent {
  return { type: 'node.event', event, nodeId: 'node-1', runId, sessionKey: session, command: 'ls -la', exitCode: 2, timedOut: false, output: 'no such file' };
}

interface Step {
  event: string;
  queued: string[];
  acked: boolean;
}

/** Invoke and hand events to the adapted handleNodeEvent in one simulated gateway; the node's connection resets at 10 s. */
async function throughTheAdapter(): Promise<{ steps: Step[]; invokes: { run: string; connection: number }[]; systemRunInvokes: boolean; escapes: string[] }> {
  const sim = new Simulation({ seed: 'openclaw-node-events-2026.7.1', sql: await loadSqlJs() });
  const gatewayParts = openclawGatewayPartsFor(sim, { release: '2026.7.1', parts: [...parts] });
  const steps: Step[] = [];
  const invokes: { run: string; connection: number }[] = [];
  sim.spawn('node-host', async (ctx: ProcessContext) => {
    await ctx.timers.sleep(120_000);
  });
  sim.spawn('gateway', async (ctx: ProcessContext) => {
    const events = gatewayParts.systemEvents?.(ctx, false) as SystemEventQueuePort;
    const wakes = gatewayParts.heartbeatWakes?.(ctx, { coalesceMs: 250, retryMs: 1_000 }, () => Promise.resolve('skipped-busy')) as HeartbeatWakesPort;
    const ingestion = gatewayParts.nodeEvents?.(ctx, { events, wakes, sessions: [session] });
    if (!isSystemRunAuthorizing(ingestion)) throw new Error('2026.7.1 node-events authorizes against system.run invokes');
    const invoke = (runId: string) => {
      const command = { runId, sessionKey: session, command: 'ls -la', durationMs: 1_000, exitCode: 2, timedOut: false, output: 'no such file' };
      ingestion.invokeSystemRun('node-1', command, (_id, connection) => invokes.push({ run: runId, connection }));
    };
    const hand = async (payload: NodeEvent) => {
      let acked = false;
      const connection = ctx.net.connection?.('node-host') ?? -1;
      const delivery: Delivery<NodeEvent> = { from: 'node-host', payload, connection, ack: () => (acked = true) };
      await ingestion.onNodeEvent(delivery);
      steps.push({ event: `${payload.event} ${payload.runId} @${connection}`, queued: events.peek(session).map((event) => event.text.split('\n')[0] ?? ''), acked });
    };
    const drain = () => {
      for (const event of events.drainSystemEvents(session)) for (const ack of event.onDurable) ack();
    };
    await hand(execEvent('exec.started', 'run-0'));
    invoke('run-1');
    await hand(execEvent('exec.started', 'run-1'));
    drain();
    await hand(execEvent('exec.started', 'run-1'));
    drain();
    await hand(execEvent('exec.finished', 'run-1'));
    drain();
    await hand(execEvent('exec.finished', 'run-1'));
    await hand(execEvent('exec.started', 'run-1'));
    invoke('run-2');
    await hand(execEvent('exec.started', 'run-2'));
    drain();
    await ctx.timers.sleep(20_000);
    // The connection was reset: run-2's finish comes over the new one, run-3 is invoked on it.
    await hand(execEvent('exec.finished', 'run-2'));
    invoke('run-3');
    await hand(execEvent('exec.finished', 'run-3'));
    await ctx.timers.sleep(60_000);
  });
  sim.at(10_000, () => sim.network.reset('gateway', 'node-host'));
  await sim.run();
  sim.dispose();
  return { steps, invokes, systemRunInvokes: gatewayParts.systemRunInvokes === true, escapes: gatewayParts.escapes };
}

describe.skipIf(missing)("2026.7.1's handleNodeEvent and NodeRegistry in place of the model's node-event ingestion", () => {
  it('is offered on the command line: --openclaw 2026.7.1 runs node-events, and the gateway issues system.run', () => {
    expect(parseOpenclawChoice('2026.7.1').parts).toContain('node-events');
    expect(parseOpenclawChoice('2026.7.1:system-events,heartbeat-wake,node-events').parts).toEqual([...parts]);
  });

  it('takes an exec event only after a system.run invoke of its run over its connection; a terminal event consumes it', async () => {
    const { steps, invokes, systemRunInvokes, escapes } = await throughTheAdapter();
    expect(escapes).toEqual([]);
    expect(systemRunInvokes).toBe(true);
    expect(invokes).toEqual([
      { run: 'run-1', connection: 0 },
      { run: 'run-2', connection: 0 },
      { run: 'run-3', connection: 1 },
    ]);
    const started = (run: string) => `Exec started (node=node-1 id=${run}): ls -la`;
    const finished = (run: string) => `Exec finished (node=node-1 id=${run}, code 2)`;
    expect(steps).toEqual([
      // Never invoked: refused, acknowledged at once.
      { event: 'exec.started run-0 @0', queued: [], acked: true },
      { event: 'exec.started run-1 @0', queued: [started('run-1')], acked: false },
      // A replayed start after a drain, its run still authorized on this connection: taken again.
      { event: 'exec.started run-1 @0', queued: [started('run-1')], acked: false },
      { event: 'exec.finished run-1 @0', queued: [finished('run-1')], acked: false },
      // The finish consumed the authorization: its replay, and a later start, are refused.
      { event: 'exec.finished run-1 @0', queued: [], acked: true },
      { event: 'exec.started run-1 @0', queued: [], acked: true },
      { event: 'exec.started run-2 @0', queued: [started('run-2')], acked: false },
      // After the reset: connection 0 was unregistered with its authorizations, so run-2's finish is refused.
      { event: 'exec.finished run-2 @1', queued: [], acked: true },
      { event: 'exec.finished run-3 @1', queued: [finished('run-3')], acked: false },
    ]);
  }, 400_000);

  it('a run gives the same trace hash twice in one process, and the seed string replays it in fresh processes', async () => {
    const scenario = findScenario('exec-replay');
    if (scenario === undefined) throw new Error('exec-replay is built in');
    // Each run: the gateway issued the system.run invokes and the node host ran them.
    const inProcess = await runTwice(generateSpec(scenario, [], 1, undefined), '2026.7.1', parts, 'exec-replay seed 1', (result) =>
      expect(result.sim.trace.events.some((event) => event.kind === 'model.node-invoke')).toBe(true),
    );
    expect(runThenRepro('2026.7.1', 1, parts, 'se+hw+ne', { scenario: 'exec-replay', timeoutMs: 400_000, verdict: 'any' })).toBe(inProcess);
  }, 900_000);
});
