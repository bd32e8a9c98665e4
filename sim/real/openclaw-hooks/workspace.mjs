// The openclaw/ workspace on the real disk: which pinned releases are installed there, their dist/ chunks (a real
// directory listing and real file reads) and where a release's package appears inside the simulated world. Exempt from
// the determinism ban (eslint.config.js, test/determinism-ban.test.ts): reading the releases is why it imports node:fs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Three levels up, as this file is one directory below sim/real/openclaw-hooks.mjs (in dist/ as well: dist/openclaw/).
export const openclawWorkspaceDir = fileURLToPath(new URL('../../../openclaw/', import.meta.url));

/** The package directory of an installed release (with a trailing slash), or undefined when it is not installed. */
export function releasePackageDir(release) {
  const dir = `${openclawWorkspaceDir}node_modules/openclaw-${release}/`;
  return existsSync(`${dir}dist/index.js`) ? dir : undefined;
}

/**
 * Whether a file of a release's dist/ is a chunk: `.js`, or `.mjs` as 2026.9.6 ships them (its dist/ keeps a few `.js`
 * entry shims beside 6,696 `.mjs` chunks).
 */
export function isChunkFile(name) {
  return name.endsWith('.js') || name.endsWith('.mjs');
}

/** The release's top-level dist/ chunks (`*.js` and `*.mjs`), sorted; undefined when the release is not installed. */
export function listReleaseChunks(release) {
  const dir = releasePackageDir(release);
  if (dir === undefined) return undefined;
  return readdirSync(`${dir}dist/`, { withFileTypes: true })
    .filter((entry) => entry.isFile() && isChunkFile(entry.name))
    .map((entry) => entry.name)
    .sort();
}

/** One file of a release's dist/ (a path relative to dist/). */
export function readReleaseChunk(release, file) {
  const dir = releasePackageDir(release);
  if (dir === undefined) throw new Error(`gatesim: openclaw ${release} is not installed (npm ci --prefix openclaw)`);
  return readFileSync(`${dir}dist/${file}`, 'utf8');
}

/** Where a release's package appears inside the simulated world (read-only). */
export function virtualPackageRoot(release) {
  return `/gatesim/openclaw-${release}`;
}
