// The text a campaign ends with: the count of runs, a one-line fault-coverage summary that names the fault types
// and shapes that never landed (the whole table only with --coverage, and always in the JSON), a short list of its
// failures with their seed strings and how to replay each, and the next command to try.
import { describe, expect, it } from 'vitest';
import { coverageRows } from '../../sim/run/coverage.ts';
import { cli } from './support.ts';

describe('the end of a fuzz campaign', () => {
  const failing = cli(['fuzz', '--scenario', 'send-mid-turn', '--bugs', 'send-flag', '--runs', '30', '--seed', '1', '--no-color'], {}, 300_000);
  const lines = failing.stdout.trimEnd().split('\n');

  it('lists each failure with its scenario, invariant, seed string and reproduce command', () => {
    expect(failing.status).toBe(1);
    const at = lines.indexOf('failures');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('  send-mid-turn: no-lost-reply (correctness)');
    const seed = /^ {4}seed: (gs2\.send-mid-turn\.send-flag\.\S+)$/.exec(lines[at + 2] ?? '')?.[1];
    expect(seed).toBeDefined();
    expect(lines[at + 3]).toBe(`    reproduce: npm run sim -- repro ${seed}`);
    expect(lines.at(-1)).toBe(`next: read the report above, then replay it with every bug off to check a fix: npm run sim -- repro ${seed} --bugs none`);
  });

  it('summarises the fault coverage in one line instead of the table', () => {
    const summary = lines.find((line) => line.startsWith('fault coverage: '));
    expect(summary).toMatch(new RegExp(`^fault coverage: \\d+ of ${coverageRows.length} fault types and shapes landed`));
    expect(failing.stdout).not.toMatch(/^ {2}fault {4,}/m);
  }, 300_000);

  it('prints the table with --coverage, and a next step after a clean campaign', () => {
    const clean = cli(['fuzz', '--scenario', 'chaos', '--runs', '3', '--seed', '2', '--coverage', '--no-color'], {}, 300_000);
    expect(clean.status).toBe(0);
    const table = clean.stdout.split('\n').filter((line) => coverageRows.some((row) => line.startsWith(`  ${row} `)));
    expect(table).toHaveLength(coverageRows.length);
    expect(clean.stdout).not.toContain('\nfailures\n');
    expect(clean.stdout.trimEnd().split('\n').at(-1)).toMatch(/^next: watch gatesim find a seed bug: npm run sim -- fuzz --scenario send-mid-turn --bugs send-flag/);
  }, 300_000);
});
