// CI outputs of a fuzz campaign: --junit writes one test case per scenario and bug set, a failing case carrying its
// seed string; --artifacts writes one folder per failure, named by its seed string; nothing is left when the
// campaign is refused.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, type FuzzJson, scratchDir } from './support.ts';

describe('fuzz --junit and --artifacts', () => {
  it('a campaign with a bug on writes a JUnit case per scenario and an artifacts folder per failure', () => {
    const dir = scratchDir();
    const junit = join(dir, 'junit.xml');
    const artifacts = join(dir, 'failures');
    const result = cli(['fuzz', '--all', '--bugs', 'send-flag', '--runs', '3', '--seed', '3', '--junit', junit, '--artifacts', artifacts, '--json']);
    expect(result.status).toBe(1);
    const json = JSON.parse(result.stdout) as FuzzJson;
    expect(json.failures.length).toBeGreaterThan(0);
    const xml = readFileSync(junit, 'utf8');
    const cases = [...xml.matchAll(/<testcase [^>]*name="([^"]+)"/g)].map((match) => match[1]);
    expect(cases).toHaveLength(5);
    expect(cases.every((name) => name?.includes('[bugs: send-flag]'))).toBe(true);
    expect([...xml.matchAll(/<failure /g)]).toHaveLength(json.failures.length);
    for (const failure of json.failures) expect(xml).toContain(failure.seed);
    expect(readdirSync(artifacts).sort()).toEqual(json.failures.map((failure) => failure.seed).sort());
    for (const failure of json.failures) {
      const report = JSON.parse(readFileSync(join(artifacts, failure.seed, 'report.json'), 'utf8')) as { seed: string; verdict: string };
      expect(report.seed).toBe(failure.seed);
      expect(report.verdict).toBe('fail');
      expect(existsSync(join(artifacts, failure.seed, 'trace.jsonl'))).toBe(true);
    }
    expect(readdirSync(dir).filter((name) => name.includes('partial'))).toEqual([]);
  }, 300_000);

  it('a passing campaign writes a JUnit file without failures and leaves no empty artifacts folder', () => {
    const dir = scratchDir();
    const result = cli(['fuzz', '--scenario', 'exec-replay', '--runs', '2', '--seed', '1', '--junit', join(dir, 'j.xml'), '--artifacts', join(dir, 'a'), '--json']);
    expect(result.status).toBe(0);
    const xml = readFileSync(join(dir, 'j.xml'), 'utf8');
    expect([...xml.matchAll(/<testcase /g)]).toHaveLength(1);
    expect(xml).not.toContain('<failure');
    expect(existsSync(join(dir, 'a'))).toBe(false);
  }, 120_000);

  it('a refused campaign leaves neither the JUnit file nor the artifacts folder behind', () => {
    const dir = scratchDir();
    const result = cli(['fuzz', '--all', '--runs', '1', '--shard', '2/2', '--seed', '1', '--junit', join(dir, 'j.xml'), '--artifacts', join(dir, 'a', 'b')]);
    expect(result.status).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });
});
