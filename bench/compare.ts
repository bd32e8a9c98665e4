// Before and after in one process: `npx tsx bench/compare.ts <other checkout> [scenario] [runs] [rounds]` runs the same
// fixed-model specs (seeds 1..runs) through another checkout of gatesim (say `git worktree add /tmp/before <commit>`,
// with its node_modules linked) and through this one, alternating run by run, and prints the CPU time per run of
// each and their ratio. On a shared machine the load moves between two processes run one after the other, by
// more than a speed-up is worth; run by run in one process, both sides see the same load. The other tree may be a
// compiled one (`tsc -p tsconfig.build.json --outDir <dir>`, its node_modules linked): then its .js modules are
// loaded as they are, which measures what tsx's transform costs against the built package (`bin/gatesim.js`).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

type Scenarios = typeof import('../scenarios/index.ts');
type Generate = typeof import('../sim/run/generate.ts');
type Harness = typeof import('../sim/run/harness.ts');
type Kernel = typeof import('../sim/kernel/index.ts');

interface Tree {
  scenarios: Scenarios;
  generate: Generate;
  harness: Harness;
  kernel: Kernel;
}

async function load(root: string): Promise<Tree> {
  const ext = existsSync(`${root}/scenarios/index.ts`) ? 'ts' : 'js';
  return {
    scenarios: (await import(`${root}/scenarios/index.${ext}`)) as Scenarios,
    generate: (await import(`${root}/sim/run/generate.${ext}`)) as Generate,
    harness: (await import(`${root}/sim/run/harness.${ext}`)) as Harness,
    kernel: (await import(`${root}/sim/kernel/index.${ext}`)) as Kernel,
  };
}

/** CPU ms of one run of `seed` in `tree`, its SQLite engines released after it. */
async function cpuMsOfRun(tree: Tree, scenarioName: string, seed: number): Promise<number> {
  const scenario = tree.scenarios.findScenario(scenarioName);
  if (scenario === undefined) throw new Error(`unknown scenario ${scenarioName}`);
  const spec = tree.generate.generateSpec(scenario, [], seed, undefined);
  const sql = await tree.kernel.loadSqlJs();
  const start = process.cpuUsage();
  const result = await tree.harness.runSpec(spec, { sql });
  result.sim.dispose();
  const cpu = process.cpuUsage(start);
  return (cpu.user + cpu.system) / 1_000;
}

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

async function main(argv: readonly string[]): Promise<void> {
  const otherRoot = argv[0];
  if (otherRoot === undefined) throw new Error('usage: bench/compare.ts <other checkout> [scenario] [runs] [rounds]');
  const scenario = argv[1] ?? 'chaos';
  const runs = Number(argv[2] ?? 10);
  const rounds = Number(argv[3] ?? 2);
  const trees = { before: await load(resolve(otherRoot)), after: await load(resolve(fileURLToPath(new URL('..', import.meta.url)))) };
  const cpuMs = { before: [] as number[], after: [] as number[] };
  // Warm both sides up on seeds the timed runs do not use.
  for (const side of ['before', 'after'] as const) for (let seed = 1_000_000; seed < 1_000_003; seed++) await cpuMsOfRun(trees[side], scenario, seed);
  for (let round = 0; round < rounds; round++) {
    for (let seed = 1; seed <= runs; seed++) {
      // Alternate which side goes first, so neither always runs right after the other's garbage.
      const order = (seed + round) % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const side of order) cpuMs[side].push(await cpuMsOfRun(trees[side], scenario, seed));
    }
  }
  const ratios = cpuMs.before.map((before, i) => before / (cpuMs.after[i] as number)).sort((a, b) => a - b);
  const before = sum(cpuMs.before) / cpuMs.before.length;
  const after = sum(cpuMs.after) / cpuMs.after.length;
  process.stdout.write(
    `${scenario}: ${ratios.length} pairs; CPU ms per run before ${before.toFixed(1)}, after ${after.toFixed(1)}; ` +
      `ratio ${(before / after).toFixed(2)} (median of the pairs ${(ratios[Math.floor(ratios.length / 2)] as number).toFixed(2)})\n`,
  );
}

await main(process.argv.slice(2));
