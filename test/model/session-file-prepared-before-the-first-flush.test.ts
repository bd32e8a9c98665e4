// A session file that exists before the first turn with no assistant message in it (pre-created by another tool: a
// bare header, a user entry with no answer, an empty file, a file whose first line is no header). pi would count it
// flushed, and its first user append then unflush it, so the first answer would append the whole file again: two
// headers and repeated entries (pi's load-then-append hazard). The runner opens the file as OpenClaw's run attempt
// does (src/session-file-repair.ts): a headerless file is left to pi (the repair step only warns), pi truncates it to
// a fresh header, and prepareSessionManagerForRun empties any file with no assistant message before the first flush.
// The file ends with one header and each exchange once, and every invariant holds.
import { describe, expect, it } from 'vitest';
import { isoAt, toPiMessage } from '../../src/pi-format.ts';
import { transcriptPath } from '../../src/index.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { forMessage, handPlan, invariants, notes, reply, session0, transcript, user, withRun } from './support.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';

const sql = await loadSqlJs();
const path = transcriptPath(session0);
const header = JSON.stringify({ type: 'session', version: 3, id: '019b7a00-0000-7000-8000-000000000001', timestamp: isoAt(0), cwd: '/work' });
const early = JSON.stringify({ type: 'message', id: 'e0e0e0e0', parentId: null, timestamp: isoAt(0), message: toPiMessage({ role: 'user', content: 'written before the gateway ran' }, 0) });
const stale = JSON.stringify({ type: 'message', id: 'e1e1e1e1', parentId: null, timestamp: isoAt(0), message: toPiMessage({ role: 'assistant', content: 'a stale answer' }, 0) });

/** A process that writes the file (synced) before anything else runs. */
function preCreate(text: string) {
  return (sim: Simulation) =>
    sim.spawn('pre-create', async (ctx) => {
      await ctx.disk.write(path, text);
      await ctx.disk.fsync(path);
    });
}

const script = forMessage({ 0: { toolCalls: [], result: reply('answer one') }, 1: { toolCalls: [], result: reply('answer two') } });
const plan = handPlan([user(1_000, 'first'), user(20_000, 'second')]);

const files: [string, string, boolean][] = [
  ['a bare header', `${header}\n`, false],
  ['a user entry with no answer', `${header}\n${early}\n`, false],
  ['an empty file', '', false],
  ['a file whose first line is no header', `${stale}\n${header}\n`, true],
];

describe('a session file that exists with no assistant message', () => {
  for (const [name, text, headerless] of files) {
    it(`${name}: emptied before the first flush, so it ends with one header and each exchange once`, async () => {
      await withRun(sql, { bugs: [], plan, script, prepare: preCreate(text) }, (result) => {
        expect(invariants(result)).toEqual([]);
        const lines = (result.sim.disk.peekSynced(path) ?? '').split('\n').filter((line) => line.length > 0);
        expect(lines.filter((line) => line.includes('"type":"session"'))).toHaveLength(1);
        expect(transcript(result).map((entry) => `${entry.message.role} ${entry.turnId}`)).toEqual(['user in:d0', 'assistant in:d0', 'user in:d1', 'assistant in:d1']);
        // Once, at the first turn; the second finds the first answer in the file.
        expect(notes(result, 'transcript-reset').map((note) => note.fields.session)).toEqual([session0]);
        expect(notes(result, 'transcript-repair-skipped').map((note) => note.fields.reason)).toEqual(headerless ? ['invalid session header'] : []);
        // Nothing was backed up: the repair step never rewrote the file.
        expect(result.sim.disk.paths().filter((other) => other.startsWith(`${path}.`))).toEqual([]);
      });
    });
  }
});
