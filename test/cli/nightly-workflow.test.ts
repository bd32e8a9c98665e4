// The nightly workflow parses, and everything it runs exists: each `npm run` script is in package.json, each `npx`
// binary is installed, and each flag given to gatesim is a real flag of that command. Its matrix of shards covers
// one campaign: shards 1..n, each `--shard <i>/<n>` with the matrix's n, one seed shared by every shard; so does the
// false-alarm campaign's (1,000,000 chaos runs a night). It runs the long test campaigns that `npm test` leaves out
// (`npm run test:slow`), and so does .ci/run; one job runs the real-OpenClaw campaigns that .ci/run leaves out
// (`npm run test:nightly`). The job-summary script writes each failure's replay command. The
// campaigns with real code (each pinned OpenClaw release, the pi SessionManager) check determinism as they go.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import packageJson from '../../package.json' with { type: 'json' };
import { openclawBarePartsOf, openclawPartCodes, openclawPartsOf } from '../../sim/real/openclaw/choice.ts';
import { partsNeedingSupportedNode } from '../../sim/real/openclaw/node-version.ts';
import { openclawPinnedReleases, openclawReleases } from '../../sim/real/openclaw/releases.ts';
import { cli } from './support.ts';

interface Step {
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
}

interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<
    string,
    {
      strategy?: { matrix?: { shard?: number[]; release?: string[]; node?: number[]; include?: { release?: string; node?: number; parts?: string }[] } };
      env?: Record<string, string>;
      'continue-on-error'?: boolean;
      steps: Step[];
    }
  >;
}

const workflow = parse(readFileSync('.github/workflows/nightly-fuzz.yml', 'utf8')) as Workflow;
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
const commands = steps.flatMap((step) => (step.run === undefined ? [] : step.run.split('\n').map((line) => line.trim())));

