// Campaign throughput: runs of one scenario on the fixed model (every bug off), back to back in this process, as a
// campaign does them. Plans are generated before the clock starts (fast-check's generation is a small, separate
// cost); each run is the harness's runSpec, checkers included, and its SQLite engines are released after it.
// Run directly (`npx tsx bench/scenarios.ts chaos 40 [firstSeed] [warmupRuns]`) it is the target for `node --cpu-prof`.
import { pathToFileURL } from 'node:url';
import type { SqlJsStatic } from 'sql.js';
import { findScenario, type Scenario } from '../scenarios/index.ts';
import { generateSpec } from '../sim/run/generate.ts';
import { runSpec } from '../sim/run/harness.ts';
import type { RunSpec } from '../sim/run/plan.ts';
import { loadSqlJs } from '../sim/kernel/index.ts';
import { wallNowMs } from '../sim/cli/real.ts';

export interface ScenarioTiming {
  runs: number;
  wallMs: number;
  /** CPU time of this process over the same span (less noisy than wall time on a shared machine). */
  cpuMs: number;
  simMs: number;
  steps: number;
  failures: number;
  /** Statements sql.js executed, and reads the adapter's cache answered (deterministic: the same on any machine). */
  sqlStatements: number;
  cachedReads: number;
  skippedDeletes: number;
}

export function fixedSpecs(scenario: Scenario, runs: number, firstSeed: number): RunSpec[] {
  return Array.from({ length: runs }, (_, index) => generateSpec(scenario, [], firstSeed + index, undefined));
}

export async function timeSpecs(specs: readonly RunSpec[], sql: SqlJsStatic): Promise<ScenarioTiming> {
  const timing: ScenarioTiming = { runs: 0, wallMs: 0, cpuMs: 0, simMs: 0, steps: 0, failures: 0, sqlStatements: 0, cachedReads: 0, skippedDeletes: 0 };
  const startMs = wallNowMs();
  const cpuStart = process.cpuUsage();
  for (const spec of specs) {
    const result = await runSpec(spec, { sql });
    timing.sqlStatements += result.sim.sqlite.stats.statements;
    timing.cachedReads += result.sim.sqlite.stats.cachedReads;
    timing.skippedDeletes += result.sim.sqlite.stats.skippedDeletes;
    result.sim.dispose();
    timing.runs++;
    timing.simMs += result.simTimeMs;
    timing.steps += result.steps;
    if (result.verdict === 'fail') timing.failures++;
  }
  timing.wallMs = wallNowMs() - startMs;
  const cpu = process.cpuUsage(cpuStart);
  timing.cpuMs = (cpu.user + cpu.system) / 1_000;
  return timing;
}

async function main(argv: readonly string[]): Promise<void> {
  const scenario = findScenario(argv[0] ?? 'chaos');
  if (scenario === undefined) throw new Error(`unknown scenario ${argv[0]}`);
  const runs = Number(argv[1] ?? 40);
  const warmups = Number(argv[3] ?? 0);
  const sql = await loadSqlJs();
  if (warmups > 0) await timeSpecs(fixedSpecs(scenario, warmups, 1_000_000), sql);
  const timing = await timeSpecs(fixedSpecs(scenario, runs, Number(argv[2] ?? 1)), sql);
  const runsPerSec = timing.runs / (timing.wallMs / 1_000);
  process.stdout.write(
    `${scenario.name}: ${timing.runs} runs in ${Math.round(timing.wallMs)} ms (cpu ${Math.round(timing.cpuMs)} ms), ${runsPerSec.toFixed(1)} runs/s, ` +
      `${Math.round(timing.simMs / timing.wallMs)} sim s per wall s, ${Math.round(timing.steps / timing.runs)} steps/run, ${Math.round(timing.sqlStatements / timing.runs)} sql statements/run (${Math.round(timing.cachedReads / timing.runs)} reads cached, ${Math.round(timing.skippedDeletes / timing.runs)} deletes skipped), ${timing.failures} failed\n`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
