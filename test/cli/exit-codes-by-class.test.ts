// Exit status by failure class (docs/ARCHITECTURE.md section 7): 1 correctness (whatever else), 4 only liveness
// (perhaps with a crash), 5 only a crash; `class` in the JSON of every violation and failure; --version prints the
// package version.
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { exitCodeFor } from '../../sim/cli/exit-codes.ts';
import { cli, type FuzzJson } from './support.ts';

describe('exit codes by failure class', () => {
  it.each([
    [[], 0],
    [['correctness'], 1],
    [['liveness', 'correctness', 'crash'], 1],
    [['liveness'], 4],
    [['crash', 'liveness'], 4],
    [['crash'], 5],
    [['crash', 'crash'], 5],
  ] as const)('%j exits %i', (classes, code) => {
    expect(exitCodeFor(classes)).toBe(code);
  });

  it('fuzz --json gives the class of each failure and exits by it', () => {
    const result = cli(['fuzz', '--scenario', 'send-mid-turn', '--bugs', 'send-flag', '--runs', '10', '--seed', '3', '--json']);
    const json = JSON.parse(result.stdout) as FuzzJson;
    expect(json.failures[0]).toEqual({ scenario: 'send-mid-turn', seed: expect.any(String), invariant: 'no-lost-reply', class: 'correctness', steps: expect.any(Number), message: expect.any(String), run: expect.any(Number), shrinkRuns: expect.any(Number), shrinkComplete: expect.any(Boolean), shrinkRunsMax: expect.any(Number), realCode: expect.objectContaining({ openclaw: null, sessionManager: 'model' }) });
    expect(result.status).toBe(1);
  }, 120_000);

  it('--version prints the package version', () => {
    const result = cli(['--version']);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(packageJson.version);
  });
});
