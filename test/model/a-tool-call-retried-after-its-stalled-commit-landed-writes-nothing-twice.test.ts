// Stalled writes and the deadline that races them (issue 48 item 4). The tool server's commit of a send_message row
// stalls for seconds (sim/kernel/sqlite.ts: a slow fsync under the commit) while the runner waits 10 s for the call's
// answer (toolCallTimeoutMs). The runner gives up waiting and calls again, and the stalled commit lands all the same.
// The fixed tool server keys the row by the call id, so the retry (queued behind the stalled writer, or refused with
// "database is locked" after nanoclaw's 5 s busy timeout and retried) finds it and writes nothing: the text is shown
// once. nanoclaw's MCP handlers key it per execution (`generateId`), so the retry writes a second row for a commit that
// had landed: the user sees the text twice, and no-duplicate-visible-reply says so. Without the stall the sabotage has
// nothing to race, and the same run passes.
import { describe, expect, it } from 'vitest';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import type { Plan } from '../../sim/run/plan.ts';
import { defaultTimers, outboundPath, type ToolRowIds } from '../../src/index.ts';
import { forMessage, handPlan, invariants, notes, outboundRows, reply, type RunInput, session0, user, visible, withRun } from './support.ts';

const sql = await loadSqlJs();
const interim = 'checking the calendar now';
const closing = 'done: the calendar is clear';

/** m0's answer sends `interim` through send_message and closes with another text; the tool server's commit of it stalls `stallMs`. */
function stalledSend(stallMs: number | undefined, toolRowIds?: ToolRowIds): RunInput {
  const plan: Plan = {
    ...handPlan([user(1_000, 'is my calendar free?')]),
    writeStalls: { per1000: 0, msMin: 1, msMax: 1 },
    ...(toolRowIds === undefined ? {} : { toolRowIds }),
  };
  const script = forMessage({ 0: { toolCalls: [{ name: 'send_message', text: interim }], result: reply(closing) } });
  const prepare = (sim: Simulation): void => {
    if (stallMs !== undefined) sim.sqlite.stallNextWrite((path, process) => process === 'tool-server' && path === outboundPath(session0), stallMs);
  };
  return { bugs: [], plan, script, prepare };
}

const shown = (result: RunResult, text: string): number => visible(result).filter((message) => message.text === text).length;
const counted = (result: RunResult, row: 'write-stall' | 'write-stall-landed' | 'deadline-during-stall' | 'stall-landed-after-deadline'): number => Object.values(result.coverage[row]).reduce((sum, count) => sum + count, 0);
const stallEvents = (result: RunResult) => result.sim.trace.events.filter((event) => (event.kind === 'fault' && event.fields.kind === 'write-stall') || event.kind === 'sql.stall-end');

describe('a tool call whose commit stalls past the runner\'s timeout', () => {
  it('15 s stall, fixed (rows keyed by the call): the runner calls again, the stalled commit lands, the retry writes nothing', async () => {
    expect(defaultTimers.toolCallTimeoutMs).toBe(10_000);
    await withRun(sql, stalledSend(15_000), (result) => {
      const [stalled, ended] = stallEvents(result);
      expect(stalled?.fields).toMatchObject({ kind: 'write-stall', process: 'tool-server', ms: 15_000 });
      expect(ended?.fields).toMatchObject({ landed: true });
      const retries = notes(result, 'tool-call-retry');
      expect(retries).toHaveLength(1);
      // The deadline fired while the commit was pending, and the commit landed after it.
      expect(retries[0]?.timeMs).toBeGreaterThan(stalled?.timeMs ?? Infinity);
      expect(retries[0]?.timeMs).toBeLessThan(ended?.timeMs ?? -Infinity);
      const sent = notes(result, 'tool-sent');
      expect(sent.map((note) => note.fields.inserted)).toEqual([1, 0]);
      expect(outboundRows(result).filter((row) => row.source === 'tool')).toHaveLength(1);
      expect([shown(result, interim), shown(result, closing)]).toEqual([1, 1]);
      expect([counted(result, 'write-stall'), counted(result, 'write-stall-landed'), counted(result, 'deadline-during-stall'), counted(result, 'stall-landed-after-deadline')]).toEqual([1, 1, 1, 1]);
      expect(result.violations).toEqual([]);
    });
  });

  it('25 s stall, fixed: two timeouts, both retries wait behind the stalled commit on the tool server\'s connection; still one row', async () => {
    await withRun(sql, stalledSend(25_000), (result) => {
      expect(notes(result, 'tool-call-retry')).toHaveLength(2);
      expect(notes(result, 'tool-sent').map((note) => note.fields.inserted)).toEqual([1, 0, 0]);
      expect(outboundRows(result).filter((row) => row.source === 'tool')).toHaveLength(1);
      expect(shown(result, interim)).toBe(1);
      expect([counted(result, 'deadline-during-stall'), counted(result, 'stall-landed-after-deadline')]).toEqual([2, 1]);
      expect(result.violations).toEqual([]);
    });
  });

  it('15 s stall, per-execution ids (nanoclaw\'s generateId, the sabotage): the retry writes a second row and the text is shown twice', async () => {
    await withRun(sql, stalledSend(15_000, 'per-execution'), (result) => {
      expect(notes(result, 'tool-call-retry')).toHaveLength(1);
      expect(outboundRows(result).filter((row) => row.source === 'tool')).toHaveLength(2);
      expect(shown(result, interim)).toBe(2);
      expect(invariants(result)).toContain('no-duplicate-visible-reply');
    });
  });

  it('no stall, per-execution ids: nothing races, one row, and the run passes', async () => {
    await withRun(sql, stalledSend(undefined, 'per-execution'), (result) => {
      expect(stallEvents(result)).toEqual([]);
      expect(notes(result, 'tool-call-retry')).toEqual([]);
      expect(shown(result, interim)).toBe(1);
      expect(result.violations).toEqual([]);
    });
  });
});
