// OpenClaw's steps around opening a session file (src/session-file-repair.ts), on the simulated disk. The repair
// judges the header by the first line that parses: not a header, the file is left untouched (a warning); nothing
// parses, it is an "empty session file" and left alone; malformed lines under a valid header (before it too) are
// dropped, with a backup `<file>.bak-<pid>-<time>`, a temporary file and a rename. Then the SessionManager opens the
// file and prepareSessionManagerForRun empties a file that existed with no assistant message, so the first flush
// writes one header and no entry twice; without it, pi's load-then-append hazard shows (a sabotage below).
import { describe, expect, it } from 'vitest';
import { isoAt, toPiMessage, type TranscriptMessage } from '../../../src/pi-format.ts';
import type { ProcessContext } from '../../../src/ports.ts';
import { openSessionForRun, repairSessionFileIfNeeded, type SessionFileRepair } from '../../../src/session-file-repair.ts';
import { parseTranscript } from '../../../src/session-manager.ts';
import { modelSessionManagerFactory } from '../../../src/session-manager-port.ts';
import { loadSqlJs } from '../../../sim/kernel/sqlite.ts';
import { inProcess } from './support.ts';

const sql = await loadSqlJs();
const path = '/data/sessions/s0.jsonl';
const header = JSON.stringify({ type: 'session', version: 3, id: '019b7a00-0000-7000-8000-000000000001', timestamp: isoAt(0), cwd: '/work' });

function line(id: string, parentId: string | null, message: TranscriptMessage): string {
  return JSON.stringify({ type: 'message', id, parentId, timestamp: isoAt(1_000), message: toPiMessage(message, 1_000), turnId: 't' });
}

const user = line('aaaaaaa1', null, { role: 'user', content: 'hello' });
const answer = line('aaaaaaa2', 'aaaaaaa1', { role: 'assistant', content: 'hi' });

/** The repair of `text` (absent: no file), what the disk holds after it, and the disk events it made. */
async function repairOf(text: string | undefined) {
  const { value, sim } = await inProcess(sql, 'repair', async (ctx, running) => {
    if (text !== undefined) {
      await ctx.disk.write(path, text);
      await ctx.disk.fsync(path);
    }
    await ctx.timers.sleep(1_000);
    const first = running.trace.events.length;
    const atMs = ctx.clock.nowMs();
    const repair = await repairSessionFileIfNeeded(ctx.disk, path, ctx.incarnation, atMs);
    const events = running.trace.events.slice(first).filter((event) => event.kind.startsWith('disk.') && event.kind !== 'disk.sync');
    return { repair, pid: ctx.incarnation, atMs, after: await ctx.disk.read(path), files: await ctx.disk.list(path), events: events.map((event) => [event.kind, event.fields.path ?? event.fields.from ?? null]) };
  });
  return { ...value, synced: sim.disk.peekSynced(path) };
}

describe('repairSessionFileIfNeeded', () => {
  it('drops malformed lines under a valid header: a backup of the old text, then a temporary file renamed over it', async () => {
    const torn = `${header}\n${user}\n{"type":"message","id":"tor\n${answer}\n{"type":"mess`;
    const outcome = await repairOf(torn);
    const backupPath = `${path}.bak-${outcome.pid}-${outcome.atMs}`;
    const temporary = `${path}.repair-${outcome.pid}-${outcome.atMs}.tmp`;
    expect(outcome.repair).toEqual({ repaired: true, droppedLines: 2, backupPath });
    expect(outcome.after).toBe(`${header}\n${user}\n${answer}\n`);
    expect(outcome.files).toEqual([path, backupPath]);
    // The file itself is never written in place; the new text is durable at the rename.
    expect(outcome.events).toEqual([
      ['disk.write', backupPath],
      ['disk.write', temporary],
      ['disk.rename', temporary],
    ]);
    expect(outcome.synced).toBe(outcome.after);
  });

  it('drops malformed lines before a valid header too (the header is the first line that parses)', async () => {
    const outcome = await repairOf(`{"type":"sess\n\n${header}\n${user}\n`);
    expect(outcome.repair).toMatchObject({ repaired: true, droppedLines: 1 });
    expect(outcome.after).toBe(`${header}\n${user}\n`);
  });

  const untouched: [string, string, (SessionFileRepair & { repaired: false })['reason']][] = [
    ['the first line that parses is an entry', `{"type":"sess\n${user}\n${header}\n{oops\n`, 'invalid session header'],
    ['the first line that parses is a header with an empty id', `${JSON.stringify({ type: 'session', id: '' })}\n{oops\n`, 'invalid session header'],
    ['nothing parses (an "empty session file")', '{"type":"sess\n  \n{oops', 'empty session file'],
    ['the file is empty', '', 'empty session file'],
    ['nothing is malformed', `${header}\n${user}\n${answer}\n`, undefined],
    ['lines end in CRLF (none is dropped)', `${header}\r\n${user}\r\n`, undefined],
  ];
  for (const [name, text, reason] of untouched) {
    it(`leaves the file untouched when ${name}`, async () => {
      const outcome = await repairOf(text);
      expect(outcome.repair.repaired).toBe(false);
      expect(outcome.repair).toEqual(reason === undefined ? { repaired: false, droppedLines: 0 } : expect.objectContaining({ repaired: false, reason }));
      expect(outcome.after).toBe(text);
      expect(outcome.files).toEqual([path]);
      expect(outcome.events).toEqual([]);
    });
  }

  it('leaves a clean file whose last line lacks its newline untouched too, and says so', async () => {
    const text = `${header}\n${user}`;
    const outcome = await repairOf(text);
    expect(outcome.repair).toEqual({ repaired: false, droppedLines: 0, unterminated: true });
    expect(outcome.after).toBe(text);
    expect(outcome.events).toEqual([]);
  });

  it('says a missing file is missing, and creates nothing', async () => {
    const outcome = await repairOf(undefined);
    expect(outcome.repair).toEqual({ repaired: false, droppedLines: 0, reason: 'missing session file' });
    expect(outcome.files).toEqual([]);
  });
});

