// gatesim as a git dependency, the way the README installs it: `npm install --save-dev git+file://<clone>` into a
// fresh project, offline from the npm cache. npm clones the repository, installs its devDependencies there and runs
// its `prepare` script (the build), then packs it; without that build the package had no dist/ and the binary died
// with a stack trace. The repository installed is a snapshot of this work tree (its tracked files and the untracked
// ones git does not ignore, committed in a temporary repository), so the test checks the code as it is now, not the
// last commit. Then, in the project: `npx gatesim --version` and `list`, and the README's way to add pi
// (`npm install --save-dev @mariozechner/pi-coding-agent@0.73.1`, skipped when this repository's real/ workspace is
// not installed, since the npm cache has pi only then) and a pi run. About a minute and a half on two busy cores.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const piInstalled = existsSync(join(root, 'real/node_modules/@mariozechner/pi-coding-agent/package.json'));
const work = mkdtempSync(join(tmpdir(), 'gatesim-git-'));
const repository = join(work, 'gatesim');
const project = join(work, 'my-gateway');

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string): Ran {
  const env = { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function ok(ran: Ran): Ran {
  expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
  return ran;
}

function gatesim(...args: string[]): Ran {
  return run('npx', ['--no', '--', 'gatesim', ...args], project);
}

/** Commit the work tree's files (tracked, and untracked but not ignored) into a fresh repository at `target`. */
function snapshotWorkTree(target: string): void {
  const listed = ok(run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root)).stdout;
  mkdirSync(target);
  for (const file of listed.split('\0').filter((name) => name !== '' && existsSync(join(root, name)))) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    cpSync(join(root, file), join(target, file));
  }
  const git = ['-c', 'user.name=gatesim test', '-c', 'user.email=test@gatesim.invalid', '-c', 'commit.gpgsign=false'];
  ok(run('git', ['init', '-q'], target));
  ok(run('git', [...git, 'add', '-A'], target));
  ok(run('git', [...git, 'commit', '-q', '-m', 'the work tree of gatesim'], target));
}

beforeAll(() => {
  snapshotWorkTree(repository);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-gateway', private: true }));
  const spec = `git+${pathToFileURL(repository).href}`;
  ok(run('npm', ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', spec], project));
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('gatesim installed from git into a fresh project', () => {
  it('is built by its prepare script: dist/ with the module hooks, no tsc build info', () => {
    const installed = join(project, 'node_modules/gatesim');
    expect(existsSync(join(installed, 'dist/sim/cli/main.js'))).toBe(true);
    expect(existsSync(join(installed, 'dist/sim/real/hooks.mjs'))).toBe(true);
    expect(existsSync(join(installed, 'dist/tsconfig.build.tsbuildinfo'))).toBe(false);
    const dependencies = (JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> }).devDependencies;
    expect(dependencies?.gatesim).toMatch(/^git\+file:/);
  });

  it('has a gatesim binary that prints its version and lists the scenarios (exit 0)', () => {
    expect(ok(gatesim('--version')).stdout.trim()).toBe(manifest.version);
    const listed = ok(gatesim('list'));
    expect(listed.stdout).toContain('send-mid-turn');
    expect(listed.stderr).toBe('');
  });

  it.skipIf(!piInstalled)('runs the pi mode once pi is installed as the README says', () => {
    ok(run('npm', ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', '@mariozechner/pi-coding-agent@0.73.1'], project));
    const ran = JSON.parse(ok(gatesim('run', 'send-mid-turn', '--seed', '1', '--session-manager', 'pi', '--json')).stdout) as { seed: string; verdict: string };
    expect(ran.seed).toMatch(/^gs2\.send-mid-turn@pi\./);
    expect(ran.verdict).toBe('pass');
  }, 180_000);
});
