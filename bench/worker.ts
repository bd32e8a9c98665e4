// A benchmark worker thread (bench/workers.ts starts it): it loads the model and sql.js, says it is ready, then runs
// the chaos plans of the seeds it is given and reports how many runs it did and the simulated time they covered.
import { parentPort, workerData } from 'node:worker_threads';
import { findScenario } from '../scenarios/index.ts';
import { loadSqlJs } from '../sim/kernel/index.ts';
import { fixedSpecs, timeSpecs } from './scenarios.ts';

export interface WorkerStart {
  scenario: string;
  seeds: number[];
}

export interface WorkerDone {
  runs: number;
  simMs: number;
  failures: number;
}

const port = parentPort;
if (port === null) throw new Error('bench/worker.ts runs as a worker thread');
const scenario = findScenario((workerData as { scenario: string }).scenario);
if (scenario === undefined) throw new Error('unknown scenario');
const sql = await loadSqlJs();
// Warm the code paths once so that the measured runs are not compiling.
await timeSpecs(fixedSpecs(scenario, 1, 999_999), sql);
port.on('message', async (start: WorkerStart) => {
  let runs = 0;
  let simMs = 0;
  let failures = 0;
  for (const seed of start.seeds) {
    const timing = await timeSpecs(fixedSpecs(scenario, 1, seed), sql);
    runs += timing.runs;
    simMs += timing.simMs;
    failures += timing.failures;
  }
  port.postMessage({ runs, simMs, failures } satisfies WorkerDone);
});
port.postMessage('ready');
