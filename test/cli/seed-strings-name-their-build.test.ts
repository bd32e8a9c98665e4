// Seed strings name the build that made them (package version and a hash of the definition of the scenario they
// name); a token from another build is refused with one line naming both builds; registering another scenario leaves
// them valid; the README's example seed string replays.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { buildFor, buildToken, decodeSeedString, thisBuild } from '../../sim/cli/seed-string.ts';
import { cli } from './support.ts';

describe('seed strings name their build', () => {
  it("a token's build is the package version and a 6-hex-digit hash of its own scenario's plans", () => {
    const build = buildFor('exec-replay');
    expect(build.version).toBe(packageJson.version);
    expect(build.scenarios).toMatch(/^[0-9a-f]{6}$/);
    expect(thisBuild().scenarios).toMatch(/^[0-9a-f]{6}$/);
    const fingerprints = new Set(['exec-replay', 'send-mid-turn', 'orphan-leaf', 'cached-agent', 'chaos', 'scheduled-tasks'].map((name) => buildFor(name).scenarios));
    expect(fingerprints.size, 'each scenario has a fingerprint of its own').toBe(6);
    const run = cli(['run', 'exec-replay', '--seed', '4', '--json']);
    const seed = (JSON.parse(run.stdout) as { seed: string }).seed;
    expect(seed.split('.')[5]).toBe(buildToken(build));
    expect(decodeSeedString(seed).seed).toBe(4);
  });

  it.each([
    ['another version', (token: string) => token.replace(`.${buildToken(buildFor('exec-replay'))}.`, `.0_0_9-${buildFor('exec-replay').scenarios}.`), 'gatesim 0.0.9'],
    ['another scenario definition', (token: string) => token.replace(`.${buildToken(buildFor('exec-replay'))}.`, `.${thisBuild().version.replace(/\./g, '_')}-abcdef.`), '(scenario exec-replay abcdef)'],
  ])('a token from a build with %s is refused with a line naming both builds', (_name, edit, theirs) => {
    const seed = (JSON.parse(cli(['run', 'exec-replay', '--seed', '4', '--json']).stdout) as { seed: string }).seed;
    const result = cli(['repro', edit(seed)]);
    expect(result.status).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(theirs);
    expect(lines[0]).toContain(`this is gatesim ${thisBuild().version} (scenario exec-replay ${buildFor('exec-replay').scenarios})`);
  });

  it('a token of the older format gs1 is refused naming this build', () => {
    const result = cli(['repro', 'gs1.send-mid-turn.send-flag.112648.0:0:0:0:1:1.5c7b5957']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/format gs1, made by another build of gatesim; this is gatesim \S+ \(scenarios [0-9a-f]{6}\), which reads gs2 only/);
  });

  it("the README's example seed string is accepted by repro and replays its failure", () => {
    const readme = readFileSync('README.md', 'utf8');
    const examples = [...readme.matchAll(/`(gs\d+\.[^`\s]+)`/g)].map((match) => match[1] as string);
    expect(examples.length, 'the README shows a seed string').toBeGreaterThan(0);
    for (const example of examples) {
      const result = cli(['repro', example, '--json']);
      expect(result.stderr, `README example ${example} is refused: regenerate it (see the README)`).toBe('');
      expect(result.status).toBe(1);
      expect((JSON.parse(result.stdout) as { verdict: string }).verdict).toBe('fail');
    }
  });
});
