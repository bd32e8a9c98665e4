// --workers n runs exactly what one worker runs: each worker thread loads the --load modules the command line
// loaded (their scenarios and invariants) and uses the same SessionManager, so a campaign finds the same failures,
// with the same seed strings, on one worker and on two. Before, two workers dropped every loaded invariant (a
// campaign whose invariant always fails passed), refused a loaded scenario, and could not load the pi adapter.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli, type FuzzJson, loadableModule } from './support.ts';

const setup = loadableModule(
  (entry) => `import { byTime, faultKnobs, fc, modelKnobs, registerInvariant, registerScenario, settleMs, userStep } from '${entry}';
registerInvariant({ name: 'always-fails', class: 'correctness', check: () => [{ message: 'this invariant always fails' }] });
registerScenario({
  name: 'two-messages',
  description: 'one session, one or two user messages, no faults',
  focus: [],
  plan: fc.record({
    sessions: fc.constant(1),
    workload: fc.array(userStep(60_000, 1), { minLength: 1, maxLength: 2 }).map(byTime),
    faults: fc.constant([]),
    faultKnobs: faultKnobs({}),
    model: modelKnobs({}),
    faultPhaseMs: fc.constant(60_000),
    settleMs: fc.constant(settleMs),
  }),
});
`,
);

function campaign(args: string[], workers: number): FuzzJson & Record<string, unknown> {
  const result = cli([...args, '--json', '--workers', String(workers)], {}, 300_000);
  expect(result.status, result.stderr).toBe(1);
  return { ...(JSON.parse(result.stdout) as FuzzJson & Record<string, unknown>), wallMs: 0 };
}

function sameOnOneAndTwoWorkers(args: string[]): FuzzJson & Record<string, unknown> {
  const one = campaign(args, 1);
  expect(campaign(args, 2)).toEqual(one);
  return one;
}

describe('--workers 2 runs what one worker runs', () => {
  it('a loaded invariant: the same failures and seed strings, and the seed string names the module', () => {
    const found = sameOnOneAndTwoWorkers(['--load', setup, 'fuzz', '--scenario', 'send-mid-turn', '--runs', '6', '--seed', '5', '--invariant', 'always-fails']);
    expect(found.failures.map((failure) => failure.invariant)).toEqual(['always-fails']);
    expect(found.failures[0]?.seed).toMatch(/^gs2\.send-mid-turn@file-[A-Za-z0-9_~+-]+\.none\./);
  }, 600_000);

  it('a loaded scenario: found, shrunk and named alike', () => {
    const found = sameOnOneAndTwoWorkers(['--load', setup, 'fuzz', '--scenario', 'two-messages', '--runs', '6', '--seed', '5']);
    expect(found.failures.map((failure) => [failure.scenario, failure.invariant])).toEqual([['two-messages', 'always-fails']]);
  }, 600_000);

  it.skipIf(!existsSync(new URL('../../real/node_modules/@mariozechner/pi-coding-agent/package.json', import.meta.url)))(
    '--session-manager pi: the workers run the real pi SessionManager (needs npm ci --prefix real)',
    () => {
      const found = sameOnOneAndTwoWorkers(['fuzz', '--scenario', 'send-mid-turn', '--bugs', 'send-flag', '--runs', '6', '--seed', '3', '--session-manager', 'pi']);
      expect(found.failures[0]?.seed).toMatch(/^gs2\.send-mid-turn@pi\.send-flag\./);
    },
    600_000,
  );
});
