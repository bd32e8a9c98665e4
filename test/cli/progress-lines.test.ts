// Progress of a campaign: the bar counts runs when their number is known and wall seconds under --seconds (never
// "191/0 runs"); off a terminal, a plain line at most every few seconds (a fake clock drives it here).
import { describe, expect, it } from 'vitest';
import { barScale, plainLineEveryMs, startProgress } from '../../sim/cli/progress.ts';

describe('progress', () => {
  it('scales the bar by runs, or by seconds under --seconds', () => {
    expect(barScale({ scenarios: 5, runsPerScenario: 40, seconds: undefined })).toEqual({ total: 200, unit: ' runs' });
    expect(barScale({ scenarios: 5, runsPerScenario: undefined, seconds: 30 })).toEqual({ total: 150, unit: 's' });
  });

  it('off a terminal, writes a plain line at most every few seconds, with the overall count', () => {
    let now = 0;
    const lines: string[] = [];
    const progress = startProgress({ scenarios: 2, runsPerScenario: 10, seconds: undefined }, false, (line) => lines.push(line), () => now);
    for (let run = 1; run <= 10; run++) {
      now += 1_000;
      progress.update('exec-replay', 0, run);
    }
    for (let run = 1; run <= 10; run++) {
      now += 1_000;
      progress.update('chaos', 1, run);
    }
    progress.stop();
    expect(lines).toHaveLength(Math.floor(20_000 / plainLineEveryMs));
    expect(lines[0]).toBe('fuzz: 5/20 runs, now exec-replay (1/2), 5.0s elapsed');
    expect(lines.at(-1)).toBe('fuzz: 20/20 runs, now chaos (2/2), 20.0s elapsed');
  });
});
