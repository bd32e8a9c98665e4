// Gateway-side heartbeat runs (issue 24 item 5, src/heartbeat-run.ts). The gateway asks the LLM itself for a heartbeat,
// with the run's timeout and its fallback models, and the runner persists and delivers that answer. The fixed gateway
// writes the prompt row first, held from the runner, so an exec completion that reached a prompt survives a failed run
// and a gateway kill; OpenClaw 2026.4.24 (`openclaw`) keeps the events in memory until the answer came and does not
// retry a failed run, and the sabotage `gateway-no-retry` holds the row of a failed run for ever: both leave an exec
// completion unanswered, and every-inbound-answered says so.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { runSpec } from '../../sim/run/harness.ts';
import type { Plan, RunSpec, WorkloadStep } from '../../sim/run/plan.ts';
import type { World } from '../../sim/world/index.ts';
import type { HeartbeatRunMode } from '../../src/index.ts';
import { LlmAbortedError } from '../../src/ports.ts';
import { handPlan, invariants, llmAnswers, notes, reply, visible, withRun } from './support.ts';
import type { LlmRequest } from '../../src/index.ts';
import type { ScriptedAnswer } from '../../sim/world/index.ts';

const sql = await loadSqlJs();

const exec = (atMs: number, output: string): WorkloadStep => ({ kind: 'exec', atMs, session: 0, durationMs: 200, exitCode: 1, output });

function execPlan(mode: HeartbeatRunMode, faults: Plan['faults'] = []): Plan {
  return { ...handPlan([exec(1_000, 'error: file not found')], faults), heartbeatRun: { mode, timeoutMs: 10_000, fallbacks: 1, retryMs: 20_000 } };
}

/** A `prepare` hook: the first heartbeat request hangs until its caller gives it up (a response slower than any timeout). */
function firstHeartbeatHangs(_sim: Simulation, _model: unknown, world: World): void {
  const api = world.modelApi;
  const complete = api.complete.bind(api);
  let hung = false;
  api.complete = (request, timers, abort) => {
    if (hung || !request.prompt.includes('Exec finished')) return complete(request, timers, abort);
    hung = true;
    return new Promise((_resolve, reject) => {
      abort?.onAbort(() => reject(new LlmAbortedError('given up')));
    });
  };
}

/** A `prepare` hook: kill the gateway (restarted after 2 s) 5 ms after its first heartbeat run asked the LLM. */
function killGatewayDuringTheRun(sim: Simulation): void {
  let done = false;
  sim.trace.onEvent((event) => {
    if (event.kind !== 'model.heartbeat-run' || done) return;
    done = true;
    sim.scheduler.schedule(5, () => {
      if (sim.kill('gateway')) sim.restart('gateway', 2_000);
    });
  });
}

function frozenOutagePlan(mode: HeartbeatRunMode): RunSpec {
  const file = fileURLToPath(new URL('../fixtures/plans/heartbeat-run-outage.json', import.meta.url));
  const spec = (JSON.parse(readFileSync(file, 'utf8')) as { spec: RunSpec }).spec;
  const run = spec.plan.heartbeatRun;
  if (run === undefined) throw new Error('the frozen heartbeat-runs plan has no heartbeatRun');
  return { ...spec, plan: { ...spec.plan, heartbeatRun: { ...run, mode } } };
}