/** The trimmed lines a job runs. */
function linesOf(job: { steps: Step[] } | undefined): string[] {
  return (job?.steps ?? []).flatMap((step) => (step.run === undefined ? [] : step.run.split('\n').map((line) => line.trim())));
}

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

  it('runs the tests on Node 20 and the current LTS lines, 22 and 24', () => {
    const job = workflow.jobs['slow-tests'] as { strategy?: { matrix?: { node?: number[] } }; steps: Step[] } | undefined;
    expect(job?.strategy?.matrix?.node).toEqual([20, 22, 24]);
    expect(job?.steps.find((step) => step.uses?.startsWith('actions/setup-node') === true)?.with?.['node-version']).toBe('${{ matrix.node }}');
    expect(linesOf(job)).toEqual(expect.arrayContaining(['npm test', 'npm run test:slow']));
  });

  it('runs the slow tests (npm run test:slow), as .ci/run does', () => {
    expect(packageJson.scripts['test:slow']).toContain('vitest.slow.config.ts');
    expect(commands).toContain('npm run test:slow');
    expect(readFileSync('.ci/run', 'utf8').split('\n')).toContain('npm run test:slow');
  });

  it('runs the real-OpenClaw test campaigns that .ci/run leaves out (npm run test:nightly), with the releases installed', () => {
    expect(packageJson.scripts['test:nightly']).toContain('vitest.nightly.config.ts');
    const job = workflow.jobs['nightly-tests'];
    expect(linesOf(job)).toEqual(expect.arrayContaining(['npm ci --prefix openclaw --no-audit --no-fund', 'npm run test:nightly']));
    expect(readFileSync('.ci/run', 'utf8')).not.toContain('test:nightly');
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

  it('cuts each campaign into a matrix of shards with one shared seed, uploading failures and JUnit', () => {
    const sharded = Object.entries(workflow.jobs).filter(([, job]) => job.strategy?.matrix?.shard !== undefined);
    expect(sharded.map(([name]) => name)).toEqual(['fuzz', 'chaos']);
    for (const [name, job] of sharded) {
      const shards = job.strategy?.matrix?.shard ?? [];
      expect(shards, name).toEqual(Array.from({ length: shards.length }, (_, index) => index + 1));
      expect(shards.length, name).toBeGreaterThan(1);
      const lines = linesOf(job);
      const line = lines.find((command) => command.includes('--shard')) ?? '';
      expect(line, name).toContain(`--shard \${{ matrix.shard }}/${shards.length}`);
      const seed = /--seed "?\$(\w+)"?/.exec(line)?.[1] ?? '';
      expect(job.env?.[seed], `${name}: the seed comes from the job env, the same for every shard`).toMatch(/github\.run_number/);
      expect(job.env?.[seed], name).not.toMatch(/matrix/);
      const uploads = job.steps.filter((step) => step.uses?.startsWith('actions/upload-artifact@') === true).map((step) => String(step.with?.path));
      expect(uploads.some((path) => path.includes('out/failures')), name).toBe(true);
      expect(uploads.some((path) => path.includes('junit')), name).toBe(true);
      expect(line, name).toMatch(/--artifacts out\/failures/);
      expect(line, name).toMatch(/--junit out\/junit/);
      expect(lines.some((command) => command.startsWith('node .github/scripts/campaign-summary.mjs ')), `${name} writes the job summary`).toBe(true);
      // A shard that found a failure fails its job (the model's campaigns turn the workflow red).
      expect(job['continue-on-error'], name).toBeUndefined();
    }
  });

  it('runs the false-alarm campaign: 1,000,000 chaos runs a night unless asked for fewer', () => {
    const chaos = workflow.jobs.chaos;
    const line = linesOf(chaos).find((command) => command.includes('--shard')) ?? '';
    expect(line).toContain('fuzz --scenario chaos --runs "$RUNS"');
    expect(chaos?.env?.RUNS).toContain("'1000000'");
    const dispatch = workflow.on.workflow_dispatch as { inputs: Record<string, { default: string }> };
    expect(dispatch.inputs.chaos_runs?.default).toBe('1000000');
    expect(chaos?.env?.RUNS).toContain('inputs.chaos_runs');
  });

  it("writes each campaign's seed strings to the job summary, ready to replay", () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatesim-summary-'));
    try {
      const campaign = join(dir, 'campaign.json');
      const summary = join(dir, 'summary.md');
      const seed = 'gs2.chaos.none.1.0.0_1_0-0.00000000';
      const mismatch = { scenario: 'chaos', run: 7, seed, firstDivergence: { index: 41, between: [0, 2], a: { kind: 'net.deliver' }, b: { kind: 'fault' } } };
      writeFileSync(
        campaign,
        JSON.stringify({
          runs: 12,
          failures: [{ scenario: 'chaos', invariant: 'no-lost-reply', class: 'correctness', message: 'a reply was never shown', seed, shrinkRuns: 300, shrinkComplete: false }],
          determinism: { fraction: 0.1, checked: 3, mismatches: [mismatch] },
          documented: [{ scenario: 'exec-replay', run: 4, seed, findings: [{ invariant: 'no-double-ingestion', section: 'Node exec events, real' }] }],
        }),
      );
      const run = (json: string): ReturnType<typeof spawnSync> =>
        spawnSync(process.execPath, ['.github/scripts/campaign-summary.mjs', 'Chaos shard 1/12', json], { env: { ...process.env, GITHUB_STEP_SUMMARY: summary, STATUS: '1' }, encoding: 'utf8' });
      expect(run(campaign).status).toBe(0);
      const text = readFileSync(summary, 'utf8');
      expect(text).toContain('## Chaos shard 1/12');
      expect(text).toContain('12 runs, 1 failing scenario(s), exit status 1');
      expect(text).toContain('**chaos**: no-lost-reply (correctness): a reply was never shown (shrink stopped at 300 runs; not minimal)');
      expect(text).toContain('Determinism check: 3 runs replayed twice, 1 gave another trace');
      expect(text).toContain('**chaos** run 7: traces differ from event #41 (net.deliver against fault)');
      expect(text).toContain('Gone past: 1 run(s) failed only with findings docs/MODEL.md documents about the real code');
      expect(text).toContain('**exec-replay** run 4: no-double-ingestion: "Node exec events, real"');
      expect(text).toContain(`npm run sim -- repro ${seed}`);
      // A campaign that printed nothing (it crashed) is said so, not taken for a clean one.
      expect(run(join(dir, 'missing.json')).status).toBe(0);
      expect(readFileSync(summary, 'utf8')).toContain('The campaign printed no JSON (exit status 1)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs a campaign with each pinned OpenClaw release, installing the workspace, going past its documented findings only', () => {
    const job = Object.values(workflow.jobs).find((candidate) => candidate.strategy?.matrix?.release !== undefined);
    expect(job?.strategy?.matrix?.release).toEqual([...openclawPinnedReleases]);
    // Every release on Node 24, which every release's engines accept (so every part runs in place, as its release
    // supports); the JSONL-era releases again on Node 20 with every part that runs in place there (all but those
    // that re-run themselves under a supported Node), so a part whose engines exclude Node 20 runs on both Nodes.
    expect(job?.strategy?.matrix?.node).toEqual([24]);
    const setup = job?.steps.find((step) => step.uses?.startsWith('actions/setup-node') === true);
    expect(setup?.with?.['node-version']).toBe('${{ matrix.node }}');
    const onNode20 = (job?.strategy?.matrix?.include ?? []).filter((entry) => entry.node === 20);
    expect(onNode20.map((entry) => entry.release)).toEqual([...openclawReleases]);
    for (const entry of onNode20) {
      const release = entry.release as (typeof openclawReleases)[number];
      const inPlace = openclawBarePartsOf(release).filter((part) => !partsNeedingSupportedNode.includes(part));
      expect(entry.parts, release).toBe(`:${inPlace.map((part) => openclawPartCodes[part]).join(',')}`);
      expect(inPlace.length, release).toBe(openclawPartsOf(release).length - partsNeedingSupportedNode.length);
    }
    const lines = linesOf(job);
    expect(lines).toContain('npm ci --prefix openclaw --no-audit --no-fund');
    const fuzz = lines.find((line) => line.includes('--openclaw')) ?? '';
    expect(fuzz).toContain('--openclaw ${{ matrix.release }}${{ matrix.parts }}');
    expect(fuzz).toMatch(/--artifacts out\/failures/);
    // A sample of its runs is replayed on a fresh worker thread (the release loaded again) and the traces compared.
    expect(fuzz).toMatch(/--check-determinism(?:=0?\.\d+)?(?:\s|$)/);
    // A release's documented findings are gone past, listed; a new failure stops its scenario and turns the job red.
    expect(fuzz).toMatch(/--past-documented(?:\s|$)/);
    expect(job?.['continue-on-error']).toBeUndefined();
  });

  it('runs a campaign with the real pi SessionManager, installing it, checking determinism, going past its documented finding only', () => {
    const job = Object.values(workflow.jobs).find((candidate) => linesOf(candidate).some((line) => line.includes('--session-manager pi')));
    const lines = linesOf(job);
    expect(lines).toContain('npm ci --prefix real --no-audit --no-fund');
    const fuzz = lines.find((line) => line.includes('--session-manager pi')) ?? '';
    expect(fuzz).toMatch(/^npm run -s sim -- fuzz --all /);
    expect(fuzz).toMatch(/--seed "\$CAMPAIGN_SEED"/);
    expect(job?.env?.CAMPAIGN_SEED).toMatch(/github\.run_number/);
    expect(fuzz).toMatch(/--check-determinism(?:=0?\.\d+)?(?:\s|$)/);
    expect(fuzz).toMatch(/--artifacts out\/failures/);
    expect(lines.some((command) => command.startsWith('node .github/scripts/campaign-summary.mjs '))).toBe(true);
    // pi's documented finding under chaos is gone past, listed; a new failure turns the job red.
    expect(fuzz).toMatch(/--past-documented(?:\s|$)/);
    expect(job?.['continue-on-error']).toBeUndefined();
  });
});
