// The checkers' own judgement of a SQLite-era release's agent DB transcript (sim/checkers/agent-db.ts, issue 45 item 2):
// each event of `transcript_events` read from its JSON as the release stores it (a header, then message events with
// id and parentId), and transcript-consistent over the tree they form, as over a pi JSONL file: no two events with one
// id, every parent an earlier event of the session, every message event on the active branch (from the leaf, the last
// event with an id). Built by hand (rows as readAgentDbRows gives them); needs no openclaw/ workspace.
import { describe, expect, it } from 'vitest';
import { agentDbTranscriptProblems, agentDbTranscripts, parseAgentDbEvent, type AgentDbRows } from '../../sim/checkers/agent-db.ts';

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
const header = { type: 'session', version: 4, id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/home/openclaw' };

function mirror(id: string, parentId: string | null, text: string, key: string): object {
  return { type: 'message', id, parentId, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'assistant', content: [{ type: 'text', text }], api: 'openclaw-transcript', provider: 'openclaw', model: 'delivery-mirror', usage, stopReason: 'stop', timestamp: 0, idempotencyKey: key } };
}

function rowsOf(events: readonly object[], extra: { json?: string }[] = []): AgentDbRows {
  return {
    sessions: [{ sessionId: 's1', sessionKey: 'agent:main:chat:0' }],
    transcript: [...events.map((event, seq) => ({ sessionId: 's1', seq, json: JSON.stringify(event) })), ...extra.map((row, index) => ({ sessionId: 's1', seq: events.length + index, ...row }))],
  };
}

describe("the agent DB's transcripts, as the checkers judge them", () => {
  it("reads a mirror event's markers, text and key; a compressed event or one that does not parse is not judged", () => {
    const [transcript] = agentDbTranscripts(rowsOf([header, mirror('m1', null, 'Hello', 'out-1')], [{}, { json: '{"torn' }]));
    expect(transcript?.sessionKey).toBe('agent:main:chat:0');
    expect(transcript?.events.map((event) => [event.type, event.role, event.text, event.mirror, event.idempotencyKey])).toEqual([
      ['session', 'session', '', false, undefined],
      ['message', 'assistant', 'Hello', true, 'out-1'],
    ]);
    expect(transcript?.unreadable).toBe(2);
    expect(parseAgentDbEvent({ sessionId: 's1', seq: 0, json: '[1]' })).toBeUndefined();
  });

  it('finds nothing wrong with a chain of mirror events under a header', () => {
    const [transcript] = agentDbTranscripts(rowsOf([header, mirror('m1', null, 'A', 'k1'), mirror('m2', 'm1', 'B', 'k2'), mirror('m3', 'm2', 'A', 'k3')]));
    expect(agentDbTranscriptProblems(transcript as NonNullable<typeof transcript>)).toEqual([]);
  });

  it('fails a fork (a second child of one event: the first is off the active branch), a second id and a dangling parent', () => {
    const [fork] = agentDbTranscripts(rowsOf([header, mirror('m1', null, 'A', 'k1'), mirror('m2', 'm1', 'B', 'k2'), mirror('m3', 'm1', 'C', 'k3')]));
    expect(agentDbTranscriptProblems(fork as NonNullable<typeof fork>)).toEqual(['1 message events are off the active branch (assistant m2 "B")']);
    const [twice] = agentDbTranscripts(rowsOf([header, mirror('m1', null, 'A', 'k1'), mirror('m1', 'm1', 'A', 'k1')]));
    expect(agentDbTranscriptProblems(twice as NonNullable<typeof twice>)[0]).toMatch(/two events have the id m1/);
    const [dangling] = agentDbTranscripts(rowsOf([header, mirror('m1', 'gone', 'A', 'k1')]));
    expect(agentDbTranscriptProblems(dangling as NonNullable<typeof dangling>)).toEqual(['event m1 names a parent gone that is no earlier event of the session']);
    // A parent written after its child (by sequence) is no earlier event either.
    const [later] = agentDbTranscripts(rowsOf([header, mirror('m2', 'm1', 'B', 'k2'), mirror('m1', null, 'A', 'k1')]));
    expect(agentDbTranscriptProblems(later as NonNullable<typeof later>).join('; ')).toMatch(/m2 names a parent m1 that is no earlier event/);
  });
});
