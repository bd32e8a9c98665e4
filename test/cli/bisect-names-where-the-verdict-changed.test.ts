// `gatesim bisect <seed-string> [--openclaw <from>..<to>]` replays the plan of a seed string made with --openclaw with
// the same parts of each pinned release (sim/cli/bisect.ts) and names where the verdict changed. The pure parts: the
// range (either end optional, in release order, unknown releases refused naming the known ones), the rows (a release
// that cannot run the parts is not comparable, by choice.ts's refusal; one not installed is not run, and says how to
// install it), the changes along the releases that ran. Then the command itself on docs/MODEL.md's seed 11 of
// exec-replay, which fails on 2026.4.24 by no-double-ingestion (seed 000's finish across a restart) and passes on
// 2026.7.1, and the refusal of a string without an @oc tag.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { findScenario } from '../../scenarios/index.ts';
import { bisectJson, bisectText, type BisectRow, choicesToRun, findChanges, mostDemandingChoice, parseReleaseRange, planBisect, runBisect, summaryLine } from '../../sim/cli/bisect.ts';
import { UsageError } from '../../sim/cli/fuzz-command.ts';
import { decodeSeedString, encodeSeedString } from '../../sim/cli/seed-string.ts';
import { parseOpenclawChoice } from '../../sim/real/openclaw/choice.ts';
import { openclawInstalled, openclawPinnedReleases, openclawReleases } from '../../sim/real/openclaw/releases.ts';
import { RealCodeEscapeError, type RunResult } from '../../sim/run/harness.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { cli } from './support.ts';

const seed11 = 'gs2.exec-replay@oc-2026_4_24~se+hw+ne.none.11.r.0_1_0-9263af.e3b72d85';
const withoutOc = 'gs2.send-mid-turn.send-flag.2015547593.0-0-0-0-2-3-2-2-9-2-3-3-2-2-2-2-2-2-2-2-2-2.0_1_0-e70021.09396b56';

describe('the release range', () => {
  const table = ['1.0', '1.1', '2.0', '3.0'] as const;

  it('is every release by default, and A..B, A.., ..B, .. and A alone, both ends included', () => {
    expect(parseReleaseRange(undefined, table)).toEqual(table);
    expect(parseReleaseRange('1.1..2.0', table)).toEqual(['1.1', '2.0']);
    expect(parseReleaseRange('1.1..', table)).toEqual(['1.1', '2.0', '3.0']);
    expect(parseReleaseRange('..1.1', table)).toEqual(['1.0', '1.1']);
    expect(parseReleaseRange('..', table)).toEqual(table);
    expect(parseReleaseRange('2.0', table)).toEqual(['2.0']);
    expect(parseReleaseRange(' 2.0..2.0 ', table)).toEqual(['2.0']);
    expect(parseReleaseRange('2026.4.24..2026.7.1', openclawReleases)).toEqual(['2026.4.24', '2026.7.1']);
  });

  it('refuses an unknown release naming the known ones, ends out of order, parts, and a third end', () => {
    expect(() => parseReleaseRange('1.0..2.5', table)).toThrow(UsageError);
    expect(() => parseReleaseRange('1.0..2.5', table)).toThrow('unknown OpenClaw release "2.5" in --openclaw 1.0..2.5 (known, in release order: 1.0, 1.1, 2.0, 3.0)');
    expect(() => parseReleaseRange('2026.5.1..', openclawPinnedReleases)).toThrow(/known, in release order: 2026\.4\.24, 2026\.7\.1, 2026\.7\.35, 2026\.8\.1, 2026\.9\.6/);
    expect(() => parseReleaseRange('2.0..1.1', table)).toThrow('2.0 comes after 1.1 in release order');
    expect(() => parseReleaseRange('2026.4.24:se..', openclawReleases)).toThrow(/takes the parts from the seed string/);
    expect(() => parseReleaseRange('1.0..1.1..2.0', table)).toThrow(/takes <from>\.\.<to>/);
  });
});

const rows = (verdicts: string): Pick<BisectRow, 'release' | 'verdict'>[] =>
  verdicts.split(' ').map((verdict, index) => ({ release: `r${index}`, verdict: ({ p: 'pass', f: 'fail', n: 'not-comparable', i: 'not-installed' } as const)[verdict as 'p'] }));

