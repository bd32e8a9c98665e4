// Differential test: the model's SessionManager (src/session-manager.ts) and the real pi one (sim/real) driven by
// the same generated operation sequences in one simulated run, compared after every operation on the active branch
// in memory and the file's lines (ids and timestamps abstracted: a line is its role, content and parent's line).
// Where they agree the properties say so; each departure found is pinned by an example that shows both sides, so a
// change to either shows here. The list, with why each is kept, is in docs/MODEL.md ("The model's SessionManager and
// the real one"). Files handed to both are in pi's own line format (src/pi-format.ts), as main writes it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Operation, runDifferential, type StepRecord } from '../../sim/real/differential.ts';
import { isoAt, toPiMessage, type TranscriptMessage } from '../../src/pi-format.ts';
import { piMissing, realPi, sql } from './support.ts';

/** Lines of pi's format, as pi (or the model) writes them. */
const header = JSON.stringify({ type: 'session', version: 3, id: '019b76db-258a-7856-a72c-bd48d76ab74e', timestamp: isoAt(0), cwd: '/work' });
function messageLine(id: string, parentId: string | null, message: TranscriptMessage, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type: 'message', id, parentId, timestamp: isoAt(1_000), message: toPiMessage(message, 1_000), ...extra });
}
function linesOf(text: string | undefined): Record<string, unknown>[] {
  return (text ?? '').split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line) as Record<string, unknown>);
}

const append = (role: 'user' | 'assistant' | 'tool'): Operation => ({ kind: 'append', role });
const appendOp = fc.constantFrom<Operation>(append('user'), append('assistant'), append('tool'));
const branchOp = fc.record({ kind: fc.constant('branch' as const), pick: fc.nat(20) });
const simple = (...kinds: ('resetLeaf' | 'reload' | 'rewrite' | 'writeback')[]) => fc.constantFrom<Operation>(...kinds.map((kind) => ({ kind })));
/** A kill that a writeback just before made harmless to both (the model fsyncs every write; pi never does). */
const syncedCrash = fc.constant<Operation[]>([{ kind: 'writeback' }, { kind: 'crash' }]);

function flat(groups: readonly (Operation | Operation[])[]): Operation[] {
  return groups.flatMap((group) => (Array.isArray(group) ? group : [group]));
}

/** The first step where the two differ on `fields`, or undefined. */
function firstDifference(steps: readonly StepRecord[], fields: readonly ('branch' | 'file' | 'durable')[]): StepRecord | undefined {
  return steps.find((step) => fields.some((field) => JSON.stringify(step.model[field]) !== JSON.stringify(step.pi[field])));
}

async function agree(operations: readonly Operation[], fields: readonly ('branch' | 'file' | 'durable')[]): Promise<boolean> {
  const result = await runDifferential(sql, realPi(), 'differential', operations);
  const difference = firstDifference(result.steps, fields);
  if (difference !== undefined) process.stderr.write(`first difference: ${JSON.stringify(difference)}\n`);
  return difference === undefined;
}

const flushed: Operation[] = [append('user'), append('assistant')];

