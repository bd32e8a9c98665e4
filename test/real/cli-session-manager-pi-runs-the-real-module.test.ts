// `--session-manager pi` on the command line: the run uses the real pi SessionManager, its seed string records it
// (`<scenario>@pi`), and repro in a fresh process replays it with the same traceHash. A targeted hunt with the
// orphan-leaf bug under the real module finds transcript-consistent.
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/support.ts';
import { piMissing } from './support.ts';

interface RunJson {
  seed: string;
  verdict: string;
  traceHash: string;
}

describe.skipIf(piMissing)('--session-manager pi', () => {
  it('runs the real module, records it in the seed string, and replays it in a fresh process', () => {
    const run = cli(['run', 'orphan-leaf', '--session-manager', 'pi', '--seed', '1', '--json']);
    const first = JSON.parse(run.stdout) as RunJson;
    expect(first.seed).toMatch(/^gs2\.orphan-leaf@pi\.none\.1\.r\./);
    const replay = cli(['repro', first.seed, '--json']);
    const again = JSON.parse(replay.stdout) as RunJson;
    expect(again.seed).toBe(first.seed);
    expect(again.traceHash).toBe(first.traceHash);
    expect(again.verdict).toBe(first.verdict);
    expect(replay.status).toBe(run.status);
    // The model's SessionManager on the same plan is another run.
    const model = JSON.parse(cli(['run', 'orphan-leaf', '--seed', '1', '--json']).stdout) as RunJson;
    expect(model.traceHash).not.toBe(first.traceHash);
  }, 120_000);

  it('finds the orphan-leaf bug by its invariant under the real module', () => {
    const fuzz = cli(['fuzz', '--scenario', 'orphan-leaf', '--bugs', 'orphan-leaf', '--session-manager', 'pi', '--invariant', 'transcript-consistent', '--runs', '200', '--seed', '1', '--json'], {}, 300_000);
    const json = JSON.parse(fuzz.stdout) as { failures: { invariant: string; seed: string }[] };
    expect(json.failures.map((failure) => failure.invariant)).toEqual(['transcript-consistent']);
    expect(json.failures[0]?.seed).toMatch(/^gs2\.orphan-leaf@pi\.orphan-leaf\./);
  }, 300_000);

  it('refuses an unknown session manager with one line and exit 2', () => {
    const result = cli(['run', 'orphan-leaf', '--session-manager', 'sqlite']);
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
