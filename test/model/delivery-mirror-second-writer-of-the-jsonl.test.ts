// OpenClaw's delivery mirror (src/delivery-mirror.ts): once a send succeeded, the gateway appends the delivered text
// to the session's JSONL through its own SessionManager, marked provider openclaw / model delivery-mirror, with the
// send's idempotency key, under the session write lock the runner holds for each run attempt. The checkers know a
// mirror by those markers: a copy of a message the user saw, never more copies than showings. Two sabotages are
// OpenClaw's own history: without the key check (before PR #44063) a redelivered reply is mirrored twice; without the
// lock (before PR #21828) the mirror lands in the middle of a run, whose next append forks the tree.
import { describe, expect, it } from 'vitest';
import type { DeliveryMirrorMode } from '../../src/index.ts';
import { lockPathOf } from '../../src/session-write-lock.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { Plan } from '../../sim/run/plan.ts';
import { firstReply, interim, secondReply, twoTurns, twoTurnScript } from '../checkers/support.ts';
import { invariants, killGatewayAfterFirstMirror, notes, session0, withFrozenPlan, withRun } from './support.ts';
import { parsePiTranscript, activeBranch } from '../../sim/checkers/index.ts';
import { transcriptPath } from '../../src/index.ts';

const sql = await loadSqlJs();

function withMirror(plan: Plan, deliveryMirror: DeliveryMirrorMode): Plan {
  return { ...plan, secondWriters: { deliveryMirror, gatewayAppend: 'off' } };
}

function jsonlLines(sim: Simulation): Record<string, unknown>[] {
  return (sim.disk.peek(transcriptPath(session0)) ?? '').split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line) as Record<string, unknown>);
}

function mirrorsOf(sim: Simulation): { text: string; onBranch: boolean }[] {
  const entries = parsePiTranscript(sim.disk.peek(transcriptPath(session0)) ?? '').entries;
  const branch = new Set(activeBranch(entries).map((entry) => entry.id));
  return entries.filter((entry) => entry.mirror).map((entry) => ({ text: entry.text, onBranch: branch.has(entry.id) }));
}


/**
 * The tool server's answer to the runner's first tool call is held for 5 s: the interim message it sent is delivered
 * (and mirrored) while the turn that called it still runs, holding the session write lock.
 */
function slowToolAnswer(sim: Simulation): void {
  let done = false;
  sim.trace.onEvent((event) => {
    if (done || event.kind !== 'model.tool-call') return;
    done = true;
    sim.network.hold('tool-server', 'runner');
    sim.scheduler.schedule(5_000, () => sim.network.release('tool-server', 'runner'));
  });
}

describe("OpenClaw's delivery mirror", () => {
  it('mirrors each delivered message once, with the markers and the send key, on the active branch; the fixed model passes', async () => {
    await withRun(sql, { bugs: [], plan: withMirror(twoTurns, 'on'), script: twoTurnScript }, (result) => {
      const mirrors = mirrorsOf(result.sim);
      expect(mirrors.map((mirror) => mirror.text).sort()).toEqual([firstReply, interim, secondReply].sort());
      expect(mirrors.every((mirror) => mirror.onBranch)).toBe(true);
      const lines = jsonlLines(result.sim).filter((line) => (line.message as { model?: unknown } | undefined)?.model === 'delivery-mirror');
      for (const line of lines) expect(line.message).toMatchObject({ role: 'assistant', provider: 'openclaw', api: 'openai-responses', idempotencyKey: expect.any(String) });
      // Each mirror came after its send was acknowledged, under the session write lock, which is released again.
      expect(notes(result, 'mirror-appended').every((note) => note.fields.locked === true)).toBe(true);
      expect(result.sim.disk.peek(lockPathOf(transcriptPath(session0)))).toBeUndefined();
      expect(result.violations).toEqual([]);
    });
  });

  it('a redelivery after the mirror finds its idempotency key; without the check (before PR #44063) the reply is mirrored twice', async () => {
    const input = (mode: DeliveryMirrorMode) => ({ bugs: [], plan: withMirror(twoTurns, mode), script: twoTurnScript, prepare: killGatewayAfterFirstMirror });
    await withRun(sql, input('on'), (result) => {
      expect(notes(result, 'mirror-deduped')).toHaveLength(1);
      expect(mirrorsOf(result.sim).filter((mirror) => mirror.text === firstReply)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
    await withRun(sql, input('unkeyed'), (result) => {
      expect(notes(result, 'mirror-deduped')).toEqual([]);
      expect(mirrorsOf(result.sim).filter((mirror) => mirror.text === firstReply)).toHaveLength(2);
      // The platform showed it once (the repeat key was dropped): two copies for one showing.
      expect(invariants(result)).toEqual(['one-assistant-row-per-visible-reply']);
    });
  });

  it('waits for the run that holds the session write lock; without the lock (before PR #21828) the mirror forks the tree', async () => {
    await withRun(sql, { bugs: [], plan: withMirror(twoTurns, 'on'), script: twoTurnScript, prepare: slowToolAnswer }, (result) => {
      // The interim was delivered while its turn held the lock: its mirror waited for the attempt to end.
      const waited = notes(result, 'session-lock').filter((note) => Number(note.fields.attempt) > 1);
      expect(waited.length).toBeGreaterThan(0);
      expect(mirrorsOf(result.sim).every((mirror) => mirror.onBranch)).toBe(true);
      expect(result.violations).toEqual([]);
    });
    await withRun(sql, { bugs: [], plan: withMirror(twoTurns, 'unlocked'), script: twoTurnScript, prepare: slowToolAnswer }, (result) => {
      expect(mirrorsOf(result.sim).some((mirror) => !mirror.onBranch)).toBe(true);
      expect(invariants(result)).toContain('transcript-consistent');
    });
  });

  // fuzz --all --seed 202's prompt-envelope run 252, frozen: the runner is killed holding the lock and restarted 5 ms
  // later; it and the mirror, waiting since, both find the dead holder's lock and reclaim it.
  it('a dead holder’s lock reclaimed by the runner and the mirror at once: one holder under the claim; with 2026.4.24’s unguarded reclaim both hold it and the mirror falls off the branch', async () => {
    await withFrozenPlan(sql, 'lock-reclaim-race', (result) => {
      expect(notes(result, 'session-lock-reclaimed').length).toBeGreaterThan(0);
      expect(result.violations).toEqual([]);
    });
    await withFrozenPlan(
      sql,
      'lock-reclaim-race',
      (result) => {
        expect(mirrorsOf(result.sim).some((mirror) => !mirror.onBranch)).toBe(true);
        expect(invariants(result)).toEqual(['transcript-consistent']);
      },
      (plan) => ({ ...plan, secondWriters: { deliveryMirror: 'on', gatewayAppend: 'off', lockReclaim: 'unguarded' } }),
    );
  });
});
