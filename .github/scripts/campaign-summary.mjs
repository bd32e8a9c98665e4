// Writes a fuzz campaign's outcome to the GitHub job summary: its runs, and for each failing scenario the invariant
// and the command that replays it from its seed string (and whether its shrink stopped at its budget); with
// --past-documented, each run gone past with its documented findings; with --check-determinism, the runs replayed and
// each plan that gave two traces. Used by every campaign job of the nightly
// workflow.
//   node .github/scripts/campaign-summary.mjs <title> <campaign.json>
// Environment: GITHUB_STEP_SUMMARY (the file to append to), STATUS (the campaign's exit status).
import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';

const [title, jsonPath] = process.argv.slice(2);
const summaryPath = process.env.GITHUB_STEP_SUMMARY;
if (title === undefined || jsonPath === undefined || summaryPath === undefined) {
  console.error('usage: GITHUB_STEP_SUMMARY=<file> STATUS=<n> node .github/scripts/campaign-summary.mjs <title> <campaign.json>');
  process.exit(2);
}
const status = process.env.STATUS ?? 'unknown';
const lines = [`## ${title}`, ''];
if (!existsSync(jsonPath) || statSync(jsonPath).size === 0) {
  lines.push(`The campaign printed no JSON (exit status ${status}): see the log.`);
} else {
  const campaign = JSON.parse(readFileSync(jsonPath, 'utf8'));
  lines.push(`${campaign.runs} runs, ${campaign.failures.length} failing scenario(s), exit status ${status}`, '');
  for (const failure of campaign.failures) {
    const notMinimal = failure.shrinkComplete === false ? ` (shrink stopped at ${failure.shrinkRuns} runs; not minimal)` : '';
    lines.push(`- **${failure.scenario}**: ${failure.invariant} (${failure.class}): ${failure.message}${notMinimal}`, '  ```', `  npm run sim -- repro ${failure.seed}`, '  ```');
  }
  // --past-documented: the runs that failed only with findings docs/MODEL.md documents, gone past (unshrunk).
  const documented = campaign.documented ?? [];
  if (documented.length > 0) {
    lines.push('', `Gone past: ${documented.length} run(s) failed only with findings docs/MODEL.md documents about the real code`);
    for (const run of documented) {
      const findings = run.findings.map((found) => `${found.invariant}: "${found.section}"`).join('; ');
      lines.push(`- **${run.scenario}** run ${run.run}: ${findings}`, '  ```', `  npm run sim -- repro ${run.seed}`, '  ```');
    }
  }
  // --check-determinism: how many runs were replayed, and each plan that gave two traces (exit 6).
  const determinism = campaign.determinism;
  if (determinism !== undefined) {
    lines.push('', `Determinism check: ${determinism.checked} runs replayed twice, ${determinism.mismatches.length} gave another trace`);
    for (const mismatch of determinism.mismatches) {
      const at = mismatch.firstDivergence;
      lines.push(`- **${mismatch.scenario}** run ${mismatch.run}: traces differ from event #${at.index} (${at.a?.kind ?? 'end'} against ${at.b?.kind ?? 'end'})`, '  ```', `  npm run sim -- repro ${mismatch.seed}`, '  ```');
    }
  }
}
appendFileSync(summaryPath, lines.join('\n') + '\n');
