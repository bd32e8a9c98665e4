// A send_message call the runner gave up on (30 tries unanswered) is fenced off (src/tool-fence.ts): the runner records
// the give-up in the session's outbound database before its turn goes on, and the tool server, which checks the record
// in the transaction that would write the call's outbound row, never carries the call out afterwards. Without it a
// call queued at a tool server that was slow to start was carried out after the turn had shown its closing text,
// which repeats the call's payload: the user saw the text twice (chaos campaign seed 1001). The model before the fix
// stays reachable as the `unfenced` sabotage (Plan.abandonedCalls), and each shape below catches it.
import { describe, expect, it } from 'vitest';
import type { BuiltModel } from '../../src/index.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import type { Plan } from '../../sim/run/plan.ts';
import { forMessage, handPlan, invariants, notes, outboundRows, reply, type RunInput, user, visible, withFrozenPlan, withRun } from './support.ts';

const sql = await loadSqlJs();
const interim = 'working on it';

const sabotaged = (plan: Plan): Plan => ({ ...plan, abandonedCalls: 'unfenced' });
const shownTexts = (result: RunResult): string[] => visible(result).map((message) => message.text);

// Found as gs2.chaos.none.1235807806.0-4-0-0-0-1-1-1-1-4-6-4-4-7-5-5-4-4-7-7-9-4-14-4-4-4-9-4-9-6-5-10-10-10-7-7-7-7-7-4-3-6-7-7-3-7-5-7.0_1_0-75a0f6.1c79151f
// (fuzz --scenario chaos, fixed model): a power loss at 5 s killed the tool server; it came back at 226 s with a
// 121 s start-up. The answer to m0 called send_message("working on it") and closed with the same text; the runner
// gave up on the call at 307.6 s and showed the closing text; at 347.1 s the tool server carried out the 8 tries
// queued in its mailbox, and the user saw "working on it" again.
const frozen = 'abandoned-send-after-slow-start';

