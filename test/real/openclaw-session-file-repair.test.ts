// The session-file repair of each pinned OpenClaw release (`repairSessionFileIfNeeded`, region
// src/agents/session-file-repair.ts: 2026.4.24 dist/wait-for-idle-before-flush-CkZJsBmY.js, 2026.7.1
// dist/session-manager-BKz2VYho.js) against the model's (src/session-file-repair.ts), on the same generated session
// files (torn lines, malformed lines before and after a header, blank lines, a first line that is no header, an empty
// file, CRLF endings, a missing final newline), through the adapter a run uses (sim/real/openclaw/session-file-repair.ts)
// in a simulated runner incarnation, each file on the simulated disk. The test states each release's rule as its own
// reading of the chunk, and checks both the release and the model against it on every file:
// - 2026.4.24 is the model's rule: the same verdict, the same dropped-line count, the same reason, the same repaired
//   text, and the backup kept with the old text;
// - 2026.7.1 is the model's rule on the files the model writes, and repairs more on others (docs/MODEL.md, "The
//   session-file repair, real"): a message entry whose role is not a non-empty string is dropped and counted with the
//   malformed lines (also before the header is judged); an assistant message with empty content and stopReason "error"
//   gets the fallback text; a user message with blank text becomes "(continue)" (blank text blocks of a longer content
//   are removed). It removes its backup after a repair.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { repairSessionFileIfNeeded, type SessionFileRepair } from '../../src/session-file-repair.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { openclawGatewayPartsFor } from '../../sim/real/openclaw/gateway-parts.ts';
import { type OpenclawRelease } from '../../sim/real/openclaw/index.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('real OpenClaw session-file-repair tests');

const header = (id: string) => JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-01-01T00:00:00.000Z', cwd: '/work' });
const entry = (id: string, message: unknown) => JSON.stringify({ type: 'message', id, parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message });
const user = (content: unknown) => ({ role: 'user', content, timestamp: 1767225601000 });
const assistant = (content: unknown, stopReason = 'stop') => ({ role: 'assistant', content, api: 'anthropic-messages', provider: 'anthropic', model: 'gatesim-fake', stopReason, timestamp: 1767225602000 });

/** Lines the model writes (a header and message entries), and the lines a torn or corrupted file has. */
const modelLines = [
  entry('a1b2c3d4', user('hello [m0]')),
  entry('e5f6a7b8', assistant([{ type: 'text', text: 'hi there' }])),
  entry('c9d0e1f2', assistant([{ type: 'toolCall', id: 'call-1', name: 'message', arguments: { text: 'x' } }], 'toolUse')),
  entry('a3b4c5d6', { role: 'toolResult', toolCallId: 'call-1', toolName: '', content: [{ type: 'text', text: 'sent' }], isError: false }),
];
const corrupt = ['not json', '{"type":"message"', '}', '[1,2', '"unterminated'];
const blank = ['', '   ', '\t'];
/** Entries only 2026.7.1 repairs (the model never writes them). */
const releaseOnly = [
  entry('b1b1b1b1', user('')),
  entry('b2b2b2b2', user('   ')),
  entry('b3b3b3b3', user([{ type: 'text', text: ' ' }])),
  entry('b4b4b4b4', user([{ type: 'text', text: '' }, { type: 'text', text: 'kept' }])),
  entry('b5b5b5b5', assistant([], 'error')),
  entry('b6b6b6b6', { role: null, content: 'x' }),
  JSON.stringify({ type: 'message', id: 'b7b7b7b7' }),
];

const lineArb = (withReleaseOnly: boolean) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...modelLines) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...modelLines), fc.nat()).map(([line, cut]) => line.slice(0, 1 + (cut % (line.length - 1)))) },
    { weight: 1, arbitrary: fc.constantFrom(...corrupt) },
    { weight: 1, arbitrary: fc.constantFrom(...blank) },
    { weight: withReleaseOnly ? 2 : 0, arbitrary: fc.constantFrom(...releaseOnly) },
  );

