// Parallel campaigns: the same chaos runs (plan seeds 1..runs) shared out over n worker threads, run i going to
// worker i mod n. The workers start and warm up first; the clock runs from handing out the seeds to the last
// worker's answer, so the figure is the campaign's throughput, not the threads' start-up.
import { Worker } from 'node:worker_threads';
import { wallNowMs } from '../sim/cli/real.ts';
import type { WorkerDone, WorkerStart } from './worker.ts';

export interface WorkersFigure {
  workers: number;
  runs: number;
  wallMs: number;
  runsPerSec: number;
}

function startWorker(scenario: string): Promise<Worker> {
  const worker = new Worker(new URL('./worker-boot.mjs', import.meta.url), { workerData: { scenario } });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (message: unknown) => (message === 'ready' ? resolve(worker) : reject(new Error(`worker said ${String(message)}`))));
  });
}

function runShare(worker: Worker, start: WorkerStart): Promise<WorkerDone> {
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (done: WorkerDone) => resolve(done));
    worker.postMessage(start);
  });
}

export async function measureWorkers(count: number, runs: number, scenario = 'chaos'): Promise<WorkersFigure> {
  const workers = await Promise.all(Array.from({ length: count }, () => startWorker(scenario)));
  try {
    const shares = workers.map((_, index) => Array.from({ length: runs }, (__, seed) => seed + 1).filter((seed) => seed % count === index));
    const startMs = wallNowMs();
    const done = await Promise.all(workers.map((worker, index) => runShare(worker, { scenario, seeds: shares[index] ?? [] })));
    const wallMs = wallNowMs() - startMs;
    const total = done.reduce((sum, share) => sum + share.runs, 0);
    if (total !== runs) throw new Error(`workers ran ${total} of ${runs} runs`);
    return { workers: count, runs, wallMs: Math.round(wallMs), runsPerSec: Math.round((runs / (wallMs / 1_000)) * 10) / 10 };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
