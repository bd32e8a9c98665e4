// runSpec with `sessionManager: 'pi'`: the runner opens its transcripts through the real pi SessionManager
// (sim/real), so the whole model runs on pi's own code for the JSONL. The run is deterministic, seed 003's bug is
// still caught, and the fixed model's verdict under pi shows the crash/writeback caveat of docs/MODEL.md: pi never
// fsyncs, the simulated disk writes a page back only when a writeback is drawn, and the checkers judge what is durable.
import { describe, expect, it } from 'vitest';
import { findScenario } from '../../scenarios/index.ts';
import { simEpochMs } from '../../src/pi-format.ts';
import { parseTranscript, transcriptPath } from '../../src/index.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runSpec } from '../../sim/run/harness.ts';
import { sessionKey } from '../../sim/run/plan.ts';
import { piMissing, sql } from './support.ts';

const scenario = findScenario('orphan-leaf');
if (scenario === undefined) throw new Error('no orphan-leaf scenario');
const path = transcriptPath(sessionKey(0));

function linesOf(text: string | undefined): Record<string, unknown>[] {
  return (text ?? '').split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line) as Record<string, unknown>);
}

function texts(text: string | undefined): string[] {
  return parseTranscript(text ?? '').entries.map((entry) => entry.message.content);
}

describe.skipIf(piMissing)("runSpec with sessionManager 'pi'", () => {
  it('runs the real module: pi writes the transcript, never fsyncs, and the fixed model passes with it', async () => {
    const spec = generateSpec(scenario, [], 1, undefined);
    const result = await runSpec(spec, { sql, sessionManager: 'pi' });
    const [header, user] = linesOf(result.sim.disk.peek(path));
    // pi's header id is its uuid v7: the first 48 bits are its (simulated) clock at creation, which the model's is not.
    const createdMs = Date.parse(String(header?.timestamp));
    expect(String(header?.id).replace(/-/g, '').slice(0, 12)).toBe(createdMs.toString(16).padStart(12, '0'));
    expect(createdMs).toBeGreaterThanOrEqual(simEpochMs);
    // pi builds each entry itself, so the model's turn id rides inside the message (sim/real/pi-session-manager.ts).
    expect(user).not.toHaveProperty('turnId');
    expect(user).toMatchObject({ type: 'message', message: { role: 'user', turnId: 'in:d0' } });
    // pi never fsyncs its file: what is durable at the end is what the kernel's periodic writeback wrote (runner
    // kills keep the page cache), so the second exchange is there. The only fsyncs of the file are the fixed
    // runner's own, when an attempt opens it (after its turn started and before anything is appended), never one
    // after pi's appends.
    const marks = result.sim.trace.events.filter((event) => (event.kind === 'model.turn-start' && event.fields.session === sessionKey(0)) || (event.fields.path === path && (event.kind === 'disk.append' || (event.kind === 'disk.sync' && event.fields.reason === 'fsync'))));
    const syncs = marks.flatMap((event, index) => (event.kind === 'disk.sync' ? [marks[index - 1]?.kind] : []));
    expect(syncs.length).toBeGreaterThan(0);
    expect(syncs.every((before) => before === 'model.turn-start')).toBe(true);
    expect(texts(result.sim.disk.peekSynced(path)).some((text) => text.includes('[m1]'))).toBe(true);
    expect(result.violations).toEqual([]);
    expect(result.verdict).toBe('pass');
    result.sim.dispose();
    const model = await runSpec(spec, { sql });
    expect(model.verdict).toBe('pass');
    expect(model.traceHash).not.toBe(result.traceHash);
    model.sim.dispose();
  });

  it('gives the same trace hash for the same spec twice', async () => {
    const spec = generateSpec(scenario, [], 2, undefined);
    const first = await runSpec(spec, { sql, sessionManager: 'pi' });
    first.sim.dispose();
    const second = await runSpec(spec, { sql, sessionManager: 'pi' });
    second.sim.dispose();
    expect(second.traceHash).toBe(first.traceHash);
    expect(second.violations).toEqual(first.violations);
  });

  it("catches seed 003's bug (orphan-leaf) by its own invariant within 200 runs, where the fixed model does not break it", { timeout: 600_000 }, async () => {
    let found: number | undefined;
    for (let seed = 1; seed <= 200 && found === undefined; seed++) {
      const result = await runSpec(generateSpec(scenario, ['orphan-leaf'], seed, undefined), { sql, sessionManager: 'pi' });
      result.sim.dispose();
      if (result.violations.some((violation) => violation.invariant === 'transcript-consistent')) found = seed;
    }
    expect(found).toBeDefined();
    const fixed = await runSpec(generateSpec(scenario, [], found ?? 0, undefined), { sql, sessionManager: 'pi' });
    fixed.sim.dispose();
    expect(fixed.violations.map((violation) => violation.invariant)).not.toContain('transcript-consistent');
  });
});
