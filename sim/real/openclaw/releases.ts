// The pinned OpenClaw releases (DESIGN.md section 8, issue 22) and the errors of the OpenClaw loader. The releases
// live in the optional openclaw/ workspace (npm aliases `openclaw-<release>`, installed by `npm ci --prefix openclaw`).
import { releasePackageDir } from '../openclaw-hooks.mjs';

/**
 * The JSONL era: 2026.4.24 has seed 000's system-event dedupe (the last text only); 2026.7.1 dedupes against the
 * queue. 2026.8.1 moved transcripts into node:sqlite and dropped the session-file repair, so it is not pinned.
 */
export const openclawReleases = ['2026.4.24', '2026.7.1'] as const;
export type OpenclawRelease = (typeof openclawReleases)[number];

export const openclawInstallCommand = 'npm ci --prefix openclaw';

/** The openclaw/ workspace (or the release in it) is not installed. */
export class OpenclawWorkspaceMissingError extends Error {
  override name = 'OpenclawWorkspaceMissingError';
  constructor(readonly release: string) {
    super(`openclaw ${release} is not installed: run \`${openclawInstallCommand}\` (the openclaw/ workspace) to use real OpenClaw components`);
  }
}

/** A release lacks a source file or a function the caller named, or is not one of the pinned releases. */
export class OpenclawLookupError extends Error {
  override name = 'OpenclawLookupError';
  constructor(
    readonly release: string,
    readonly sourceFile: string,
    readonly functionName: string,
    message: string,
  ) {
    super(message);
  }
}

export function isOpenclawRelease(value: string): value is OpenclawRelease {
  return (openclawReleases as readonly string[]).includes(value);
}

export function requireRelease(release: string): asserts release is OpenclawRelease {
  if (!isOpenclawRelease(release)) {
    throw new OpenclawLookupError(release, '', '', `openclaw ${release} is not a pinned release (gatesim pins ${openclawReleases.join(' and ')})`);
  }
}

export function workspaceMissing(release: string): OpenclawWorkspaceMissingError {
  return new OpenclawWorkspaceMissingError(release);
}

/** Whether a pinned release is installed in the workspace. */
export function openclawInstalled(release: OpenclawRelease): boolean {
  return releasePackageDir(release) !== undefined;
}

/** The message a test prints when it skips because the workspace is absent. */
export const openclawMissingMessage = `the openclaw/ workspace is not installed: run \`${openclawInstallCommand}\` to run real OpenClaw components (releases ${openclawReleases.join(', ')})`;
