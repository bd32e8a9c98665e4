// The bug zoo: each seed bug, switched on, is found by its focused scenario and by chaos within 2,000 runs, as a
// violation of the invariant its symptom breaks (the hunt counts a run as failing only on that invariant, since a
// bug can break others on the way); the shrunk seed string replays the same violation with the same traceHash in a
// fresh process.
import { describe, expect, it } from 'vitest';
import type { BugId } from '../../src/index.ts';
import { hunt, reproInFreshProcess } from './support.ts';

const zoo: { bug: BugId; scenario: string; invariant: string }[] = [
  { bug: 'exec-replay', scenario: 'exec-replay', invariant: 'no-double-ingestion' },
  { bug: 'send-dup', scenario: 'send-mid-turn', invariant: 'no-duplicate-visible-reply' },
  { bug: 'send-flag', scenario: 'send-mid-turn', invariant: 'no-lost-reply' },
  { bug: 'send-stale', scenario: 'send-mid-turn', invariant: 'no-lost-reply' },
  { bug: 'orphan-leaf', scenario: 'orphan-leaf', invariant: 'transcript-consistent' },
  { bug: 'flush-cursor', scenario: 'cached-agent', invariant: 'one-assistant-row-per-visible-reply' },
];

const runsMax = 2_000;

describe.each(zoo)('bug $bug', ({ bug, scenario, invariant }) => {
  it.each([scenario, 'chaos'])(`is found by %s within ${runsMax} runs and replays in a fresh process`, async (name) => {
    const outcome = await hunt(name, [bug], runsMax, invariant);
    const failure = outcome.failure;
    expect(failure, `${name} ran ${outcome.runs} runs without finding ${bug}`).toBeDefined();
    if (failure === undefined) return;
    expect(failure.run).toBeLessThanOrEqual(runsMax);
    expect(failure.violations.map((violation) => violation.invariant)).toContain(invariant);
    const replay = reproInFreshProcess(failure.seed);
    expect(replay.status).toBe(1);
    expect(replay.json.verdict).toBe('fail');
    expect(replay.json.traceHash).toBe(failure.result.traceHash);
    expect(replay.json.violations.map((violation) => violation.invariant)).toEqual(failure.violations.map((violation) => violation.invariant));
    failure.result.sim.dispose();
  }, 600_000);
});
