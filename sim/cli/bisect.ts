// `gatesim bisect <seed-string> [--openclaw <from>..<to>] [--json]` (issue 43 item 4): the plan of a seed string made
// with --openclaw (tag `@oc-<release>~<parts>`), the same scenario, bug set, seed and shrink path, replayed with the same
// parts of each pinned release of the release table in release order (sim/real/openclaw/releases.ts), and a table of
// the verdicts: `pass`, `fail` (the first violated invariant and its class), `not comparable` (the release cannot run
// the string's parts: choice.ts's own refusal says why), `not simulated` (the release's code reached what the simulated
// world does not cover yet, harness.ts RealCodeEscapeError: no verdict) or `not installed` (how to install it; only the workspace's
// pinned releases run, nothing is installed on demand). Then where the verdict changed along the releases that ran.
// Each row that ran names the seed string that replays it alone (`repro`) and its trace hash. Bisect is a question,
// not a check: exit 0 whenever the table is produced, whatever the verdicts.
//
// The pure parts (the range, the plan of rows, the changes, the text and the JSON) are here; main.ts runs the rows
// through its own run path (runWith: the loading line, the workspace's errors) under a Node every release supports.
import type { BugId } from '../../src/index.ts';
import { findScenario } from '../../scenarios/index.ts';
import { generateSpec } from '../run/generate.ts';
import { RealCodeEscapeError, type RunResult } from '../run/harness.ts';
import type { RunSpec } from '../run/plan.ts';
import { type OpenclawChoice, OpenclawChoiceError, type OpenclawGatewayPart, openclawPartCodes, openclawPartsOf, parseOpenclawChoice } from '../real/openclaw/choice.ts';
import { nodeNeedOf, nodeSatisfies } from '../real/openclaw/node-version.ts';
import { openclawInstalled, openclawInstallHint, openclawPinnedReleases, type OpenclawRelease } from '../real/openclaw/releases.ts';
import { UsageError } from './fuzz-command.ts';
import { runningNodeVersion } from './real.ts';
import { cliInvocation, clip, type decodeSeedString, encodeSeedString, SeedStringError, tagsOf, verifySeedString } from './seed-string.ts';

export type BisectVerdict = 'pass' | 'fail' | 'not-comparable' | 'not-installed' | 'not-simulated';

/** What the text and the JSON say of which releases run: nothing is installed on demand (yet). */
export const pinnedOnlyNote = "only the workspace's pinned releases run (a release is not installed on demand)";

/**
 * The releases `--openclaw <from>..<to>` names, in release order, both ends included; either end may be left out
 * (`A..`, `..B`, `..`), and a release alone is that release. Bad input (an unknown release, parts, ends out of order)
 * is a UsageError naming the known releases.
 */
export function parseReleaseRange<Release extends string>(text: string | undefined, releases: readonly Release[]): readonly Release[] {
  if (text === undefined) return releases;
  const known = `known, in release order: ${releases.join(', ')}`;
  const trimmed = text.trim();
  if (trimmed.includes(':')) throw new UsageError(`bisect takes the parts from the seed string; --openclaw names releases only, <from>..<to> (either end optional; ${known}), got "${clip(text)}"`);
  const ends = trimmed.split('..');
  if (ends.length > 2) throw new UsageError(`--openclaw takes <from>..<to> (either end optional; ${known}), got "${clip(text)}"`);
  const indexOf = (end: string | undefined, fallback: number): number => {
    if (end === undefined || end === '') return fallback;
    const index = releases.indexOf(end as Release);
    if (index < 0) throw new UsageError(`unknown OpenClaw release "${clip(end)}" in --openclaw ${clip(trimmed)} (${known})`);
    return index;
  };
  const from = indexOf(ends[0], 0);
  const to = ends.length === 1 ? from : indexOf(ends[1], releases.length - 1);
  if (from > to) throw new UsageError(`--openclaw ${clip(trimmed)}: ${releases[from]} comes after ${releases[to]} in release order (${releases.join(', ')})`);
  return releases.slice(from, to + 1);
}

