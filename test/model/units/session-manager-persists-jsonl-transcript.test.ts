// The pi SessionManager and its JSONL transcript, on the simulated disk: a header line first; nothing written
// until the first assistant message, then every entry in one write, then one append per entry; load skips malformed
// lines and takes the last entry in file order as the leaf; branch() only moves the leaf; removeEntry + rewriteFile
// keeps a `.bak-<pid>-<time>` copy and replaces the file through a temporary file and an atomic rename.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelAssertionError } from '../../../src/assert.ts';
import type { ProcessContext } from '../../../src/ports.ts';
import { activeBranchOf, parseTranscript, type Role, type SessionEntry, SessionManager } from '../../../src/session-manager.ts';
import { loadSqlJs } from '../../../sim/kernel/sqlite.ts';
import { inProcess, traceOf } from './support.ts';

const sql = await loadSqlJs();
const path = '/data/sessions/s0.jsonl';
const idPattern = /^[0-9a-z]{8}$/;

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

const header = JSON.stringify({ type: 'session', version: 3, id: 'hdr00001', timestamp: 0, cwd: '/work' });

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
    expect(JSON.parse(flushed[0] ?? '')).toEqual({ type: 'session', version: 3, id: expect.stringMatching(idPattern), timestamp: 7, cwd: '/work' });
    expect(flushed.slice(1)).toEqual(value.written.map((written) => JSON.stringify(written)));
    expect(value.afterAppend).toBe(`${value.afterFlush ?? ''}${JSON.stringify(value.u3)}\n`);
    // One whole-file write at the first assistant message, one append after; both synced.
    expect(traceOf(sim, 'disk.write').map((event) => event.fields.path)).toEqual([path]);
    expect(traceOf(sim, 'disk.append').map((event) => event.fields.path)).toEqual([path]);
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
      JSON.stringify(e1),
      JSON.stringify(e2),
      '{"type":"message","id":"torn',
      JSON.stringify(e3),
      'not json at all',
      JSON.stringify({ type: 'message', id: 'noparent' }),
      header,
    ].join('\n');
    const { value } = await inProcess(sql, 'load', async (ctx) => {
      await ctx.disk.write(path, `${file}\n`);
      const manager = await open(ctx);
      return { entries: [...manager.allEntries()], leaf: manager.leaf, branch: manager.activeBranch(), report: manager.loadReport };
    });
    expect(value.entries).toEqual([e1, e2, e3]);
    expect(value.leaf).toEqual(e3);
    // e2 is a dead-end sibling: the leaf follows file order, not the longest path.
    expect(ids(value.branch)).toEqual([e1.id, e3.id]);
    // A header anywhere but the first line is malformed too.
    expect(value.report).toEqual({ malformedLines: 4, missingHeader: false });
  });

  it('reports a missing header and still loads the entries', async () => {
    const e1 = entry('bbbbbbb1', null);
    const { value } = await inProcess(sql, 'no-header', async (ctx) => {
      await ctx.disk.write(path, `${JSON.stringify(e1)}\n`);
      const manager = await open(ctx);
      return { entries: [...manager.allEntries()], report: manager.loadReport, leaf: manager.leaf };
    });
    expect(value.entries).toEqual([e1]);
    expect(value.leaf).toEqual(e1);
    expect(value.report).toEqual({ malformedLines: 0, missingHeader: true });
  });

  it('after a load that skipped a torn line, the next append rewrites the whole file without it', async () => {
    const e1 = entry('ccccccc1', null);
    const e2 = entry('ccccccc2', 'ccccccc1', 'assistant');
    const { value, sim } = await inProcess(sql, 'torn-rewrite', async (ctx) => {
      await ctx.disk.write(path, `${[header, JSON.stringify(e1), JSON.stringify(e2)].join('\n')}\n{"type":"mess`);
      const manager = await open(ctx);
      const e3 = await say(manager, 'user', 'next');
      return { e3, text: await ctx.disk.read(path) };
    });
    expect(lines(value.text)).toEqual([header, JSON.stringify(e1), JSON.stringify(e2), JSON.stringify(value.e3)]);
    expect(value.e3.parentId).toBe(e2.id);
    expect(traceOf(sim, 'disk.append')).toHaveLength(0);
    expect(traceOf(sim, 'disk.write')).toHaveLength(2);
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
    const temporary = `${path}.tmp-${value.pid}`;
    // The file itself is never written in place: only the backup and the temporary file are, then the rename.
    expect(value.rewriteEvents.filter(([kind]) => kind !== 'disk.sync')).toEqual([
      ['disk.write', value.backup, null, null],
      ['disk.write', temporary, null, null],
      ['disk.rename', null, temporary, path],
    ]);
    expect(value.temporaryLeft).toEqual([]);
    expect(lines(value.text).slice(1)).toEqual([u1, a1, u2].map((written) => JSON.stringify(written)));
    expect(lines(value.text)[0]).toBe(lines(value.before)[0]);
    expect(u2.parentId).toBe(a1.id);
    // The new file was synced before the rename, so it is durable as it stands.
    expect(sim.disk.peekSynced(path)).toBe(value.text);
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

describe('parseTranscript and activeBranchOf', () => {
  it('parseTranscript skips the header, counts malformed lines and names the last entry the leaf', () => {
    const e1 = entry('ddddddd1', null);
    const e2 = entry('ddddddd2', 'ddddddd1', 'assistant');
    const parsed = parseTranscript([header, JSON.stringify(e1), '{oops', JSON.stringify(e2), ''].join('\n'));
    expect(parsed).toEqual({ entries: [e1, e2], malformedLines: 1, leafId: e2.id });
    expect(parseTranscript('')).toEqual({ entries: [], malformedLines: 0, leafId: null });
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
            if (step.kind === 'append') await manager.appendMessage({ role: step.role, content: `c${entries.length}` }, 't');
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
        expect(reloaded?.report).toEqual({ malformedLines: 0, missingHeader: false });
        expect(reloaded?.leaf).toEqual(written.at(-1));
        expect(reloaded?.branch).toEqual(activeBranchOf(parsed.entries));
      }),
      { numRuns: 60 },
    );
  });
});
