// The package as a user gets it: `npm pack` (which builds dist/ through prepack), `npm install` of the tarball into
// a fresh project (offline from the npm cache), then, there, the example suite of examples/gateway-suite under
// vitest (the import of gatesim and gatesim/vitest), the example type-checked against the shipped declarations, and
// the `gatesim` binary: help, list (with and without the example's registrations), and a failing seed string found
// by a fuzz campaign and reproduced (exit 1). The same tarball goes into a second project made by `npm init -y`
// (CommonJS, the npm default), where `--load` of the example's TypeScript registers its scenario and invariant, in
// worker threads too. The pi mode: the tarball ships its module hooks; without pi installed the binary says how to
// install it (exit 2), and it refuses another version of pi (exit 2); with pi in the project's node_modules (linked
// from this repository's real/ workspace, where `npm install` of the package would put it; skipped when real/ is not
// installed) a pi run replays the trace of the sources. The installed package holds its LICENSE and every source its
// source maps name; without the OpenClaw releases, `--openclaw` says first how to install them where its hooks look
// (the package's dist/openclaw/, which holds the workspace's lockfile). The whole file takes about two minutes on two
// busy cores.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const example = join(root, 'examples/gateway-suite');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };
const work = mkdtempSync(join(tmpdir(), 'gatesim-pack-'));
const project = join(work, 'my-gateway');
/** A project made by `npm init -y`: no "type", so CommonJS. */
const commonJsProject = join(work, 'my-commonjs-gateway');
const piPackage = join(root, 'real/node_modules/@mariozechner/pi-coding-agent');
const piInstalled = existsSync(join(piPackage, 'package.json'));

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string): Ran {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function gatesim(...args: string[]): Ran {
  return gatesimIn(project, ...args);
}

function gatesimIn(cwd: string, ...args: string[]): Ran {
  return run('npx', ['--no', '--', 'gatesim', ...args], cwd);
}

function ok(ran: Ran): Ran {
  expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
  return ran;
}

beforeAll(() => {
  ok(run('npm', ['pack', '--pack-destination', work], root));
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  expect(tarball).toBe(`gatesim-${manifest.version}.tgz`);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-gateway', private: true, type: 'module' }));
  for (const file of readdirSync(example)) copyFileSync(join(example, file), join(project, file));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, allowImportingTsExtensions: true, types: ['node'], skipLibCheck: true },
      include: ['*.ts'],
    }),
  );
  const dev = manifest.devDependencies;
  const packages = [join(work, tarball as string), `vitest@${dev.vitest}`, `tsx@${dev.tsx}`, `typescript@${dev.typescript}`, `@types/node@${dev['@types/node']}`];
  ok(run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...packages], project));

  mkdirSync(commonJsProject);
  ok(run('npm', ['init', '-y'], commonJsProject));
  for (const file of readdirSync(example).filter((name) => name.endsWith('.ts') && name !== 'vitest.config.ts')) copyFileSync(join(example, file), join(commonJsProject, file));
  // An invariant that every run violates: a campaign that loses it passes where it must fail.
  writeFileSync(
    join(commonJsProject, 'always-fails.ts'),
    "import { registerInvariant } from 'gatesim';\n\nregisterInvariant({ name: 'always-fails', class: 'correctness', check: () => [{ message: 'this run was judged' }] });\n",
  );
  ok(run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball as string), `tsx@${dev.tsx}`], commonJsProject));
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('gatesim packed and installed into a fresh project', () => {
  it('runs the example suite under vitest (import of gatesim and gatesim/vitest)', () => {
    const ran = ok(run('npx', ['--no', '--', 'vitest', 'run'], project));
    expect(ran.stdout).toMatch(/Tests\s+4 passed/);
  });

  it('type-checks the example against the shipped declarations', () => {
    ok(run('npx', ['--no', '--', 'tsc', '-p', '.'], project));
  });

  it('has a gatesim binary that prints its version and lists scenarios, bugs and invariants', () => {
    expect(ok(gatesim('--help')).stdout).toContain('repro');
    const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(ok(gatesim('--version')).stdout.trim()).toBe(packageJson.version);
    const listed = ok(gatesim('list', '--json'));
    const list = JSON.parse(listed.stdout) as { scenarios: { name: string }[]; invariants: string[] };
    expect(list.scenarios.map((scenario) => scenario.name)).toContain('chaos');
    expect(list.scenarios.map((scenario) => scenario.name)).not.toContain('tool-server-restarts');
  });

  it('lists and runs the example scenario and invariant given --load', () => {
    const list = JSON.parse(ok(gatesim('--load', './gatesim.setup.ts', 'list', '--json')).stdout) as { scenarios: { name: string }[]; invariants: string[] };
    expect(list.scenarios.map((scenario) => scenario.name)).toContain('tool-server-restarts');
    expect(list.invariants).toContain('no-unprompted-reply');
    const ran = JSON.parse(ok(gatesim('--load', './gatesim.setup.ts', 'run', 'tool-server-restarts', '--seed', '3', '--json')).stdout) as { verdict: string; seed: string };
    expect(ran.verdict).toBe('pass');
    expect(gatesim('run', 'tool-server-restarts').status).toBe(2);
  });

  it('reproduces a failing seed string from a fuzz campaign (exit 1)', () => {
    const fuzzed = gatesim('fuzz', '--scenario', 'send-mid-turn', '--bugs', 'send-flag', '--runs', '30', '--seed', '1', '--json');
    expect(fuzzed.status, fuzzed.stderr).toBe(1);
    const seed = (JSON.parse(fuzzed.stdout) as { failures: { seed: string }[] }).failures[0]?.seed ?? '';
    expect(seed).toMatch(/^gs2\.send-mid-turn\.send-flag\./);
    const repro = gatesim('repro', seed);
    expect(repro.status, repro.stderr).toBe(1);
    expect(repro.stdout.split('\n')[0]).toContain(seed);
  });
});

