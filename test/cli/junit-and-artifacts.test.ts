// CI outputs of a fuzz campaign: --junit writes one test case per scenario and bug set, a failing case carrying its
// seed string; --artifacts writes one folder per failure, named by its seed string; nothing is left when the
// campaign is refused. The campaign over every scenario with a bug on (about 30 s) is
// junit-and-artifacts-of-a-failing-campaign.slow.test.ts, in `npm run test:slow`.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactFolderName } from '../../sim/cli/real.ts';
import { cli, scratchDir } from './support.ts';

describe('fuzz --junit and --artifacts', () => {
  it('a passing campaign writes a JUnit file without failures and leaves no empty artifacts folder', () => {
    const dir = scratchDir();
    const result = cli(['fuzz', '--scenario', 'exec-replay', '--runs', '2', '--seed', '1', '--junit', join(dir, 'j.xml'), '--artifacts', join(dir, 'a'), '--json']);
    expect(result.status).toBe(0);
    const xml = readFileSync(join(dir, 'j.xml'), 'utf8');
    expect([...xml.matchAll(/<testcase /g)]).toHaveLength(1);
    expect(xml).not.toContain('<failure');
    expect(existsSync(join(dir, 'a'))).toBe(false);
  }, 120_000);

  it('an artifacts directory used again holds only the second runs files; one gatesim did not write is refused', () => {
    const dir = scratchDir();
    const artifacts = join(dir, 'a');
    expect(cli(['fuzz', '--scenario', 'send-mid-turn', '--bugs', 'send-flag', '--runs', '5', '--seed', '1', '--artifacts', artifacts]).status).toBe(1);
    const first = readdirSync(artifacts).filter((name) => !name.startsWith('.'));
    expect(first).toHaveLength(1);
    expect(cli(['fuzz', '--scenario', 'exec-replay', '--bugs', 'exec-replay', '--runs', '5', '--seed', '2', '--artifacts', artifacts]).status).toBe(1);
    const second = readdirSync(artifacts).filter((name) => !name.startsWith('.'));
    expect(second).toHaveLength(1);
    expect(second[0]).toMatch(/^gs2\.exec-replay\./);
    const run = join(dir, 'r');
    const filesUnder = (folder: string): string[] => readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile() && !entry.name.startsWith('.')).map((entry) => join(entry.parentPath, entry.name));
    const chaos = cli(['run', 'chaos', '--seed', '7', '--artifacts', run]);
    const chaosFiles = Number(/artifacts: (\d+) files/.exec(chaos.stdout)?.[1]);
    expect(chaosFiles).toBe(filesUnder(run).length);
    const small = cli(['run', 'send-mid-turn', '--seed', '4', '--artifacts', run]);
    expect(small.status).toBe(0);
    const written = Number(/artifacts: (\d+) files/.exec(small.stdout)?.[1]);
    // The chaos run wrote more files (more sessions): had they stayed, the count would not match.
    expect(chaosFiles).toBeGreaterThan(written);
    expect(filesUnder(run)).toHaveLength(written);
    const report = JSON.parse(readFileSync(join(run, 'report.json'), 'utf8')) as { scenario: string };
    expect(report.scenario).toBe('send-mid-turn');
    const foreign = join(dir, 'mine');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'notes.txt'), 'my own file');
    const refused = cli(['run', 'chaos', '--seed', '1', '--artifacts', foreign]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('not empty');
    expect(readdirSync(foreign)).toEqual(['notes.txt']);
  }, 300_000);

  it('names an artifacts folder by its seed string, or by a prefix and a hash when that would pass 255 bytes', () => {
    expect(artifactFolderName('gs2.chaos.none.1.r.0_1_0-abcdef.12345678')).toBe('gs2.chaos.none.1.r.0_1_0-abcdef.12345678');
    const long = `gs2.chaos@load-${'A'.repeat(300)}.none.1.${'0-'.repeat(60)}0.0_1_0-abcdef.12345678`;
    const name = artifactFolderName(long);
    expect(Buffer.byteLength(`${name}.partial-4194304`)).toBeLessThan(255);
    expect(artifactFolderName(`${long}x`)).not.toBe(name);
  });

  it('a refused campaign leaves neither the JUnit file nor the artifacts folder behind', () => {
    const dir = scratchDir();
    const result = cli(['fuzz', '--all', '--runs', '1', '--shard', '2/2', '--seed', '1', '--junit', join(dir, 'j.xml'), '--artifacts', join(dir, 'a', 'b')]);
    expect(result.status).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });
});
