// The kernel settles continuations for settleQuietHopsDefault quiet microtask hops (sim/scheduler.ts). That is
// enough for the model only if no continuation chain in it is deeper: then raising the count changes nothing. A
// sample of every scenario, with and without bugs, must give the same traceHash at the default and at 64 hops.
import { describe, expect, it } from 'vitest';
import { type BugId, bugIds } from '../../src/index.ts';
import { findScenario, scenarioNames } from '../../scenarios/index.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runSpec } from '../../sim/run/harness.ts';
import { settleQuietHopsDefault } from '../../sim/kernel/scheduler.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { firstDivergence } from '../../sim/kernel/trace.ts';

const sql = await loadSqlJs();

describe(`settling for ${settleQuietHopsDefault} quiet hops`, () => {
  it.each(scenarioNames)('%s: traces do not change at 64 hops', async (name) => {
    const scenario = findScenario(name);
    if (scenario === undefined) throw new Error(name);
    for (let seed = 300; seed < 306; seed++) {
      const bugs: BugId[] = seed % 2 === 0 ? [] : [bugIds[seed % bugIds.length] as BugId];
      const spec = generateSpec(scenario, bugs, seed, undefined);
      const normal = await runSpec(spec, { sql });
      const deep = await runSpec(spec, { sql, settleQuietHops: 64 });
      normal.sim.dispose();
      deep.sim.dispose();
      const divergence = firstDivergence(normal.sim.trace.events, deep.sim.trace.events);
      expect(divergence, `seed ${seed}: ${JSON.stringify(divergence)}`).toBeUndefined();
    }
  }, 300_000);

  it('is shown able to fail: at 1 hop the traces do change', async () => {
    const scenario = findScenario('chaos');
    if (scenario === undefined) throw new Error('chaos');
    const spec = generateSpec(scenario, [], 300, undefined);
    const shallow = await runSpec(spec, { sql, settleQuietHops: 1 });
    const deep = await runSpec(spec, { sql, settleQuietHops: 64 });
    shallow.sim.dispose();
    deep.sim.dispose();
    expect(firstDivergence(shallow.sim.trace.events, deep.sim.trace.events)).toBeDefined();
  }, 120_000);
});
