// Seed 003 experiment: does a SessionManager, with OpenClaw's orphan repair applied as seed 003 describes (buggy:
// only the in-memory leaf moves), produce the full symptom: assistant entries that a backup (`.bak-*`) still holds
// but the active transcript no longer has, and runs of consecutive user entries? One simulated runner does turns on
// one session file as OpenClaw's run attempt does (repair a file with malformed lines with a backup, open, and empty
// a file with no assistant message, src/session-file-repair.ts; merge an orphaned trailing user leaf for
// user-triggered runs; persist the prompt; the model call; on a transient error one full retry after 2,500 ms, which
// opens and prompts again; persist the answer), while power losses land at random (the machine dies; only what was
// written back survives), the OS writes the page cache back at random and a power loss may tear the oldest unsynced
// append.
import type { ProcessContext } from '../../src/ports.ts';
import { contentText } from '../../src/pi-format.ts';
import { openSessionForRun } from '../../src/session-file-repair.ts';
import { activeBranchOf, parseTranscript } from '../../src/session-manager.ts';
import { modelSessionManagerFactory, type SessionManagerFactory, type SessionManagerPort } from '../../src/session-manager-port.ts';
import { Simulation } from '../kernel/simulation.ts';
import type { loadSqlJs } from '../kernel/sqlite.ts';
import { piSessionManagerFactory } from './pi-session-manager.ts';
import type { PiSessionManagerModule } from './pi-types.ts';

export interface OrphanOutcome {
  seed: string;
  traceHash: string;
  /** Assistant contents some backup holds (or, for mirrored ones, the file) that the final durable active branch lacks. */
  lostAssistants: string[];
  /** Longest run of consecutive user entries on the final durable active branch. */
  longestUserRunOnBranch: number;
  /** Longest run of consecutive user lines in the final durable file, in file order. */
  longestUserRunInFile: number;
  backups: number;
  /** Entries in the final durable file whose parent is not in it (a broken parent chain). */
  brokenLinks: number;
  orphanRepairs: number;
  headers: number;
}

export const sessionPath = '/data/sessions/agent.jsonl';
const turns = 24;

interface RunnerState {
  next: number;
  orphanRepairs: number;
  /** Seed 003's buggy repair (only the in-memory leaf moves) or the fix (remove the orphan, rewrite the file). */
  repair: 'buggy' | 'fixed';
  /** Turns whose tool-sent message the gateway is to mirror into the transcript. */
  mirrorQueue: number[] | undefined;
}

