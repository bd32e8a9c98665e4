// The kernel benchmark (`npm run bench`, `npm run bench -- --json`). It times three workloads of the same shape
// (bench/workloads.ts): a bare typed-array heap (the baseline), plain callbacks through the Scheduler, and simulated
// processes awaiting sleeps through the Simulation. After warm-up rounds, each round runs all three in turn, and a
// figure is the median over the rounds, so the three are measured in the same run under the same conditions.
// Targets (issue 2): plain callbacks at half the baseline or better, async events at a quarter or better.
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import pc from 'picocolors';
import { loadSqlJs } from '../sim/kernel/index.ts';
import { timeAsync, timeBaseline, timePlain, type Timing, type WorkloadShape } from './workloads.ts';

const plainToBaselineMin = 0.5;
const asyncToBaselineMin = 0.25;

interface Options {
  json?: boolean;
  events: number;
  population: number;
  processes: number;
  delayMsMax: number;
  repeats: number;
  warmups: number;
}

interface Samples {
  baseline: number[];
  plain: number[];
  async: number[];
}

function positiveInteger(value: string): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) {
    throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  }
  return Number(value);
}

function perSecond(timing: Timing): number {
  return timing.events / (timing.wallMs / 1_000);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  if (sorted.length % 2 === 1) return sorted[middle] as number;
  return ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

async function measure(options: Options): Promise<Samples> {
  const sql = await loadSqlJs();
  const shape: WorkloadShape = {
    events: options.events,
    population: options.population,
    processes: options.processes,
    delayMsMax: options.delayMsMax,
    delaySeed: 0x5eed,
  };
  const samples: Samples = { baseline: [], plain: [], async: [] };
  for (let round = 0; round < options.warmups + options.repeats; round++) {
    const baseline = perSecond(timeBaseline(shape));
    const plain = perSecond(await timePlain(shape));
    const asyncRate = perSecond(await timeAsync(shape, sql));
    if (round < options.warmups) continue;
    samples.baseline.push(baseline);
    samples.plain.push(plain);
    samples.async.push(asyncRate);
  }
  return samples;
}

function report(options: Options, samples: Samples): Record<string, unknown> {
  const baselineEventsPerSec = median(samples.baseline);
  const eventsPerSec = median(samples.plain);
  const asyncEventsPerSec = median(samples.async);
  const round = (value: number): number => Math.round(value);
  const ratio = (value: number): number => Math.round(value * 1_000) / 1_000;
  return {
    kernel: {
      eventsPerSec: round(eventsPerSec),
      asyncEventsPerSec: round(asyncEventsPerSec),
      baselineEventsPerSec: round(baselineEventsPerSec),
      plainToBaseline: ratio(eventsPerSec / baselineEventsPerSec),
      asyncToBaseline: ratio(asyncEventsPerSec / baselineEventsPerSec),
      targets: {
        plainToBaselineMin,
        asyncToBaselineMin,
        plainMet: eventsPerSec / baselineEventsPerSec >= plainToBaselineMin,
        asyncMet: asyncEventsPerSec / baselineEventsPerSec >= asyncToBaselineMin,
      },
      shape: {
        events: options.events,
        population: options.population,
        processes: options.processes,
        delayMsMax: options.delayMsMax,
        repeats: options.repeats,
        warmups: options.warmups,
      },
      samples: {
        eventsPerSec: samples.plain.map(round),
        asyncEventsPerSec: samples.async.map(round),
        baselineEventsPerSec: samples.baseline.map(round),
      },
    },
    node: process.version,
  };
}

function printTable(options: Options, samples: Samples): void {
  const baseline = median(samples.baseline);
  const rows: [string, number[], number | undefined][] = [
    ['bare heap (baseline)', samples.baseline, undefined],
    ['plain callbacks (Scheduler)', samples.plain, plainToBaselineMin],
    ['async processes (Simulation)', samples.async, asyncToBaselineMin],
  ];
  const millions = (value: number): string => `${(value / 1e6).toFixed(2)}M`;
  const out: string[] = [
    pc.bold('gatesim kernel benchmark'),
    pc.dim(
      `  ${options.events.toLocaleString('en')} events per workload, ${options.population} pending (async: ${options.processes} processes), delays 1-${options.delayMsMax} ms, ` +
        `median of ${options.repeats} after ${options.warmups} warm-up, node ${process.version}`,
    ),
    '',
    `  ${'workload'.padEnd(30)}${'events/s'.padStart(10)}${'min'.padStart(9)}${'max'.padStart(9)}${'vs baseline'.padStart(13)}  target`,
  ];
  for (const [name, values, target] of rows) {
    const value = median(values);
    const ratio = value / baseline;
    let verdict = pc.dim('-');
    if (target !== undefined) {
      const text = `>= ${target}`;
      verdict = ratio >= target ? pc.green(`${text} met`) : pc.red(`${text} MISSED`);
    }
    out.push(
      `  ${name.padEnd(30)}${pc.cyan(millions(value).padStart(10))}${millions(Math.min(...values)).padStart(9)}` +
        `${millions(Math.max(...values)).padStart(9)}${ratio.toFixed(3).padStart(13)}  ${verdict}`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

function program(): Command {
  return new Command('bench')
    .description(
      'Time the simulation kernel against a bare typed-array heap: plain callbacks through the Scheduler and ' +
        'simulated processes awaiting sleeps, each the median of several repeats after warm-up.',
    )
    .option('--json', 'print one JSON object (kernel.eventsPerSec, kernel.asyncEventsPerSec, ...) on stdout')
    .option('--events <n>', 'events per workload per repeat', positiveInteger, 1_000_000)
    .option('--population <n>', 'events pending at all times (sleeping loops in the async workload)', positiveInteger, 1_000)
    .option('--processes <n>', 'simulated processes in the async workload (they share the sleeping loops)', positiveInteger, 10)
    .option('--delay-ms-max <n>', 'delays are drawn uniformly from 1..n ms', positiveInteger, 1_000)
    .option('--repeats <n>', 'measured rounds; each figure is their median', positiveInteger, 7)
    .option('--warmups <n>', 'unmeasured rounds first', positiveInteger, 2)
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action(async (options: Options) => {
      if (options.events <= options.population) throw new InvalidArgumentError('--events must exceed --population');
      if (options.population % options.processes !== 0) {
        throw new InvalidArgumentError('--population must be a multiple of --processes');
      }
      const samples = await measure(options);
      if (options.json === true) process.stdout.write(`${JSON.stringify(report(options, samples))}\n`);
      else printTable(options, samples);
    });
}

async function main(argv: readonly string[]): Promise<number> {
  try {
    await program().parseAsync(argv as string[], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      process.stderr.write(`bench: ${error.message.replace(/^error: /, '')}\n`);
      return 2;
    }
    if (error instanceof InvalidArgumentError) {
      process.stderr.write(`bench: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
