// The speed-up guard: the traceHash of a fixed sample of seeds per scenario (every fifth with one bug switched on),
// printed as one JSON object `{ "<scenario>/<seed>/<bugs>": "<hash>" }`. A change made for speed must leave every
// hash as it was (`npx tsx bench/trace-hashes.ts --check bench/trace-hashes.json` exits 1 and names each seed that
// changed); a change that alters what the model does says so in BENCHMARKS.md and records the new hashes.
import { readFileSync } from 'node:fs';
import { type BugId, bugIds } from '../src/index.ts';
import { scenarios } from '../scenarios/index.ts';
import { generateSpec } from '../sim/run/generate.ts';
import { runSpec } from '../sim/run/harness.ts';
import { loadSqlJs } from '../sim/kernel/index.ts';
import { wallNowMs } from '../sim/cli/real.ts';

const seedsPerScenario = 20;
const firstSeed = 1;

async function hashes(): Promise<Record<string, string>> {
  const sql = await loadSqlJs();
  const out: Record<string, string> = {};
  for (const scenario of scenarios) {
    for (let seed = firstSeed; seed < firstSeed + seedsPerScenario; seed++) {
      const bugs: BugId[] = seed % 5 === 0 ? [bugIds[(seed / 5) % bugIds.length] as BugId] : [];
      const result = await runSpec(generateSpec(scenario, bugs, seed, undefined), { sql });
      result.sim.dispose();
      out[`${scenario.name}/${seed}/${bugs.join(',') || 'none'}`] = result.traceHash;
    }
  }
  return out;
}

const startMs = wallNowMs();
const now = await hashes();
const wallMs = Math.round(wallNowMs() - startMs);
const checkIndex = process.argv.indexOf('--check');
if (checkIndex < 0) {
  process.stdout.write(`${JSON.stringify(now, null, 1)}\n`);
  process.stderr.write(`${Object.keys(now).length} runs in ${wallMs} ms\n`);
} else {
  const recorded = JSON.parse(readFileSync(process.argv[checkIndex + 1] ?? '', 'utf8')) as Record<string, string>;
  const changed = Object.keys(recorded).filter((key) => recorded[key] !== now[key]);
  for (const key of changed) process.stdout.write(`changed: ${key} ${recorded[key]} -> ${now[key] ?? 'missing'}\n`);
  process.stdout.write(`${Object.keys(recorded).length - changed.length}/${Object.keys(recorded).length} traceHashes unchanged (${wallMs} ms)\n`);
  process.exitCode = changed.length === 0 ? 0 : 1;
}