interface Case {
  text: string;
  /** Whether the file holds an entry only 2026.7.1 repairs. */
  releaseOnly: boolean;
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    before: fc.array(fc.oneof(fc.constantFrom(...corrupt, ...blank), lineArb(false)), { maxLength: 2 }),
    head: fc.constantFrom(header('3f2a9c1e-0000-4000-8000-000000000001'), header(''), modelLines[0] as string, 'none'),
    after: fc.array(lineArb(true), { maxLength: 7 }),
    crlf: fc.boolean(),
    finalNewline: fc.boolean(),
    empty: fc.constantFrom(false, false, false, false, false, false, false, false, false, true),
  })
  .map(({ before, head, after, crlf, finalNewline, empty }) => {
    if (empty) return { text: '', releaseOnly: false };
    const lines = [...before, ...(head === 'none' ? [] : [head]), ...after];
    const text = lines.join(crlf ? '\r\n' : '\n') + (finalNewline && lines.length > 0 ? (crlf ? '\r\n' : '\n') : '');
    return { text, releaseOnly: lines.some((line) => releaseOnly.includes(line)) };
  });

const cases = fc.sample(caseArb, { numRuns: 240, seed: 22 });

interface Outcome {
  result: SessionFileRepair;
  after: string | undefined;
  files: string[];
}

/** Each case on the simulated disk, repaired by the model and by the release in one runner incarnation. */
async function repairAll(release: OpenclawRelease): Promise<{ model: Outcome[]; real: Outcome[]; escapes: string[] }> {
  const sim = new Simulation({ seed: `openclaw-session-file-repair-${release}`, sql: await loadSqlJs() });
  const parts = openclawGatewayPartsFor(sim, { release, parts: ['session-file-repair'] });
  const model: Outcome[] = [];
  const real: Outcome[] = [];
  const outcome = (dir: string, path: string, result: SessionFileRepair): Outcome => ({ result, after: sim.disk.peek(path), files: sim.disk.paths().filter((file) => file.startsWith(dir) && file !== path).map((file) => file.slice(path.length)) });
  sim.spawn('runner', async (ctx) => {
    const repair = parts.sessionFileRepair?.(ctx);
    if (repair === undefined) throw new Error(`openclaw ${release} gave no session-file repair`);
    for (const [index, { text }] of cases.entries()) {
      for (const [who, into] of [['model', model] as const, ['real', real] as const]) {
        const dir = `/data/${who}/${index}/`;
        const path = `${dir}session.jsonl`;
        await ctx.disk.write(path, text);
        const result = who === 'model' ? await repairSessionFileIfNeeded(ctx.disk, path, ctx.incarnation, ctx.clock.nowMs()) : await repair.repair(path);
        into.push(outcome(dir, path, result));
      }
    }
  });
  await sim.run();
  sim.dispose();
  return { model, real, escapes: parts.escapes };
}

/** A repair's verdict without the backup's name (the releases name it otherwise, and 2026.7.1 removes it). */
function verdictOf(result: SessionFileRepair): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...result };
  delete copy.backupPath;
  return copy;
}

const fallbackText = '[assistant turn failed before producing content]';

