// Drives the model's SessionManager and the real pi one through the same sequence of operations in one simulated
// run, and records after each operation what each holds: its active branch in memory, and its file as the page cache
// and as the durable disk have it, both reduced to a form without ids and timestamps (so the two can be compared).
// The differential test and the seed-003 experiment use it; sim/real is its only home because it needs the real
// module.
import { contentText } from '../../src/pi-format.ts';
import type { ProcessContext } from '../../src/ports.ts';
import { openSessionForRun, repairSessionFileIfNeeded } from '../../src/session-file-repair.ts';
import type { SessionEntry } from '../../src/session-manager.ts';
import { modelSessionManagerFactory, type SessionManagerFactory, type SessionManagerPort } from '../../src/session-manager-port.ts';
import { Simulation } from '../kernel/simulation.ts';
import type { loadSqlJs } from '../kernel/sqlite.ts';
import { piSessionManagerFactory } from './pi-session-manager.ts';
import type { PiSessionManagerModule } from './pi-types.ts';

export type Operation =
  | { kind: 'append'; role: 'user' | 'assistant' | 'tool' }
  | { kind: 'branch'; pick: number }
  | { kind: 'resetLeaf' }
  | { kind: 'reload' }
  | { kind: 'rewrite' }
  /** The fixed orphan repair: remove the leaf, then rewrite. */
  | { kind: 'removeLeaf' }
  /** The OS writes the page cache back (as a background writeback would). */
  | { kind: 'writeback' }
  /** SIGKILL between writes, then a restart that reloads. */
  | { kind: 'crash' };

/** One line of a file without ids or timestamps: `H` (header), `?` (malformed) or role:text^parent. */
export type LineShape = string;

export interface Snapshot {
  branch: string[];
  file: LineShape[];
  durable: LineShape[];
}

export interface StepRecord {
  step: number;
  operation: Operation;
  model: Snapshot;
  pi: Snapshot;
}

export interface DifferentialResult {
  steps: StepRecord[];
  traceHash: string;
  /** Each file's text in the page cache at the end of the run, as written. */
  texts: { model: string | undefined; pi: string | undefined };
}

export const modelPath = '/data/sessions/model.jsonl';
export const piPath = '/data/sessions/pi.jsonl';

function contentOf(entry: SessionEntry): string {
  return `${entry.message.role}:${String(entry.message.content)}`;
}

/** A file's text as line shapes: parents named by the shape index of the first line with that id. */
export function shapeOf(text: string | undefined): LineShape[] {
  if (text === undefined) return [];
  const lines = text.split('\n').filter((line) => line.trim().length > 0);
  const indexOfId = new Map<string, number>();
  return lines.map((line, index) => {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return '?';
    }
    if (record.type === 'session') return 'H';
    const message = (record.message ?? {}) as Record<string, unknown>;
    const id = String(record.id);
    if (!indexOfId.has(id)) indexOfId.set(id, index);
    const parentId = record.parentId as string | null;
    const parent = parentId === null ? 'root' : String(indexOfId.get(parentId) ?? 'missing');
    return `${String(message.role)}:${contentText(message.content)}^${parent}`;
  });
}

interface DriverState {
  cursor: number;
  appended: number;
  steps: StepRecord[];
}

function snapshot(sim: Simulation, manager: SessionManagerPort, path: string): Snapshot {
  return { branch: manager.activeBranch().map(contentOf), file: shapeOf(sim.disk.peek(path)), durable: shapeOf(sim.disk.peekSynced(path)) };
}

