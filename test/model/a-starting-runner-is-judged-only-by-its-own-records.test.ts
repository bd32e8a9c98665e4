// Start-up time (issue 24 item 6): a restarted process takes a start-up delay (container start, module load) before its
// main runs, drawn per restart from the run's PRNG, with a fault that makes it long. The host sees it running from its
// spawn on, as nanoclaw's host holds a container in `activeContainers` from `docker run` on, so the sweep judges a
// runner that has not yet cleared its predecessor's claims (the runner does that at its start, clearStaleProcessingAcks).
// The fixed sweep judges only claims and a heartbeat from after the running runner started; the sabotage is nanoclaw's
// own rule (every claim in outbound.db, the heartbeat whatever wrote it): with a long start-up, the sweep kills the
// starting runner for a claim its dead predecessor left, and `supervision` (the kernel's kills and starts) catches it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ProcessContext } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import type { Plan } from '../../sim/run/plan.ts';
import { delayRequestsFor, handPlan, invariants, user, visible, withRun } from './support.ts';

const sql = await loadSqlJs();

afterEach(() => vi.restoreAllMocks());

/**
 * m0 arrives at 50 s and its LLM request hangs for 200 s; the runner is killed at 100 s, holding m0's claim, and starts
 * again 1 s later with a slow start-up (every restart during the faults is slow: 150 s). The sweep runs every minute.
 */
const plan: Plan = {
  ...handPlan([user(50_000, 'can you check calendar?')], [{ kind: 'kill', atMs: 100_000, process: 'runner', restartAfterMs: 1_000 }]),
  faultPhaseMs: 600_000,
  startup: { msMin: 500, msMax: 3_000, slowPer1000: 1000, slowMsMin: 150_000, slowMsMax: 150_000 },
};

const kernelEvents = (result: Parameters<typeof invariants>[0], kind: string) => result.sim.trace.events.filter((event) => event.kind === kind);
const supervisorKills = (result: Parameters<typeof invariants>[0]) => result.sim.trace.events.filter((event) => event.kind === 'fault' && event.fields.kind === 'supervisor-kill');
const total = (row: Record<string, number>): number => Object.values(row).reduce((sum, count) => sum + count, 0);

describe('a restarted runner during its start-up', () => {
  it('is seen running before its start-up is over, left alone by the sweep, and answers once ready', async () => {
    await withRun(sql, { bugs: [], plan, prepare: delayRequestsFor(0, 200_000, true) }, (result) => {
      const restart = kernelEvents(result, 'proc.restart').find((event) => event.fields.name === 'runner');
      expect(restart?.timeMs).toBe(101_000);
      expect(restart?.fields.startupMs).toBe(150_000);
      const ready = kernelEvents(result, 'proc.ready').find((event) => event.fields.incarnation === restart?.fields.incarnation);
      expect(ready?.timeMs).toBe(251_000);
      // Sweeps at 120 s, 180 s and 240 s saw it running with the dead runner's claim of m0, 70 s old and more.
      expect(supervisorKills(result)).toEqual([]);
      // Once ready, it cleared that claim (nanoclaw clearStaleProcessingAcks) and ran m0's turn again.
      const cleared = result.sim.trace.events.find((event) => event.kind === 'model.claims-cleared' && event.fields.reason === 'runner-start');
      expect(cleared?.timeMs).toBeGreaterThanOrEqual(251_000);
      expect(visible(result).length).toBeGreaterThan(0);
      expect(visible(result).every((message) => message.atMs > 251_000)).toBe(true);
      expect(total(result.coverage['startup-slow'])).toBe(1);
      expect(total(result.coverage['startup-wait'])).toBe(1);
      expect(result.violations).toEqual([]);
    });
  });

  it("a sweep that judges the starting runner by its predecessor's claim kills it before it ran: supervision fires", async () => {
    // The sabotage: the host does not know (or does not use) when the running runner started, as nanoclaw's sweep.
    const context = (Simulation.prototype as unknown as { context: (incarnation: unknown) => ProcessContext }).context;
    vi.spyOn(Simulation.prototype as unknown as { context: (incarnation: unknown) => ProcessContext }, 'context').mockImplementation(function (this: Simulation, incarnation: unknown) {
      const ctx = context.call(this, incarnation);
      const supervisor = { ...ctx.supervisor };
      delete supervisor.startedAtMs;
      return { ...ctx, supervisor };
    });
    await withRun(sql, { bugs: [], plan, prepare: delayRequestsFor(0, 200_000, true) }, (result) => {
      // Killed at the 120 s sweep, 19 s after its start and 131 s before its start-up would have ended.
      const killedAtMs = supervisorKills(result)[0]?.timeMs ?? 0;
      expect(killedAtMs).toBeGreaterThanOrEqual(120_000);
      expect(killedAtMs).toBeLessThan(121_000);
      expect(invariants(result)).toContain('supervision');
    });
  });

  it('without the knob a restart runs at once and its trace event carries no start-up', async () => {
    const plain = { ...plan };
    delete plain.startup;
    await withRun(sql, { bugs: [], plan: plain, prepare: delayRequestsFor(0, 200_000, true) }, (result) => {
      const restart = kernelEvents(result, 'proc.restart').find((event) => event.fields.name === 'runner');
      expect(restart?.fields).toEqual({ name: 'runner', incarnation: restart?.fields.incarnation });
      expect(kernelEvents(result, 'proc.ready')).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });
});
