// fuzz --check-determinism[=<fraction>]: a sample of the runs is replayed where the campaign runs and on a fresh
// worker thread, and the trace hashes compared. A scenario whose plan reads a module-level counter (nondeterminism put
// in on purpose) fails the campaign with exit 6, the report naming the first event where the traces part, in the
// text and in the JSON; a clean campaign passes and says how many runs it checked; a bad fraction is one line, exit 2.
import { describe, expect, it } from 'vitest';
import { builtinScenarioCount } from '../../scenarios/index.ts';
import { checkFractionDefault, checksRun } from '../../sim/cli/determinism-check.ts';
import { exitCodes } from '../../sim/cli/exit-codes.ts';
import { cli, type FuzzJson, loadableModule } from './support.ts';

interface Event {
  index: number;
  timeMs: number;
  kind: string;
  fields: Record<string, unknown>;
}

interface Mismatch {
  scenario: string;
  seed: string;
  run: number;
  hashes: string[];
  firstDivergence: { index: number; between: number[]; a: Event | null; b: Event | null };
}

type CheckedJson = FuzzJson & { determinism?: { fraction: number; checked: number; mismatches: Mismatch[] } };

// Every plan this thread generates has a fault phase 1 ms longer than the one before: a run of one plan, replayed
// in the same thread, ends its fault phase at another time. The phase ends half a second past the minute, clear of
// the gateway's work at the minute (its sweep runs every 60 s from its start): a loaded scenario's runs are seeded by
// its index (runSeed), which moves with every built-in scenario added, and with the end at 60 000 ms the plan drawn
// after issue 48's fallback-delivery had a gateway write to inbound.db at 60 001 ms, scheduled before the replay's
// later end of the phase.
const drifting = loadableModule(
  (entry) => `import { faultKnobs, fc, modelKnobs, registerScenario, settleMs, userStep } from '${entry}';
let plansMade = 0;
registerScenario({
  name: 'my-drifting',
  description: 'one session; its fault phase grows by 1 ms with every plan this thread makes',
  focus: [],
  plan: fc.record({
    sessions: fc.constant(1),
    workload: fc.array(userStep(60_000, 1), { minLength: 1, maxLength: 2 }),
    faults: fc.constant([]),
    faultKnobs: faultKnobs({}),
    model: modelKnobs({}),
    faultPhaseMs: fc.constant(60_500).map((ms) => ms + plansMade++),
    settleMs: fc.constant(settleMs),
  }),
});
`,
);

describe('fuzz --check-determinism', () => {
  it('a scenario whose plan reads a module-level counter fails with exit 6, naming the first divergent event', () => {
    expect(exitCodes.nondeterminism).toBe(6);
    const text = cli(['--load', drifting, 'fuzz', '--scenario', 'my-drifting', '--runs', '3', '--seed', '1', '--check-determinism=1'], {}, 120_000);
    expect(text.status, text.stderr).toBe(6);
    expect(text.stdout).toContain('NONDETERMINISM my-drifting: run 1 gave two traces of one plan');
    expect(text.stdout).toMatch(/first divergence at event #\d+:/);
    // The fault phase ends at another simulated time: both events are named, with their times and fields.
    expect(text.stdout).toMatch(/campaign run: #\d+ 60500 fault \{"kind":"fault-phase-end"\}/);
    expect(text.stdout).toMatch(/replay where the campaign runs: #\d+ 6050[1-9] fault \{"kind":"fault-phase-end"\}/);
    expect(text.stdout).toMatch(/determinism: 3 run\(s\) checked/);

    const json = cli(['--load', drifting, 'fuzz', '--scenario', 'my-drifting', '--runs', '3', '--seed', '1', '--check-determinism=1', '--json', '--workers', '2'], {}, 120_000);
    expect(json.status, json.stderr).toBe(6);
    const campaign = JSON.parse(json.stdout) as CheckedJson;
    expect(campaign.failures).toEqual([]);
    const determinism = campaign.determinism;
    expect(determinism?.checked).toBeGreaterThan(0);
    const mismatch = determinism?.mismatches[0];
    expect(determinism?.mismatches).toHaveLength(1);
    expect(mismatch).toMatchObject({ scenario: 'my-drifting', seed: expect.stringMatching(/^gs2\.my-drifting@file-gatesim_setup_ts\.none\./), run: expect.any(Number) });
    expect(mismatch?.hashes).toHaveLength(3);
    expect(new Set(mismatch?.hashes).size).toBeGreaterThan(1);
    const divergence = mismatch?.firstDivergence;
    const [left, right] = divergence?.between ?? [];
    expect(mismatch?.hashes[left ?? 0]).not.toBe(mismatch?.hashes[right ?? 0]);
    expect(divergence?.a).toMatchObject({ index: divergence?.index, kind: 'fault', fields: { kind: 'fault-phase-end' } });
    expect(divergence?.b).toMatchObject({ index: divergence?.index, kind: 'fault', fields: { kind: 'fault-phase-end' } });
    expect(divergence?.a?.timeMs).not.toBe(divergence?.b?.timeMs);
  }, 240_000);

  it(`--check-determinism alone checks ${checkFractionDefault} of the runs, drawn from the campaign seed and run index`, () => {
    const result = cli(['--load', drifting, 'fuzz', '--scenario', 'my-drifting', '--runs', '30', '--seed', '1', '--check-determinism', '--json'], {}, 120_000);
    expect(result.status, result.stderr).toBe(6);
    const campaign = JSON.parse(result.stdout) as CheckedJson;
    // The one scenario registered after the built-in ones: its index is their number.
    const sampled = Array.from({ length: 30 }, (_, run) => run).filter((run) => checksRun(1, builtinScenarioCount, run, checkFractionDefault));
    expect(sampled.length).toBeGreaterThan(0);
    expect(campaign.determinism?.fraction).toBe(checkFractionDefault);
    expect(campaign.determinism?.checked).toBe(sampled.length);
    expect(campaign.determinism?.mismatches[0]?.run).toBe((sampled[0] ?? 0) + 1);
  }, 120_000);

  it('a clean campaign passes and says how many runs it checked, its runs and verdicts as without the check', () => {
    const args = ['fuzz', '--scenario', 'chaos', '--runs', '40', '--seed', '1', '--check-determinism=0.5', '--json'];
    const one = cli(args, {}, 300_000);
    expect(one.status, one.stderr).toBe(0);
    const campaign = JSON.parse(one.stdout) as CheckedJson;
    expect(campaign.runs).toBe(40);
    expect(campaign.determinism?.checked).toBeGreaterThan(0);
    expect(campaign.determinism?.checked).toBeLessThan(40);
    expect(campaign.determinism?.mismatches).toEqual([]);
    // Without the check the campaign is the same, with no determinism key.
    const unchecked = JSON.parse(cli(args.filter((arg) => !arg.startsWith('--check-determinism')), {}, 300_000).stdout) as CheckedJson;
    expect(unchecked.determinism).toBeUndefined();
    expect({ ...unchecked, wallMs: 0 }).toEqual({ ...campaign, determinism: undefined, wallMs: 0 });
  }, 600_000);

  it.each(['0', '1.5', 'abc', '-0.1', ''])('--check-determinism=%j is refused in one line, exit 2', (value) => {
    const result = cli(['fuzz', '--scenario', 'chaos', '--runs', '1', `--check-determinism=${value}`]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('0 < f <= 1');
  });
});
