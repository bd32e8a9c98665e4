// The checkers' reader of pi's JSONL (sim/checkers/durable.ts) follows the real format: the header is skipped,
// entries that are not messages (model_change, thinking_level_change, label, ...) stay in the tree so parent links
// through them hold, user content may be a string or text blocks, assistant tool calls are `toolCall` blocks, and
// malformed lines are skipped and counted. A file written as the real pi SessionManager writes it (no gatesim
// field) reads with its whole active branch.
import { describe, expect, it } from 'vitest';
import { activeBranch, parsePiTranscript } from '../../sim/checkers/durable.ts';

const lines = [
  { type: 'session', version: 3, id: '0195f3a2-7c1e-7b3d-9a41-5e2c8f0d4b17', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/work' },
  { type: 'model_change', id: 'a1b2c3d4', parentId: null, timestamp: '2026-01-01T00:00:00.001Z', provider: 'anthropic', modelId: 'claude' },
  { type: 'thinking_level_change', id: 'b2c3d4e5', parentId: 'a1b2c3d4', timestamp: '2026-01-01T00:00:00.002Z', thinkingLevel: 'off' },
  { type: 'message', id: 'c3d4e5f6', parentId: 'b2c3d4e5', timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: [{ type: 'text', text: 'hello [m0]' }], timestamp: 1 } },
  {
    type: 'message',
    id: 'd4e5f6a7',
    parentId: 'c3d4e5f6',
    timestamp: '2026-01-01T00:00:02.000Z',
    message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm' }, { type: 'text', text: 'hi' }, { type: 'toolCall', id: 'toolu_1', name: 'send_message', arguments: { text: 'x' } }], stopReason: 'toolUse' },
  },
  { type: 'label', id: 'e5f6a7b8', parentId: 'd4e5f6a7', timestamp: '2026-01-01T00:00:03.000Z', targetId: 'c3d4e5f6', label: 'here' },
  { type: 'message', id: 'f6a7b8c9', parentId: 'e5f6a7b8', timestamp: '2026-01-01T00:00:04.000Z', message: { role: 'user', content: 'again [m1]', timestamp: 4 } },
];

describe('the pi JSONL reader', () => {
  it('keeps entries of every kind in the tree, so the active branch runs from the last entry to the root', () => {
    const parsed = parsePiTranscript(`${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    expect(parsed.malformedLines).toBe(0);
    expect(activeBranch(parsed.entries).map((entry) => entry.id)).toEqual(['a1b2c3d4', 'b2c3d4e5', 'c3d4e5f6', 'd4e5f6a7', 'e5f6a7b8', 'f6a7b8c9']);
    expect(parsed.entries.map((entry) => [entry.role, entry.text])).toEqual([
      ['model_change', ''],
      ['thinking_level_change', ''],
      ['user', 'hello [m0]'],
      ['assistant', 'hi'],
      ['label', ''],
      ['user', 'again [m1]'],
    ]);
    expect(parsed.entries[3]?.toolCallIds).toEqual(['toolu_1']);
  });

  it('skips and counts a torn line, and a dead-end sibling stays off the active branch', () => {
    const text = [lines[0], lines[1], lines[3], { ...lines[6], parentId: 'a1b2c3d4' }].map((line) => JSON.stringify(line)).join('\n');
    const parsed = parsePiTranscript(`${text}\n{"type":"message","id":"ab`);
    expect(parsed.malformedLines).toBe(1);
    expect(activeBranch(parsed.entries).map((entry) => entry.id)).toEqual(['a1b2c3d4', 'f6a7b8c9']);
  });
});
