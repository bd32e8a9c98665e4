// gatesim/vitest: a fuzz test that finds a failure writes the seed string to stderr first and fails with a message
// that starts with the seed string and names the violated invariant; a clean campaign passes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assertFuzzPasses, fuzzIt } from '../../lib/vitest.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('fuzzIt', () => {
  it('fails seed string first, then the violation', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0);
    const error = await assertFuzzPasses({ scenario: 'send-mid-turn', bugs: ['send-flag'], runs: 30, seed: 1 }).then(
      () => undefined,
      (thrown: unknown) => thrown as Error,
    );
    expect(error?.message).toMatch(/^seed gs2\.send-mid-turn\.send-flag\.\d+\.[0-9a-zA-Z_-]+\.[0-9a-z_]+-[0-9a-f]{6}\.[0-9a-f]{8}\nno-lost-reply \(correctness\): /);
    const seed = error?.message.split('\n')[0]?.slice('seed '.length) ?? '';
    // From gatesim's sources the command is `npm run sim --`; the built package (the pack-install test) says `npx gatesim`.
    expect(written[0]).toBe(`gatesim seed ${seed}\n  reproduce: npm run sim -- repro ${seed}\n`);
    expect(error?.message).toContain('timeline');
  });

  it('passes a clean campaign', async () => {
    await expect(assertFuzzPasses({ scenario: 'cached-agent', runs: 3, seed: 2 })).resolves.toBeUndefined();
  });

  fuzzIt('is a vitest test of its own', { scenario: 'exec-replay', runs: 2, seed: 3 });
});
