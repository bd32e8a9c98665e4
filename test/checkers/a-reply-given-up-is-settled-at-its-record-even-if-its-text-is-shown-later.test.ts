// Canned replies (sim/checkers/attribution.ts): a subject is covered once an answer carrying it was settled whole, each
// slot shown or given up visibly (refused for good in a chat not found, the give-up recorded: refusals.ts). A slot was
// settled by its showing when it had one, even when a give-up of its text had been recorded earlier: a later showing of
// the same text (another answer's message, once the chat was found again) credited to the slot moved its settlement
// past the error reply of a later message, so the subject stayed open and took that reply. Found by a chaos campaign
// with every run send-heavy (seed 12, run 25: m4's reply, given up whole at 152 s, its file credited another answer's
// file shown at 280 s; m6's error reply, given up at 169 s, went to m4 and m6's answer was called lost); frozen.
import { describe, expect, it } from 'vitest';
import { attributeAll } from '../../sim/checkers/attribution.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';
import { observationsOf } from './support.ts';

const sql = await loadSqlJs();
const session = 'agent:main:chat:0';

describe('a reply given up visibly', () => {
  it('is settled at its record, before a later showing of its text credited to it', async () => {
    await withFrozenPlan(sql, 'error-reply-given-up-after-a-reply-given-up-then-its-text-shown', (result) => {
      expect(result.violations).toEqual([]);
      const attribution = attributeAll(observationsOf(result, session)).get(session);
      const m4 = attribution?.answers.find((answer) => answer.subjects.includes('[m4]'));
      const file = m4?.slots.find((slot) => slot.text === 'report-3.pdf');
      // m4's file was credited a showing long after the chat-not-found window in which m4's reply was given up.
      expect(file?.shownBy?.atMs).toBe(280_211);
      // m6's error reply, given up visibly at its record (169,153 ms), is m6's, and gives m6's answer up.
      expect(attribution?.cannedFor.get('[m6]')?.atMs).toBe(169_153);
      expect(attribution?.answers.find((answer) => answer.subjects.includes('[m6]'))?.gaveUp).toBe(true);
    });
  });
});