describe('the heartbeat as the gateway’s own run', () => {
  it('asks the LLM from the gateway and has the runner deliver that answer, without asking again', async () => {
    await withRun(sql, { bugs: [], plan: execPlan('gateway') }, (result) => {
      expect(notes(result, 'heartbeat-run')).toHaveLength(1);
      expect(notes(result, 'heartbeat-run-released')).toHaveLength(1);
      expect(notes(result, 'heartbeat-answer-used')).toHaveLength(1);
      // One request for the exec completion in all: the runner used the gateway's answer.
      expect(notes(result, 'model-call')).toHaveLength(0);
      expect(llmAnswers(result)).toHaveLength(1);
      expect(visible(result).length).toBeGreaterThan(0);
      expect(result.violations).toEqual([]);
    });
  });

  it('gives a request up at the run’s timeout and asks the fallback model, whose answer is the one shown', async () => {
    await withRun(sql, { bugs: [], plan: execPlan('gateway'), prepare: firstHeartbeatHangs }, (result) => {
      const failovers = notes(result, 'heartbeat-run-failover');
      expect(failovers.map((note) => note.fields.reason)).toEqual(['timeout']);
      expect(notes(result, 'heartbeat-run').map((note) => note.fields.candidate)).toEqual([0, 1]);
      expect(failovers[0]?.timeMs).toBe((notes(result, 'heartbeat-run')[0]?.timeMs ?? 0) + 10_000);
      expect(result.coverage['heartbeat-run-timeout']['model-call']).toBe(1);
      expect(result.coverage['heartbeat-run-failover']['model-call']).toBe(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('keeps the held row of a gateway killed during its run, and runs it again after the restart', async () => {
    await withRun(sql, { bugs: [], plan: execPlan('gateway'), prepare: killGatewayDuringTheRun }, (result) => {
      expect(notes(result, 'heartbeat-run')).toHaveLength(2);
      expect(notes(result, 'heartbeat-run-released')).toHaveLength(1);
      expect(result.coverage['heartbeat-run-kill']['model-call']).toBe(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('retries a run that failed with every model (an LLM outage) and answers the exec completion after it', async () => {
    const spec = frozenOutagePlan('gateway');
    const result = await runSpec(spec, { sql });
    try {
      expect(notes(result, 'heartbeat-run-failed').length).toBeGreaterThan(0);
      expect(notes(result, 'heartbeat-run-released').length).toBeGreaterThan(0);
      expect(result.violations).toEqual([]);
    } finally {
      result.sim.dispose();
    }
  });

  for (const mode of ['openclaw', 'gateway-no-retry'] as const) {
    it(`${mode}: a run that failed in the outage leaves the exec completion unanswered, and every-inbound-answered says so`, async () => {
      const result = await runSpec(frozenOutagePlan(mode), { sql });
      try {
        expect(notes(result, 'heartbeat-run-failed').length).toBeGreaterThan(0);
        expect(invariants(result)).toEqual(['every-inbound-answered']);
      } finally {
        result.sim.dispose();
      }
    });
  }

  // OpenClaw's duplicate guard (both releases, runHeartbeatOnce): a heartbeat reply equal to the session's last one
  // within 24 h is not delivered, and the events it answered are consumed, an exec completion's included.
  it('openclaw: a second exec completion answered with the same text as the first is never shown (the duplicate guard), and no-lost-reply and every-inbound-answered say so; the fixed run shows both', async () => {
    const plan = (mode: HeartbeatRunMode): Plan => ({ ...handPlan([exec(1_000, 'error: file not found'), exec(120_000, 'error: disk full')]), heartbeatRun: { mode, timeoutMs: 10_000, fallbacks: 1, retryMs: 20_000 } });
    const sameText = (request: LlmRequest): ScriptedAnswer | undefined => (request.prompt.includes('Exec finished (node=') ? { toolCalls: [], result: reply('The command failed.') } : undefined);
    await withRun(sql, { bugs: [], plan: plan('gateway'), script: sameText }, (result) => {
      expect(llmAnswers(result)).toHaveLength(2);
      expect(visible(result).filter((message) => message.text === 'The command failed.')).toHaveLength(2);
      expect(result.violations).toEqual([]);
    });
    await withRun(sql, { bugs: [], plan: plan('openclaw'), script: sameText }, (result) => {
      expect(notes(result, 'heartbeat-skip').map((note) => note.fields.reason)).toEqual(['duplicate']);
      expect(visible(result).filter((message) => message.text === 'The command failed.')).toHaveLength(1);
      expect(invariants(result)).toEqual(['every-inbound-answered', 'no-lost-reply']);
    });
  });
});
