// OpenClaw's delivery mirror after a /clear: the mirror resolves the session's current transcript file (OpenClaw reads
// the session entry's current sessionFile; the model reads the key's current session from state.db), so a reply
// delivered after the rotation is mirrored, under the lock, into the file the runner now appends to, and the first
// file keeps only what was delivered before. The checker reads every file of the key's family: a sabotaged mirror
// without its idempotency check (before PR #44063) that copies a redelivered reply twice into the first file is
// caught although the last file of the family is clean. The key check reads the files of the key's earlier sessions
// too: a reply mirrored before a /clear and redelivered after it (the gateway lost power before it marked the row) is
// not mirrored again into the new session. OpenClaw's check reads the current file alone (mode `current-file`), and
// the redelivered reply is mirrored into both files: found by fuzz --all seed 818, scheduled-tasks run 178 (stop 37).
import { describe, expect, it } from 'vitest';
import type { DeliveryMirrorMode } from '../../src/index.ts';
import { transcriptPath } from '../../src/index.ts';
import { parsePiTranscript } from '../../sim/checkers/index.ts';
import { readFamilies } from '../../sim/checkers/durable.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { Plan } from '../../sim/run/plan.ts';
import { clearedReply } from '../../src/turn.ts';
import { handPlan, invariants, killGatewayAfterFirstMirror, notes, session0, user, withFrozenPlan, withRun } from './support.ts';

const sql = await loadSqlJs();

const rotated: Plan = handPlan([user(1_000, 'hello there'), { kind: 'clear', atMs: 10_000, session: 0 }, user(20_000, 'second question')]);

function withMirror(plan: Plan, deliveryMirror: DeliveryMirrorMode): Plan {
  return { ...plan, secondWriters: { deliveryMirror, gatewayAppend: 'off' } };
}

/** The texts of the mirror entries in each file of session 0's family, first session first. */
function mirrorsByFile(sim: Simulation): string[][] {
  const family = readFamilies(sim, [session0]).get(session0) ?? [];
  return family.map((span) => parsePiTranscript(sim.disk.peek(transcriptPath(span.sessionId)) ?? '').entries.filter((entry) => entry.mirror).map((entry) => entry.text));
}


describe('the delivery mirror after a session rotation', () => {
  it("mirrors into the key's current file: what was delivered before the /clear in the first, the rest in the new one", async () => {
    await withRun(sql, { bugs: [], plan: withMirror(rotated, 'on') }, (result) => {
      const files = mirrorsByFile(result.sim);
      expect(files).toHaveLength(2);
      const [first, second] = files;
      expect(first).toHaveLength(1);
      expect(first).not.toContain(clearedReply);
      expect(second).toContain(clearedReply);
      expect(second).toHaveLength(2);
      // Every mirror took the lock of the file it wrote, and none was lost.
      expect(notes(result, 'mirror-appended').every((note) => note.fields.locked === true)).toBe(true);
      expect(notes(result, 'mirror-skipped')).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });

  it('a mirror without its key check copies a redelivered reply twice into the first file: caught from the family, not the last file', async () => {
    await withRun(sql, { bugs: [], plan: withMirror(rotated, 'unkeyed'), prepare: killGatewayAfterFirstMirror }, (result) => {
      const [first, second] = mirrorsByFile(result.sim);
      expect(first).toHaveLength(2);
      expect(new Set(first).size).toBe(1);
      // The last file of the family (all a reader of the current file sees) holds no second copy.
      expect(new Set(second).size).toBe(second?.length);
      expect(invariants(result)).toEqual(['one-assistant-row-per-visible-reply']);
      expect(result.violations[0]?.message).toMatch(/the JSONL files hold 2 delivery mirror entries/);
    });
  });

  // The frozen plan: a task's tool message is shown and mirrored into the first file, power is lost before the row is
  // marked delivered, a /clear rotates the session, and the slow poller sends the row again (the platform drops the
  // repeat of its key, so the user saw it once).
  const redelivered = 'interim update';

  it("reads the key's earlier files before it mirrors a reply redelivered after the /clear: one mirror in the family", async () => {
    await withFrozenPlan(sql, 'mirror-redelivered-across-a-clear', (result) => {
      const [first, second] = mirrorsByFile(result.sim);
      expect(first).toContain(redelivered);
      expect(second).not.toContain(redelivered);
      expect(notes(result, 'mirror-deduped').some((note) => note.fields.file === session0)).toBe(true);
      expect(result.ledger.shown.filter((fact) => fact.text === redelivered)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it("as OpenClaw checks the current file alone (current-file), the redelivered reply is mirrored into both files: caught", async () => {
    await withFrozenPlan(
      sql,
      'mirror-redelivered-across-a-clear',
      (result) => {
        const [first, second] = mirrorsByFile(result.sim);
        expect(first).toContain(redelivered);
        expect(second).toContain(redelivered);
        expect(invariants(result)).toEqual(['one-assistant-row-per-visible-reply']);
        expect(result.violations[0]?.message).toMatch(/the JSONL files hold 2 delivery mirror entries of "interim update", but the user was shown it 1 times/);
      },
      (plan) => ({ ...plan, secondWriters: { gatewayAppend: 'off', ...plan.secondWriters, deliveryMirror: 'current-file' } }),
    );
  });
});
