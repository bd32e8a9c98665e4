// transcript-consistent's compaction rule (sim/checkers/compaction.ts), read from pi-format lines alone: a compaction
// entry must keep verbatim every user entry before it that no assistant entry with text answers; an id that is no
// earlier entry of the branch keeps nothing (pi's buildSessionContext).
import { describe, expect, it } from 'vitest';
import { compactionDroppingOpenTurn } from '../../sim/checkers/compaction.ts';
import { parsePiTranscript } from '../../sim/checkers/durable.ts';

const header = JSON.stringify({ type: 'session', version: 3, id: 'a0000000-0000-7000-8000-000000000000', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/work' });
let parent: string | null = null;
function line(id: string, record: Record<string, unknown>): string {
  const text = JSON.stringify({ id, parentId: parent, timestamp: '2026-01-01T00:00:01.000Z', ...record });
  parent = id;
  return text;
}
const userLine = (id: string, content: string): string => line(id, { type: 'message', message: { role: 'user', content, timestamp: 1 } });
const assistantLine = (id: string, text: string): string => line(id, { type: 'message', message: { role: 'assistant', content: [{ type: 'text', text }], timestamp: 1 } });
const compactionLine = (id: string, firstKeptEntryId: string): string => line(id, { type: 'compaction', summary: 'Summary', firstKeptEntryId, tokensBefore: 120 });

function transcript(build: () => string[]): ReturnType<typeof parsePiTranscript> {
  parent = null;
  return parsePiTranscript(`${[header, ...build()].join('\n')}\n`);
}

describe('a compaction keeps its open turn', () => {
  it('passes a kept part that starts at or before the unanswered user entry, whatever was summarised before it', () => {
    const t = transcript(() => [userLine('u1', 'first [m0]'), assistantLine('a1', 'answer one'), userLine('u2', 'second [m1]'), compactionLine('c1', 'u2'), assistantLine('a2', 'answer two')]);
    expect(t.entries.find((entry) => entry.id === 'c1')?.firstKeptEntryId).toBe('u2');
    expect(compactionDroppingOpenTurn(t)).toBeUndefined();
    expect(compactionDroppingOpenTurn(transcript(() => [userLine('u1', 'first [m0]'), assistantLine('a1', 'answer one'), userLine('u2', 'second [m1]'), compactionLine('c1', 'u1')]))).toBeUndefined();
  });

  it('passes a compaction with no open turn (every user entry answered), even one that keeps nothing', () => {
    expect(compactionDroppingOpenTurn(transcript(() => [userLine('u1', 'first [m0]'), assistantLine('a1', 'answer one'), compactionLine('c1', 'c1')]))).toBeUndefined();
  });

  it('fails a kept part that starts past the unanswered user entry', () => {
    const t = transcript(() => [userLine('u1', 'first [m0]'), assistantLine('a1', 'answer one'), userLine('u2', 'second [m1]'), userLine('u3', 'and more? [m2]'), compactionLine('c1', 'u3')]);
    expect(compactionDroppingOpenTurn(t)).toMatch(/compaction c1 keeps from u3, past the unanswered user entry u2 "second \[m1\]"/);
  });

  it('fails a firstKeptEntryId that is no earlier entry of the branch (pi keeps nothing before the compaction)', () => {
    const t = transcript(() => [userLine('u1', 'first [m0]'), assistantLine('a1', 'answer one'), userLine('u2', 'second [m1]'), compactionLine('c1', 'in:d1')]);
    expect(compactionDroppingOpenTurn(t)).toMatch(/keeps from "in:d1" \(no entry before it\), past the unanswered user entry u2/);
  });

  it('reads a tool-call carrier (an assistant entry without text) as no answer', () => {
    const carrier = (id: string): string => line(id, { type: 'message', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'toolu_1', name: 'send_message', arguments: { text: 'on it' } }], timestamp: 1 } });
    const t = transcript(() => [userLine('u1', 'first [m0]'), carrier('k1'), userLine('u2', 'joined [m1]'), compactionLine('c1', 'u2')]);
    expect(compactionDroppingOpenTurn(t)).toMatch(/past the unanswered user entry u1/);
  });
});