describe('gatesim --load in a CommonJS project (npm init -y)', () => {
  it('is a CommonJS project', () => {
    const manifest = JSON.parse(readFileSync(join(commonJsProject, 'package.json'), 'utf8')) as { type?: string };
    expect(manifest.type ?? 'commonjs').toBe('commonjs');
  });

  it("lists and runs the example's scenario and invariant from its TypeScript setup module", () => {
    const list = JSON.parse(ok(gatesimIn(commonJsProject, '--load', './gatesim.setup.ts', 'list', '--json')).stdout) as { scenarios: { name: string }[]; invariants: string[] };
    expect(list.scenarios.map((scenario) => scenario.name)).toContain('tool-server-restarts');
    expect(list.invariants).toContain('no-unprompted-reply');
    const ran = JSON.parse(ok(gatesimIn(commonJsProject, '--load', './gatesim.setup.ts', 'run', 'tool-server-restarts', '--seed', '3', '--json')).stdout) as { verdict: string };
    expect(ran.verdict).toBe('pass');
  });

  it('judges every run by a loaded invariant, with one worker and with two', () => {
    for (const workers of ['1', '2']) {
      const fuzzed = gatesimIn(commonJsProject, '--load', './always-fails.ts', 'fuzz', '--scenario', 'send-mid-turn', '--runs', '3', '--seed', '1', '--workers', workers, '--json');
      expect(fuzzed.status, `--workers ${workers}: ${fuzzed.stderr}`).toBe(1);
      const failures = (JSON.parse(fuzzed.stdout) as { failures: { invariant: string; seed: string }[] }).failures;
      expect(failures.map((failure) => failure.invariant)).toEqual(['always-fails']);
      expect(failures[0]?.seed).toMatch(/^gs2\.send-mid-turn@file-always-fails_ts\./);
    }
  });
});

