// The pi SessionManager and its JSONL transcript, on the simulated disk: a header line first; nothing written
// until the first assistant message, then every line appended, then one append per entry; load skips malformed
// lines, requires the first line that parses to be a header (else the file is truncated to a fresh one) and takes
// the last entry in file order as the leaf; a loaded file counts as flushed, which is pi's load-then-append hazard;
// branch() only moves the leaf; rewriteInPlace writes the whole file in place, not atomically; removeEntry +
// rewriteFile keeps a `.bak-<pid>-<time>` copy and replaces the file through a temporary file and an atomic rename.
// Files are in pi's format (header with a uuid and an ISO timestamp, `message` entries with 8-hex ids, ISO timestamps
// and pi's AgentMessage), and a file the real pi SessionManager wrote (no gatesim `turnId`) loads as well.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelAssertionError } from '../../../src/assert.ts';
import { isoAt, simEpochMs, toPiMessage } from '../../../src/pi-format.ts';
import type { ProcessContext } from '../../../src/ports.ts';
import { activeBranchOf, parseTranscript, type Role, type SessionEntry, SessionManager } from '../../../src/session-manager.ts';
import { loadSqlJs } from '../../../sim/kernel/sqlite.ts';
import { inProcess, traceOf } from './support.ts';

const sql = await loadSqlJs();
const path = '/data/sessions/s0.jsonl';
const idPattern = /^[0-9a-f]{8}$/;
/** pi's session id: a uuid (v7-shaped). */
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/;

function open(ctx: ProcessContext, at = path): Promise<SessionManager> {
  return SessionManager.open(ctx.disk, at, (min, max) => ctx.random.int(min, max), () => ctx.clock.nowMs(), ctx.incarnation);
}

function say(manager: SessionManager, role: Role, content: string, turnId = 'in:d0'): Promise<SessionEntry> {
  return manager.appendMessage({ role, content }, turnId);
}

function lines(text: string | undefined): string[] {
  return (text ?? '').split('\n').filter((line) => line.length > 0);
}

function ids(entries: readonly SessionEntry[]): string[] {
  return entries.map((entry) => entry.id);
}

function entry(id: string, parentId: string | null, role: Role = 'user'): SessionEntry {
  return { type: 'message', id, parentId, timestamp: 0, message: { role, content: id }, turnId: 't' };
}

/** An entry's line in pi's format (with gatesim's own turnId field), built from the format module. */
function piLine(written: SessionEntry): string {
  return JSON.stringify({
    type: 'message',
    id: written.id,
    parentId: written.parentId,
    timestamp: isoAt(written.timestamp),
    message: toPiMessage(written.message, written.timestamp),
    turnId: written.turnId,
  });
}

