// `fuzz --check-determinism[=<fraction>]`: a sample of the campaign's runs is run twice more, once where the campaign
// runs (this thread, or a thread of its pool: the module state its runs left) and once on a worker thread of its own
// that no campaign run touched (its own module state: the --load modules, a real OpenClaw release or the pi
// SessionManager loaded again there), and the three trace hashes must agree. The sample is a pure function of the
// campaign seed, the scenario and the run index, so a campaign samples the same runs with any --workers, and a
// shard's sampled runs are its own runs. A mismatch names the first event at which the two traces differ.
import { InvalidArgumentError } from 'commander';
import { contentHash } from '../../src/index.ts';
import { assert } from '../kernel/assert.ts';
import { firstDivergence, serialiseEvent, type TraceEvent } from '../kernel/trace.ts';
import type { RunTrace } from './fuzz-task.ts';
import type { Executor } from './pool.ts';

export const checkFractionDefault = 0.1;

/** The option's value: a fraction 0 < f <= 1 (`--check-determinism` alone is checkFractionDefault). */
export function parseCheckFraction(value: string): number {
  const fraction = /^(?:\d{1,9}(?:\.\d{0,12})?|\.\d{1,12})$/.test(value) ? Number(value) : Number.NaN;
  if (!(fraction > 0 && fraction <= 1)) throw new InvalidArgumentError(`--check-determinism takes a fraction of the runs, 0 < f <= 1 (default ${checkFractionDefault}), got "${value.slice(0, 40)}"`);
  return fraction;
}

/** A 32-bit finaliser (murmur3's), so neighbouring run indices land far apart. */
function mix(hash: number): number {
  let h = hash >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Whether run `run` (0-based) of a scenario is checked: from the campaign seed, scenario and run index only. */
export function checksRun(campaignSeed: number, scenarioIndex: number, run: number, fraction: number): boolean {
  const draw = mix(Number.parseInt(contentHash(`gatesim-determinism/${campaignSeed}/${scenarioIndex}/${run}`), 16)) / 2 ** 32;
  return draw < fraction;
}

/** What a campaign's determinism check needs: the fraction of runs to check and the worker thread of its own. */
export interface DeterminismCheck {
  fraction: number;
  /** A worker thread that does no run of the campaign (pool.ts, freshThreadExecutor). */
  fresh: Executor;
}

/** The three traces of a checked run, in this order. */
export const traceNames = ['campaign run', 'replay where the campaign runs', 'replay on a fresh worker thread'] as const;

export interface DivergentEvent {
  index: number;
  timeMs: number;
  kind: TraceEvent['kind'];
  fields: TraceEvent['fields'];
}

/** A run of one plan that gave two traces. */
export interface DeterminismMismatch {
  scenario: string;
  /** The run's seed string (`repro` replays it). */
  seed: string;
  /** 1-based index of the run within the scenario's whole campaign. */
  run: number;
  /** The trace hashes of the campaign run, the replay where the campaign runs and the replay on a fresh thread. */
  hashes: [string, string, string];
  /** The first event at which the first two traces that differ (`between`, indices into `hashes`) differ; null where one ended. */
  firstDivergence: { index: number; between: [number, number]; a: DivergentEvent | null; b: DivergentEvent | null };
}

/** What a scenario's check found: runs checked (each replayed twice) and its first mismatch by run index. */
export interface DeterminismOutcome {
  checked: number;
  mismatch: DeterminismMismatch | undefined;
}

function eventOf(event: TraceEvent | undefined): DivergentEvent | null {
  return event === undefined ? null : { index: event.index, timeMs: event.timeMs, kind: event.kind, fields: event.fields };
}

/** Compare the three traces of one run; undefined when their hashes agree. */
export function compareTraces(traces: readonly [RunTrace, RunTrace, RunTrace]): Omit<DeterminismMismatch, 'scenario' | 'seed' | 'run'> | undefined {
  const hashes: [string, string, string] = [traces[0].hash, traces[1].hash, traces[2].hash];
  if (hashes[0] === hashes[1] && hashes[0] === hashes[2]) return undefined;
  const other = hashes[0] === hashes[1] ? 2 : 1;
  const [left, right] = [traces[0].events, traces[other]?.events ?? []];
  const divergence = firstDivergence(left, right);
  assert(divergence !== undefined, `trace hashes ${hashes.join(', ')} differ but their events do not`);
  return { hashes, firstDivergence: { index: divergence.index, between: [0, other], a: eventOf(left[divergence.index]), b: eventOf(right[divergence.index]) } };
}

function eventText(event: DivergentEvent | null): string {
  return event === null ? '(trace ended)' : `#${event.index} ${serialiseEvent(event)}`;
}

/** A mismatch for the text report: its hashes, the two events where its traces part, and its seed string. */
export function mismatchLines(mismatch: DeterminismMismatch): string[] {
  const { between, index, a, b } = mismatch.firstDivergence;
  const [first, second] = between.map((position) => traceNames[position] ?? '');
  return [
    `  trace hashes: ${mismatch.hashes.join(' / ')} (${traceNames.join(' / ')})`,
    `  first divergence at event #${index}:`,
    `    ${first}: ${eventText(a)}`,
    `    ${second}: ${eventText(b)}`,
    `  seed: ${mismatch.seed}`,
  ];
}
