#!/usr/bin/env node
// The build of dist/: tsc over tsconfig.build.json, then the module hooks (sim/**/*.mjs and their .d.mts), which tsc
// does not emit, copied beside the compiled files, and openclaw/'s package.json and lockfile copied to dist/openclaw/.
// Two entry points, so that every way npm builds gatesim runs tsc once:
//
//   node scripts/build.mjs           `npm run build`, and `npm pack`/`npm publish` through prepack: dist/ removed
//                                    (no output of a deleted source survives into a tarball), then a type-checked build.
//   node scripts/build.mjs prepare   npm's `prepare`: `npm install`/`npm ci` in a clone, and a git or folder
//                                    dependency (npm runs it in the clone or the folder). An incremental build without
//                                    the type check (about 7 s on a fresh clone, under 1 s when dist/ is up to date).
//                                    Under `npm pack` and `npm publish` npm runs prepare right after prepack, whose
//                                    build is the one packed, so prepare does nothing there.
//
// TypeScript is a devDependency. npm installs none of a folder dependency's dependencies (`npm install <folder>` links
// the folder), so prepare there finds no tsc: it says so in one line naming the fix instead of `sh: tsc: not found`.
// GATESIM_BUILD_DRY_RUN=1 prints the tsc commands and the copies instead of running them
// (test/library/pack-builds-once.test.ts).
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const mode = process.argv[2] ?? 'build';
const dryRun = process.env.GATESIM_BUILD_DRY_RUN === '1';

if (mode !== 'build' && mode !== 'prepare') {
  process.stderr.write(`gatesim: scripts/build.mjs takes no argument (npm run build) or prepare (npm's prepare), not ${mode}\n`);
  process.exit(2);
}

const packing = ['pack', 'publish'].includes(process.env.npm_command ?? '');
if (mode === 'prepare' && packing) {
  process.stdout.write(`gatesim: prepare under npm ${process.env.npm_command}: dist/ is prepack's build, nothing to do\n`);
  process.exit(0);
}

function tscPath() {
  try {
    return createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

const tsc = tscPath();
if (tsc === undefined && !dryRun) {
  process.stderr.write(
    `gatesim: cannot build ${root}: TypeScript (a devDependency) is not installed there, and npm installs no dependencies of a folder it links; run \`npm ci\` in ${root} first (it builds dist/), then install it again, or install gatesim from a tarball or git (README, "Use gatesim in your gateway")\n`,
  );
  process.exit(1);
}

function run(args) {
  process.stdout.write(`> tsc ${args.join(' ')}\n`);
  if (dryRun) return;
  const result = spawnSync(process.execPath, [tsc, ...args], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (mode === 'build') {
  if (!dryRun) rmSync(join(root, 'dist'), { recursive: true, force: true });
  run(['-b', 'tsconfig.build.json']);
} else {
  run(['-b', 'tsconfig.build.json', '--noCheck']);
}

const copies = readdirSync(join(root, 'sim'), { recursive: true })
  .filter((file) => /\.(mjs|d\.mts)$/.test(file))
  .map((file) => [`sim/${file}`, `dist/sim/${file}`]);
// The openclaw/ workspace's manifest and lockfile, where the compiled hooks look for the workspace (dist/openclaw/):
// a project that installed gatesim installs the pinned releases there, exactly as locked, with
// `npm ci --prefix node_modules/gatesim/dist/openclaw --ignore-scripts` (README, "Real OpenClaw releases").
for (const file of ['package.json', 'package-lock.json']) copies.push([`openclaw/${file}`, `dist/openclaw/${file}`]);
for (const [from, to] of copies) {
  if (dryRun) process.stdout.write(`copy ${from} ${to}\n`);
  else cpSync(join(root, from), join(root, to));
}