const header = JSON.stringify({ type: 'session', version: 3, id: '019b7a00-0000-7000-8000-000000000001', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/work' });

describe('writing the transcript', () => {
  it('writes nothing until the first assistant message, then the header and every entry, then appends', async () => {
    const { value, sim } = await inProcess(sql, 'first-flush', async (ctx) => {
      await ctx.timers.sleep(7);
      const manager = await open(ctx);
      const u1 = await say(manager, 'user', 'hello');
      const u2 = await say(manager, 'user', 'are you there?');
      const beforeAssistant = await ctx.disk.read(path);
      const a1 = await say(manager, 'assistant', 'yes');
      const afterFlush = await ctx.disk.read(path);
      const u3 = await say(manager, 'user', 'thanks');
      const afterAppend = await ctx.disk.read(path);
      return { beforeAssistant, afterFlush, afterAppend, written: [u1, u2, a1], u3 };
    });
    expect(value.beforeAssistant).toBeUndefined();
    const flushed = lines(value.afterFlush);
    expect(flushed).toHaveLength(4);
    expect(JSON.parse(flushed[0] ?? '')).toEqual({ type: 'session', version: 3, id: expect.stringMatching(uuidPattern), timestamp: '2026-01-01T00:00:00.007Z', cwd: '/work' });
    expect(flushed.slice(1)).toEqual(value.written.map(piLine));
    // pi's shapes, spelled out: a user message's content is a string, an assistant's a list of blocks with the
    // provider fields beside it; timestamps are ISO on the entry and Unix ms in the message.
    const [u1, , a1] = value.written;
    expect(JSON.parse(flushed[1] ?? '')).toEqual({
      type: 'message',
      id: u1?.id,
      parentId: null,
      timestamp: '2026-01-01T00:00:00.007Z',
      message: { role: 'user', content: 'hello', timestamp: simEpochMs + 7 },
      turnId: 'in:d0',
    });
    expect(JSON.parse(flushed[3] ?? '')).toMatchObject({
      type: 'message',
      id: a1?.id,
      parentId: value.written[1]?.id,
      timestamp: isoAt(a1?.timestamp ?? -1),
      message: { role: 'assistant', content: [{ type: 'text', text: 'yes' }], stopReason: 'stop', timestamp: simEpochMs + (a1?.timestamp ?? -1) },
    });
    expect(value.afterAppend).toBe(`${value.afterFlush ?? ''}${piLine(value.u3)}\n`);
    // Every line appended at the first assistant message (pi appends even to a new file), one append after; synced.
    expect(traceOf(sim, 'disk.write')).toEqual([]);
    expect(traceOf(sim, 'disk.append').map((event) => event.fields.path)).toEqual([path, path]);
    expect(sim.disk.peekSynced(path)).toBe(value.afterAppend);
  });

  it('chains entries: 8-character ids, parentId is the previous leaf (null for the first), clock timestamps', async () => {
    const { value } = await inProcess(sql, 'chain', async (ctx) => {
      const manager = await open(ctx);
      const made: SessionEntry[] = [];
      const stamps: number[] = [];
      for (let turn = 0; turn < 30; turn++) {
        await ctx.timers.sleep(3);
        stamps.push(ctx.clock.nowMs());
        made.push(await say(manager, turn % 2 === 0 ? 'user' : 'assistant', `m${turn}`, `in:d${turn >> 1}`));
      }
      return { made, stamps, leaf: manager.leaf, branch: manager.activeBranch() };
    });
    const { made } = value;
    expect(made.every((made) => idPattern.test(made.id))).toBe(true);
    expect(new Set(ids(made)).size).toBe(made.length);
    expect(made.map((made) => made.parentId)).toEqual([null, ...ids(made).slice(0, -1)]);
    expect(made.map((made) => made.timestamp)).toEqual(value.stamps);
    expect(new Set(value.stamps).size).toBe(value.stamps.length);
    expect(made[5]?.turnId).toBe('in:d2');
    expect(value.leaf).toBe(made.at(-1));
    expect(value.branch).toEqual(made);
  });
});

describe('loading the transcript', () => {
  it('skips malformed lines and takes the last entry in file order as the leaf', async () => {
    const e1 = entry('aaaaaaa1', null);
    const e2 = entry('aaaaaaa2', 'aaaaaaa1', 'assistant');
    const e3 = entry('aaaaaaa3', 'aaaaaaa1');
    const file = [
      header,
      piLine(e1),
      piLine(e2),
      '{"type":"message","id":"torn',
      piLine(e3),
      'not json at all',
      JSON.stringify({ type: 'message', id: 'noparent' }),
      header,
    ].join('\n');
    const { value } = await inProcess(sql, 'load', async (ctx) => {
      await ctx.disk.write(path, `${file}\n`);
      const manager = await open(ctx);
      const loaded = { entries: [...manager.allEntries()], leaf: manager.leaf, branch: manager.activeBranch(), report: manager.loadReport };
      await manager.rewriteInPlace();
      return { ...loaded, rewritten: await ctx.disk.read(path) };
    });
    expect(value.entries).toEqual([e1, e2, e3]);
    expect(value.leaf).toEqual(e3);
    // e2 is a dead-end sibling: the leaf follows file order, not the longest path.
    expect(ids(value.branch)).toEqual([e1.id, e3.id]);
    expect(value.report).toEqual({ malformedLines: 2, truncated: false });
    // A header after the first line, and JSON that is no entry, stay in the file (pi keeps them) and out of the tree.
    expect(lines(value.rewritten)).toEqual([header, piLine(e1), piLine(e2), piLine(e3), JSON.stringify({ type: 'message', id: 'noparent' }), header]);
  });

  it('truncates a file whose first line that parses is not a header to a fresh header, in place: its entries are gone', async () => {
    const e1 = entry('bbbbbbb1', null, 'assistant');
    for (const file of [`${piLine(e1)}\n${header}\n`, '', '\n  \n', '{"type":"sess\n']) {
      const { value, sim } = await inProcess(sql, 'no-header', async (ctx) => {
        await ctx.disk.write(path, file);
        await ctx.disk.fsync(path);
        const manager = await open(ctx);
        return { entries: [...manager.allEntries()], report: manager.loadReport, leaf: manager.leaf, text: await ctx.disk.read(path), files: await ctx.disk.list(path) };
      });
      expect(value.entries).toEqual([]);
      expect(value.leaf).toBeUndefined();
      expect(value.report.truncated).toBe(true);
      const [fresh, ...rest] = lines(value.text);
      expect(rest).toEqual([]);
      expect(JSON.parse(fresh ?? '')).toMatchObject({ type: 'session', version: 3, id: expect.stringMatching(uuidPattern) });
      // Written over the file itself: no backup, no temporary file.
      expect(value.files).toEqual([path]);
      expect(traceOf(sim, 'disk.write').map((event) => event.fields.path)).toEqual([path, path]);
    }
  });

  it("a torn last line is not cleaned by the load: pi's next append lands on it, and a reload loses that entry", async () => {
    const e1 = entry('ccccccc1', null);
    const e2 = entry('ccccccc2', 'ccccccc1', 'assistant');
    const { value } = await inProcess(sql, 'torn-append', async (ctx) => {
      await ctx.disk.write(path, `${[header, piLine(e1), piLine(e2)].join('\n')}\n{"type":"mess`);
      const manager = await open(ctx);
      const e3 = await say(manager, 'user', 'next');
      const reloaded = await open(ctx);
      return { e3, text: await ctx.disk.read(path), reloaded: ids(reloaded.allEntries()), report: reloaded.loadReport };
    });
    expect(value.e3.parentId).toBe(e2.id);
    expect(lines(value.text).at(-1)).toBe(`{"type":"mess${piLine(value.e3)}`);
    // That is why OpenClaw's repair step runs before every open (test/model/units/session-file-repair-*.test.ts).
    expect(value.reloaded).toEqual([e1.id, e2.id]);
    expect(value.report).toEqual({ malformedLines: 1, truncated: false });
  });
});

describe("pi's load-then-append hazard", () => {
  it('a loaded file with no assistant message counts as flushed; a user append unflushes it; the answer appends it all again', async () => {
    const e1 = entry('fffffff1', null);
    const { value, sim } = await inProcess(sql, 'hazard', async (ctx) => {
      await ctx.disk.write(path, `${header}\n${piLine(e1)}\n`);
      const manager = await open(ctx);
      const u2 = await say(manager, 'user', 'second');
      const afterUser = await ctx.disk.read(path);
      const a2 = await say(manager, 'assistant', 'answer');
      return { u2, a2, afterUser, text: await ctx.disk.read(path) };
    });
    expect(value.afterUser).toBe(`${header}\n${piLine(e1)}\n`);
    expect(lines(value.text)).toEqual([header, piLine(e1), header, piLine(e1), piLine(value.u2), piLine(value.a2)]);
    expect(traceOf(sim, 'disk.append')).toHaveLength(1);
  });

  it('an assistant message appended first goes alone: a loaded file counts as flushed', async () => {
    const e1 = entry('fffffff2', null);
    const { value } = await inProcess(sql, 'no-hazard', async (ctx) => {
      await ctx.disk.write(path, `${header}\n${piLine(e1)}\n`);
      const manager = await open(ctx);
      const a1 = await say(manager, 'assistant', 'answer');
      return { a1, text: await ctx.disk.read(path) };
    });
    expect(lines(value.text)).toEqual([header, piLine(e1), piLine(value.a1)]);
  });

  it('resetToHeader (OpenClaw prepareSessionManagerForRun) leaves the header alone and unflushed: one header on the next flush', async () => {
    const e1 = entry('fffffff3', null);
    const { value } = await inProcess(sql, 'reset-to-header', async (ctx) => {
      await ctx.disk.write(path, `${header}\n${piLine(e1)}\n`);
      const manager = await open(ctx);
      await ctx.disk.write(path, '');
      manager.resetToHeader();
      const after = { entries: [...manager.allEntries()], leaf: manager.leaf };
      const u1 = await say(manager, 'user', 'first');
      const a1 = await say(manager, 'assistant', 'answer');
      return { after, u1, a1, text: await ctx.disk.read(path) };
    });
    expect(value.after).toEqual({ entries: [], leaf: undefined });
    expect(value.u1.parentId).toBeNull();
    expect(lines(value.text)).toEqual([header, piLine(value.u1), piLine(value.a1)]);
  });
});

/**
 * A session file as the real pi SessionManager writes it, with nothing of gatesim's: a uuid header, 8-hex ids, ISO
 * entry timestamps, Unix-ms message timestamps, no turnId. The user's first message has text blocks, the first
 * answer a thinking block, text and a toolCall, then the toolResult and the closing answer; the user then asked
 * again from that answer (pi's branch), so "thanks" is a dead end and the active branch ends in the last answer.
 */
const usage = '"usage":{"input":812,"output":64,"cacheRead":0,"cacheWrite":0,"totalTokens":876,"cost":{"input":0.0024,"output":0.001,"cacheRead":0,"cacheWrite":0,"total":0.0034}}';
const provider = `"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",${usage}`;
const piWrittenFile = [
  '{"type":"session","version":3,"id":"0199a3f2-6c1e-7d40-8b2a-5e9f0c7d3a14","timestamp":"2025-11-20T09:15:02.118Z","cwd":"/home/user/project"}',
  '{"type":"message","id":"4f1c9a2e","parentId":null,"timestamp":"2025-11-20T09:15:10.002Z","message":{"role":"user","content":[{"type":"text","text":"am I free tomorrow?"}],"timestamp":1763630110001}}',
  `{"type":"message","id":"b7d30e58","parentId":"4f1c9a2e","timestamp":"2025-11-20T09:15:12.640Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"check the calendar","thinkingSignature":"sig"},{"type":"text","text":"Let me check."},{"type":"toolCall","id":"toolu_01HXk2","name":"send_message","arguments":{"text":"on it - looking at your calendar"}}],${provider},"stopReason":"toolUse","timestamp":1763630111200}}`,
  '{"type":"message","id":"0e6a51fb","parentId":"b7d30e58","timestamp":"2025-11-20T09:15:12.702Z","message":{"role":"toolResult","toolCallId":"toolu_01HXk2","toolName":"send_message","content":[{"type":"text","text":"sent"}],"isError":false,"timestamp":1763630112701}}',
  `{"type":"message","id":"9c2d7e40","parentId":"0e6a51fb","timestamp":"2025-11-20T09:15:14.310Z","message":{"role":"assistant","content":[{"type":"text","text":"<message to=\\"user\\">Tomorrow at 2pm you're free</message>"}],${provider},"stopReason":"stop","timestamp":1763630112760}}`,
  '{"type":"message","id":"a83f16c7","parentId":"9c2d7e40","timestamp":"2025-11-20T09:16:01.000Z","message":{"role":"user","content":"thanks","timestamp":1763630161000}}',
  '{"type":"message","id":"5be2d903","parentId":"9c2d7e40","timestamp":"2025-11-20T09:16:30.500Z","message":{"role":"user","content":"thank you!","timestamp":1763630190500}}',
  `{"type":"message","id":"e01f4b6d","parentId":"5be2d903","timestamp":"2025-11-20T09:16:31.900Z","message":{"role":"assistant","content":[{"type":"text","text":"<message to=\\"user\\">any time</message>"}],${provider},"stopReason":"stop","timestamp":1763630190600}}`,
].join('\n');

function simMs(iso: string): number {
  return Date.parse(iso) - simEpochMs;
}

describe('loading a file the real pi SessionManager wrote', () => {
  const piEntry = (id: string, parentId: string | null, iso: string, message: SessionEntry['message']): SessionEntry => ({ type: 'message', id, parentId, timestamp: simMs(iso), message, turnId: '' });
  const expected = [
    piEntry('4f1c9a2e', null, '2025-11-20T09:15:10.002Z', { role: 'user', content: 'am I free tomorrow?' }),
    piEntry('b7d30e58', '4f1c9a2e', '2025-11-20T09:15:12.640Z', {
      role: 'assistant',
      content: 'Let me check.',
      toolCalls: [{ id: 'toolu_01HXk2', name: 'send_message', text: 'on it - looking at your calendar' }],
    }),
    piEntry('0e6a51fb', 'b7d30e58', '2025-11-20T09:15:12.702Z', { role: 'tool', content: 'sent', toolCallId: 'toolu_01HXk2' }),
    piEntry('9c2d7e40', '0e6a51fb', '2025-11-20T09:15:14.310Z', { role: 'assistant', content: '<message to="user">Tomorrow at 2pm you\'re free</message>' }),
    piEntry('a83f16c7', '9c2d7e40', '2025-11-20T09:16:01.000Z', { role: 'user', content: 'thanks' }),
    piEntry('5be2d903', '9c2d7e40', '2025-11-20T09:16:30.500Z', { role: 'user', content: 'thank you!' }),
    piEntry('e01f4b6d', '5be2d903', '2025-11-20T09:16:31.900Z', { role: 'assistant', content: '<message to="user">any time</message>' }),
  ];

  it('loads every entry with no malformed line, the last entry as leaf and the branch through parent links', async () => {
    const { value } = await inProcess(sql, 'pi-written', async (ctx) => {
      await ctx.disk.write(path, `${piWrittenFile}\n`);
      const manager = await open(ctx);
      return { entries: [...manager.allEntries()], report: manager.loadReport, leaf: manager.leaf?.id, branch: ids(manager.activeBranch()) };
    });
    expect(value.report).toEqual({ malformedLines: 0, truncated: false });
    expect(value.entries).toEqual(expected);
    expect(value.leaf).toBe('e01f4b6d');
    // "thanks" is the dead end pi's branch left behind.
    expect(value.branch).toEqual(['4f1c9a2e', 'b7d30e58', '0e6a51fb', '9c2d7e40', '5be2d903', 'e01f4b6d']);
    const parsed = parseTranscript(piWrittenFile);
    expect(parsed).toEqual({ entries: expected, malformedLines: 0, leafId: 'e01f4b6d' });
    expect(ids(activeBranchOf(parsed.entries))).toEqual(value.branch);
  });

  it('appends to it without rewriting what pi wrote', async () => {
    const { value, sim } = await inProcess(sql, 'pi-written-append', async (ctx) => {
      await ctx.disk.write(path, `${piWrittenFile}\n`);
      const manager = await open(ctx);
      const next = await say(manager, 'user', 'one more thing');
      return { next, text: await ctx.disk.read(path) };
    });
    expect(value.next.parentId).toBe('e01f4b6d');
    expect(value.text).toBe(`${piWrittenFile}\n${piLine(value.next)}\n`);
    expect(traceOf(sim, 'disk.write')).toHaveLength(1);
    expect(traceOf(sim, 'disk.append')).toHaveLength(1);
  });
});

describe('branch', () => {
  it('only moves the leaf: the file and the entries stay; the next append hangs off the branch point', async () => {
    const { value } = await inProcess(sql, 'branch', async (ctx, sim) => {
      const manager = await open(ctx);
      const u1 = await say(manager, 'user', 'q1');
      const a1 = await say(manager, 'assistant', 'r1');
      const u2 = await say(manager, 'user', 'q2');
      const before = await ctx.disk.read(path);
      const writesBefore = traceOf(sim, 'disk.write').length + traceOf(sim, 'disk.append').length;
      manager.branch(a1.id);
      const after = await ctx.disk.read(path);
      const writesAfter = traceOf(sim, 'disk.write').length + traceOf(sim, 'disk.append').length;
      const entriesAfterBranch = ids(manager.allEntries());
      const branchAfterBranch = ids(manager.activeBranch());
      const u3 = await say(manager, 'user', 'q2 again');
      return { u1, a1, u2, u3, before, after, writesBefore, writesAfter, entriesAfterBranch, branchAfterBranch, branchAfterAppend: ids(manager.activeBranch()) };
    });
    const { u1, a1, u2, u3 } = value;
    expect(value.after).toBe(value.before);
    expect(value.writesAfter).toBe(value.writesBefore);
    expect(value.entriesAfterBranch).toEqual([u1.id, a1.id, u2.id]);
    expect(value.branchAfterBranch).toEqual([u1.id, a1.id]);
    expect(u3.parentId).toBe(a1.id);
    expect(value.branchAfterAppend).toEqual([u1.id, a1.id, u3.id]);
  });

  it('is undone by a reload when nothing was appended after it', async () => {
    const { value } = await inProcess(sql, 'branch-reload', async (ctx) => {
      const manager = await open(ctx);
      const u1 = await say(manager, 'user', 'q1');
      await say(manager, 'assistant', 'r1');
      const u2 = await say(manager, 'user', 'orphan');
      manager.branch(u1.id);
      const reloaded = await open(ctx);
      return { u2, memoryLeaf: manager.leaf?.id, reloadedLeaf: reloaded.leaf?.id };
    });
    expect(value.memoryLeaf).not.toBe(value.u2.id);
    expect(value.reloadedLeaf).toBe(value.u2.id);
  });

  it('refuses an unknown entry id', async () => {
    await expect(
      inProcess(sql, 'branch-unknown', async (ctx) => {
        const manager = await open(ctx);
        await say(manager, 'user', 'q1');
        manager.branch('zzzzzzzz');
      }),
    ).rejects.toThrow(ModelAssertionError);
  });

  it('resetLeaf makes the next append a second root', async () => {
    const { value } = await inProcess(sql, 'reset-leaf', async (ctx) => {
      const manager = await open(ctx);
      await say(manager, 'user', 'q1');
      manager.resetLeaf();
      const root = await say(manager, 'user', 'q2');
      return { root, branch: ids(manager.activeBranch()) };
    });
    expect(value.root.parentId).toBeNull();
    expect(value.branch).toEqual([value.root.id]);
  });
});

describe('removeEntry and rewriteFile (the persisted orphan repair)', () => {
  it('writes a .bak-<pid>-<time> backup, then replaces the file through a temporary file and a rename', async () => {
    const { value, sim } = await inProcess(sql, 'rewrite', async (ctx, running) => {
      const manager = await open(ctx);
      const u1 = await say(manager, 'user', 'q1');
      const a1 = await say(manager, 'assistant', 'r1');
      const orphan = await say(manager, 'user', 'orphan');
      const before = await ctx.disk.read(path);
      await ctx.timers.sleep(1_000);
      const rewriteAtMs = ctx.clock.nowMs();
      manager.removeEntry(orphan.id);
      const leafAfterRemove = manager.leaf?.id;
      const firstEventOfRewrite = running.trace.events.length;
      const backup = await manager.rewriteFile();
      const rewriteEvents = running.trace.events.slice(firstEventOfRewrite);
      const rewriteDoneMs = ctx.clock.nowMs();
      const u2 = await say(manager, 'user', 'q2');
      return {
        u1,
        a1,
        u2,
        pid: ctx.incarnation,
        rewriteAtMs,
        rewriteDoneMs,
        before,
        backup,
        backupText: await ctx.disk.read(backup),
        temporaryLeft: await ctx.disk.list(`${path}.tmp`),
        text: await ctx.disk.read(path),
        leafAfterRemove,
        rewriteEvents: rewriteEvents.map((event) => [event.kind, event.fields.path ?? null, event.fields.from ?? null, event.fields.to ?? null]),
      };
    });
    const { u1, a1, u2 } = value;
    // Named for the process and the simulated time of the rewrite (after reading the current file).
    const stampMs = Number(value.backup.slice(`${path}.bak-${value.pid}-`.length));
    expect(value.backup).toMatch(new RegExp(`^${path.replaceAll('.', '\\.')}\\.bak-${value.pid}-\\d+$`));
    expect(stampMs).toBeGreaterThanOrEqual(value.rewriteAtMs);
    expect(stampMs).toBeLessThanOrEqual(value.rewriteDoneMs);
    expect(value.backupText).toBe(value.before);
    expect(value.leafAfterRemove).toBe(a1.id);
    const temporary = `${path}.repair-${value.pid}-${stampMs}.tmp`;
    // The file itself is never written in place: only the backup and the temporary file are, then the rename.
    expect(value.rewriteEvents.filter(([kind]) => kind !== 'disk.sync')).toEqual([
      ['disk.write', value.backup, null, null],
      ['disk.write', temporary, null, null],
      ['disk.rename', null, temporary, path],
    ]);
    expect(value.temporaryLeft).toEqual([]);
    expect(lines(value.text).slice(1)).toEqual([u1, a1, u2].map(piLine));
    expect(lines(value.text)[0]).toBe(lines(value.before)[0]);
    expect(u2.parentId).toBe(a1.id);
    // The new file was synced before the rename, so it is durable as it stands.
    expect(sim.disk.peekSynced(path)).toBe(value.text);
  });

  it('a removed leaf hands the leaf to its parent, or resets it when the parent is gone', async () => {
    const { value } = await inProcess(sql, 'remove-leaf', async (ctx) => {
      const manager = await open(ctx);
      const u1 = await say(manager, 'user', 'q1');
      const a1 = await say(manager, 'assistant', 'r1');
      const u2 = await say(manager, 'user', 'q2');
      manager.branch(u1.id);
      const u3 = await say(manager, 'user', 'q2 again');
      manager.removeEntry(u3.id);
      const afterChild = manager.leaf?.id;
      manager.removeEntry(a1.id);
      const afterOther = manager.leaf?.id;
      manager.removeEntry(u1.id);
      const afterRoot = manager.leaf?.id;
      return { u1, u2, afterChild, afterOther, afterRoot, left: ids(manager.allEntries()) };
    });
    // Not the last entry in file order (u2): the removed entry's parent.
    expect(value.afterChild).toBe(value.u1.id);
    // Removing an entry that is not the leaf leaves the leaf alone.
    expect(value.afterOther).toBe(value.u1.id);
    expect(value.afterRoot).toBeUndefined();
    expect(value.left).toEqual([value.u2.id]);
  });

  it('writes no backup when there is no file yet', async () => {
    const { value } = await inProcess(sql, 'rewrite-new', async (ctx) => {
      const manager = await open(ctx);
      await say(manager, 'user', 'q1');
      const backup = await manager.rewriteFile();
      return { backupText: await ctx.disk.read(backup), text: await ctx.disk.read(path) };
    });
    expect(value.backupText).toBeUndefined();
    expect(lines(value.text)).toHaveLength(2);
  });

  it('refuses to remove an unknown entry', async () => {
    await expect(
      inProcess(sql, 'remove-unknown', async (ctx) => {
        const manager = await open(ctx);
        manager.removeEntry('zzzzzzzz');
      }),
    ).rejects.toThrow(ModelAssertionError);
  });
});

describe('rewriteInPlace (pi\'s rewrite hook)', () => {
  it('replaces the whole file in place, not atomically: no backup, no temporary file, no fsync', async () => {
    const { value, sim } = await inProcess(sql, 'in-place', async (ctx, running) => {
      const manager = await open(ctx);
      const u1 = await say(manager, 'user', 'q1');
      const a1 = await say(manager, 'assistant', 'r1');
      const orphan = await say(manager, 'user', 'orphan');
      const before = await ctx.disk.read(path);
      manager.removeEntry(orphan.id);
      const firstEvent = running.trace.events.length;
      await manager.rewriteInPlace();
      const events = running.trace.events.slice(firstEvent).map((event) => [event.kind, event.fields.path ?? null]);
      return { u1, a1, before, events, text: await ctx.disk.read(path), files: await ctx.disk.list(path) };
    });
    expect(value.events).toEqual([['disk.write', path]]);
    expect(lines(value.text)).toEqual([lines(value.before)[0], piLine(value.u1), piLine(value.a1)]);
    expect(value.files).toEqual([path]);
    // Volatile until a writeback: the durable file still holds the orphan.
    expect(sim.disk.peekSynced(path)).toBe(value.before);
  });

  it('a power loss before the writeback undoes it whole, where rewriteFile is durable at its rename', async () => {
    const durableAfterPowerLoss = async (rewrite: 'rewriteInPlace' | 'rewriteFile'): Promise<string[]> => {
      let before = '';
      const { sim } = await inProcess(sql, `power-loss-${rewrite}`, async (ctx, running) => {
        const manager = await open(ctx);
        await say(manager, 'user', 'q1');
        await say(manager, 'assistant', 'r1');
        const orphan = await say(manager, 'user', 'orphan');
        before = (await ctx.disk.read(path)) ?? '';
        manager.removeEntry(orphan.id);
        await manager[rewrite]();
        running.disk.powerLoss();
      });
      return [before, sim.disk.peekSynced(path) ?? ''].map((text) => lines(text).join('\n'));
    };
    const [before, inPlace] = await durableAfterPowerLoss('rewriteInPlace');
    expect(inPlace).toBe(before);
    const [beforeAtomic, replaced] = await durableAfterPowerLoss('rewriteFile');
    expect(lines(replaced)).toHaveLength(lines(beforeAtomic).length - 1);
  });

  it('does not mark the file flushed: rewritten before the first assistant message, it is appended again whole', async () => {
    const { value } = await inProcess(sql, 'in-place-unflushed', async (ctx) => {
      const manager = await open(ctx);
      const u1 = await say(manager, 'user', 'q1');
      await manager.rewriteInPlace();
      const a1 = await say(manager, 'assistant', 'r1');
      return { u1, a1, text: await ctx.disk.read(path) };
    });
    const [head, ...rest] = lines(value.text);
    expect(rest).toEqual([piLine(value.u1), head, piLine(value.u1), piLine(value.a1)]);
  });
});

describe('parseTranscript and activeBranchOf', () => {
  it('parseTranscript skips the header, counts malformed lines and names the last entry the leaf', () => {
    const e1 = entry('ddddddd1', null);
    const e2 = entry('ddddddd2', 'ddddddd1', 'assistant');
    const parsed = parseTranscript([header, piLine(e1), '{oops', piLine(e2), ''].join('\n'));
    expect(parsed).toEqual({ entries: [e1, e2], malformedLines: 1, leafId: e2.id });
    expect(parseTranscript('')).toEqual({ entries: [], malformedLines: 0, leafId: null });
  });

  it('parseTranscript finds no entries when the first line that parses is not a header, as the load', () => {
    const e1 = entry('ddddddd3', null);
    expect(parseTranscript([piLine(e1), header].join('\n'))).toEqual({ entries: [], malformedLines: 0, leafId: null });
    expect(parseTranscript(['{oops', header, piLine(e1)].join('\n'))).toEqual({ entries: [e1], malformedLines: 1, leafId: e1.id });
  });

  it('activeBranchOf walks root-to-leaf from the last entry, leaving dead-end siblings out', () => {
    const entries = [entry('r', null), entry('x', 'r'), entry('dead', 'x'), entry('y', 'x')];
    expect(ids(activeBranchOf(entries))).toEqual(['r', 'x', 'y']);
    expect(activeBranchOf([])).toEqual([]);
  });

  it('activeBranchOf stops at a parent that is not in the file, and terminates on a cycle', () => {
    expect(ids(activeBranchOf([entry('a', 'gone'), entry('b', 'a')]))).toEqual(['a', 'b']);
    const cyclic = [entry('a', 'b'), entry('b', 'a')];
    expect(activeBranchOf(cyclic).length).toBeLessThanOrEqual(cyclic.length + 1);
  });

  it('for any parent structure, activeBranchOf is a parent-linked path ending at the last entry', () => {
    const tree = fc.array(fc.nat(), { minLength: 1, maxLength: 30 }).map((picks) =>
      picks.map((pick, index) => entry(`e${index}`, pick % (index + 1) === index ? null : `e${pick % (index + 1)}`)),
    );
    fc.assert(
      fc.property(tree, (entries) => {
        const branch = activeBranchOf(entries);
        expect(branch.at(-1)).toBe(entries.at(-1));
        expect(branch[0]?.parentId).toBeNull();
        branch.slice(1).forEach((child, index) => expect(child.parentId).toBe(branch[index]?.id));
      }),
    );
  });
});

describe('a reload agrees with what was appended', () => {
  type Op = { kind: 'append'; role: Role } | { kind: 'branch'; pick: number } | { kind: 'reset' };
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('append' as const), role: fc.constantFrom<Role>('user', 'assistant', 'tool') }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('branch' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'reset' as const }) },
  );

  it('entries, file order, leaf and active branch survive a reload once an assistant message exists', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        const { value } = await inProcess(sql, 'reload-property', async (ctx) => {
          const manager = await open(ctx);
          for (const step of ops) {
            const entries = manager.allEntries();
            // A tool result names its call (pi's toolResult.toolCallId), as the runner's always do.
            const content = `c${entries.length}`;
            if (step.kind === 'append') await manager.appendMessage(step.role === 'tool' ? { role: 'tool', content, toolCallId: `toolu_t_${entries.length}` } : { role: step.role, content }, 't');
            else if (step.kind === 'branch' && entries.length > 0) manager.branch(entries[step.pick % entries.length]?.id ?? '');
            else if (step.kind === 'reset') manager.resetLeaf();
          }
          const text = await ctx.disk.read(path);
          const reloaded = text === undefined ? undefined : await open(ctx);
          return {
            written: [...manager.allEntries()],
            text,
            reloaded: reloaded && { entries: [...reloaded.allEntries()], report: reloaded.loadReport, leaf: reloaded.leaf, branch: reloaded.activeBranch() },
          };
        });
        const { written, text, reloaded } = value;
        expect(written.every((made) => idPattern.test(made.id))).toBe(true);
        if (!written.some((made) => made.message.role === 'assistant')) {
          expect(text).toBeUndefined();
          return;
        }
        const parsed = parseTranscript(text ?? '');
        expect(parsed).toEqual({ entries: written, malformedLines: 0, leafId: written.at(-1)?.id ?? null });
        expect(reloaded?.entries).toEqual(written);
        expect(reloaded?.report).toEqual({ malformedLines: 0, truncated: false });
        expect(reloaded?.leaf).toEqual(written.at(-1));
        expect(reloaded?.branch).toEqual(activeBranchOf(parsed.entries));
      }),
      { numRuns: 60 },
    );
  });
});

