// A run writes its final row to state.db before it dispatches the closing text, so a showing of a block of the
// closing text (one no tool call carries) can be that dispatch only once the final row was written: the attribution
// reads the final row as evidence as of each showing, by its timestamp (attribution.ts). Chaos seed 912, run 5329:
// m1's answer (closing text "working on it") came back as a power loss struck; the gateway, restarted, resent m0's
// row "working on it" (its acknowledgement had come before the kill, but the delivered mark had not committed) while
// m1's closing text was dispatched only 72 s later, by the turn's retry. Read over the whole run, m1's final row made
// its slot look surely sent, the resend took it instead of being the repeat it was, and the real showing of m1's text
// later found no slot: a false no-duplicate-visible-reply.
import { describe, expect, it } from 'vitest';
import { familyRows, readDurableState } from '../../sim/checkers/durable.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';

const sql = await loadSqlJs();
const text = 'working on it';

describe('a block of a closing text', () => {
  it('is not shown before its final row was written (chaos seed 912, run 5329)', async () => {
    await withFrozenPlan(sql, 'closing-text-final-row-after-a-resend', (result) => {
      const session = 'agent:main:chat:0';
      const rows = familyRows(readDurableState(result.sim, [session]), session);
      const answers = result.ledger.answers.filter((answer) => answer.sessionKey === session);
      // m1's answer came back long before its final row was written (its retry dispatched it).
      const m1 = answers.find((answer) => answer.prompt.includes('[m1]'));
      const finalRow = rows.find((row) => row.role === 'assistant' && row.content === m1?.result);
      expect(m1?.result).toContain(text);
      expect(finalRow!.timestamp - m1!.returnedAtMs).toBeGreaterThan(60_000);
      // Meanwhile, the text was shown again by a resend of m0's row.
      const shownBetween = result.ledger.shown.filter((fact) => fact.text === text && fact.atMs > m1!.returnedAtMs && fact.atMs < finalRow!.timestamp);
      expect(shownBetween.length).toBeGreaterThan(0);
      expect(result.violations).toEqual([]);
    });
  });
});
