// Progress of a fuzz campaign on stderr (stdout keeps the report or the JSON): one overall bar over every scenario
// when stderr is a terminal; otherwise (a CI log, a pipe) a plain line at most every few seconds, so a log shows the
// campaign is alive without a line per run. A shrink shows its progress the same way (runs tried, and how big the
// plan it is at is), and a run of a real OpenClaw release is announced before its long first load.
import { SingleBar } from 'cli-progress';
import type { OpenclawChoice } from '../real/openclaw/choice.ts';
import { formatMs } from './format.ts';
import type { OnShrinkProgress, PlanSize } from './fuzz-task.ts';
import { wallNowMs } from './real.ts';

export const plainLineEveryMs = 5_000;

export interface ProgressPlan {
  scenarios: number;
  /** Runs per scenario this shard does, or undefined under --seconds. */
  runsPerScenario: number | undefined;
  seconds: number | undefined;
}

export interface Progress {
  /** `runsDone` counts this scenario's runs so far; `scenario` is its 0-based position in the campaign. */
  update(scenario: string, position: number, runsDone: number): void;
  /** A line about the campaign's state: on stderr off a terminal, in the bar's label on a terminal. */
  note(line: string): void;
  /**
   * The shrink of a scenario's failure starts (at most `runsMax` runs): the returned callback hears each of its runs,
   * and like `update` shows them on the bar or in a plain line at most every few seconds.
   */
  shrinking(scenario: string, runsMax: number): OnShrinkProgress;
  /** Print a line of the report without tearing the bar. */
  print(line: string): void;
  stop(): void;
}

/** The bar's total and unit: runs when the run count is known, otherwise wall seconds (never "191/0 runs"). */
export function barScale(plan: ProgressPlan): { total: number; unit: string } {
  if (plan.runsPerScenario !== undefined) return { total: plan.scenarios * plan.runsPerScenario, unit: ' runs' };
  return { total: plan.scenarios * (plan.seconds ?? 1), unit: 's' };
}

export function startProgress(plan: ProgressPlan, terminal: boolean, write: (line: string) => void, nowMs: () => number = wallNowMs): Progress {
  const started = nowMs();
  const { total, unit } = barScale(plan);
  let before = 0;
  let runs = 0;
  let lastPosition = -1;
  let lastLineMs = started;
  const bar = terminal ? new SingleBar({ format: `  [{bar}] {value}/{total}${unit}  {runs} runs done  {scenario}`, hideCursor: true, clearOnComplete: true, stream: process.stderr }) : undefined;
  bar?.start(total, 0, { runs: 0, scenario: '' });
  const value = (): number =>
    plan.runsPerScenario === undefined ? Math.min(total, Math.floor((nowMs() - started) / 1_000)) : Math.min(total, runs);
  return {
    update(scenario, position, runsDone) {
      if (position !== lastPosition) {
        before = runs;
        lastPosition = position;
      }
      runs = before + runsDone;
      bar?.update(value(), { runs, scenario });
      if (bar === undefined && nowMs() - lastLineMs >= plainLineEveryMs) {
        lastLineMs = nowMs();
        const of = plan.runsPerScenario === undefined ? '' : `/${total}`;
        write(`fuzz: ${runs}${of} runs, now ${scenario} (${position + 1}/${plan.scenarios}), ${formatMs(Math.round(lastLineMs - started))} elapsed`);
      }
    },
    shrinking(scenario, runsMax) {
      const shrinkStarted = nowMs();
      let lastShrinkLineMs = shrinkStarted;
      return ({ runs: tried, plan: size }) => {
        const line = `fuzz: shrinking ${scenario}: ${tried}/${runsMax} runs tried, plan now ${planSizeText(size)}`;
        if (bar !== undefined) {
          bar.update({ runs, scenario: line.replace(/^fuzz: /, '') });
          return;
        }
        if (nowMs() - lastShrinkLineMs < plainLineEveryMs) return;
        lastShrinkLineMs = nowMs();
        write(`${line}, ${formatMs(Math.round(lastShrinkLineMs - shrinkStarted))} elapsed`);
      };
    },
    note(line) {
      if (bar === undefined) write(line);
      else bar.update({ runs, scenario: line.replace(/^fuzz: /, '') });
    },
    print(line) {
      if (bar === undefined) {
        process.stdout.write(`${line}\n`);
        return;
      }
      bar.stop();
      process.stdout.write(`${line}\n`);
      bar.start(total, value(), { runs, scenario: '' });
    },
    stop() {
      bar?.stop();
    },
  };
}

function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** A plan's size as a shrink's progress shows it: `4 workload steps + 1 fault`. */
export function planSizeText(size: PlanSize): string {
  return `${counted(size.workload, 'workload step')} + ${counted(size.faults, 'fault')}`;
}

/**
 * The line to print (on stderr) before the first run of a real OpenClaw release: loading the release's chunks takes
 * about 20 s once per process (per worker thread), inside that run, which would otherwise look hung. The fuzz command
 * prints it; `run` and `repro` can print it before their run.
 */
export function releaseLoadingLine(choice: OpenclawChoice): string {
  return `loading OpenClaw ${choice.release} (${choice.parts.join(', ')}) before the first run: up to about 20 s`;
}
