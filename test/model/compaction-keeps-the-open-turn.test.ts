// Compaction (issue 24 item 3, plan.compaction): a run whose transcript context is estimated past the limit asks the
// LLM for a summary and appends pi's `compaction` entry (summary, firstKeptEntryId, tokensBefore) before its own
// model call; the entries before firstKeptEntryId stay in the file and on the active branch, so the durable-row
// invariants read them as before. The sabotage is a kept part named by an id no JSONL entry has (`turn-id`: the
// runner's own turn id instead of the entry id): pi's buildSessionContext then keeps nothing before the compaction,
// and the prompt of the run that compacted drops out of the context; transcript-consistent catches it from the file.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findScenario } from '../../scenarios/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { parsePiTranscript } from '../../sim/checkers/durable.ts';
import { generateSpec } from '../../sim/run/generate.ts';
import { runSpec } from '../../sim/run/harness.ts';
import type { Plan } from '../../sim/run/plan.ts';
import { isCompactionPrompt, LlmTransientError, transcriptPath } from '../../src/index.ts';
import { handPlan, invariants, notes, session0, user, withFrozenPlan, withRun } from './support.ts';

const sql = await loadSqlJs();

afterEach(() => vi.restoreAllMocks());

const words = ['calendar', 'invoices', 'the build', 'flights', 'the garden', 'my inbox', 'the budget', 'dinner'];
/** Eight messages a minute apart in one session, a limit a few turns reach, keeping about one turn. */
const growing = (cut: 'turn-start' | 'turn-id' = 'turn-start'): Plan => ({
  ...handPlan(words.map((word, index) => user(5_000 + index * 60_000, `can you check ${word}?`))),
  faultPhaseMs: 540_000,
  compaction: { contextTokensMax: 90, keepRecentTokens: 20, cut },
});

function compactionEntries(sim: Simulation): { id: string; firstKeptEntryId: string; tokensBefore: number; summary: string }[] {
  const lines = (sim.disk.peek(transcriptPath(session0)) ?? '').split('\n').filter((line) => line.length > 0);
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((record) => record.type === 'compaction') as never;
}

/** A `prepare` hook: kill the runner (restarted 1 s later) `delayMs` after the first trace event `kind`. */
function killOn(kind: string, delayMs = 0): (sim: Simulation) => void {
  return (sim) => {
    let fired = false;
    sim.trace.onEvent((event) => {
      if (fired || event.kind !== kind) return;
      fired = true;
      sim.scheduler.schedule(delayMs, () => {
        if (sim.kill('runner')) sim.restart('runner', 1_000);
      });
    });
  };
}