/** One release's row before anything runs: the choice to run, or why it is not run. */
export interface PlannedRow {
  release: OpenclawRelease;
  /** The string's parts of this release; undefined when the release cannot run them. */
  choice?: OpenclawChoice;
  /** The seed string that replays this release's run (when it has the parts). */
  seed?: string;
  verdict?: 'not-comparable' | 'not-installed';
  reason?: string;
}

export interface BisectPlan {
  /** The seed string bisected, as given (trimmed). */
  input: string;
  scenario: string;
  bugs: readonly BugId[];
  seed: number;
  path: string | undefined;
  parts: readonly OpenclawGatewayPart[];
  spec: RunSpec;
  rows: readonly PlannedRow[];
}

type Decoded = ReturnType<typeof decodeSeedString>;

/** The line refusing a seed string without an @oc tag: what bisect needs, and how to make it. */
export function needsOpenclawMessage(decoded: Pick<Decoded, 'scenario' | 'seed'>): string {
  return `bisect needs a seed string made with --openclaw (tag @oc-<release>~<parts>); make one with \`${cliInvocation()} run ${decoded.scenario} --seed ${decoded.seed} --openclaw <release>\` or \`${cliInvocation()} fuzz --scenario ${decoded.scenario} --openclaw <release>\``;
}

/**
 * Plan a bisect: the string's plan (verified as `repro` verifies it) and one row per release of the range, with the
 * string's parts of that release (choice.ts's parseOpenclawChoice: its refusal is the reason a release is not
 * comparable) and the seed string of its run; a release that is not installed is not run.
 */
export function planBisect(decoded: Decoded, rangeText: string | undefined, installed: (release: OpenclawRelease) => boolean = openclawInstalled): BisectPlan {
  const from = decoded.openclaw;
  if (from === undefined) throw new UsageError(needsOpenclawMessage(decoded));
  const releases = parseReleaseRange(rangeText, openclawPinnedReleases);
  const scenario = findScenario(decoded.scenario);
  if (scenario === undefined) throw new SeedStringError(`unknown scenario "${clip(decoded.scenario)}"`);
  let spec: RunSpec;
  try {
    spec = generateSpec(scenario, decoded.bugs, decoded.seed, decoded.path);
  } catch (error) {
    if (error instanceof SeedStringError) throw error;
    throw new SeedStringError('seed string does not replay: its shrink path does not exist for this scenario');
  }
  verifySeedString(decoded, spec);
  const codes = from.parts.map((part) => openclawPartCodes[part]).join(',');
  const rows = releases.map((release): PlannedRow => {
    let choice: OpenclawChoice;
    try {
      // What runs around the parts is the string's: a string made before the release table (surroundings.ts) keeps
      // the fixed model's defences around every release's parts, so that the releases differ only in their parts.
      choice = { ...parseOpenclawChoice(`${release}:${codes}`), ...(from.around === undefined ? {} : { around: from.around }) };
    } catch (error) {
      if (!(error instanceof OpenclawChoiceError)) throw error;
      const lacking = from.parts.filter((part) => !openclawPartsOf(release).includes(part));
      return { release, verdict: 'not-comparable', reason: lacking.length > 0 ? `lacks ${lacking.join(', ')}: ${error.message}` : error.message };
    }
    const seed = encodeSeedString({ scenario: decoded.scenario, ...tagsOf(decoded), openclaw: choice, bugs: decoded.bugs, seed: decoded.seed, path: decoded.path }, spec);
    if (!installed(release)) return { release, choice, seed, verdict: 'not-installed', reason: `openclaw ${release} is not installed: ${openclawInstallHint()}; ${pinnedOnlyNote}` };
    return { release, choice, seed };
  });
  return { input: `${decoded.body}.${decoded.check}`, scenario: decoded.scenario, bugs: decoded.bugs, seed: decoded.seed, path: decoded.path, parts: from.parts, spec, rows };
}