describe('the changes', () => {
  it('changed once: the first failing and first passing releases, and where', () => {
    const summary = findChanges(rows('f p'));
    expect(summary).toMatchObject({ firstFailing: 'r0', firstPassing: 'r1', changes: [{ from: 'r0', to: 'r1', before: 'fail', after: 'pass', skipped: [] }] });
    expect(summaryLine(summary)).toBe('fails from r0 to r0, passes from r1 on: changed between r0 and r1');
    const regression = findChanges(rows('p p f f'));
    expect(regression.firstFailing).toBe('r2');
    expect(summaryLine(regression)).toBe('passes from r0 to r1, fails from r2 on: changed between r1 and r2');
  });

  it('skips releases that did not run, and says which lay between', () => {
    const summary = findChanges(rows('n f i n p i'));
    expect(summary.changes).toEqual([{ from: 'r1', to: 'r4', before: 'fail', after: 'pass', skipped: ['r2', 'r3'] }]);
    expect(summaryLine(summary)).toBe('fails from r1 to r1, passes from r4 on: changed between r1 and r4 (not run between them: r2, r3)');
  });

  it('changed more than once: says so and lists each change', () => {
    const summary = findChanges(rows('f p f'));
    expect(summary.changes).toHaveLength(2);
    expect(summary.firstFailing).toBe('r0');
    expect(summary.firstPassing).toBe('r1');
    expect(summaryLine(summary)).toBe('the verdict changes 2 times: fail to pass between r0 and r1; pass to fail between r1 and r2');
  });

  it('all agree, one ran, none ran', () => {
    expect(summaryLine(findChanges(rows('p n p')))).toBe('all 2 releases that ran agree: every one passes (r0 to r2)');
    expect(findChanges(rows('f f'))).toMatchObject({ firstFailing: 'r0', firstPassing: null, changes: [] });
    expect(summaryLine(findChanges(rows('i f')))).toBe('only r1 ran the plan: it fails');
    expect(summaryLine(findChanges(rows('n i')))).toBe('no release ran the plan: no verdict to compare');
    expect(findChanges(rows('n i'))).toMatchObject({ firstFailing: null, firstPassing: null });
  });
});

