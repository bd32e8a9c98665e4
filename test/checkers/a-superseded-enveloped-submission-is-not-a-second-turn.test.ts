// The checkers' reader of OpenClaw's inbound metadata envelope (sim/checkers/envelope.ts; issue 24 item 4). 2026.4.24
// stores a prompt as submitted (metadata blocks, a blank line, the body) and, once the model call returns, branches
// from the entry's parent and appends the plain prompt and the entries after it again: the enveloped entry and the
// old suffix stay in the file off the branch. The reader knows that shape from the file alone; any other dead end
// (an orphan a repair only branched around, a rewrite that lost the entry) stays a dead end.
import { describe, expect, it } from 'vitest';
import { activeBranch, parsePiTranscript } from '../../sim/checkers/durable.ts';
import { stripLeadingInboundMeta, supersededSubmissions } from '../../sim/checkers/envelope.ts';

const header = JSON.stringify({ type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' });
const envelope = ['Conversation info (untrusted metadata):', '```json', '{\n  "message_id": "in:d1"\n}', '```', '', 'Sender (untrusted metadata):', '```json', '{\n  "label": "user"\n}', '```'].join('\n');
const enveloped = (body: string): string => `${envelope}\n\n${body}`;

function entry(id: string, parentId: string | null, role: 'user' | 'assistant', text: string): string {
  return JSON.stringify({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:01.000Z', message: { role, content: [{ type: 'text', text }] } });
}

function superseded(lines: string[]): string[] {
  const { entries } = parsePiTranscript([header, ...lines, ''].join('\n'));
  return [...supersededSubmissions(entries, activeBranch(entries))].sort();
}

describe('a superseded enveloped submission', () => {
  it('strips the leading metadata blocks and nothing else', () => {
    expect(stripLeadingInboundMeta(enveloped('hello [m1]'))).toBe('hello [m1]');
    expect(stripLeadingInboundMeta('hello [m1]')).toBe('hello [m1]');
    // A sentinel line the user typed in the middle of a message is text.
    const typed = `hello\n${envelope}`;
    expect(stripLeadingInboundMeta(typed)).toBe(typed);
    // An unclosed fence is not a block.
    expect(stripLeadingInboundMeta('Sender (untrusted metadata):\n```json\n{}')).toBe('Sender (untrusted metadata):\n```json\n{}');
  });

  it('is the enveloped entry a plain sibling replaced after the call returned (the model: nothing after it yet)', () => {
    expect(superseded([entry('u0', null, 'user', 'hi [m0]'), entry('a0', 'u0', 'assistant', 'hello'), entry('e1', 'a0', 'user', enveloped('more [m1]')), entry('p1', 'a0', 'user', 'more [m1]'), entry('a1', 'p1', 'assistant', 'sure')])).toEqual(['e1']);
  });

  it('takes the old suffix with it when every entry was appended again after the replacement (the release)', () => {
    const lines = [entry('e1', null, 'user', enveloped('more [m1]')), entry('a1', 'e1', 'assistant', 'sure'), entry('p1', null, 'user', 'more [m1]'), entry('c1', 'p1', 'assistant', 'sure')];
    expect(superseded(lines)).toEqual(['a1', 'e1']);
  });

  it('takes it when the copies come in order with other entries between (a resumed run after a power loss)', () => {
    const lines = [entry('e1', null, 'user', enveloped('more [m1]')), entry('t1', 'e1', 'assistant', 'tool'), entry('a1', 't1', 'assistant', 'sure'), entry('p1', null, 'user', 'more [m1]'), entry('m1', 'p1', 'assistant', 'mirror'), entry('t2', 'm1', 'assistant', 'tool'), entry('c1', 't2', 'assistant', 'sure')];
    expect(superseded(lines)).toEqual(['a1', 'e1', 't1']);
    const swapped = [entry('e1', null, 'user', enveloped('more [m1]')), entry('t1', 'e1', 'assistant', 'tool'), entry('a1', 't1', 'assistant', 'sure'), entry('p1', null, 'user', 'more [m1]'), entry('c1', 'p1', 'assistant', 'sure'), entry('t2', 'c1', 'assistant', 'tool'), entry('n1', 't2', 'user', 'next [m2]')];
    expect(superseded(swapped)).toEqual([]);
  });

  it('takes it while the copies are still being appended (the last copy is the leaf)', () => {
    expect(superseded([entry('e1', null, 'user', enveloped('more [m1]')), entry('a1', 'e1', 'assistant', 'sure'), entry('p1', null, 'user', 'more [m1]')])).toEqual(['a1', 'e1']);
  });

  it('takes it while a resumed run has yet to append the rest of copies a power loss cut short, the mirror having appended since', () => {
    const mirror = (id: string, parentId: string, text: string): string => JSON.stringify({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:02.000Z', message: { role: 'assistant', provider: 'openclaw', model: 'delivery-mirror', content: [{ type: 'text', text }] } });
    const cut = [entry('e1', null, 'user', enveloped('more [m1]')), entry('t1', 'e1', 'assistant', 'tool'), entry('a1', 't1', 'assistant', 'sure'), entry('p1', null, 'user', 'more [m1]'), entry('t2', 'p1', 'assistant', 'tool')];
    expect(superseded([...cut, mirror('m1', 't2', 'on it')])).toEqual(['a1', 'e1', 't1']);
    // Anything but a mirror after the cut copies: the branch went on without the rest.
    expect(superseded([...cut, mirror('m1', 't2', 'on it'), entry('n1', 'm1', 'user', 'next [m2]')])).toEqual([]);
  });

  it('is not an enveloped dead end whose suffix was not appended again before the branch went on, or whose copy differs', () => {
    expect(superseded([entry('e1', null, 'user', enveloped('more [m1]')), entry('a1', 'e1', 'assistant', 'sure'), entry('p1', null, 'user', 'more [m1]'), entry('b1', 'p1', 'assistant', 'other')])).toEqual([]);
    expect(superseded([entry('e1', null, 'user', enveloped('more [m1]')), entry('a1', 'e1', 'assistant', 'sure'), entry('p1', null, 'user', 'more [m1]'), entry('c1', 'p1', 'assistant', 'other')])).toEqual([]);
  });

  it('is not a dead end without a plain replacement (a rewrite that dropped the entry), nor a plain orphan', () => {
    expect(superseded([entry('u0', null, 'user', 'hi [m0]'), entry('e1', 'u0', 'user', enveloped('more [m1]')), entry('a1', 'u0', 'assistant', 'sure')])).toEqual([]);
    expect(superseded([entry('u0', null, 'user', 'hi [m0]'), entry('o1', 'u0', 'user', 'more [m1]'), entry('p1', 'u0', 'user', 'more [m1]')])).toEqual([]);
  });

  it('is not an entry whose replacement came before it, has another parent, or is off the branch', () => {
    expect(superseded([entry('u0', null, 'user', 'hi'), entry('p1', 'u0', 'user', 'more [m1]'), entry('e1', 'u0', 'user', enveloped('more [m1]')), entry('a1', 'p1', 'assistant', 'x')])).toEqual([]);
    expect(superseded([entry('u0', null, 'user', 'hi'), entry('e1', 'u0', 'user', enveloped('more [m1]')), entry('p1', null, 'user', 'more [m1]')])).toEqual([]);
    expect(superseded([entry('u0', null, 'user', 'hi'), entry('e1', 'u0', 'user', enveloped('more [m1]')), entry('p1', 'u0', 'user', 'more [m1]'), entry('z', 'u0', 'assistant', 'x')])).toEqual([]);
  });
});