/** The choices a plan runs. */
export function choicesToRun(plan: BisectPlan): OpenclawChoice[] {
  return plan.rows.flatMap((row) => (row.verdict === undefined && row.choice !== undefined ? [row.choice] : []));
}

/**
 * The choice to hand main.ts's underSupportedNode before anything runs: the first whose Node need the running Node
 * does not meet (the whole command then re-runs under a Node that does), else the first with a need, else undefined.
 */
export function mostDemandingChoice(choices: readonly OpenclawChoice[], nodeVersion: string = runningNodeVersion()): OpenclawChoice | undefined {
  const needing = choices.filter((choice) => nodeNeedOf(choice) !== undefined);
  return needing.find((choice) => !nodeSatisfies(nodeVersion, nodeNeedOf(choice)?.range ?? '')) ?? needing[0];
}

export interface BisectRow {
  release: string;
  verdict: BisectVerdict;
  invariant?: string;
  class?: string;
  reason?: string;
  seed?: string;
  traceHash?: string;
}

/** Run each row that runs, one after the other, and dispose each run's simulation. */
export async function runBisect(plan: BisectPlan, run: (choice: OpenclawChoice) => Promise<RunResult>): Promise<BisectRow[]> {
  const rows: BisectRow[] = [];
  for (const planned of plan.rows) {
    const { release, seed, verdict, reason, choice } = planned;
    if (verdict !== undefined || choice === undefined) {
      rows.push({ release, verdict: verdict ?? 'not-comparable', ...(reason === undefined ? {} : { reason }), ...(seed === undefined ? {} : { seed }) });
      continue;
    }
    let result: RunResult;
    try {
      result = await run(choice);
    } catch (error) {
      // The release's code reached what gatesim does not simulate yet: a row without a verdict, not the end of the table.
      if (!(error instanceof RealCodeEscapeError)) throw error;
      rows.push({ release, verdict: 'not-simulated', reason: error.message, ...(seed === undefined ? {} : { seed }) });
      continue;
    }
    try {
      const first = result.violations[0];
      rows.push({ release, verdict: result.verdict, ...(first === undefined ? {} : { invariant: first.invariant, class: first.class }), ...(seed === undefined ? {} : { seed }), traceHash: result.traceHash });
    } finally {
      result.sim.dispose();
    }
  }
  return rows;
}

export interface VerdictChange {
  /** The last release that ran before the change, and the first after it. */
  from: string;
  to: string;
  before: 'pass' | 'fail';
  after: 'pass' | 'fail';
  /** Releases between the two that did not run (not comparable, not simulated, not installed). */
  skipped: string[];
}

export interface BisectSummary {
  firstFailing: string | null;
  firstPassing: string | null;
  changes: VerdictChange[];
  /** The releases that ran (pass or fail), in release order. */
  ran: { release: string; verdict: 'pass' | 'fail' }[];
}

/** Where the verdict changes along the releases that ran (the others are skipped over), and the first of each verdict. */
export function findChanges(rows: readonly Pick<BisectRow, 'release' | 'verdict'>[]): BisectSummary {
  const ran: BisectSummary['ran'] = [];
  const changes: VerdictChange[] = [];
  let skipped: string[] = [];
  for (const row of rows) {
    if (row.verdict !== 'pass' && row.verdict !== 'fail') {
      skipped.push(row.release);
      continue;
    }
    const last = ran.at(-1);
    if (last !== undefined && last.verdict !== row.verdict) changes.push({ from: last.release, to: row.release, before: last.verdict, after: row.verdict, skipped });
    ran.push({ release: row.release, verdict: row.verdict });
    skipped = [];
  }
  return {
    firstFailing: ran.find((row) => row.verdict === 'fail')?.release ?? null,
    firstPassing: ran.find((row) => row.verdict === 'pass')?.release ?? null,
    changes,
    ran,
  };
}

