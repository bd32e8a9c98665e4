// Determinism at the bench level: a sample of seeds of every scenario, with and without bugs, replays to the same
// traceHash in the same process and, through the command line, in a fresh process.
import { describe, expect, it } from 'vitest';
import { type BugId, bugIds } from '../../src/index.ts';
import { findScenario, scenarioNames } from '../../scenarios/index.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runSpec } from '../../sim/run/harness.ts';
import { encodeSeedString } from '../../sim/cli/seed-string.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { firstDivergence, type TraceEvent } from '../../sim/kernel/trace.ts';
import { reproInFreshProcess } from './support.ts';

async function hashOf(name: string, bugs: BugId[], seed: number): Promise<{ hash: string; seedString: string; events: TraceEvent[] }> {
  const scenario = findScenario(name);
  if (scenario === undefined) throw new Error(name);
  const spec = generateSpec(scenario, bugs, seed, undefined);
  const result = await runSpec(spec, { sql: await loadSqlJs() });
  result.sim.dispose();
  return { hash: result.traceHash, seedString: encodeSeedString({ scenario: name, bugs, seed, path: undefined }, spec), events: result.sim.trace.events.slice() };
}

describe('seeds replay identically', () => {
  it.each(scenarioNames)('%s: 12 seeds twice in one process, one in a fresh process', async (name) => {
    for (let seed = 100; seed < 112; seed++) {
      const bugs: BugId[] = seed % 3 === 0 ? [bugIds[seed % bugIds.length] as BugId] : [];
      const first = await hashOf(name, bugs, seed);
      const second = await hashOf(name, bugs, seed);
      const divergence = firstDivergence(first.events, second.events);
      expect(divergence, `seed ${seed} diverged`).toBeUndefined();
      expect(second.hash).toBe(first.hash);
      if (seed === 100) expect(reproInFreshProcess(first.seedString).json.traceHash).toBe(first.hash);
    }
  }, 300_000);
});
