// `npm install <path to a clone>` links the folder (npm 11's install-links is off), installs none of its dependencies,
// and runs its prepare script there: in a clone never installed there is no tsc, and the install died with
// `sh: 1: tsc: not found`. prepare (scripts/build.mjs) now says, in one line naming gatesim, what to run: `npm ci` in
// the clone (which builds dist/), then the install again. The clone here is gatesim's package.json and build script in
// a temporary folder, with no node_modules.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'gatesim-folder-'));
const clone = join(work, 'gatesim');
mkdirSync(join(clone, 'scripts'), { recursive: true });
copyFileSync(join(root, 'package.json'), join(clone, 'package.json'));
copyFileSync(join(root, 'scripts/build.mjs'), join(clone, 'scripts/build.mjs'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
delete env.GATESIM_BUILD_DRY_RUN;
delete env.npm_command;

function expectTheLine(stderr: string): void {
  const ours = stderr.split('\n').filter((line) => line.includes('gatesim: cannot build'));
  expect(ours, stderr).toHaveLength(1);
  expect(ours[0]).toContain(`run \`npm ci\` in ${clone}/ first`);
  expect(stderr).not.toContain('tsc: not found');
}

describe('a clone without its devDependencies', () => {
  it('prepare says in one line that TypeScript is missing and to run npm ci in the clone (exit 1)', () => {
    const result = spawnSync(process.execPath, ['scripts/build.mjs', 'prepare'], { cwd: clone, encoding: 'utf8', env: { ...env, npm_command: 'install' } });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^gatesim: cannot build /);
    expectTheLine(result.stderr);
  });

  it('npm install <folder> into a fresh project fails with that line, not `tsc: not found`', () => {
    const project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'project', version: '1.0.0', private: true }));
    const result = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', clone], { cwd: project, encoding: 'utf8', env });
    expect(result.status).not.toBe(0);
    expectTheLine(result.stderr);
  }, 60_000);
});
