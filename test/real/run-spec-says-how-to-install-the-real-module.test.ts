// runSpec with `sessionManager: 'pi'` when the real/ package is not installed: an Error whose message says how to
// install it (the loader is mocked to answer "missing", as it does when real/node_modules is absent).
import { describe, expect, it, vi } from 'vitest';
import { findScenario } from '../../scenarios/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runSpec } from '../../sim/run/harness.ts';

vi.mock('../../sim/real/loader.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../sim/real/loader.ts')>()),
  loadPiSessionManager: () => Promise.resolve(undefined),
}));

describe("runSpec with sessionManager 'pi' and no real/ package", () => {
  it('throws an Error that gives the install command', async () => {
    const scenario = findScenario('orphan-leaf');
    if (scenario === undefined) throw new Error('no orphan-leaf scenario');
    const spec = generateSpec(scenario, [], 1, undefined);
    await expect(runSpec(spec, { sql: await loadSqlJs(), sessionManager: 'pi' })).rejects.toThrow(/npm ci --prefix real/);
  });
});