/**
 * Open for a run as the fixed runner does (or, as a sabotage, repair and open without prepareSessionManagerForRun
 * and without ending a torn last line), then one exchange.
 */
async function exchangeAfterOpen(initial: string | undefined, prepare: boolean) {
  const { value } = await inProcess(sql, 'open-for-run', async (ctx: ProcessContext, running) => {
    if (initial !== undefined) {
      await ctx.disk.write(path, initial);
      await ctx.disk.fsync(path);
    }
    const opening = running.trace.events.length;
    let reset = false;
    let session;
    if (prepare) ({ session, reset } = await openSessionForRun(ctx, modelSessionManagerFactory, path, { endTornLastLine: true }));
    else {
      await repairSessionFileIfNeeded(ctx.disk, path, ctx.incarnation, ctx.clock.nowMs());
      session = await modelSessionManagerFactory(ctx, path);
    }
    const leafAtOpen = session.leaf?.message.content;
    await session.appendMessage({ role: 'user', content: 'new question' }, 'in:d1');
    await session.appendMessage({ role: 'assistant', content: 'new answer' }, 'in:d1');
    const emptied = running.trace.events.slice(opening).filter((event) => event.kind === 'disk.write' && event.fields.bytes === 0).length;
    return { reset, leafAtOpen, emptied, text: (await ctx.disk.read(path)) ?? '' };
  });
  const headers = value.text.split('\n').filter((text) => text.includes('"type":"session"')).length;
  const contents = parseTranscript(value.text).entries.map((entry) => entry.message.content);
  return { ...value, headers, contents };
}

describe('openSessionForRun: repair, open, prepareSessionManagerForRun', () => {
  const noAssistant: [string, string][] = [
    ['a bare header', `${header}\n`],
    ['a user entry and no answer', `${header}\n${user}\n`],
    ['an empty file', ''],
    ['a file whose first line is no header', `${answer}\n`],
  ];
  for (const [name, initial] of noAssistant) {
    it(`empties a file that existed with ${name}, so the first flush writes one header and each entry once`, async () => {
      const prepared = await exchangeAfterOpen(initial, true);
      expect(prepared.reset).toBe(true);
      expect(prepared.leafAtOpen).toBeUndefined();
      expect(prepared.emptied).toBe(1);
      expect(prepared.headers).toBe(1);
      expect(prepared.contents).toEqual(['new question', 'new answer']);
      // The sabotage: without the prepare step, pi's load-then-append hazard writes the file twice over.
      const unprepared = await exchangeAfterOpen(initial, false);
      expect(unprepared.headers).toBe(2);
      expect(unprepared.contents).toEqual(initial.includes('"hello"') ? ['hello', 'hello', 'new question', 'new answer'] : ['new question', 'new answer']);
    });
  }

  it('keeps a file that holds an assistant message, and leaves a missing file to the first flush', async () => {
    const kept = await exchangeAfterOpen(`${header}\n${user}\n${answer}\n`, true);
    expect(kept.reset).toBe(false);
    expect(kept.leafAtOpen).toBe('hi');
    expect(kept.contents).toEqual(['hello', 'hi', 'new question', 'new answer']);
    const fresh = await exchangeAfterOpen(undefined, true);
    expect(fresh.reset).toBe(false);
    expect(fresh.headers).toBe(1);
    expect(fresh.contents).toEqual(['new question', 'new answer']);
  });

  it('ends a last line torn just short of its newline, so the next append does not join it (the fixed runner goes further)', async () => {
    // A power loss kept every byte of the entry but its newline: the line parses, so OpenClaw's repair keeps it as is,
    // and pi's next append, which never checks for a final newline, would land on the same line.
    const carrier = line('aaaaaaa3', 'aaaaaaa2', { role: 'user', content: 'torn' });
    const torn = `${header}\n${user}\n${answer}\n${carrier}`;
    const prepared = await exchangeAfterOpen(torn, true);
    expect(prepared.contents).toEqual(['hello', 'hi', 'torn', 'new question', 'new answer']);
    const unprepared = await exchangeAfterOpen(torn, false);
    expect(unprepared.contents).toEqual(['hello', 'hi', 'new answer']);
    // OpenClaw's own open step (what sim/real's seed-003 experiment runs) leaves the line as it is.
    const { value } = await inProcess(sql, 'openclaw-as-is', async (ctx: ProcessContext) => {
      await ctx.disk.write(path, torn);
      await ctx.disk.fsync(path);
      await openSessionForRun(ctx, modelSessionManagerFactory, path);
      return ctx.disk.read(path);
    });
    expect(value).toBe(torn);
  });

  it('repairs before it opens: a torn tail is dropped, so the next append starts a line of its own', async () => {
    const prepared = await exchangeAfterOpen(`${header}\n${user}\n${answer}\n{"type":"mess`, true);
    expect(prepared.contents).toEqual(['hello', 'hi', 'new question', 'new answer']);
    expect(prepared.text.split('\n').filter((text) => text.length > 0)).toHaveLength(5);
  });
});
