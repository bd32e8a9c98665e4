// Writes a fuzz campaign's outcome to the GitHub job summary: its runs, and for each failing scenario the invariant
// and the command that replays it from its seed string. Used by every campaign job of the nightly workflow.
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
    lines.push(`- **${failure.scenario}**: ${failure.invariant} (${failure.class}): ${failure.message}`, '  ```', `  npm run sim -- repro ${failure.seed}`, '  ```');
  }
}
appendFileSync(summaryPath, lines.join('\n') + '\n');
