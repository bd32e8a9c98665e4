// The gap between OpenClaw's chat.send dedupe and the fixed model's (issue 24 item 1): OpenClaw remembers idempotency
// keys in the gateway's memory (`context.dedupe`, pruned 5 min after use), so a client's retry that reaches a
// restarted gateway starts a second run. Over the client-connections scenario's own plans, with only the dedupe
// switched, the memory map lets messages in twice (caught by no-double-ingestion) where the durable key never does.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runSpec } from '../../sim/run/harness.ts';
import { findScenario } from '../../scenarios/index.ts';

const sql = await loadSqlJs();
const seeds = 100;

async function failures(dedupe: 'durable' | 'memory'): Promise<{ seed: number; invariants: string[] }[]> {
  const scenario = findScenario('client-connections');
  if (scenario === undefined) throw new Error('no client-connections scenario');
  const failed: { seed: number; invariants: string[] }[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const spec = generateSpec(scenario, [], seed, undefined);
    spec.plan.clients = { ...(spec.plan.clients ?? { sessions: [0] }), dedupe };
    const result = await runSpec(spec, { sql });
    result.sim.dispose();
    if (result.violations.length > 0) failed.push({ seed, invariants: [...new Set(result.violations.map((violation) => violation.invariant))].sort() });
  }
  return failed;
}

describe("client connections: OpenClaw's in-memory dedupe against the durable key", () => {
  it('the memory map lets a retried message in twice after a gateway restart; the durable key never does', { timeout: 600_000 }, async () => {
    const memory = await failures('memory');
    expect(memory.length).toBeGreaterThan(0);
    for (const failure of memory) expect(failure.invariants).toContain('no-double-ingestion');
    expect(await failures('durable')).toEqual([]);
  });
});
