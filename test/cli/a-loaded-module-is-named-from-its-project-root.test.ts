// --load in a seed string (issue 42): the module is named by its path from its project root (the nearest folder
// above it with a package.json), so the string replays from any folder of the project; a replay that lacks it is
// refused with a command that works where it is typed; a module given twice, by any spelling, loads once and is
// named once. Strings written before, naming the module as given in base64url (`@load-...`), still replay.
import { spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { contentHash } from '../../src/index.ts';
import { findScenario } from '../../scenarios/index.ts';
import { buildFor, buildToken, canonicalSpec, decodeSeedString } from '../../sim/cli/seed-string.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { type CliResult, oneSessionScenarioSource, scratchDir } from './support.ts';

const mainModule = fileURLToPath(new URL('../../sim/cli/main.ts', import.meta.url));
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Run the command line in `cwd`, as a user does from a folder of their project. */
function cliIn(cwd: string, args: string[]): CliResult {
  const result = spawnSync(process.execPath, ['--import', tsxLoader, mainModule, ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/**
 * A project: a package.json, the setup module in setup/ (it registers a scenario, which throws if it runs twice, and
 * says on stderr each time it runs), and an empty subfolder sub/deeper.
 */
function project(): { root: string; deeper: string; setup: string } {
  const root = realpathSync(scratchDir());
  const entry = fileURLToPath(new URL('../../lib/index.ts', import.meta.url));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'my-gateway', private: true, type: 'module' }));
  mkdirSync(join(root, 'setup'));
  mkdirSync(join(root, 'sub', 'deeper'), { recursive: true });
  writeFileSync(
    join(root, 'setup', 'gatesim.setup.ts'),
    `import { faultKnobs, fc, modelKnobs, registerScenario, settleMs, userStep } from '${entry}';
process.stderr.write('setup module ran\\n');
${oneSessionScenarioSource('my-one-session')}`,
  );
  writeFileSync(join(root, 'other.ts'), 'export {};\n');
  return { root, deeper: join(root, 'sub', 'deeper'), setup: join(root, 'setup', 'gatesim.setup.ts') };
}

function seedOf(result: CliResult): string {
  expect(result.status, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { seed: string }).seed;
}

function traceHashOf(result: CliResult): string {
  expect(result.status, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { traceHash: string }).traceHash;
}

/** The command a refusal line says to replay with, as arguments after the command name, up to `repro`. */
function suggestedLoads(stderr: string): string[] {
  const command = /replay it with: (?:npm run sim --|npx gatesim) (.*) repro <seed-string>/.exec(stderr)?.[1];
  if (command === undefined) throw new Error(`no command in: ${stderr}`);
  return command.split(' ');
}

describe('a seed string names a loaded module from its project root', () => {
  it('made in the project root, it replays from a subfolder with the path from there; made there, it is the same string', () => {
    const { root, deeper, setup } = project();
    const ran = cliIn(root, ['--load', './setup/gatesim.setup.ts', 'run', 'my-one-session', '--seed', '4', '--json']);
    const seed = seedOf(ran);
    expect(seed).toMatch(/^gs2\.my-one-session@file-setup~gatesim_setup_ts\.none\.4\.r\./);
    expect(traceHashOf(cliIn(deeper, ['--load', '../../setup/gatesim.setup.ts', 'repro', seed, '--json']))).toBe(traceHashOf(ran));
    expect(seedOf(cliIn(deeper, ['--load', '../../setup/gatesim.setup.ts', 'run', 'my-one-session', '--seed', '4', '--json']))).toBe(seed);
    expect(seedOf(cliIn(join(root, 'sub'), ['--load', setup, 'run', 'my-one-session', '--seed', '4', '--json']))).toBe(seed);
  }, 120_000);

  it('a replay without it is refused with a --load path that works from the folder it is typed in, and that command replays', () => {
    const { root, deeper } = project();
    const seed = seedOf(cliIn(root, ['--load', './setup/gatesim.setup.ts', 'run', 'send-mid-turn', '--seed', '3', '--json']));
    expect(seed).toMatch(/^gs2\.send-mid-turn@file-setup~gatesim_setup_ts\./);
    expect(decodeSeedString(seed).loads).toEqual(['./setup/gatesim.setup.ts']);
    for (const [cwd, path] of [
      [deeper, '../../setup/gatesim.setup.ts'],
      [root, './setup/gatesim.setup.ts'],
    ] as const) {
      for (const loads of [[], ['--load', cwd === root ? './other.ts' : '../../other.ts']]) {
        const refused = cliIn(cwd, [...loads, 'repro', seed]);
        expect(refused.status, refused.stderr).toBe(2);
        expect(refused.stderr).toContain(`seed string was made with --load ${path}; replay it with: `);
        const suggested = suggestedLoads(refused.stderr);
        expect(suggested).toEqual(['--load', path]);
        expect(cliIn(cwd, [...suggested, 'repro', seed, '--json']).status).toBe(0);
      }
    }
    // A scenario the module registers: the line that names the unknown scenario says the same.
    const own = seedOf(cliIn(root, ['--load', './setup/gatesim.setup.ts', 'run', 'my-one-session', '--seed', '4', '--json']));
    const unknown = cliIn(deeper, ['repro', own]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown scenario "my-one-session": the seed string was made with --load ../../setup/gatesim.setup.ts, which registers it');
    expect(suggestedLoads(unknown.stderr)).toEqual(['--load', '../../setup/gatesim.setup.ts']);
  }, 180_000);

  it('the same module given three times, by three spellings, loads once and is named once', () => {
    const { root, setup } = project();
    const once = cliIn(root, ['--load', './setup/gatesim.setup.ts', 'run', 'my-one-session', '--seed', '4', '--json']);
    const thrice = cliIn(root, ['--load', './setup/gatesim.setup.ts', '--load', 'setup/gatesim.setup.ts', '--load', setup, 'run', 'my-one-session', '--seed', '4', '--json']);
    expect(thrice.stderr.match(/setup module ran/g)).toHaveLength(1);
    const seed = seedOf(thrice);
    expect(seed.split('.')[1]?.match(/@file-/g)).toHaveLength(1);
    expect(seed).toBe(seedOf(once));
    // And replays given twice.
    expect(cliIn(root, ['--load', setup, '--load=./setup/gatesim.setup.ts', 'repro', seed, '--json']).status).toBe(0);
  }, 120_000);

  it('a string written before, naming the module as given in base64url, still replays and is refused without it', () => {
    const { root } = project();
    const scenario = findScenario('send-mid-turn');
    if (scenario === undefined) throw new Error('send-mid-turn is built in');
    const tag = Buffer.from('./setup/gatesim.setup.ts', 'utf8').toString('base64url');
    const body = `gs2.send-mid-turn@load-${tag}.none.3.r.${buildToken(buildFor('send-mid-turn'))}`;
    const old = `${body}.${contentHash(`${body}|${canonicalSpec(generateSpec(scenario, [], 3, undefined))}`)}`;
    expect(decodeSeedString(old).loads).toEqual(['./setup/gatesim.setup.ts']);
    const replayed = cliIn(root, ['--load', './setup/gatesim.setup.ts', 'repro', old, '--json']);
    expect(replayed.status, replayed.stderr).toBe(0);
    expect((JSON.parse(replayed.stdout) as { seed: string }).seed).toBe(old);
    const refused = cliIn(root, ['repro', old]);
    expect(refused.status).toBe(2);
    expect(suggestedLoads(refused.stderr)).toEqual(['--load', './setup/gatesim.setup.ts']);
  }, 120_000);
});
