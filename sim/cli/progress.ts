// Progress of a fuzz campaign on stderr (stdout keeps the report or the JSON): one overall bar over every scenario
// when stderr is a terminal; otherwise (a CI log, a pipe) a plain line at most every few seconds, so a log shows the
// campaign is alive without a line per run.
import { SingleBar } from 'cli-progress';
import { formatMs } from './format.ts';
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