async function apply(ctx: ProcessContext, operation: Operation, manager: SessionManagerPort, content: string, open: () => Promise<SessionManagerPort>): Promise<SessionManagerPort> {
  switch (operation.kind) {
    case 'append':
      await manager.appendMessage({ role: operation.role, content }, `turn-${content}`);
      return manager;
    case 'branch': {
      const entries = manager.allEntries();
      const target = entries[operation.pick % Math.max(1, entries.length)];
      if (target !== undefined) manager.branch(target.id);
      return manager;
    }
    case 'resetLeaf':
      manager.resetLeaf();
      return manager;
    case 'reload':
      return open();
    case 'rewrite':
      await manager.rewriteFile();
      return manager;
    case 'removeLeaf': {
      const leaf = manager.leaf;
      if (leaf === undefined) return manager;
      manager.removeEntry(leaf.id);
      await manager.rewriteFile();
      return manager;
    }
    case 'writeback':
      await ctx.disk.fsync(manager.path);
      return manager;
    case 'crash':
      return manager;
  }
}

/**
 * Open a transcript after OpenClaw's repair step, as a run attempt does; with `forRun`, OpenClaw's whole open step
 * (prepareSessionManagerForRun too), which hides pi's load-then-append hazard from the run.
 */
async function openRepaired(factory: SessionManagerFactory, ctx: ProcessContext, path: string, forRun: boolean): Promise<SessionManagerPort> {
  if (forRun) return (await openSessionForRun(ctx, factory, path)).session;
  await repairSessionFileIfNeeded(ctx.disk, path, ctx.incarnation, ctx.clock.nowMs());
  return factory(ctx, path);
}

export interface DifferentialOptions {
  /** Chance in 1,000 that a power loss tears the oldest unsynced append (default 0). */
  tearPer1000?: number;
  /** Content both files hold (synced) before the first open. */
  initial?: string;
  /** Open through OpenClaw's whole open step of a run attempt (repair, open, prepare); default: repair and open. */
  forRun?: boolean;
}

export async function runDifferential(
  sql: Awaited<ReturnType<typeof loadSqlJs>>,
  pi: PiSessionManagerModule,
  seed: string,
  operations: readonly Operation[],
  options: DifferentialOptions = {},
): Promise<DifferentialResult> {
  const sim = new Simulation({ seed, sql });
  sim.disk.faults = { ...sim.disk.faults, tearPer1000: options.tearPer1000 ?? 0 };
  const factories = { model: modelSessionManagerFactory, pi: piSessionManagerFactory(sim, pi) };
  const state: DriverState = { cursor: 0, appended: 0, steps: [] };
  sim.spawn('driver', async (ctx) => {
    if (options.initial !== undefined && state.cursor === 0) {
      for (const path of [modelPath, piPath]) {
        await ctx.disk.write(path, options.initial);
        await ctx.disk.fsync(path);
      }
    }
    const forRun = options.forRun === true;
    let model = await openRepaired(factories.model, ctx, modelPath, forRun);
    let real = await openRepaired(factories.pi, ctx, piPath, forRun);
    // After a crash the step records what the restarted process loads.
    const last = state.steps.at(-1);
    if (last?.operation.kind === 'crash') Object.assign(last, { model: snapshot(sim, model, modelPath), pi: snapshot(sim, real, piPath) });
    while (state.cursor < operations.length) {
      const operation = operations[state.cursor] as Operation;
      const step = state.cursor++;
      if (operation.kind === 'crash') {
        state.steps.push({ step, operation, model: snapshot(sim, model, modelPath), pi: snapshot(sim, real, piPath) });
        // The machine loses power: the driver dies and only what was written back survives; then it restarts.
        ctx.supervisor.start(ctx.name, 1);
        sim.powerLoss([ctx.name]);
        return;
      }
      const content = `m${state.appended++}`;
      model = await apply(ctx, operation, model, content, () => openRepaired(factories.model, ctx, modelPath, forRun));
      real = await apply(ctx, operation, real, content, () => openRepaired(factories.pi, ctx, piPath, forRun));
      state.steps.push({ step, operation, model: snapshot(sim, model, modelPath), pi: snapshot(sim, real, piPath) });
    }
  });
  const summary = await sim.run();
  const texts = { model: sim.disk.peek(modelPath), pi: sim.disk.peek(piPath) };
  sim.dispose();
  return { steps: state.steps, traceHash: summary.traceHash, texts };
}
