// The attribution ranks the slots a stock phrase could fill by what the durable state shows of each (attribution.ts):
// a tool call whose result is durable was made. The two transcripts are written at different times, so a turn cut off
// between them leaves the result in one only: chaos seed 902, run 37405. m0's turn sent "Looking it up" through a tool
// server that was slow to start; the result came back, pi's JSONL got its toolResult entry (synced), and the turn was
// aborted before state.db had the result row. The re-formed turn's answer offered the same phrase; its carrier row
// committed to state.db just before a power loss, which took its unsynced JSONL entry, and its call was never sent.
// The one showing of the phrase (the gateway's send of m0's row) went to the newer call, whose carrier row looked as
// sure as the first call's, and one-assistant-row-per-visible-reply found no JSONL entry for it. Read from both
// transcripts, the first call's result says it was made, and the showing is its own.
import { describe, expect, it } from 'vitest';
import { familyEntries, familyRows, parsePiTranscript, readDurableState } from '../../sim/checkers/durable.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { withFrozenPlan } from '../model/support.ts';

const sql = await loadSqlJs();

describe('a tool result durable in either transcript', () => {
  it('is read from a toolResult entry of pi JSONL', () => {
    const line = (id: string, message: object): string => JSON.stringify({ type: 'message', id, parentId: null, timestamp: '2026-01-01T00:00:00.000Z', message });
    const transcript = parsePiTranscript(
      [
        line('a1', { role: 'assistant', content: [{ type: 'toolCall', id: 'toolu_1', name: 'send_message', arguments: { text: 'hi' } }] }),
        line('r1', { role: 'toolResult', toolCallId: 'toolu_1', toolName: 'send_message', content: [{ type: 'text', text: 'sent' }], isError: false }),
        line('u1', { role: 'user', content: 'hello', toolCallId: 'toolu_2' }),
      ].join('\n'),
    );
    expect(transcript.entries.map((entry) => entry.toolCallId)).toEqual([null, 'toolu_1', null]);
  });

  it('credits the showing of a stock phrase to the call whose result only the JSONL holds (chaos seed 902, run 37405)', async () => {
    await withFrozenPlan(sql, 'stock-phrase-result-only-in-the-jsonl', (result) => {
      const session = 'agent:main:chat:0';
      const durable = readDurableState(result.sim, [session]);
      const rows = familyRows(durable, session);
      const entries = familyEntries(durable, session);
      const [first, second] = result.ledger.answers.filter((answer) => answer.sessionKey === session && answer.toolCalls.some((call) => call.text === 'Looking it up'));
      const firstCall = first?.toolCalls.find((call) => call.text === 'Looking it up')?.id;
      const secondCall = second?.toolCalls.find((call) => call.text === 'Looking it up')?.id;
      // The shape: the first call's result is in the JSONL only; the second call's carrier is in state.db only.
      expect(entries.some((entry) => entry.toolCallId === firstCall)).toBe(true);
      expect(rows.some((row) => row.role === 'tool' && row.toolCallId === firstCall)).toBe(false);
      expect(rows.some((row) => row.toolCallIds.includes(secondCall ?? ''))).toBe(true);
      expect(entries.some((entry) => entry.toolCallIds.includes(secondCall ?? ''))).toBe(false);
      expect(result.ledger.shown.filter((fact) => fact.sessionKey === session && fact.text === 'Looking it up').length).toBeGreaterThan(0);
      // Credited to the second call, the showing would leave one-assistant-row-per-visible-reply a JSONL entry short.
      expect(result.violations).toEqual([]);
    });
  });
});