describe('entries the model does not interpret', () => {
  it('keeps model_change and label entries in the tree and writes every loaded line back verbatim on a rewrite', async () => {
    const raw = [
      { type: 'session', version: 3, id: '0195f3a2-7c1e-7b3d-9a41-5e2c8f0d4b17', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/work' },
      { type: 'model_change', id: 'a1b2c3d4', parentId: null, timestamp: '2026-01-01T00:00:00.001Z', provider: 'anthropic', modelId: 'claude' },
      { type: 'message', id: 'c3d4e5f6', parentId: 'a1b2c3d4', timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: 'hello', timestamp: 1 } },
      { type: 'message', id: 'd4e5f6a7', parentId: 'c3d4e5f6', timestamp: '2026-01-01T00:00:02.000Z', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm' }, { type: 'text', text: 'hi' }], provider: 'anthropic', model: 'claude', stopReason: 'stop' } },
      { type: 'label', id: 'e5f6a7b8', parentId: 'd4e5f6a7', timestamp: '2026-01-01T00:00:03.000Z', targetId: 'c3d4e5f6', label: 'here' },
    ];
    const parsed = parseTranscript(`${raw.map((line) => JSON.stringify(line)).join('\n')}\n`);
    expect(parsed.malformedLines).toBe(0);
    expect(activeBranchOf(parsed.entries).map((entry) => [entry.id, entry.message.role])).toEqual([
      ['a1b2c3d4', 'other'],
      ['c3d4e5f6', 'user'],
      ['d4e5f6a7', 'assistant'],
      ['e5f6a7b8', 'other'],
    ]);
    const { value } = await inProcess(sql, 'rewrite-other', async (ctx) => {
      await ctx.disk.write(path, `${raw.map((line) => JSON.stringify(line)).join('\n')}\n`);
      await ctx.disk.fsync(path);
      const manager = await open(ctx);
      await manager.rewriteFile();
      return ctx.disk.read(path);
    });
    expect(lines(value)).toEqual(raw.map((line) => JSON.stringify(line)));
  });
});