describe('the pi mode of the packed gatesim', () => {
  const piRun = ['run', 'send-mid-turn', '--seed', '1', '--session-manager', 'pi'];

  it('ships the module hooks that put pi into the simulated world', () => {
    expect(existsSync(join(project, 'node_modules/gatesim/dist/sim/real/hooks.mjs'))).toBe(true);
  });

  it('says in one line how to install pi when the project has not (exit 2)', () => {
    const ran = gatesim(...piRun);
    expect(ran.status, ran.stdout).toBe(2);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    expect(ran.stderr).toContain('npm install --save-dev @mariozechner/pi-coding-agent@0.73.1');
  });

  it('refuses another version of pi than the one its hooks are made for (exit 2)', () => {
    const other = join(commonJsProject, 'node_modules/@mariozechner/pi-coding-agent');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'package.json'), JSON.stringify({ name: '@mariozechner/pi-coding-agent', version: '0.74.0', type: 'module' }));
    const ran = gatesimIn(commonJsProject, ...piRun);
    expect(ran.status, ran.stdout).toBe(2);
    expect(ran.stderr).toContain('@mariozechner/pi-coding-agent@0.74.0 is installed');
    expect(ran.stderr).toContain('npm install --save-dev @mariozechner/pi-coding-agent@0.73.1');
  });

  it.skipIf(!piInstalled)('runs the real pi SessionManager installed in the project, as the sources do', () => {
    mkdirSync(join(project, 'node_modules/@mariozechner'), { recursive: true });
    symlinkSync(piPackage, join(project, 'node_modules/@mariozechner/pi-coding-agent'), 'dir');
    const packed = JSON.parse(ok(gatesim(...piRun, '--json')).stdout) as { seed: string; verdict: string; traceHash: string };
    expect(packed.seed).toMatch(/^gs2\.send-mid-turn@pi\./);
    const sources = run('npx', ['--no', '--', 'tsx', 'sim/cli/main.ts', ...piRun, '--json'], root);
    expect(sources.status, sources.stderr).toBe(0);
    const fromSources = JSON.parse(sources.stdout) as { seed: string; verdict: string; traceHash: string };
    expect(packed).toMatchObject({ seed: fromSources.seed, verdict: fromSources.verdict, traceHash: fromSources.traceHash });
    const fuzzed = gatesim('fuzz', '--scenario', 'send-mid-turn', '--runs', '4', '--seed', '1', '--workers', '2', '--session-manager', 'pi', '--json');
    expect(fuzzed.status, fuzzed.stderr).toBe(0);
  });
});

describe('what the installed package ships', () => {
  const installed = join(project, 'node_modules/gatesim');

  it('its LICENSE, and every source its source maps name, so a mapped stack frame points at a file it ships', () => {
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toContain('Copyright (c) 2026 the gatesim authors');
    const maps = readdirSync(join(installed, 'dist'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(100);
    const missing = maps.flatMap((map) => {
      const { sources } = JSON.parse(readFileSync(join(installed, 'dist', map), 'utf8')) as { sources: string[] };
      return sources.map((source) => join(installed, 'dist', dirname(map), source)).filter((path) => !existsSync(path));
    });
    expect(missing).toEqual([]);
  });

  it('the openclaw/ lockfile where its hooks look for the releases; without them --openclaw says first, in one line, how to install them there (exit 2)', () => {
    expect(readFileSync(join(installed, 'dist/openclaw/package-lock.json'), 'utf8')).toBe(readFileSync(join(root, 'openclaw/package-lock.json'), 'utf8'));
    const ran = gatesim('run', 'exec-replay', '--seed', '3', '--openclaw', '2026.4.24:se,hw');
    expect(ran.status, ran.stdout).toBe(2);
    // The one error line (a `run` may say first that it is loading the release, a progress line).
    const lines = ran.stderr.trim().split('\n').filter((line) => !line.startsWith('gatesim: loading OpenClaw'));
    expect(lines, ran.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^gatesim: openclaw 2026\.4\.24 is not installed: run `npm ci --prefix node_modules\/gatesim\/dist\/openclaw --ignore-scripts` /);
    expect(lines[0]).toContain('npm install --save-dev esbuild@');
  });
});
