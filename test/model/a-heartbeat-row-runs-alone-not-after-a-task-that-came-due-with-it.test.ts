// OpenClaw runs a heartbeat as a run of its own in the session's lane, never in one prompt with a message. The model's
// gateway writes the heartbeat's prompt as a row of messages_in, and the runner took every due row into one batch, in
// stored order. The heartbeat's lane check keeps a row that wants a run from waiting when the heartbeat row is written,
// but a scheduled task's occurrence stored ahead of its due time is no such row until it is due (the lane check of
// a-task-stored-ahead-of-its-due-time-does-not-hold-a-command-back). Here it came due 250 ms after the heartbeat row
// was written, before the runner's next poll: both went into one batch, the occurrence first (its row was stored when
// the gateway started), so the prompt ended by asking for HEARTBEAT_OK and the occurrence was never answered (chaos,
// 500 clean runs, `every-inbound-answered`). The fixed runner takes a heartbeat row as a turn of its own, as a
// /clear is one (claims.ts runsAlone).
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { notes, withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

// Found as gs2.chaos.none.967979869.0j10G1031E20080343435344343b3445G6N57.0_1_0-a8dd6b.8709140f; its plan is frozen.
const plan = 'heartbeat-row-and-a-task-due-just-after-it';
const session = 'agent:main:chat:0';

describe('a heartbeat row and a task occurrence that came due just after it was written', () => {
  it('runs the heartbeat row as a turn of its own, so the occurrence is answered', async () => {
    await withFrozenPlan(sql, plan, (result) => {
      const ofSession = (kind: string) => notes(result, kind).filter((note) => note.fields.session === session);
      // The shape: the heartbeat row was written before the occurrence's due time, and no turn ran in between.
      const row = ofSession('exec-ingest').find((note) => note.fields.row !== null);
      const dueMs = Number(ofSession('task-stored')[0]?.fields.dueMs);
      expect(row).toBeDefined();
      expect(row?.timeMs ?? Number.POSITIVE_INFINITY).toBeLessThan(dueMs);
      expect(ofSession('turn-start').filter((note) => note.timeMs > (row?.timeMs ?? 0) && note.timeMs < dueMs)).toEqual([]);
      // Every turn that took the heartbeat row took it alone.
      const members = ofSession('turn-completed').map((note) => String(note.fields.members).split(','));
      const withRow = members.filter((ids) => ids.includes(String(row?.fields.row)));
      expect(withRow).toEqual([[String(row?.fields.row)]]);
      expect(result.violations).toEqual([]);
    });
  });
});
