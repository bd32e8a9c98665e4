// A scenario of one's own, registered through the public entry, is found by name, runs through the harness, gets a
// seed string that replays it exactly, and fuzzes; a clashing or malformed name is refused.
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/support.ts';
import { byTime, fc, findScenario, fuzz, registerScenario, reproduce, runScenario, type Scenario, scenarioNames, settleMs, userStep, faultKnobs, modelKnobs } from '../../lib/index.ts';

const faultPhaseMs = 30_000;
const quiet: Scenario = {
  name: 'quiet-chat',
  description: 'a few messages and no faults',
  focus: [],
  plan: fc.record({
    sessions: fc.constant(1),
    workload: fc.array(userStep(faultPhaseMs, 1), { minLength: 1, maxLength: 3 }).map(byTime),
    faults: fc.constant([]),
    faultKnobs: faultKnobs({}),
    model: modelKnobs(),
    faultPhaseMs: fc.constant(faultPhaseMs),
    settleMs: fc.constant(settleMs),
  }),
};

describe('registerScenario', () => {
  registerScenario(quiet);

  it('joins the built-in scenarios under its name', () => {
    expect(findScenario('quiet-chat')).toBe(quiet);
    expect(scenarioNames).toContain('quiet-chat');
    expect(scenarioNames.indexOf('quiet-chat')).toBeGreaterThan(scenarioNames.indexOf('chaos'));
  });

  it('runs, and its seed string replays the same trace', async () => {
    const first = await runScenario('quiet-chat', { seed: 11 });
    expect(first.seed).toMatch(/^gs2\.quiet-chat\.none\.11\.r\.[0-9a-z_]+-[0-9a-f]{6}\.[0-9a-f]{8}$/);
    expect(first.result.verdict, first.report).toBe('pass');
    const again = await reproduce(first.seed);
    expect(again.result.traceHash).toBe(first.result.traceHash);
  });

  it("leaves a built-in scenario's seed strings valid: one printed by a process that never registered it replays here", async () => {
    const printed = (JSON.parse(cli(['run', 'send-mid-turn', '--seed', '3', '--json']).stdout) as { seed: string; traceHash: string });
    const again = await reproduce(printed.seed);
    expect(again.seed).toBe(printed.seed);
    expect(again.result.traceHash).toBe(printed.traceHash);
  });

  it('fuzzes', async () => {
    const report = await fuzz(quiet, { runs: 3, seed: 5 });
    expect(report).toMatchObject({ scenario: 'quiet-chat', runs: 3, failure: undefined, campaignSeed: 5 });
  });

  it('ignores the same scenario twice and refuses a clash or a name a seed string cannot carry', () => {
    expect(() => registerScenario(quiet)).not.toThrow();
    expect(() => registerScenario({ ...quiet })).toThrow('a scenario named "quiet-chat" is already registered');
    expect(() => registerScenario({ ...quiet, name: 'chaos' })).toThrow('already registered');
    expect(() => registerScenario({ ...quiet, name: 'my.scenario' })).toThrow('lower-case letters, digits and dashes');
  });
});
