// The nightly workflow parses, and everything it runs exists: each `npm run` script is in package.json, each `npx`
// binary is installed, and each flag given to gatesim is a real flag of that command. Its matrix of shards covers
// one campaign: shards 1..n, each `--shard <i>/<n>` with the matrix's n, one seed shared by every shard. It runs the
// long test campaigns that `npm test` leaves out (`npm run test:slow`), and so does .ci/run.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import packageJson from '../../package.json' with { type: 'json' };
import { openclawReleases } from '../../sim/real/openclaw/releases.ts';
import { cli } from './support.ts';

interface Step {
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
}

interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { strategy?: { matrix?: { shard?: number[]; release?: string[] } }; env?: Record<string, string>; 'continue-on-error'?: boolean; steps: Step[] }>;
}

const workflow = parse(readFileSync('.github/workflows/nightly-fuzz.yml', 'utf8')) as Workflow;
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
const commands = steps.flatMap((step) => (step.run === undefined ? [] : step.run.split('\n').map((line) => line.trim())));

/** The flags a gatesim command accepts, read from its --help. */
function flagsOf(command: string): Set<string> {
  const help = cli([command, '--help']).stdout;
  return new Set([...help.matchAll(/(--[a-z][a-z-]*)/g)].map((match) => match[1] as string));
}

describe('.github/workflows/nightly-fuzz.yml', () => {
  it('runs nightly and on demand', () => {
    expect(Object.keys(workflow.on)).toEqual(expect.arrayContaining(['schedule', 'workflow_dispatch']));
  });

  it('runs only npm scripts that exist and npx binaries that are installed', () => {
    const scripts = Object.keys(packageJson.scripts);
    const npmRuns = commands.flatMap((line) => [...line.matchAll(/\bnpm run(?: -s)? ([\w:-]+)/g)].map((match) => match[1] as string));
    expect(npmRuns.length).toBeGreaterThan(0);
    for (const script of npmRuns) expect(scripts, `npm run ${script}`).toContain(script);
    const npx = commands.flatMap((line) => [...line.matchAll(/\bnpx (?:--no-install )?([\w@/.-]+)/g)].map((match) => match[1] as string));
    for (const binary of npx) expect(existsSync(`node_modules/.bin/${binary}`), `npx ${binary}`).toBe(true);
  });

  it('runs the slow tests (npm run test:slow), as .ci/run does', () => {
    expect(packageJson.scripts['test:slow']).toContain('vitest.slow.config.ts');
    expect(commands).toContain('npm run test:slow');
    expect(readFileSync('.ci/run', 'utf8').split('\n')).toContain('npm run test:slow');
  });

  it('gives gatesim only real flags of the command it runs', () => {
    const simLines = commands.filter((line) => /^npm run(?: -s)? sim -- /.test(line));
    expect(simLines.length).toBeGreaterThan(0);
    for (const line of simLines) {
      const [, rest = ''] = /\bsim -- (.*)$/.exec(line) ?? [];
      const command = rest.split(/\s+/)[0] ?? '';
      const known = flagsOf(command);
      const used = [...(rest.split('>')[0] ?? '').matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g)].map((match) => match[1] as string);
      expect(used.length).toBeGreaterThan(3);
      for (const flag of used) expect(known, `${command} ${flag}`).toContain(flag);
    }
  });

  it('cuts one campaign into a matrix of shards with one shared seed, uploading failures and JUnit', () => {
    const fuzz = Object.values(workflow.jobs).find((job) => job.strategy?.matrix?.shard !== undefined);
    const shards = fuzz?.strategy?.matrix?.shard ?? [];
    expect(shards).toEqual(Array.from({ length: shards.length }, (_, index) => index + 1));
    expect(shards.length).toBeGreaterThan(1);
    const line = commands.find((command) => command.includes('--shard')) ?? '';
    expect(line).toContain(`--shard \${{ matrix.shard }}/${shards.length}`);
    const seed = /--seed "?\$(\w+)"?/.exec(line)?.[1] ?? '';
    expect(fuzz?.env?.[seed], 'the seed comes from the job env, the same for every shard').toMatch(/github\.run_number/);
    expect(fuzz?.env?.[seed]).not.toMatch(/matrix/);
    const uploads = steps.filter((step) => step.uses?.startsWith('actions/upload-artifact@') === true).map((step) => String(step.with?.path));
    expect(uploads.some((path) => path.includes('out/failures'))).toBe(true);
    expect(uploads.some((path) => path.includes('junit'))).toBe(true);
    expect(line).toMatch(/--artifacts out\/failures/);
    expect(line).toMatch(/--junit out\/junit/);
    expect(commands.join('\n')).toContain('GITHUB_STEP_SUMMARY');
  });

  it('runs a campaign with each pinned OpenClaw release, installing the workspace, without hiding the failures of the model', () => {
    const job = Object.values(workflow.jobs).find((candidate) => candidate.strategy?.matrix?.release !== undefined);
    expect(job?.strategy?.matrix?.release).toEqual([...openclawReleases]);
    const lines = (job?.steps ?? []).flatMap((step) => (step.run === undefined ? [] : step.run.split('\n').map((line) => line.trim())));
    expect(lines).toContain('npm ci --prefix openclaw --no-audit --no-fund');
    const fuzz = lines.find((line) => line.includes('--openclaw')) ?? '';
    expect(fuzz).toContain('--openclaw ${{ matrix.release }}');
    expect(fuzz).toMatch(/--artifacts out\/failures/);
    // A release's own findings do not turn the workflow red; the model's shards above still do.
    expect(job?.['continue-on-error']).toBe(true);
    const shardJob = Object.values(workflow.jobs).find((candidate) => candidate.strategy?.matrix?.shard !== undefined);
    expect(shardJob?.['continue-on-error']).toBeUndefined();
  });
});