function longestRun(entries: readonly { role: string }[]): number {
  let best = 0;
  let run = 0;
  for (const entry of entries) {
    run = entry.role === 'user' ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best;
}

/** One attempt: open, repair, orphan repair (buggy), prompt, model call; resolves to whether the call failed. */
async function attempt(ctx: ProcessContext, factory: SessionManagerFactory, state: RunnerState, turn: number, heartbeat: boolean): Promise<SessionManagerPort | undefined> {
  const { session } = await openSessionForRun(ctx, factory, sessionPath);
  const leaf = session.leaf;
  // Orphan merge only for user-triggered runs, and only for text of at least 4 characters once trimmed.
  if (!heartbeat && leaf?.message.role === 'user' && String(leaf.message.content).trim().length >= 4) {
    if (state.repair === 'fixed') {
      session.removeEntry(leaf.id);
      await session.rewriteFile();
    } else if (leaf.parentId !== null) session.branch(leaf.parentId);
    else session.resetLeaf();
    state.orphanRepairs++;
  }
  await session.appendMessage({ role: 'user', content: heartbeat ? `heartbeat poll ${turn}` : `user message ${turn}` }, `t${turn}`);
  // A message the agent sends with a tool mid-run; the gateway mirrors the delivered text into the transcript.
  state.mirrorQueue?.push(turn);
  await ctx.timers.sleep(ctx.random.int(200, 3_000));
  return ctx.random.chance(1, 5) ? undefined : session;
}

function runner(factory: SessionManagerFactory, state: RunnerState) {
  return async (ctx: ProcessContext): Promise<void> => {
    while (state.next < turns) {
      const turn = state.next;
      const heartbeat = ctx.random.chance(1, 5);
      let session = await attempt(ctx, factory, state, turn, heartbeat);
      if (session === undefined) {
        await ctx.timers.sleep(2_500);
        session = await attempt(ctx, factory, state, turn, heartbeat);
      }
      if (session !== undefined) await session.appendMessage({ role: 'assistant', content: `answer ${turn}` }, `t${turn}`);
      state.next++;
      await ctx.timers.sleep(ctx.random.int(500, 8_000));
    }
  };
}

/**
 * The gateway's mirror append: for each delivered tool message, open the transcript afresh, skip it if an entry
 * already carries it (the idempotency check), else append it as an assistant entry.
 */
function gateway(factory: SessionManagerFactory, state: RunnerState) {
  return async (ctx: ProcessContext): Promise<void> => {
    const queue = state.mirrorQueue ?? [];
    while (state.next < turns || queue.length > 0) {
      await ctx.timers.sleep(ctx.random.int(50, 400));
      const turn = queue.shift();
      if (turn === undefined) continue;
      const session = await factory(ctx, sessionPath);
      const content = `mirror ${turn}`;
      if (!session.allEntries().some((entry) => entry.message.content === content)) await session.appendMessage({ role: 'assistant', content }, `t${turn}`);
    }
  };
}

/** Lines of a file that parse and carry a message, in file order, with their text content (pi's format). */
function messageLines(text: string | undefined): { role: string; content: string }[] {
  return (text ?? '').split('\n').flatMap((line) => {
    try {
      const record = JSON.parse(line) as { type?: string; message?: { role?: string; content?: unknown } };
      return record.type === 'message' && record.message !== undefined ? [{ role: String(record.message.role), content: contentText(record.message.content) }] : [];
    } catch {
      return [];
    }
  });
}

function brokenLinks(text: string | undefined): number {
  const { entries } = parseTranscript(text ?? '');
  const ids = new Set(entries.map((entry) => entry.id));
  return entries.filter((entry) => entry.parentId !== null && !ids.has(entry.parentId)).length;
}

/** The durable active branch: root-to-leaf from the last entry in file order, as the checkers read a file. */
function durableBranch(text: string | undefined): { role: string; content: string }[] {
  return activeBranchOf(parseTranscript(text ?? '').entries).map((entry) => ({ role: entry.message.role, content: entry.message.content }));
}

export async function runOrphanExperiment(
  sql: Awaited<ReturnType<typeof loadSqlJs>>,
  pi: PiSessionManagerModule | undefined,
  seed: string,
  repair: 'buggy' | 'fixed' = 'buggy',
  mirror = false,
): Promise<OrphanOutcome> {
  const sim = new Simulation({ seed, sql });
  sim.disk.faults = { ...sim.disk.faults, backgroundSyncPer1000: 500, backgroundSyncDelayMsMax: 5_000, tearPer1000: 500 };
  const factory = pi === undefined ? modelSessionManagerFactory : piSessionManagerFactory(sim, pi);
  const state: RunnerState = { next: 0, orphanRepairs: 0, repair, mirrorQueue: mirror ? [] : undefined };
  sim.spawn('runner', runner(factory, state));
  if (mirror) sim.spawn('gateway', gateway(factory, state));
  const faults = sim.prng.fork('experiment-faults');
  for (let kill = 0; kill < 10; kill++) {
    sim.at(faults.int(1_000, 150_000), () => {
      const restartAfterMs = faults.int(100, 3_000);
      for (const name of sim.powerLoss(mirror ? ['runner', 'gateway'] : ['runner'])) sim.restart(name, restartAfterMs);
    });
  }
  const summary = await sim.run();
  const final = sim.disk.peekSynced(sessionPath);
  const branch = durableBranch(final);
  const onBranch = new Set(branch.filter((entry) => entry.role === 'assistant').map((entry) => entry.content));
  const backups = sim.disk.paths().filter((path) => path.startsWith(`${sessionPath}.bak-`));
  const lost = new Set<string>();
  for (const line of messageLines(final)) if (line.role === 'assistant' && line.content.startsWith('mirror') && !onBranch.has(line.content)) lost.add(line.content);
  for (const backup of backups) {
    for (const line of messageLines(sim.disk.peekSynced(backup))) if (line.role === 'assistant' && !onBranch.has(line.content)) lost.add(line.content);
  }
  sim.dispose();
  return {
    seed,
    traceHash: summary.traceHash,
    lostAssistants: [...lost].sort(),
    longestUserRunOnBranch: longestRun(branch),
    longestUserRunInFile: longestRun(messageLines(final)),
    backups: backups.length,
    brokenLinks: brokenLinks(final),
    orphanRepairs: state.orphanRepairs,
    headers: (final ?? '').split('\n').filter((line) => line.includes('"type":"session"')).length,
  };
}