describe.skipIf(piMissing)('model and real pi SessionManager, side by side', () => {
  it('agree on branches and files over appends, branches, leaf resets and reloads', async () => {
    const operation = fc.oneof(appendOp, branchOp, simple('resetLeaf', 'reload'));
    await fc.assert(fc.asyncProperty(fc.array(operation, { maxLength: 16 }), (operations) => agree(operations, ['branch', 'file'])), { numRuns: 60 });
  });

  it('once an assistant message is flushed, agree over rewrites, writebacks and kills after a writeback too', async () => {
    const operation = fc.oneof(appendOp, branchOp, simple('resetLeaf', 'reload', 'rewrite', 'writeback'), syncedCrash);
    const sequences = fc.array(operation, { maxLength: 14 }).map((groups) => [...flushed, ...flat(groups)]);
    await fc.assert(fc.asyncProperty(sequences, (operations) => agree(operations, ['branch', 'file'])), { numRuns: 60 });
  });

  it('departure: the model fsyncs every write; pi never does, so a kill drops what pi wrote', async () => {
    const { steps } = await runDifferential(sql, realPi(), 'd1', [...flushed, { kind: 'crash' }]);
    const kill = steps[2] as StepRecord;
    expect(kill.model.file).toEqual(['H', 'user:m0^root', 'assistant:m1^1']);
    // pi's file survives as an empty file (its creation is metadata); pi truncates it to a fresh header on open.
    expect(kill.pi.file).toEqual(['H']);
    expect(kill.pi.branch).toEqual([]);
  });

  it('departure: pi flushes by appending every line; after a rewrite before the first assistant the header is doubled', async () => {
    const { steps } = await runDifferential(sql, realPi(), 'd2', [append('user'), { kind: 'rewrite' }, append('assistant')]);
    const last = steps.at(-1) as StepRecord;
    expect(last.model.file).toEqual(['H', 'user:m0^root', 'assistant:m2^1']);
    expect(last.pi.file).toEqual(['H', 'user:m0^root', 'H', 'user:m0^root', 'assistant:m2^1']);
  });

  it("departure (pi's load-then-append hazard): a reloaded file with no assistant gets every line again", async () => {
    const initial = `${header}\n`;
    const { steps } = await runDifferential(sql, realPi(), 'd3', [append('user'), append('assistant')], { initial });
    const last = steps.at(-1) as StepRecord;
    expect(last.model.file).toEqual(['H', 'user:m0^root', 'assistant:m1^1']);
    expect(last.pi.file).toEqual(['H', 'H', 'user:m0^root', 'assistant:m1^2']);
  });

  it('departure: an empty file is truncated to a fresh header by pi when it opens; the model repairs it with a backup', async () => {
    const { steps } = await runDifferential(sql, realPi(), 'd4', [{ kind: 'writeback' }], { initial: '' });
    const first = steps[0] as StepRecord;
    expect(first.model.file).toEqual(['H']);
    expect(first.pi.file).toEqual(['H']);
    const again = await runDifferential(sql, realPi(), 'd4', [append('user'), append('assistant')], { initial: '' });
    // The model's fresh header was written by the repair, and it then flushes by a whole-file write; pi appends.
    expect((again.steps.at(-1) as StepRecord).model.file).toEqual(['H', 'user:m0^root', 'assistant:m1^1']);
    expect((again.steps.at(-1) as StepRecord).pi.file).toEqual(['H', 'H', 'user:m0^root', 'assistant:m1^2']);
  });

  it('departure: entries under a missing header are dropped by pi (fresh header) and kept by the model', async () => {
    const initial = `${messageLine('e1', null, { role: 'assistant', content: 'kept?' }, { turnId: 't' })}\n`;
    const { steps } = await runDifferential(sql, realPi(), 'd5', [{ kind: 'reload' }], { initial });
    const first = steps[0] as StepRecord;
    expect(first.model.branch).toEqual(['assistant:kept?']);
    expect(first.pi.branch).toEqual([]);
    expect(first.pi.file).toEqual(['H']);
  });

  it('agree on a file pi wrote: entries without turnId, of other kinds and of other roles stay in the tree', async () => {
    const modelChange = JSON.stringify({ type: 'model_change', id: 'c1', parentId: 'e1', timestamp: isoAt(1_500), provider: 'anthropic', modelId: 'x' });
    const custom = JSON.stringify({ type: 'message', id: 'b1', parentId: 'c1', timestamp: isoAt(1_600), message: { role: 'bashExecution', command: 'ls', output: '' } });
    const lines = [header, messageLine('e0', null, { role: 'user', content: 'hi' }), messageLine('e1', 'e0', { role: 'assistant', content: 'foreign' }), modelChange, custom];
    const { steps } = await runDifferential(sql, realPi(), 'd6', [{ kind: 'reload' }, append('user'), { kind: 'rewrite' }], { initial: `${lines.join('\n')}\n` });
    for (const step of steps) {
      expect(step.model.branch).toEqual(step.pi.branch);
      expect(step.model.file).toEqual(step.pi.file);
    }
    expect((steps[0] as StepRecord).pi.branch).toEqual(['user:hi', 'assistant:foreign', 'other:', 'other:']);
    expect((steps.at(-1) as StepRecord).pi.file).toEqual(['H', 'user:hi^root', 'assistant:foreign^1', 'undefined:^2', 'bashExecution:^3', 'user:m1^4']);
  });

  it('departure: a second header line is malformed to the model (its repair drops it, with a backup) and kept by pi', async () => {
    const lines = [header, messageLine('e0', null, { role: 'user', content: 'hi' }), messageLine('e1', 'e0', { role: 'assistant', content: 'foreign' }), header];
    const { steps } = await runDifferential(sql, realPi(), 'd7', [{ kind: 'reload' }], { initial: `${lines.join('\n')}\n` });
    const first = steps[0] as StepRecord;
    expect(first.model.branch).toEqual(first.pi.branch);
    expect(first.model.file).toEqual(['H', 'user:hi^root', 'assistant:foreign^1']);
    expect(first.pi.file).toEqual(['H', 'user:hi^root', 'assistant:foreign^1', 'H']);
  });

  it("departure (the adapter's, not pi's): the model's turnId is a field of the entry; through pi it rides in the message", async () => {
    const { texts } = await runDifferential(sql, realPi(), 'd8', flushed);
    const [, modelUser] = linesOf(texts.model);
    const [, piUser] = linesOf(texts.pi);
    expect(modelUser).toMatchObject({ turnId: 'turn-m0', message: { role: 'user', content: 'm0' } });
    expect(modelUser?.message).not.toHaveProperty('turnId');
    expect(piUser).not.toHaveProperty('turnId');
    expect(piUser).toMatchObject({ message: { role: 'user', content: 'm0', turnId: 'turn-m0' } });
    // Everything else of the line is pi's shape on both sides.
    expect(Object.keys(piUser ?? {}).sort()).toEqual(Object.keys(modelUser ?? {}).filter((key) => key !== 'turnId').sort());
  });

  it("departure (OpenClaw's fixed repair, as sim/real does it): after removing the leaf the model's leaf is the last entry, pi's the parent", async () => {
    const { steps } = await runDifferential(sql, realPi(), 'd9', [...flushed, { kind: 'branch', pick: 0 }, { kind: 'removeLeaf' }]);
    const last = steps.at(-1) as StepRecord;
    expect(last.model.file).toEqual(last.pi.file);
    expect(last.model.branch).toEqual(['assistant:m1']);
    expect(last.pi.branch).toEqual([]);
  });
});
