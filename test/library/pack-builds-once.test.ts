// `npm pack` compiles gatesim once. npm runs two scripts on a pack: prepack (from the CLI), then prepare (while it
// reads the folder, as it does for a git or folder dependency). prepack is the clean, type-checked build; prepare, seeing
// npm_command=pack (or publish), leaves prepack's dist/ alone. It used to be `build` running `prepare` after its own
// tsc, and npm running prepare again: three tsc runs a pack. Everywhere else (npm install/ci in a clone, a git
// dependency) prepare still builds. The scripts run with GATESIM_BUILD_DRY_RUN=1, which prints the tsc commands and
// the copies instead of doing them, in the order npm calls them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** Run a package.json script as npm would under `npm <command>`, expanding `npm run <name>` into that script's lines. */
function dryRun(name: string, command: string): string[] {
  const line = scripts[name];
  expect(line, `package.json has a ${name} script`).toBeDefined();
  const nested = /^npm run ([\w:-]+)$/.exec(line ?? '');
  if (nested !== null) return dryRun(nested[1] ?? '', command);
  // Only `node scripts/...` (no shell chains): a script npm runs must not hide a second build behind `&&`.
  expect(line).toMatch(/^node scripts\/build\.mjs( \w+)?$/);
  const args = (line ?? '').split(' ').slice(1);
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, GATESIM_BUILD_DRY_RUN: '1', npm_command: command } });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.trim().split('\n').filter((text) => text !== '');
}

const tscRuns = (lines: readonly string[]) => lines.filter((text) => /^> tsc /.test(text));

describe('npm pack', () => {
  it('runs tsc once: the type-checked build of prepack; prepare under pack builds nothing', () => {
    const prepack = dryRun('prepack', 'pack');
    const prepare = dryRun('prepare', 'pack');
    expect(tscRuns([...prepack, ...prepare])).toEqual(['> tsc -b tsconfig.build.json']);
    expect(tscRuns(dryRun('prepare', 'publish'))).toEqual([]);
  });

  it('prepare builds (incrementally, without the type check) on npm install and npm ci', () => {
    for (const command of ['install', 'ci']) expect(tscRuns(dryRun('prepare', command))).toEqual(['> tsc -b tsconfig.build.json --noCheck']);
  });

  it('copies the module hooks and, where the compiled hooks look for it, the openclaw/ workspace manifest and lockfile', () => {
    const copies = dryRun('build', 'run-script').filter((text) => text.startsWith('copy '));
    expect(copies).toContain('copy sim/real/openclaw-hooks.mjs dist/sim/real/openclaw-hooks.mjs');
    expect(copies).toContain('copy sim/real/hooks.mjs dist/sim/real/hooks.mjs');
    // The hooks find the workspace at new URL('../../openclaw/', import.meta.url): from dist/, that is dist/openclaw/.
    const compiledHooks = pathToFileURL(join(root, 'dist/sim/real/openclaw-hooks.mjs'));
    const workspace = fileURLToPath(new URL('../../openclaw/', compiledHooks)).slice(root.length);
    expect(workspace).toBe('dist/openclaw/');
    expect(copies).toContain(`copy openclaw/package.json ${workspace}package.json`);
    expect(copies).toContain(`copy openclaw/package-lock.json ${workspace}package-lock.json`);
  });
});