describe('compaction', () => {
  it('appends a compaction entry that keeps the open turn, leaves every earlier entry in the file, and the run goes on', async () => {
    await withRun(sql, { bugs: [], plan: growing() }, (result) => {
      const entries = compactionEntries(result.sim);
      expect(entries.length).toBeGreaterThanOrEqual(2);
      const transcript = parsePiTranscript(result.sim.disk.peek(transcriptPath(session0)) ?? '');
      for (const entry of entries) {
        // The kept part starts at a user entry of the file; pi's estimate before it was past the limit.
        expect(transcript.entries.find((candidate) => candidate.id === entry.firstKeptEntryId)?.role).toBe('user');
        expect(entry.tokensBefore).toBeGreaterThan(90);
        expect(entry.summary).toMatch(/^Summary of \d+ earlier lines \[s[0-9a-f]+\]$/);
      }
      // Nothing was removed: every message of the run is still a user entry of the file.
      expect(transcript.entries.filter((entry) => entry.role === 'user')).toHaveLength(words.length);
      // The summary requests are the world's, apart from the turn requests (the oracle never reads them as a subject's).
      expect(result.ledger.summaries.length).toBe(entries.length);
      expect(result.ledger.requests.some((request) => isCompactionPrompt(request.prompt))).toBe(false);
      expect(notes(result, 'compaction')).toHaveLength(entries.length);
      expect(result.violations).toEqual([]);
    });
  });

  it('a kill between the summary and the append leaves no entry, and the retried attempt compacts again', async () => {
    await withRun(sql, { bugs: [], plan: growing(), prepare: killOn('model.compaction-summarised') }, (result) => {
      const started = notes(result, 'compaction-start');
      const appended = notes(result, 'compaction');
      // The first compaction was started twice (killed after its summary came back) and appended once.
      expect(started.length).toBe(appended.length + 1);
      expect(result.ledger.summaries.length).toBe(started.length);
      expect(result.violations).toEqual([]);
    });
  });

  it('a failing summary call fails the attempt, and the retry compacts and answers', async () => {
    let failed = false;
    const prepare = (_sim: Simulation, _model: unknown, world: { modelApi: { complete: (...args: never[]) => unknown } }): void => {
      const complete = world.modelApi.complete.bind(world.modelApi) as (request: { prompt: string }, timers: unknown) => Promise<unknown>;
      world.modelApi.complete = ((request: { prompt: string }, timers: unknown) => {
        if (!failed && isCompactionPrompt(request.prompt)) {
          failed = true;
          return Promise.reject(new LlmTransientError('summary failed (test)'));
        }
        return complete(request, timers);
      }) as never;
    };
    await withRun(sql, { bugs: [], plan: growing(), prepare: prepare as never }, (result) => {
      expect(notes(result, 'compaction-failed')).toHaveLength(1);
      expect(notes(result, 'compaction').length).toBeGreaterThanOrEqual(2);
      expect(result.violations).toEqual([]);
    });
  });

  it('a kept part named by an id no entry has drops the open turn out of the context: transcript-consistent', async () => {
    await withRun(sql, { bugs: [], plan: growing('turn-id') }, (result) => {
      expect(notes(result, 'compaction').length).toBeGreaterThanOrEqual(1);
      expect(invariants(result)).toEqual(['transcript-consistent']);
      expect(result.violations[0]?.message).toMatch(/keeps from "in:d\d+" \(no entry before it\), past the unanswered user entry/);
    });
  });

  it('a re-formed turn (interrupt mode, killed after its tool calls) keeps all of its open turn, both its user entries', async () => {
    // Found as gs2.compaction.none.947032595.0-4-3-3-2-2-2-2-2-6-5-5-5-6-5-8-5-9-6-6-9-5-5-8-7-5-7-6-13-5-5-5-11-5-6-6-6-12-12-14-14.0_1_0-2d820a.d09596e9
    // (campaign seed 2, run 91): m10's turn was killed after its tool entries, m11 joined it as a second user entry, and
    // the first cut kept from m11's entry, leaving m10 (unanswered, the same turn) out; the cut now stops at the turn's first.
    await withFrozenPlan(sql, 'compaction-re-formed-turn', (result) => {
      expect(notes(result, 'compaction').length).toBeGreaterThanOrEqual(1);
      expect(result.violations).toEqual([]);
    });
  });

  it('over the scenario plans, the sabotage is caught and the fixed cut passes', async () => {
    const scenario = findScenario('compaction');
    if (scenario === undefined) throw new Error('no compaction scenario');
    let caught = 0;
    let compacted = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const spec = generateSpec(scenario, [], seed, undefined);
      const compaction = spec.plan.compaction;
      if (compaction === undefined) throw new Error('a compaction plan without its limit');
      const fixed = await runSpec(spec, { sql });
      expect(fixed.violations).toEqual([]);
      compacted += fixed.sim.trace.events.filter((event) => event.kind === 'model.compaction').length > 0 ? 1 : 0;
      fixed.sim.dispose();
      const sabotaged = await runSpec({ ...spec, plan: { ...spec.plan, compaction: { ...compaction, cut: 'turn-id' } } }, { sql });
      if (sabotaged.violations.some((violation) => violation.invariant === 'transcript-consistent')) caught++;
      sabotaged.sim.dispose();
    }
    expect(compacted).toBeGreaterThanOrEqual(8);
    expect(caught).toBe(compacted);
  }, 120_000);
});
