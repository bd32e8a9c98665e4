// The package as a user gets it: `npm pack` (which builds dist/ through prepack), `npm install` of the tarball into
// a fresh project (offline from the npm cache), then, there, the example suite of examples/gateway-suite under
// vitest (the import of gatesim and gatesim/vitest), the example type-checked against the shipped declarations, and
// the `gatesim` binary: help, list (with and without the example's registrations), and a failing seed string found
// by a fuzz campaign and reproduced (exit 1). The whole file takes about a minute and a half on two busy cores.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const example = join(root, 'examples/gateway-suite');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };
const work = mkdtempSync(join(tmpdir(), 'gatesim-pack-'));
const project = join(work, 'my-gateway');

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
  return run('npx', ['--no', '--', 'gatesim', ...args], project);
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
}, 240_000);

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
