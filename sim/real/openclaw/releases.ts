// The pinned OpenClaw releases (docs/ARCHITECTURE.md section 8, issue 22) and the errors of the OpenClaw loader. The releases
// live in the optional openclaw/ workspace (npm aliases `openclaw-<release>`, installed by `npm ci --prefix openclaw`).
// In an installed gatesim the hooks look for that workspace in the package's dist/openclaw/ (openclawWorkspaceDir),
// where the build puts the workspace's package.json and lockfile: a project installs the pinned releases there with
// `npm ci --prefix node_modules/gatesim/dist/openclaw --ignore-scripts`, and esbuild (the hooks' ES module rewriter,
// a devDependency of gatesim) beside gatesim.
import { isAbsolute, relative } from 'node:path';
import { openclawWorkspaceDir, releasePackageDir } from '../openclaw-hooks.mjs';

/**
 * Every pinned release, in release order. The JSONL era: 2026.4.24 has seed 000's system-event dedupe (the last text
 * only); 2026.7.1 dedupes against the queue. The SQLite era: 2026.8.1 moved sessions and transcripts into a SQLite
 * agent DB (node:sqlite) and dropped the session-file repair and the session write lock (a no-op stub); 2026.9.6
 * (what users run) ships its chunks as `.mjs` and replaced the heartbeat wake with the session-event wake. Both need
 * Node 24 (engines, node-version.ts). choice.ts says which parts each release has and why it lacks the others.
 * 2026.7.35, the July extended-stable line published after 2026.8.1 (on 2026-09-21), is the last JSONL-era release: it
 * has the session-file repair and JSONL transcripts, and every part gatesim runs has 2026.7.1's code in it but for two
 * lines (isJulyLine). The table is in version order, which bisect follows.
 */
export const openclawPinnedReleases = ['2026.4.24', '2026.7.1', '2026.7.35', '2026.8.1', '2026.9.6'] as const;
export type OpenclawRelease = (typeof openclawPinnedReleases)[number];

/**
 * The JSONL-era releases, which run every part (choice.ts): what `bisect`, the nightly matrix and the tests of every
 * part iterate. The SQLite-era releases (2026.8.1, 2026.9.6) run fewer parts, under Node 24, and have tests of their
 * own (test/real/openclaw-sqlite-era-*.test.ts).
 */
export const openclawReleases = ['2026.4.24', '2026.7.1', '2026.7.35'] as const satisfies readonly OpenclawRelease[];

/**
 * The July line (2026.7.1 and its extended-stable 2026.7.35): the parts gatesim runs have the same code in both
 * (docs/MODEL.md, "2026.7.35, the last JSONL-era release"), so what the adapters know of 2026.7.1 holds for both.
 */
export function isJulyLine(release: string | undefined): boolean {
  return release === '2026.7.1' || release === '2026.7.35';
}
export type OpenclawJsonlRelease = (typeof openclawReleases)[number];

/** The releases of the SQLite era (sessions in the agent DB): fewer parts, and only under Node 24. */
export const openclawSqliteEraReleases = ['2026.8.1', '2026.9.6'] as const satisfies readonly OpenclawRelease[];

/** The esbuild the hooks rewrite ES module packages with (gatesim's devDependency, so a clone has it). */
export const openclawEsbuildVersion = '0.28.2';

/**
 * Whether the workspace is an installed gatesim's (the hooks run from its dist/, and the workspace is dist/openclaw/)
 * rather than a clone's openclaw/.
 */
export function openclawWorkspaceInPackage(workspaceDir: string = openclawWorkspaceDir): boolean {
  return /[\\/]dist[\\/]openclaw[\\/]?$/.test(workspaceDir);
}

/**
 * The command that installs the pinned releases: in a clone `npm ci --prefix openclaw`; in an installed gatesim
 * `npm ci` of the workspace under the package's dist/ (named from the working directory when it is under it) with
 * install scripts off (the clone's openclaw/.npmrc, which npm does not pack, turns them off there).
 */
export function openclawInstallCommandFor(workspaceDir: string = openclawWorkspaceDir, cwd: string = process.cwd()): string {
  if (!openclawWorkspaceInPackage(workspaceDir)) return 'npm ci --prefix openclaw';
  const dir = workspaceDir.replace(/[\\/]$/, '');
  const fromCwd = relative(cwd, dir);
  const shown = fromCwd === '' || fromCwd.startsWith('..') || isAbsolute(fromCwd) ? dir : fromCwd;
  return `npm ci --prefix ${shown} --ignore-scripts`;
}

export const openclawInstallCommand = openclawInstallCommandFor();

/** How to install a release, for the one line of an error or a skip: the command, and in a project esbuild too. */
export function openclawInstallHint(workspaceDir: string = openclawWorkspaceDir, cwd: string = process.cwd()): string {
  const command = openclawInstallCommandFor(workspaceDir, cwd);
  if (!openclawWorkspaceInPackage(workspaceDir)) return `run \`${command}\` (the openclaw/ workspace, about 2.4 GB)`;
  return `run \`${command}\` (the pinned releases, about 2.4 GB, where this gatesim looks for them) and \`npm install --save-dev esbuild@${openclawEsbuildVersion}\` in your project`;
}

/** The openclaw/ workspace (or the release in it) is not installed. */
export class OpenclawWorkspaceMissingError extends Error {
  override name = 'OpenclawWorkspaceMissingError';
  constructor(
    readonly release: string,
    workspaceDir: string = openclawWorkspaceDir,
    cwd: string = process.cwd(),
  ) {
    super(`openclaw ${release} is not installed: ${openclawInstallHint(workspaceDir, cwd)} to use real OpenClaw components`);
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
  return (openclawPinnedReleases as readonly string[]).includes(value);
}

export function requireRelease(release: string): asserts release is OpenclawRelease {
  if (!isOpenclawRelease(release)) {
    throw new OpenclawLookupError(release, '', '', `openclaw ${release} is not a pinned release (gatesim pins ${openclawPinnedReleases.join(', ')})`);
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
export const openclawMissingMessage = `the openclaw/ workspace is not installed: ${openclawInstallHint()} to run real OpenClaw components (releases ${openclawPinnedReleases.join(', ')})`;
