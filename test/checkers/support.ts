// Shared by the checker tests: each one runs a small hand-built plan of the fixed model (which passes every
// invariant) once untouched and once with the world sabotaged through runSpec's `prepare` hook, and expects the
// named invariant to fire. The sabotage works from outside every component, the way a checker looks at the run:
// SQL straight on a simulated database (committed at once, as another writer's commit would be), a file rewritten
// and fsynced by a rogue simulated process, or a world object (network, model API) wrapped.
import type { BuiltModel, SqlParams } from '../../src/index.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { TraceEvent } from '../../sim/kernel/trace.ts';
import { handPlan, user } from '../model/support.ts';

/** Turn ids of the two-turn plan: the harness names the turn of workload step i `in:d<i>`. */
export const firstTurn = 'in:d0';
export const secondTurn = 'in:d1';

/** Two chat turns on session 0, far enough apart that the first is completed and delivered before the second. */
export const twoTurns = handPlan([user(1_000, 'hello there'), user(20_000, 'second question')]);

/** Between the turns: the first has completed, its JSONL is synced and its replies are visible (at about 5 s). */
export const betweenTurnsMs = 10_000;

/** After every turn of the plan is over and delivered (the run itself ends at 240 s). */
export const afterAllTurnsMs = 200_000;

export type Prepare = (sim: Simulation, model: BuiltModel) => void;

/** Run `sql` (any statement) directly on the committed state of the database at `path`, at simulated time `atMs`. */
export function sqlAt(atMs: number, path: string, sql: string, params: SqlParams = []): Prepare {
  return (sim) => sim.at(atMs, () => void sim.sqlite.inspect(path, sql, params));
}

/**
 * A rogue process `saboteur` that at `atMs` reads the file at `path`, writes back `edit(text)` and fsyncs it, so the
 * edit is durable (what a crash of every process would leave) before anything else touches the file.
 */
export function rewriteFileAt(atMs: number, path: string, edit: (text: string) => string): Prepare {
  return (sim) =>
    sim.spawn('saboteur', async (ctx) => {
      await ctx.timers.sleep(atMs);
      const text = await ctx.disk.read(path);
      if (text === undefined) throw new Error(`saboteur: no file at ${path}`);
      await ctx.disk.write(path, edit(text));
      await ctx.disk.fsync(path);
    });
}

/** A JSONL line as parsed JSON: the header or an entry (SessionEntry fits). */
export interface JsonlLine {
  type?: unknown;
  turnId?: unknown;
  message?: { role?: unknown; toolCalls?: unknown };
}

/** JSONL text with the lines `drop` matches taken out. */
export function withoutLines(text: string, drop: (line: JsonlLine) => boolean): string {
  return text
    .split('\n')
    .filter((line) => line.length === 0 || !drop(JSON.parse(line) as JsonlLine))
    .join('\n');
}

/** Call `then` from a kernel event right after the first trace event that `match` accepts. */
export function afterEvent(sim: Simulation, match: (event: TraceEvent) => boolean, then: () => void): void {
  let fired = false;
  sim.trace.onEvent((event) => {
    if (fired || !match(event)) return;
    fired = true;
    sim.scheduler.schedule(0, then);
  });
}

export function messagesOf(result: RunResult, invariant: string): string[] {
  return result.violations.filter((violation) => violation.invariant === invariant).map((violation) => violation.message);
}
