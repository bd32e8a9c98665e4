// Shared by the tests of sim/real: the real pi module, loaded under the hooks, or a skip with the install command
// when the real/ workspace package is not installed (the lean install leaves it out; .ci/run installs it).
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { loadPiSessionManager, piMissingMessage } from '../../sim/real/loader.ts';

export const pi = await loadPiSessionManager();
export const sql = await loadSqlJs();
export const piMissing = pi === undefined;

// CI installs real/ (.ci/run), so there a missing module is a broken install, not a reason to skip.
if (piMissing && process.env.CI === 'true') throw new Error(piMissingMessage);
if (piMissing) process.stderr.write(`skipping the real-module tests: ${piMissingMessage}\n`);

/** The loaded module; only call inside a suite skipped when it is missing. */
export function realPi(): NonNullable<typeof pi> {
  if (pi === undefined) throw new Error(piMissingMessage);
  return pi;
}
