// 2026.4.24's own handleNodeEvent (src/gateway/server-node-events.ts) in place of the model's node-event ingestion
// (`--openclaw 2026.4.24`, part node-events): its whole import closure and npm packages load under the hooks with no
// escape; through the adapter, a repeated exec.finished is dropped within one gateway incarnation (its in-memory 600 s
// window) and taken again by the next one, a repeated exec.started is taken again once the queue was drained; the
// delivery of a dropped event is acknowledged at once, the one of a taken event when its prompt is durable; and a run
// gives the same trace hash twice in one process and in fresh processes. Slow: each instance loads about 350 chunks
// and 150 package files (about 1 s). Without the openclaw/ workspace the suite skips, naming `npm ci --prefix openclaw`.
import { describe, expect, it } from 'vitest';
import type { Delivery, ProcessContext } from '../../src/ports.ts';
import type { NodeEvent } from '../../src/protocol.ts';
import type { HeartbeatWakesPort, SystemEventQueuePort } from '../../src/index.ts';
import { findScenario } from '../../scenarios/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { openclawGatewayPartsFor } from '../../sim/real/openclaw/gateway-parts.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runThenRepro, runTwice } from './openclaw-runs.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('node-events tests', ['2026.4.24']);

const session = 'agent:main:chat:0';

function execEvent(event: NodeEvent['event'], runId: string): NodeEvent {
  return { type: 'node.event', event, nodeId: 'node-1', runId, sessionKey: session, command: 'ls -la', exitCode: 2, timedOut: false, output: 'no such file' };
}

interface Step {
  incarnation: number;
  event: string;
  queued: string[];
  acked: boolean;
}

/** Hand events to the adapted handleNodeEvent in a simulated gateway, killed and restarted between two rounds. */
async function throughTheAdapter(): Promise<{ steps: Step[]; escapes: string[] }> {
  const sim = new Simulation({ seed: 'openclaw-node-events', sql: await loadSqlJs() });
  const parts = openclawGatewayPartsFor(sim, { release: '2026.4.24', parts: ['system-events', 'heartbeat-wake', 'node-events'] });
  const steps: Step[] = [];
  sim.spawn('gateway', async (ctx: ProcessContext) => {
    const events = parts.systemEvents?.(ctx, false) as SystemEventQueuePort;
    const wakes = parts.heartbeatWakes?.(ctx, { coalesceMs: 250, retryMs: 1_000 }, () => Promise.resolve('skipped-busy')) as HeartbeatWakesPort;
    const ingestion = parts.nodeEvents?.(ctx, { events, wakes, sessions: [session] });
    if (ingestion === undefined) throw new Error('node-events was chosen');
    const hand = async (payload: NodeEvent) => {
      let acked = false;
      const delivery: Delivery<NodeEvent> = { from: 'node-host', payload, ack: () => (acked = true) };
      await ingestion.onNodeEvent(delivery);
      steps.push({ incarnation: ctx.incarnation, event: `${payload.event} ${payload.runId}`, queued: events.peek(session).map((event) => event.text.split('\n')[0] ?? ''), acked });
    };
    await hand(execEvent('exec.finished', 'run-1'));
    await hand(execEvent('exec.finished', 'run-1'));
    if (ctx.incarnation === 1) {
      await hand(execEvent('exec.started', 'run-2'));
      // The heartbeat drains the queue (a prompt was written): what was drained is durable and acknowledged.
      for (const event of events.drainSystemEvents(session)) for (const ack of event.onDurable) ack();
      await hand(execEvent('exec.started', 'run-2'));
    }
    await ctx.timers.sleep(60_000);
  });
  sim.at(10_000, () => {
    sim.kill('gateway');
    sim.restart('gateway', 1_000);
  });
  await sim.run();
  sim.dispose();
  return { steps, escapes: parts.escapes };
}

describe.skipIf(missing)("2026.4.24's handleNodeEvent in place of the model's node-event ingestion", () => {
  it('drops a repeated exec.finished within an incarnation, takes it again after a restart, takes a repeated exec.started after a drain', async () => {
    const { steps, escapes } = await throughTheAdapter();
    expect(escapes).toEqual([]);
    const finished = 'Exec finished (node=node-1 id=run-1, code 2)';
    const started = 'Exec started (node=node-1 id=run-2): ls -la';
    expect(steps).toEqual([
      { incarnation: 1, event: 'exec.finished run-1', queued: [finished], acked: false },
      { incarnation: 1, event: 'exec.finished run-1', queued: [finished], acked: true },
      { incarnation: 1, event: 'exec.started run-2', queued: [finished, started], acked: false },
      { incarnation: 1, event: 'exec.started run-2', queued: [started], acked: false },
      { incarnation: 2, event: 'exec.finished run-1', queued: [finished], acked: false },
      { incarnation: 2, event: 'exec.finished run-1', queued: [finished], acked: true },
    ]);
  }, 120_000);

  it('a run gives the same trace hash twice in one process, and the seed string replays it in fresh processes', async () => {
    const scenario = findScenario('exec-replay');
    if (scenario === undefined) throw new Error('exec-replay is built in');
    const parts = ['system-events', 'heartbeat-wake', 'node-events'] as const;
    const inProcess = await runTwice(generateSpec(scenario, [], 1, undefined), '2026.4.24', parts, 'exec-replay seed 1');
    expect(runThenRepro('2026.4.24', 1, parts, 'se+hw+ne', { scenario: 'exec-replay', timeoutMs: 120_000, verdict: 'any' })).toBe(inProcess);
  }, 300_000);
});
