// The benchmark's figures as tables (what `npm run bench` prints): one table per section, each figure beside its
// target from issue 13 and whether it was met.
import pc from 'picocolors';

type Figures = Record<string, unknown>;

const targetsOf = (figures: Figures): Record<string, number> => (figures.targets ?? {}) as Record<string, number>;

function cell(value: unknown, width: number): string {
  const text = value === null || value === undefined ? '-' : typeof value === 'number' ? value.toLocaleString('en') : String(value);
  return text.padStart(width);
}

function verdict(met: boolean | undefined, text: string): string {
  if (met === undefined) return pc.dim(text);
  return met ? pc.green(`${text} met`) : pc.red(`${text} MISSED`);
}

function kernelLines(kernel: Figures): string[] {
  return [
    pc.bold('kernel (events per second, median of repeats)'),
    `  plain callbacks ${cell(kernel.eventsPerSec, 12)}   async processes ${cell(kernel.asyncEventsPerSec, 12)}   bare heap ${cell(kernel.baselineEventsPerSec, 12)}`,
    `  plain/bare ${kernel.plainToBaseline as number} (target >= 0.5)   async/bare ${kernel.asyncToBaseline as number} (target >= 0.25)`,
  ];
}

function scenarioLines(all: Figures, targets: Record<string, number>): string[] {
  const out = [pc.bold('campaigns on the fixed model'), `  ${'scenario'.padEnd(15)}${'runs/s'.padStart(9)}${'ms/run'.padStart(9)}${'steps/run'.padStart(11)}${'sim s/wall s'.padStart(14)}  target`];
  for (const [name, value] of Object.entries(all)) {
    const figures = value as Figures;
    const sim = figures.simSecondsPerWallSecond as number;
    let target = verdict(sim >= (targets.simSecondsPerWallSecondMin ?? 0), `>= ${(targets.simSecondsPerWallSecondMin ?? 0).toLocaleString('en')} sim s/s`);
    if (name === 'chaos') target += `, ${verdict((figures.runsPerSec as number) >= (targets.chaosRunsPerSecMin ?? 0), `>= ${targets.chaosRunsPerSecMin} runs/s`)}`;
    out.push(`  ${name.padEnd(15)}${cell(figures.runsPerSec, 9)}${cell(figures.msPerRun, 9)}${cell(figures.stepsPerRun, 11)}${cell(sim, 14)}  ${target}`);
  }
  return out;
}

function workerLines(workers: Figures, targets: Record<string, number>): string[] {
  const one = workers['1'] as Figures;
  const two = workers['2'] as Figures;
  const speedup = two.speedupVsOne as number;
  return [
    pc.bold('worker threads on chaos'),
    `  1 worker ${cell(one.runsPerSec, 7)} runs/s   2 workers ${cell(two.runsPerSec, 7)} runs/s   speed-up ${speedup}  ${verdict(speedup >= (targets.twoWorkersSpeedupMin ?? 0), `>= ${targets.twoWorkersSpeedupMin}`)}`,
  ];
}

function huntLines(hunt: Figures, peer: Figures | undefined, targets: Record<string, number>): string[] {
  const out = [
    pc.bold('hunts (medians over campaign seeds; wall ms to the first failing run, before shrinking)'),
    `  ${'bug'.padEnd(13)}${'where'.padEnd(15)}${'found'.padStart(6)}${'runs'.padStart(7)}${'wall ms'.padStart(9)}${'+shrink ms'.padStart(11)}${'plan'.padStart(6)}  target`,
  ];
  for (const [bug, value] of Object.entries(hunt)) {
    let label = bug;
    for (const where of ['focused', 'chaos'] as const) {
      const figures = (value as Figures)[where] as Figures | undefined;
      if (figures === undefined) continue;
      const wallMs = figures.wallMsToFirstFailure as number | null;
      const limit = where === 'chaos' ? targets.chaosWallMsToFirstFailureMax : targets.focusedWallMsToFirstFailureMax;
      const size = figures.shrunkPlanSize as number | null;
      const target = `${verdict(wallMs !== null && wallMs < (limit ?? 0), `< ${limit} ms`)}, ${verdict(size !== null && size <= (targets.shrunkPlanSizeMax ?? 0), `plan <= ${targets.shrunkPlanSizeMax}`)}`;
      out.push(
        `  ${label.padEnd(13)}${(where === 'focused' ? String(figures.scenario) : 'chaos').padEnd(15)}` +
          `${cell(`${figures.found as number}/${figures.campaigns as number}`, 6)}${cell(figures.runsToFirstFailure, 7)}${cell(wallMs, 9)}${cell(figures.wallMsToShrunkFailure, 11)}${cell(size, 6)}  ${target}`,
      );
      label = '';
    }
    const mine = peer?.[bug] as Figures | undefined;
    if (mine !== undefined) out.push(`  ${''.padEnd(13)}${'peer'.padEnd(15)}${cell(`${mine.found as number}/${mine.campaigns as number}`, 6)}${cell(mine.runsToFirstFailure, 7)}${cell(mine.wallMsToFirstFailure, 9)}  ${pc.dim(String(mine.verdict))}`);
  }
  const fixed = peer?.fixedModel as Figures | undefined;
  if (fixed !== undefined) out.push(pc.dim(`  peer property on the fixed model (false alarms): ${String(fixed.verdict)}`));
  return out;
}

function memoryLines(memory: Figures, targets: Record<string, number>): string[] {
  const growth = memory.rssGrowthMb as number;
  return [
    pc.bold(`memory over ${(memory.runs as number).toLocaleString('en')} chaos runs in one process`),
    `  peak rss ${memory.peakRssMb as number} MB   rss growth from run ${(memory.fromRun as number).toLocaleString('en')} ${growth} MB (heap used ${memory.heapUsedGrowthMb as number} MB)  ${verdict(growth <= (targets.rssGrowthMbMax ?? 0), `<= ${targets.rssGrowthMbMax} MB`)}`,
  ];
}

