// Shared by the tests of a pinned OpenClaw release's parts: the skip, with the install command, when the openclaw/
// workspace does not hold the releases a test needs (the lean install leaves it out; .ci/run installs it).
import { openclawInstalled, openclawMissingMessage, type OpenclawRelease, openclawReleases } from '../../sim/real/openclaw/index.ts';

/**
 * True when one of `releases` is not installed; `what` names the skipped tests in the line said on stderr. CI installs
 * openclaw/ (.ci/run), so there a missing workspace is a broken install, not a reason to skip, and this throws.
 */
export function openclawMissing(what: string, releases: readonly OpenclawRelease[] = openclawReleases): boolean {
  const missing = !releases.every((release) => openclawInstalled(release));
  if (missing && process.env.CI === 'true') throw new Error(openclawMissingMessage);
  if (missing) process.stderr.write(`skipping the ${what}: ${openclawMissingMessage}\n`);
  return missing;
}