describe('a send_message call queued at a slow tool server after its runner gave up (the campaign run, frozen)', () => {
  it('is fenced off: every queued try is refused, and the text is shown once', async () => {
    await withFrozenPlan(sql, frozen, (result) => {
      const abandoned = notes(result, 'tool-call-abandoned');
      expect(abandoned).toHaveLength(1);
      const fenced = notes(result, 'tool-fenced');
      expect(fenced.length).toBeGreaterThan(0);
      expect(fenced.every((note) => note.fields.call === abandoned[0]?.fields.call && note.timeMs > (abandoned[0]?.timeMs ?? Infinity))).toBe(true);
      expect(notes(result, 'tool-sent')).toEqual([]);
      expect(shownTexts(result).filter((text) => text === interim)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('unfenced (the sabotage): the stale call acts after the closing text, and the repeat is caught', async () => {
    await withFrozenPlan(
      sql,
      frozen,
      (result) => {
        expect(notes(result, 'tool-fenced')).toEqual([]);
        expect(shownTexts(result).filter((text) => text === interim)).toHaveLength(2);
        expect(invariants(result)).toContain('no-duplicate-visible-reply');
      },
      sabotaged,
    );
  });
});

/**
 * The campaign's shape, scripted: the tool server is killed at 0.5 s and started again 0.5 s later with a start-up
 * that ends at `readyMs`. m0's answer calls send_message with the interim text and closes with it; the call waits in
 * the starting server's mailbox while the runner retries it every 10 s, 30 times. `killAfter`: the runner is killed
 * at the first such trace event after it recorded the give-up (`model.tool-call-abandoned`: before its turn flushed
 * the failed tool result; `model.flush`: after), and restarted 1 s later, so its successor resumes the turn.
 */
function slowToolServer(readyMs: number, killAfter?: 'model.tool-call-abandoned' | 'model.flush'): RunInput {
  // The fault phase lasts past the tool server's start-up (and the runner's kill, a fault).
  const plan: Plan = { ...handPlan([user(1_000, 'what are you doing?')], [{ kind: 'kill', atMs: 500, process: 'tool-server', restartAfterMs: 500 }]), faultPhaseMs: 450_000 };
  const script = forMessage({ 0: { toolCalls: [{ name: 'send_message', text: interim }], result: reply(interim) } });
  const prepare = (sim: Simulation, _model: BuiltModel): void => {
    sim.processes.startupDelay = (name) => (name === 'tool-server' ? readyMs - 1_000 : 0);
    if (killAfter === undefined) return;
    let gaveUp = false;
    let killed = false;
    sim.trace.onEvent((traced) => {
      if (traced.kind === 'model.tool-call-abandoned') gaveUp = true;
      if (killed || !gaveUp || traced.kind !== killAfter) return;
      killed = true;
      sim.scheduler.schedule(0, () => {
        sim.kill('runner');
        sim.restart('runner', 1_000);
      });
    });
  };
  return { bugs: [], plan, script, prepare };
}

const sabotage = (input: RunInput): RunInput => ({ ...input, plan: sabotaged(input.plan) });

describe('a send_message call whose tool server is ready only after the runner gave up (400 s)', () => {
  it('is fenced off: the closing text is shown once and the call writes no outbound row', async () => {
    await withRun(sql, slowToolServer(400_000), (result) => {
      expect(notes(result, 'tool-call-retry')).toHaveLength(30);
      expect(notes(result, 'tool-call-abandoned')).toHaveLength(1);
      expect(notes(result, 'tool-fenced').length).toBeGreaterThan(0);
      expect(outboundRows(result).filter((row) => row.source === 'tool')).toEqual([]);
      expect(shownTexts(result).filter((text) => text === interim)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('killed before the failed result was flushed: the successor calls again and stops at the fenced answer', async () => {
    await withRun(sql, slowToolServer(400_000, 'model.tool-call-abandoned'), (result) => {
      expect(notes(result, 'runner-ready')).toHaveLength(2);
      expect(notes(result, 'tool-call-abandoned').length).toBeGreaterThanOrEqual(1);
      // The successor retries until the server is ready (400 s), and its first answered try is the fenced one.
      const fenced = notes(result, 'tool-fenced');
      expect(fenced.length).toBeGreaterThan(0);
      const firstFencedMs = Math.min(...fenced.map((note) => note.timeMs));
      expect(notes(result, 'tool-call-retry').filter((note) => note.timeMs >= firstFencedMs)).toEqual([]);
      expect(shownTexts(result).filter((text) => text === interim)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('killed after the failed result was flushed: the successor does not call it again', async () => {
    await withRun(sql, slowToolServer(400_000, 'model.flush'), (result) => {
      expect(notes(result, 'runner-ready')).toHaveLength(2);
      expect(notes(result, 'tool-call-abandoned')).toHaveLength(1);
      expect(notes(result, 'tool-call-retry')).toHaveLength(30);
      const restartMs = notes(result, 'runner-ready')[1]?.timeMs ?? Infinity;
      expect(notes(result, 'tool-call').filter((note) => note.timeMs > restartMs)).toHaveLength(1);
      expect(shownTexts(result).filter((text) => text === interim)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('unfenced (the sabotage): the call acts when the server is ready, after the closing text was shown, caught', async () => {
    await withRun(sql, sabotage(slowToolServer(400_000)), (result) => {
      expect(notes(result, 'tool-call-abandoned')).toEqual([]);
      expect(shownTexts(result).filter((text) => text === interim)).toHaveLength(2);
      expect(invariants(result)).toEqual(['no-duplicate-visible-reply']);
    });
  });
});

describe('a send_message call whose tool server is ready before the runner gives up (200 s)', () => {
  it('acts once, and the closing text that repeats it is suppressed', async () => {
    await withRun(sql, slowToolServer(200_000), (result) => {
      expect(notes(result, 'tool-call-abandoned')).toEqual([]);
      expect(notes(result, 'tool-fenced')).toEqual([]);
      expect(shownTexts(result).filter((text) => text === interim)).toHaveLength(1);
      expect(result.violations).toEqual([]);
    });
  });
});
