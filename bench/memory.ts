// Memory over a long campaign: chaos runs on the fixed model back to back in one process (run i has plan seed i),
// each released after its checkers ran, as a fuzz campaign does. It reports the process's peak resident set (the
// kernel's high-water mark, so a spike between samples counts) and the growth of the resident set between run
// `fromRun` and the last run, each sampled after a full garbage collection so that garbage not yet collected is not
// counted as growth. bench/run.ts starts it as a child process (`node --expose-gc`), so the other benchmarks do not
// inflate its peak; run directly it prints one JSON object.
import { scenarios } from '../scenarios/index.ts';
import { generateSpec } from '../sim/run/generate.ts';
import { runSpec } from '../sim/run/harness.ts';
import { loadSqlJs } from '../sim/kernel/index.ts';
import { wallNowMs } from '../sim/cli/real.ts';

export interface MemoryFigures {
  runs: number;
  fromRun: number;
  peakRssMb: number;
  rssAtFromRunMb: number;
  rssAtEndMb: number;
  rssGrowthMb: number;
  heapUsedGrowthMb: number;
  wallMs: number;
}

const mb = (bytes: number): number => Math.round((bytes / (1024 * 1024)) * 10) / 10;

function settledMemory(): NodeJS.MemoryUsage {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('bench/memory.ts needs node --expose-gc');
  collect();
  collect();
  return process.memoryUsage();
}

export async function measureMemory(runs: number, fromRun: number, onProgress?: (done: number) => void): Promise<MemoryFigures> {
  if (!(fromRun >= 1 && fromRun < runs)) throw new Error(`the growth is measured from a run between 1 and ${runs - 1}, got ${fromRun}`);
  const chaos = scenarios.find((scenario) => scenario.name === 'chaos');
  if (chaos === undefined) throw new Error('no chaos scenario');
  const sql = await loadSqlJs();
  const startMs = wallNowMs();
  let atFrom: NodeJS.MemoryUsage | undefined;
  for (let run = 1; run <= runs; run++) {
    const result = await runSpec(generateSpec(chaos, [], run, undefined), { sql });
    result.sim.dispose();
    if (run === fromRun) atFrom = settledMemory();
    if (onProgress !== undefined && run % 100 === 0) onProgress(run);
  }
  const atEnd = settledMemory();
  if (atFrom === undefined) throw new Error('no sample at fromRun');
  return {
    runs,
    fromRun,
    // maxRSS is in kilobytes.
    peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
    rssAtFromRunMb: mb(atFrom.rss),
    rssAtEndMb: mb(atEnd.rss),
    rssGrowthMb: mb(atEnd.rss - atFrom.rss),
    heapUsedGrowthMb: mb(atEnd.heapUsed - atFrom.heapUsed),
    wallMs: Math.round(wallNowMs() - startMs),
  };
}

async function main(argv: readonly string[]): Promise<void> {
  const runs = Number(argv[0] ?? 20_000);
  const fromRun = Number(argv[1] ?? Math.round(runs / 10));
  const progress = argv.includes('--progress');
  const report = (done: number): void => {
    const usage = process.memoryUsage();
    process.stderr.write(`memory: ${done}/${runs} runs, rss ${mb(usage.rss)} MB, heap used ${mb(usage.heapUsed)} MB, peak rss ${mb(process.resourceUsage().maxRSS * 1024)} MB\n`);
  };
  const figures = await measureMemory(runs, fromRun, progress ? report : undefined);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

if (process.argv[1]?.endsWith('memory.ts') === true) await main(process.argv.slice(2));