const verbs = { pass: 'passes', fail: 'fails' } as const;

function between(change: VerdictChange): string {
  return `between ${change.from} and ${change.to}${change.skipped.length > 0 ? ` (not run between them: ${change.skipped.join(', ')})` : ''}`;
}

/** The sentence that ends the table: no verdict, all agree, changed once (where), or changed more than once (each). */
export function summaryLine(summary: BisectSummary): string {
  const { ran, changes } = summary;
  const first = ran[0];
  const last = ran.at(-1);
  if (first === undefined || last === undefined) return 'no release ran the plan: no verdict to compare';
  if (changes.length === 0) {
    return ran.length === 1 ? `only ${first.release} ran the plan: it ${verbs[first.verdict]}` : `all ${ran.length} releases that ran agree: every one ${verbs[first.verdict]} (${first.release} to ${last.release})`;
  }
  const [change] = changes;
  if (changes.length === 1 && change !== undefined) {
    return `${verbs[change.before]} from ${first.release} to ${change.from}, ${verbs[change.after]} from ${change.to} on: changed ${between(change)}`;
  }
  return `the verdict changes ${changes.length} times: ${changes.map((each) => `${each.before} to ${each.after} ${between(each)}`).join('; ')}`;
}

export interface BisectReport {
  plan: BisectPlan;
  rows: readonly BisectRow[];
}

export function bisectJson(report: BisectReport): Record<string, unknown> {
  const { plan, rows } = report;
  const summary = findChanges(rows);
  return {
    seed: plan.input,
    scenario: plan.scenario,
    bugs: plan.bugs,
    parts: plan.parts,
    releases: rows,
    firstFailing: summary.firstFailing,
    firstPassing: summary.firstPassing,
    changes: summary.changes.length,
    changedBetween: summary.changes.map(({ from, to, before, after }) => ({ from, to, before, after })),
    summary: summaryLine(summary),
    note: pinnedOnlyNote,
  };
}

function verdictCell(row: BisectRow): string {
  switch (row.verdict) {
    case 'fail':
      return `fail  ${row.invariant ?? '?'} (${row.class ?? '?'})`;
    case 'not-comparable':
      return 'not comparable';
    case 'not-installed':
      return 'not installed';
    case 'not-simulated':
      return 'not simulated';
    default:
      return row.verdict;
  }
}

export function bisectText(report: BisectReport): string {
  const { plan, rows } = report;
  const summary = findChanges(rows);
  const releaseWidth = Math.max(7, ...rows.map((row) => row.release.length));
  const verdictWidth = Math.max(7, ...rows.map((row) => verdictCell(row).length));
  const hashWidth = Math.max(10, ...rows.map((row) => (row.traceHash ?? '-').length));
  const lines = [
    `bisect ${plan.input}`,
    `plan: ${plan.scenario}, bugs ${plan.bugs.join(', ') || 'none'}, seed ${plan.seed}, path ${plan.path === undefined ? 'r (first plan of the seed)' : 'shrunk'}; parts ${plan.parts.join(', ')}`,
    `releases ${rows.map((row) => row.release).join(', ')}: ${pinnedOnlyNote}`,
    '',
    `  ${'release'.padEnd(releaseWidth)}  ${'verdict'.padEnd(verdictWidth)}  ${'trace hash'.padEnd(hashWidth)}  seed string (repro it) or why it did not run`,
  ];
  for (const row of rows) {
    const last = row.verdict === 'pass' || row.verdict === 'fail' ? (row.seed ?? '') : (row.reason ?? '');
    lines.push(`  ${row.release.padEnd(releaseWidth)}  ${verdictCell(row).padEnd(verdictWidth)}  ${(row.traceHash ?? '-').padEnd(hashWidth)}  ${last}`);
  }
  lines.push('', summaryLine(summary));
  return lines.join('\n');
}
