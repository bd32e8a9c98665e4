// docs/MODEL.md's table "Where the seeds' fixes fall short" gives a seed string for every variant that fails where
// the fixed model does not. Each must replay as written: failing with the variant on, and passing when the same
// plan is replayed with the fixed model (`repro <seed> --bugs none`). When the scenarios change, the build in the
// seed strings changes and this test says so; regenerate the table with the commands it names.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/support.ts';

const modelMd = readFileSync(new URL('../../docs/MODEL.md', import.meta.url), 'utf8');
// The section only: from its heading to the next heading (later sections give seed strings of other kinds, such as a
// real release's own findings, which fail with every bug off).
const fromHeading = modelMd.slice(modelMd.indexOf('### Where the seeds\' fixes fall short'));
const nextHeading = fromHeading.slice(1).search(/\n#{1,3} /);
const table = nextHeading < 0 ? fromHeading : fromHeading.slice(0, nextHeading + 1);
const seeds = [...table.matchAll(/`(gs2\.[^`\s]+)`/g)].map((match) => match[1] as string);

describe("MODEL.md's seed strings of the seeds' fixes falling short", () => {
  it('lists some', () => {
    expect(seeds.length).toBeGreaterThanOrEqual(3);
  });

  it.each(seeds)('%s fails with its variant and passes on the fixed model', (seed) => {
    const withVariant = cli(['repro', seed, '--json']);
    expect(withVariant.stderr).toBe('');
    expect((JSON.parse(withVariant.stdout) as { verdict: string }).verdict).toBe('fail');
    const fixed = cli(['repro', seed, '--bugs', 'none', '--json']);
    expect((JSON.parse(fixed.stdout) as { verdict: string }).verdict).toBe('pass');
  }, 120_000);
});
