// Flood control (issue 48, src/delivery.ts deliverInParts): the gateway waits the retry-after the platform gave and
// sends the part again, unless the platform took an earlier send of it meanwhile. Here (block-streaming seed 3 run 392,
// frozen as `file-acknowledged-during-a-flood-wait`) a file's send is refused twice by flood control on a key-less
// platform; the network's copy of the second refused send arrives once the flood is over, is shown and acknowledged,
// and the acknowledgement reaches the gateway 2 s before its wait ends. The gateway used to send the file again after
// the wait (shown twice: no-duplicate-visible-reply); it now counts the part taken.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { notes, withFrozenPlan } from './support.ts';

const sql = await loadSqlJs();

describe('a send acknowledged while the gateway waits out flood control', () => {
  it('is not sent again after the wait', async () => {
    await withFrozenPlan(sql, 'file-acknowledged-during-a-flood-wait', (result) => {
      expect(result.ledger.sendRefusals.filter((refusal) => refusal.text === 'report-1.pdf').map((refusal) => refusal.reason)).toEqual(['rate-limit', 'rate-limit']);
      expect(result.ledger.shown.filter((fact) => fact.text === 'report-1.pdf')).toHaveLength(1);
      expect(notes(result, 'deliver-attempt').filter((note) => note.fields.key === 'toolu_5fbec458_0')).toHaveLength(2);
      expect(result.violations).toEqual([]);
    });
  });
});