/** 2026.7.1's rule as read in its chunk (the header lists it), for the entries these files hold. */
function release71Rule(text: string): { repaired: boolean; droppedLines: number; reason?: string; cleaned?: string } {
  let droppedLines = 0;
  let rewritten = 0;
  const entries: unknown[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      droppedLines++;
      continue;
    }
    const record = parsed as { type?: unknown; message?: { role?: unknown; content?: unknown; stopReason?: unknown } } | null;
    if (record !== null && typeof record === 'object' && record.type === 'message') {
      const message = record.message;
      if (message === null || typeof message !== 'object' || typeof message.role !== 'string' || message.role.trim() === '') {
        droppedLines++;
        continue;
      }
      if (message.role === 'assistant' && Array.isArray(message.content) && message.content.length === 0 && message.stopReason === 'error') {
        entries.push({ ...record, message: { ...message, content: [{ type: 'text', text: fallbackText }] } });
        rewritten++;
        continue;
      }
      if (message.role === 'user') {
        const content = message.content;
        if (typeof content === 'string' && content.trim() === '') {
          entries.push({ ...record, message: { ...message, content: '(continue)' } });
          rewritten++;
          continue;
        }
        if (Array.isArray(content)) {
          const kept = content.filter((block: { type?: unknown; text?: unknown }) => block?.type !== 'text' || typeof block.text !== 'string' || block.text.trim().length > 0);
          if (kept.length !== content.length || kept.length === 0) {
            entries.push({ ...record, message: { ...message, content: kept.length === 0 ? [{ type: 'text', text: '(continue)' }] : kept } });
            rewritten++;
            continue;
          }
        }
      }
    }
    entries.push(parsed);
  }
  const first = entries[0] as { type?: unknown; id?: unknown } | null | undefined;
  if (entries.length === 0) return { repaired: false, droppedLines, reason: 'empty session file' };
  if (first === null || typeof first !== 'object' || first.type !== 'session' || typeof first.id !== 'string' || first.id.length === 0) return { repaired: false, droppedLines, reason: 'invalid session header' };
  if (droppedLines === 0 && rewritten === 0) return { repaired: false, droppedLines: 0 };
  return { repaired: true, droppedLines, cleaned: `${entries.map((value) => JSON.stringify(value)).join('\n')}\n` };
}

describe.skipIf(missing)('the session-file repair: each release against the model, on the same files', () => {
  it('2026.4.24 is the model, file by file', async () => {
    const { model, real, escapes } = await repairAll('2026.4.24');
    expect(escapes).toEqual([]);
    let repaired = 0;
    for (const [index, { text }] of cases.entries()) {
      const m = model[index] as Outcome;
      const r = real[index] as Outcome;
      const label = `case ${index}: ${JSON.stringify(text).slice(0, 200)}`;
      const backupPath = r.result.repaired ? r.result.backupPath : undefined;
      expect(verdictOf(r.result), label).toEqual(verdictOf(m.result));
      expect(r.after, label).toBe(m.after);
      if (r.result.repaired) {
        repaired++;
        // The backup beside the file, with the old text; the temporary was renamed away.
        expect(typeof backupPath === 'string' && backupPath.includes('.bak-'), label).toBe(true);
        expect(r.files, label).toEqual([String(backupPath).slice(String(backupPath).indexOf('.jsonl') + '.jsonl'.length)]);
        expect(m.files.length, label).toBe(1);
      } else expect(r.files, label).toEqual([]);
    }
    expect(repaired).toBeGreaterThan(20);
  }, 300_000);

  it("2026.7.1 is the model on the model's files, and its own rule on every file; it removes its backup", async () => {
    const { model, real, escapes } = await repairAll('2026.7.1');
    expect(escapes).toEqual([]);
    let differs = 0;
    for (const [index, { text, releaseOnly: extra }] of cases.entries()) {
      const m = model[index] as Outcome;
      const r = real[index] as Outcome;
      const label = `case ${index}: ${JSON.stringify(text).slice(0, 200)}`;
      const rule = release71Rule(text);
      expect(r.result.repaired, label).toBe(rule.repaired);
      expect(r.result.droppedLines, label).toBe(rule.droppedLines);
      if (!r.result.repaired) {
        expect(r.result.reason, label).toBe(rule.reason);
        expect(r.after, label).toBe(text);
      } else {
        expect(r.after, label).toBe(rule.cleaned);
        expect(r.result.backupPath, label).toBe(null);
      }
      // Nothing left beside the file: no backup, no temporary.
      expect(r.files, label).toEqual([]);
      if (!extra) {
        expect(verdictOf(r.result), label).toEqual(verdictOf(m.result));
        expect(r.after, label).toBe(m.after);
      } else if (r.after !== m.after || r.result.repaired !== m.result.repaired) differs++;
    }
    // The release's extra repairs were reached.
    expect(differs).toBeGreaterThan(10);
  }, 300_000);
});