describe('the rows of a bisect', () => {
  it('refuses a seed string without an @oc tag, saying how to make one', () => {
    expect(() => planBisect(decodeSeedString(withoutOc), undefined)).toThrow(UsageError);
    expect(() => planBisect(decodeSeedString(withoutOc), undefined)).toThrow(/^bisect needs a seed string made with --openclaw .*run send-mid-turn --seed 2015547593 --openclaw <release>/);
  });

  it("give each release the string's parts and a seed string of its own (the string itself for its release); not installed: not run, how to install", () => {
    const plan = planBisect(decodeSeedString(seed11), undefined, (release) => release === '2026.4.24');
    expect(plan.parts).toEqual(['system-events', 'heartbeat-wake', 'node-events']);
    expect(plan.rows.map((row) => row.release)).toEqual([...openclawPinnedReleases]);
    // Every release runs node-events, the SQLite era's on its agent database (simulated node:sqlite): each has a row to run.
    for (const row of plan.rows.slice(3)) expect(row).toMatchObject({ verdict: 'not-installed', choice: parseOpenclawChoice(`${row.release}:se,hw,ne`) });
    expect(plan.rows[0]).toMatchObject({ release: '2026.4.24', seed: seed11, choice: parseOpenclawChoice('2026.4.24:se,hw,ne') });
    expect(plan.rows[0]?.verdict).toBeUndefined();
    expect(plan.rows[1]).toMatchObject({ release: '2026.7.1', verdict: 'not-installed', choice: parseOpenclawChoice('2026.7.1:se,hw,ne') });
    expect(plan.rows[1]?.seed).toMatch(/^gs2\.exec-replay@oc-2026_7_1~se\+hw\+ne\.none\.11\.r\./);
    expect(plan.rows[1]?.reason).toMatch(/openclaw 2026\.7\.1 is not installed: run `npm ci --prefix openclaw`.*only the workspace's pinned releases run/);
    // The string was made before the release table around the parts (surroundings.ts): every release runs with the
    // fixed model's defences around its parts, as the string's own run did; a string made with the table gives each
    // release its own.
    expect(choicesToRun(plan)).toEqual([{ ...parseOpenclawChoice('2026.4.24:se,hw,ne'), around: 'model' }]);
    const withTable = encodeSeedString({ ...decodeSeedString(seed11), openclaw: parseOpenclawChoice('2026.4.24:se,hw,ne') }, plan.spec);
    expect(withTable).toMatch(/@oc-2026_4_24~se\+hw\+ne~r1\./);
    expect(choicesToRun(planBisect(decodeSeedString(withTable), undefined, (release) => release === '2026.4.24'))).toEqual([parseOpenclawChoice('2026.4.24:se,hw,ne')]);
  });

  it("a release that cannot run the parts is not comparable, by choice.ts's refusal", () => {
    // 2026.4.24's mirror append alone: 2026.7.1's append takes the release's own write lock, so it needs wl too.
    const scenario = findScenario('exec-replay');
    if (scenario === undefined) throw new Error('no exec-replay');
    const choice = parseOpenclawChoice('2026.4.24:ma');
    const text = encodeSeedString({ scenario: 'exec-replay', openclaw: choice, bugs: [], seed: 11, path: undefined }, generateSpec(scenario, [], 11, undefined));
    const plan = planBisect(decodeSeedString(text), undefined, () => true);
    expect(plan.rows[0]).toMatchObject({ release: '2026.4.24', seed: text });
    expect(plan.rows[1]).toMatchObject({ release: '2026.7.1', verdict: 'not-comparable' });
    expect(plan.rows[1]?.reason).toMatch(/mirror-append of openclaw 2026\.7\.1 runs with session-write-lock/);
    expect(plan.rows[1]?.seed).toBeUndefined();
  });

  it('run one after the other, each disposed; the text and the JSON name the verdicts and the change', async () => {
    const plan = planBisect(decodeSeedString(seed11), undefined, () => true);
    const disposed: string[] = [];
    const fake = (release: string, failing: boolean): RunResult =>
      ({
        verdict: failing ? 'fail' : 'pass',
        violations: failing ? [{ invariant: 'no-double-ingestion', class: 'correctness', step: 5, message: '' }, { invariant: 'no-lost-reply', class: 'correctness', step: 9, message: '' }] : [],
        traceHash: `hash-${release}`,
        sim: { dispose: () => disposed.push(release) },
      }) as unknown as RunResult;
    const result = await runBisect(plan, async (choice) => fake(choice.release, choice.release === '2026.4.24'));
    expect(disposed).toEqual([...openclawPinnedReleases]);
    expect(result[0]).toEqual({ release: '2026.4.24', verdict: 'fail', invariant: 'no-double-ingestion', class: 'correctness', seed: seed11, traceHash: 'hash-2026.4.24' });
    expect(result[1]).toMatchObject({ release: '2026.7.1', verdict: 'pass', traceHash: 'hash-2026.7.1' });
    const json = bisectJson({ plan, rows: result });
    expect(json).toMatchObject({ seed: seed11, scenario: 'exec-replay', firstFailing: '2026.4.24', firstPassing: '2026.7.1', changes: 1 });
    expect(json.note).toMatch(/only the workspace's pinned releases run/);
    const text = bisectText({ plan, rows: result });
    expect(text).toMatch(/2026\.4\.24 +fail {2}no-double-ingestion \(correctness\) +hash-2026\.4\.24 +gs2\.exec-replay@oc-2026_4_24/);
    expect(text).toMatch(/2026\.7\.1 +pass +hash-2026\.7\.1 +gs2\.exec-replay@oc-2026_7_1/);
    expect(text.split('\n').at(-1)).toBe('fails from 2026.4.24 to 2026.4.24, passes from 2026.7.1 on: changed between 2026.4.24 and 2026.7.1');
  });

  it('a release whose code reaches what is not simulated is a row without a verdict, and the others still run', async () => {
    const plan = planBisect(decodeSeedString(seed11), '2026.4.24..2026.7.1', () => true);
    const result = await runBisect(plan, async (choice) => {
      if (choice.release === '2026.4.24') throw new RealCodeEscapeError('openclaw 2026.4.24: the real code reached what the simulation does not cover: a socket');
      return { verdict: 'pass', violations: [], traceHash: 'hash', sim: { dispose: () => undefined } } as unknown as RunResult;
    });
    expect(result[0]).toMatchObject({ release: '2026.4.24', verdict: 'not-simulated', reason: expect.stringMatching(/a socket/) });
    expect(result[1]).toMatchObject({ release: '2026.7.1', verdict: 'pass' });
    expect(bisectText({ plan, rows: result })).toMatch(/2026\.4\.24 +not simulated/);
    await expect(runBisect(plan, async () => Promise.reject(new Error('a bug of gatesim')))).rejects.toThrow('a bug of gatesim');
  });

  it('hand underSupportedNode the choice whose Node need the running Node does not meet', () => {
    const plain = parseOpenclawChoice('2026.4.24:se,hw');
    const repair4 = parseOpenclawChoice('2026.4.24:fr');
    const repair7 = parseOpenclawChoice('2026.7.1:fr');
    expect(mostDemandingChoice([plain])).toBeUndefined();
    expect(mostDemandingChoice([plain, repair4, repair7], 'v22.20.0')).toBe(repair7);
    expect(mostDemandingChoice([plain, repair4, repair7], 'v20.20.2')).toBe(repair4);
    expect(mostDemandingChoice([plain, repair4, repair7], 'v24.21.0')).toBe(repair4);
  });
});

describe('gatesim bisect', () => {
  const installed = openclawReleases.every(openclawInstalled);

  it.skipIf(!installed)("names where exec-replay's seed 11 stopped failing: 2026.4.24 fails by no-double-ingestion, 2026.7.1 passes", () => {
    const started = performance.now();
    const result = cli(['bisect', seed11, '--openclaw', '2026.4.24..2026.7.1', '--json'], {}, 600_000);
    const wallMs = performance.now() - started;
    process.stderr.write(`bisect of seed 11 over both pinned releases: ${Math.round(wallMs)} ms\n`);
    expect(result.stderr).toContain('gatesim: loading OpenClaw 2026.4.24 (system-events, heartbeat-wake, node-events) before the first run');
    expect(result.stderr).toContain('gatesim: loading OpenClaw 2026.7.1 (system-events, heartbeat-wake, node-events) before the first run');
    expect(result.status).toBe(0);
    const json = JSON.parse(result.stdout) as { seed: string; scenario: string; parts: string[]; releases: BisectRow[]; firstFailing: string | null; firstPassing: string | null; changes: number; note: string };
    expect(json).toMatchObject({ seed: seed11, scenario: 'exec-replay', parts: ['system-events', 'heartbeat-wake', 'node-events'], firstFailing: '2026.4.24', firstPassing: '2026.7.1', changes: 1 });
    expect(json.note).toMatch(/only the workspace's pinned releases run/);
    const [old, recent] = json.releases;
    expect(json.releases).toHaveLength(2);
    expect(old).toEqual({ release: '2026.4.24', verdict: 'fail', invariant: 'no-double-ingestion', class: 'correctness', seed: seed11, traceHash: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown as string });
    expect(recent).toEqual({ release: '2026.7.1', verdict: 'pass', seed: expect.stringMatching(/^gs2\.exec-replay@oc-2026_7_1~se\+hw\+ne\.none\.11\.r\.0_1_0-9263af\.[0-9a-f]{8}$/) as unknown as string, traceHash: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown as string });
    // The row's seed string replays the row's run alone: the same verdict and trace hash.
    const replay = cli(['repro', recent?.seed ?? '', '--json'], {}, 300_000);
    expect(replay.status).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ verdict: 'pass', traceHash: recent?.traceHash });
  }, 900_000);

  it('refuses a seed string without an @oc tag (exit 2, one line) and an unknown release', () => {
    const refused = cli(['bisect', withoutOc]);
    expect(refused.status).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/^gatesim: bisect needs a seed string made with --openclaw \(tag @oc-<release>~<parts>\); make one with `npm run sim -- run send-mid-turn --seed 2015547593 --openclaw <release>`/);
    const unknown = cli(['bisect', seed11, '--openclaw', '2026.5.1..']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim()).toBe('gatesim: unknown OpenClaw release "2026.5.1" in --openclaw 2026.5.1.. (known, in release order: 2026.4.24, 2026.7.1, 2026.7.35, 2026.8.1, 2026.9.6)');
  }, 120_000);
});
