// The cost of real OpenClaw parts (`--openclaw`): CPU per chaos run with the parts a bare `--openclaw <release>` runs
// (today every part of a release: its system-event queue, heartbeat wakes, node exec events, orphan merge, session-file
// repair, session write lock and mirror append; sim/real/openclaw/choice.ts) against the model's own, on the same plans.
// The sides alternate run by run in this one process, so both see the same load; the ratio is of medians. A release
// that is not installed is reported as such, not measured.
import type { SqlJsStatic } from 'sql.js';
import { findScenario } from '../scenarios/index.ts';
import { type OpenclawChoice, openclawBarePartsOf, openclawGatewayParts } from '../sim/real/openclaw/choice.ts';
import { openclawInstalled, type OpenclawRelease, openclawReleases } from '../sim/real/openclaw/releases.ts';
import { generateSpec } from '../sim/run/generate.ts';
import { runSpec } from '../sim/run/harness.ts';
import { median, round } from './stats.ts';

async function cpuMsOfRun(sql: SqlJsStatic, seed: number, openclaw: OpenclawChoice | undefined): Promise<number> {
  const chaos = findScenario('chaos');
  if (chaos === undefined) throw new Error('chaos is built in');
  const spec = generateSpec(chaos, [], seed, undefined);
  const start = process.cpuUsage();
  const result = await runSpec(spec, { sql, ...(openclaw === undefined ? {} : { openclaw }) });
  result.sim.dispose();
  const cpu = process.cpuUsage(start);
  return (cpu.user + cpu.system) / 1_000;
}

/**
 * `openclaw`: per release, CPU ms per chaos run (median) with the parts a bare `--openclaw <release>` runs (`parts` of
 * the release's row; the top-level `parts` names every part gatesim can run of some release), and its ratio to the model's.
 */
export async function measureOpenclaw(sql: SqlJsStatic, runs: number): Promise<Record<string, unknown>> {
  const installed = openclawReleases.filter((release) => openclawInstalled(release));
  const out: Record<string, unknown> = { runs, parts: openclawGatewayParts };
  if (installed.length === 0) return { ...out, installed: false };
  const choices = installed.map((release): OpenclawChoice => ({ release, parts: [...openclawBarePartsOf(release)] }));
  // Warm-up: the first instance of a release indexes and compiles its chunks (once per process).
  for (const choice of choices) await cpuMsOfRun(sql, 1_000_000, choice);
  await cpuMsOfRun(sql, 1_000_000, undefined);
  const model: number[] = [];
  const real = new Map<OpenclawRelease, number[]>(installed.map((release) => [release, []]));
  for (let seed = 1; seed <= runs; seed++) {
    model.push(await cpuMsOfRun(sql, seed, undefined));
    for (const choice of choices) real.get(choice.release)?.push(await cpuMsOfRun(sql, seed, choice));
  }
  const modelMs = median(model);
  out.model = { cpuMsPerRun: round(modelMs, 1) };
  for (const [release, times] of real) out[release] = { cpuMsPerRun: round(median(times), 1), ratioToModel: round(median(times) / modelMs, 2), parts: openclawBarePartsOf(release) };
  return out;
}
