// The error a run with `--openclaw` gets when the release is not installed says how to install it where this gatesim
// looks for it: in a clone the openclaw/ workspace (`npm ci --prefix openclaw`); in a project that installed gatesim
// the workspace under the package's dist/ (the compiled hooks' openclawWorkspaceDir, where the build puts the
// workspace's manifest and lockfile), installed with scripts off, plus the esbuild the hooks rewrite packages with
// (a devDependency of gatesim, so a project lacks it). The path is named from the working directory when it is under it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openclawEsbuildVersion, openclawInstallCommandFor, openclawWorkspaceInPackage, OpenclawWorkspaceMissingError } from '../../sim/real/openclaw/releases.ts';
import { openclawWorkspaceDir } from '../../sim/real/openclaw-hooks.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const installed = '/home/me/gateway/node_modules/gatesim/dist/openclaw/';

describe('a release that is not installed', () => {
  it('in this clone: says to run npm ci --prefix openclaw, first thing after naming the release', () => {
    expect(openclawWorkspaceDir).toBe(join(root, 'openclaw/'));
    expect(openclawWorkspaceInPackage()).toBe(false);
    const message = new OpenclawWorkspaceMissingError('2026.4.24').message;
    expect(message).toMatch(/^openclaw 2026\.4\.24 is not installed: run `npm ci --prefix openclaw` /);
    expect(message).not.toContain('esbuild');
  });

  it('in a project: names the install into the package’s dist/openclaw/ and esbuild, from the project root', () => {
    expect(openclawWorkspaceInPackage(installed)).toBe(true);
    const message = new OpenclawWorkspaceMissingError('2026.7.1', installed, '/home/me/gateway').message;
    expect(message).toMatch(/^openclaw 2026\.7\.1 is not installed: run `npm ci --prefix node_modules\/gatesim\/dist\/openclaw --ignore-scripts` /);
    expect(message).toContain(`\`npm install --save-dev esbuild@${openclawEsbuildVersion}\``);
    expect(message).not.toContain('\n');
  });

  it('names the workspace by its absolute path from a directory outside the project', () => {
    expect(openclawInstallCommandFor(installed, '/tmp')).toBe('npm ci --prefix /home/me/gateway/node_modules/gatesim/dist/openclaw --ignore-scripts');
    expect(openclawInstallCommandFor(installed, '/home/me/gateway/node_modules/gatesim')).toBe('npm ci --prefix dist/openclaw --ignore-scripts');
  });

  it('asks for the esbuild gatesim itself pins', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(manifest.devDependencies.esbuild).toBe(openclawEsbuildVersion);
  });
});
