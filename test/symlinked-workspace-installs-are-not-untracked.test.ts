// A workspace's node_modules that is a symlink (real/ or openclaw/ linked to packages installed elsewhere, a shared
// cache, a worktree reusing another checkout's install) is ignored as an installed one is: git status shows nothing
// for it. `node_modules/` in .gitignore matched only directories, so each link showed as untracked. The check runs
// git over this repository's .gitignore in a temporary repository, with the user's and the system's git config off
// (a global ignore of node_modules would hide the difference).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'gatesim-ignore-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function git(args: string[], cwd: string): string {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  for (const name of Object.keys(env)) if (name.startsWith('GIT_') && !['GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_GLOBAL'].includes(name)) delete env[name];
  const result = spawnSync('git', args, { cwd, encoding: 'utf8', env });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

describe('.gitignore', () => {
  it('ignores node_modules that are symlinks, at the root and in the real/ and openclaw/ workspaces', () => {
    const repository = join(work, 'gatesim');
    const installed = join(work, 'installed');
    mkdirSync(join(installed, 'some-package'), { recursive: true });
    writeFileSync(join(installed, 'some-package/index.js'), '');
    mkdirSync(repository);
    git(['init', '-q'], repository);
    copyFileSync(join(root, '.gitignore'), join(repository, '.gitignore'));
    for (const workspace of ['real', 'openclaw']) {
      mkdirSync(join(repository, workspace));
      writeFileSync(join(repository, workspace, 'package.json'), '{}\n');
      symlinkSync(installed, join(repository, workspace, 'node_modules'), 'dir');
    }
    symlinkSync(installed, join(repository, 'node_modules'), 'dir');
    const status = git(['status', '--porcelain', '--untracked-files=all'], repository).trim().split('\n');
    expect(status.sort()).toEqual(['?? .gitignore', '?? openclaw/package.json', '?? real/package.json']);
  });
});
