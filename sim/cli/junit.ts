// The JUnit XML of a fuzz campaign, for CI dashboards: one test case per scenario and bug set; a failing case
// carries the seed string of its shrunk counterexample (in the message, and as the first line of its text) so a
// reader copies it straight into `repro`.
import junit, { type Builder } from 'junit-report-builder';
import type { BugId } from '../../src/index.ts';
import type { ScenarioOutcome } from './fuzz.ts';
import { codeUnderTest } from './real-code.ts';
import { oneLine } from './report.ts';
import { reproduceHint } from './seed-string.ts';

export interface JunitCampaign {
  bugs: BugId[];
  campaignSeed: number;
  shard: { index: number; count: number };
  outcomes: ScenarioOutcome[];
  wallMs: number;
}

export function junitXml(campaign: JunitCampaign): string {
  const builder = (junit as unknown as Builder).newBuilder();
  const bugs = campaign.bugs.length === 0 ? 'none' : campaign.bugs.join('+');
  const suite = builder
    .testSuite()
    .name(`gatesim fuzz (bugs: ${bugs}, shard ${campaign.shard.index + 1}/${campaign.shard.count})`)
    .property('campaignSeed', String(campaign.campaignSeed))
    .property('shard', `${campaign.shard.index + 1}/${campaign.shard.count}`)
    .time(campaign.wallMs / 1_000);
  for (const outcome of campaign.outcomes) {
    // The name is stable from night to night (no run count), so CI history follows one case; the runs are a property.
    const testCase = suite.testCase().className(`gatesim.fuzz.${outcome.scenario}`).name(`${outcome.scenario} [bugs: ${bugs}]`).property('runs', String(outcome.runs));
    // Runs gone past with documented findings about real code (fuzz --past-documented): counted, each seed string named.
    if (outcome.documented.length > 0) {
      testCase.property('documentedRuns', String(outcome.documented.length));
      testCase.standardOutput(outcome.documented.map((run) => `run ${run.run} failed only with documented findings (${run.findings.map((found) => `${found.invariant}: docs/MODEL.md "${found.section}"`).join('; ')}): ${run.seed}`).join('\n'));
    }
    const failure = outcome.failure;
    if (failure === undefined) continue;
    testCase.failure(`${failure.invariant} (${failure.class}) at run ${failure.run}: ${failure.seed}`, failure.class);
    testCase.stacktrace(
      [
        `seed string: ${failure.seed}`,
        `reproduce: ${reproduceHint(failure.seed)}`,
        `code under test: ${codeUnderTest(failure.result.realCode).text}`,
        ...failure.violations.slice(0, 5).map((violation) => `${violation.invariant} (${violation.class}, step #${violation.step}): ${oneLine(violation.message)}`),
      ].join('\n'),
    );
  }
  return builder.build();
}
