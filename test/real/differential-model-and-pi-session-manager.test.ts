// Differential test: the model's SessionManager (src/session-manager.ts) and the real pi one (sim/real) driven by
// the same generated operation sequences in one simulated run, compared after every operation on the active branch
// in memory and the file's lines (ids and timestamps abstracted: a line is its role, content and parent's line).
// Where they agree the properties say so; each departure found is pinned by an example that shows both sides, so a
// change to either shows here. The list is in the report of issue 8 (and belongs in docs/MODEL.md).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Operation, runDifferential, type StepRecord } from '../../sim/real/differential.ts';
import { piMissing, realPi, sql } from './support.ts';

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
    const initial = `${JSON.stringify({ type: 'session', version: 3, id: 'h', timestamp: 0, cwd: '/work' })}\n`;
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
    const entry = { type: 'message', id: 'e1', parentId: null, timestamp: 0, message: { role: 'assistant', content: 'kept?' }, turnId: 't' };
    const { steps } = await runDifferential(sql, realPi(), 'd5', [{ kind: 'reload' }], { initial: `${JSON.stringify(entry)}\n` });
    const first = steps[0] as StepRecord;
    expect(first.model.branch).toEqual(['assistant:kept?']);
    expect(first.pi.branch).toEqual([]);
    expect(first.pi.file).toEqual(['H']);
  });

  it('departure: a line the model cannot read (no turnId, a second header) is malformed to it and an entry to pi', async () => {
    const header = JSON.stringify({ type: 'session', version: 3, id: 'h', timestamp: 0, cwd: '/work' });
    const foreign = JSON.stringify({ type: 'message', id: 'e1', parentId: null, timestamp: 0, message: { role: 'assistant', content: 'foreign' } });
    const { steps } = await runDifferential(sql, realPi(), 'd6', [{ kind: 'reload' }], { initial: `${header}\n${foreign}\n${header}\n` });
    const first = steps[0] as StepRecord;
    // The model repaired (rewrote) the file without both lines; pi keeps the entry and leaves the file alone.
    expect(first.model.file).toEqual(['H']);
    expect(first.pi.branch).toEqual(['assistant:foreign']);
    expect(first.pi.file).toEqual(['H', 'assistant:foreign^root', 'H']);
  });

  it("departure (OpenClaw's fixed repair, as sim/real does it): after removing the leaf the model's leaf is the last entry, pi's the parent", async () => {
    const { steps } = await runDifferential(sql, realPi(), 'd7', [...flushed, { kind: 'branch', pick: 0 }, { kind: 'removeLeaf' }]);
    const last = steps.at(-1) as StepRecord;
    expect(last.model.file).toEqual(last.pi.file);
    expect(last.model.branch).toEqual(['assistant:m1']);
    expect(last.pi.branch).toEqual([]);
  });
});
