// Your vitest suite: fuzz your scenario (your tool server, your invariant, every built-in invariant), fuzz a
// built-in scenario with your tool server swapped in, and pin a seed string as a regression test. A failing
// fuzzIt prints the seed string first; `npx gatesim --load ./gatesim.setup.ts repro <seed>` replays it.
import { fuzz, invariantNames, runScenario } from 'gatesim';
import { fuzzIt } from 'gatesim/vitest';
import { describe, expect, it } from 'vitest';
import './gatesim.setup.ts';
import { myToolServer } from './my-tool-server.ts';

describe('my tool server under gatesim', () => {
  // Leave out `seed` to draw a fresh campaign each run (the failure's seed string still replays it exactly).
  fuzzIt('survives kills and locked databases', { scenario: 'tool-server-restarts', runs: 12, seed: 1 });

  fuzzIt('keeps the built-in send-mid-turn scenario clean', {
    scenario: 'send-mid-turn',
    components: { 'tool-server': () => myToolServer },
    runs: 8,
    seed: 2,
  });

  it('is judged by my invariant too', async () => {
    expect(invariantNames).toContain('no-unprompted-reply');
    const run = await runScenario('tool-server-restarts', { seed: 3 });
    expect(run.result.verdict, run.report).toBe('pass');
    expect(run.result.ledger.shown.length).toBeGreaterThan(0);
  });

  it('would catch a known duplicate-send bug (the bench can fail)', async () => {
    const report = await fuzz('send-mid-turn', { bugs: ['send-flag'], runs: 30, seed: 1 });
    expect(report.failure?.seed).toMatch(/^gs2\.send-mid-turn\.send-flag\./);
  });
});
