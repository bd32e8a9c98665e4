// CI outputs of a failing fuzz campaign over every scenario (send-flag on, about 30 s, so in `npm run test:slow`):
// --junit writes one test case per scenario and bug set, named stably from night to night, a failing case carrying
// its seed string; --artifacts writes one folder per failure, named by its seed string, with report.json and
// trace.jsonl; --json gives each failure's message, run and shrink count, and each scenario's first failing run.
// junit-and-artifacts.test.ts (in `npm test`) has the passing, reused and refused cases.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scenarioNames } from '../../scenarios/index.ts';
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
    expect(cases).toHaveLength(scenarioNames.length);
    // Stable from night to night (no run count in the name), so CI history follows one case per scenario.
    expect(cases.sort()).toEqual([...scenarioNames].sort().map((scenario) => `${scenario} [bugs: send-flag]`));
    expect([...xml.matchAll(/<failure /g)]).toHaveLength(json.failures.length);
    for (const failure of json.failures) expect(xml).toContain(failure.seed);
    expect(xml).toContain("code under test: gatesim's model only, no real code");
    expect(readdirSync(artifacts).filter((name) => !name.startsWith('.')).sort()).toEqual(json.failures.map((failure) => failure.seed).sort());
    const detailed = json.failures as (FuzzJson['failures'][number] & { message: string; run: number; shrinkRuns: number })[];
    for (const failure of detailed) {
      expect(failure.message.length).toBeGreaterThan(0);
      expect(failure.run).toBeGreaterThanOrEqual(1);
      expect(failure.shrinkRuns).toBeGreaterThanOrEqual(0);
    }
    const perScenario = (json as unknown as { scenarios: { scenario: string; runs: number; firstFailureRun: number | null }[] }).scenarios;
    expect(perScenario.map((entry) => entry.scenario)).toEqual(scenarioNames);
    for (const failure of detailed) expect(perScenario.find((entry) => entry.scenario === failure.scenario)?.firstFailureRun).toBe(failure.run);
    for (const failure of json.failures) {
      const report = JSON.parse(readFileSync(join(artifacts, failure.seed, 'report.json'), 'utf8')) as { seed: string; verdict: string };
      expect(report.seed).toBe(failure.seed);
      expect(report.verdict).toBe('fail');
      expect(existsSync(join(artifacts, failure.seed, 'trace.jsonl'))).toBe(true);
    }
    expect(readdirSync(dir).filter((name) => name.includes('partial'))).toEqual([]);
  }, 300_000);
});