function campaignLines(campaign: Figures): string[] {
  const load = campaign.loadAverage as Figures;
  return [
    pc.bold(`fuzz --all on ${String(campaign.workers)} workers (${String(campaign.runs)} runs, after a warm-up; load average ${JSON.stringify(load.start)} -> ${JSON.stringify(load.end)})`),
    `  ${cell(campaign.runsPerSec, 7)} runs/s   ${cell(campaign.cpuMsPerRun, 7)} CPU ms/run   1,000,000 runs: ${String(campaign.millionRunsHoursAtMeasuredRate)} h at this rate, ${String(campaign.millionRunsHoursOnTwoQuietCores)} h on two quiet cores (target <= 8 h)`,
    ...(campaign.failures as string[]).map((failure) => pc.red(`  failed on the fixed model: ${failure}`)),
  ];
}

function issue25Lines(issue: Figures): string[] {
  const targets = issue.targets as Record<string, number>;
  const met = (value: unknown, ok: (value: number) => boolean, text: string): string => (typeof value === 'number' ? `${value} ${verdict(ok(value), text)}` : pc.dim(`- (${text}; section not run)`));
  const ratios = issue.openclawRatioToModel as Record<string, number | null> | null;
  return [
    pc.bold('issue 25 (campaign speed)'),
    `  chaos runs/s on one core        ${met(issue.chaosRunsPerSecOneCore, (value) => value >= (targets.chaosRunsPerSecOneCoreMin ?? 0), `>= ${targets.chaosRunsPerSecOneCoreMin}`)} (per CPU second: ${String(issue.chaosRunsPerCpuSecOneCore)})`,
    `  2 workers vs 1 (${String(issue.twoWorkersChaosRuns)} runs)     ${met(issue.twoWorkersSpeedup, (value) => value >= (targets.twoWorkersSpeedupMin ?? 0), `>= ${targets.twoWorkersSpeedupMin}`)}`,
    `  1M fuzz --all runs, 2 cores (h) ${met(issue.fuzzAllMillionRunsHoursOnTwoCores, (value) => value <= (targets.fuzzAllMillionRunsHoursOnTwoCoresMax ?? 0), `<= ${targets.fuzzAllMillionRunsHoursOnTwoCoresMax}`)} (two quiet cores: ${String(issue.fuzzAllMillionRunsHoursOnTwoQuietCores)})`,
    `  peak RSS (MB, ${String(issue.peakRssRuns)} runs)       ${met(issue.peakRssMb, (value) => value < (targets.peakRssMbOf20000RunsMax ?? 0), `< ${targets.peakRssMbOf20000RunsMax}`)}`,
    `  openclaw CPU / model            ${ratios === null ? pc.dim('- (section openclaw not run)') : Object.entries(ratios).map(([release, ratio]) => `${release} ${met(ratio, (value) => value <= (targets.openclawRatioToModelMax ?? 0), `<= ${targets.openclawRatioToModelMax}`)}`).join(', ')}`,
  ];
}

function openclawLines(figures: Figures): string[] {
  if (figures.installed === false) return [pc.bold('openclaw'), '  not installed (npm ci --prefix openclaw)'];
  const lines = [pc.bold(`openclaw (CPU ms per chaos run, median of ${String(figures.runs)}; parts ${(figures.parts as string[]).join(', ')})`)];
  lines.push(`  ${'model'.padEnd(12)}${cell((figures.model as Figures).cpuMsPerRun, 9)}`);
  for (const [release, value] of Object.entries(figures)) {
    if (!/^\d{4}\./.test(release)) continue;
    const row = value as Figures;
    const ratio = row.ratioToModel as number;
    lines.push(`  ${release.padEnd(12)}${cell(row.cpuMsPerRun, 9)}  ${ratio}x the model's  ${verdict(ratio <= 3, '<= 3x')}`);
  }
  return lines;
}

export function printTable(figures: Figures): void {
  const targets = targetsOf(figures);
  const machine = figures.machine as Figures;
  const out = [
    pc.bold(`gatesim benchmarks${figures.quick === true ? ' (quick)' : ''}`),
    pc.dim(`  ${machine.cpus as number} cpus (${String(machine.cpuModel)}), node ${String(machine.node)}, load average ${JSON.stringify(machine.loadAverageAtStart)} -> ${JSON.stringify(machine.loadAverageAtEnd)}`),
  ];
  const add = (lines: string[]): void => {
    out.push('', ...lines);
  };
  if (figures.kernel !== undefined) add(kernelLines(figures.kernel as Figures));
  if (figures.scenarios !== undefined) add(scenarioLines(figures.scenarios as Figures, targets));
  if (figures.workers !== undefined) add(workerLines(figures.workers as Figures, targets));
  if (figures.hunt !== undefined) add(huntLines(figures.hunt as Figures, figures.peer as Figures | undefined, targets));
  else if (figures.peer !== undefined) add([pc.bold('peer'), ...Object.entries(figures.peer as Figures).map(([bug, value]) => `  ${bug.padEnd(13)} ${String((value as Figures).verdict)}`)]);
  if (figures.memory !== undefined) add(memoryLines(figures.memory as Figures, targets));
  if (figures.openclaw !== undefined) add(openclawLines(figures.openclaw as Figures));
  if (figures.campaign !== undefined) add(campaignLines(figures.campaign as Figures));
  if (figures.issue25 !== undefined) add(issue25Lines(figures.issue25 as Figures));
  process.stdout.write(`${out.join('\n')}\n`);
}
