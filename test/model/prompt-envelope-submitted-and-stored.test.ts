// The submitted prompt and the stored one (issue 24 item 4, src/envelope.ts). With `submit-then-rewrite` (OpenClaw
// 2026.4.24) the LLM is asked the prompt with the message's metadata envelope in front, the JSONL user entry is written
// as submitted and replaced by the plain prompt only when the model call returns (branch from its parent, append the
// plain entry: the enveloped one stays in the file off the branch); a failed call or a kill leaves it, and the next
// attempt meets it. With `transform` (2026.7.1) only the request carries the envelope. The checkers know a superseded
// submission from the file alone (sim/checkers/envelope.ts); the sabotage `rewrite-drops-entry` loses the entry and is
// caught, and so is 2026.4.24's own replacement text (`rewrite-own-body`: the run's body without the orphan it merged).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import { runSpec } from '../../sim/run/harness.ts';
import type { Plan, RunSpec } from '../../sim/run/plan.ts';
import type { PromptEnvelopeMode } from '../../src/index.ts';
import { failFirstRequestFor, handPlan, invariants, llmPrompts, marker, notes, stateRows, transcript, user, visible, withFrozenPlan, withRun } from './support.ts';

const sql = await loadSqlJs();

afterEach(() => vi.restoreAllMocks());

const twoMessages = (promptEnvelope: PromptEnvelopeMode): Plan => ({ ...handPlan([user(1_000, 'what is on my calendar?'), user(30_000, 'and tomorrow?')]), promptEnvelope });
const envelopeStart = 'Conversation info (untrusted metadata):\n```json\n';
const total = (row: Record<string, number> | undefined): number => Object.values(row ?? {}).reduce((sum, count) => sum + count, 0);

/** A `prepare` hook: kill the runner (restarted after 1 s) `delayMs` after the `nth` trace event `kind` (from 1). */
function killRunnerOn(kind: string, nth: number, delayMs: number): (sim: Simulation) => void {
  return (sim) => {
    let seen = 0;
    sim.trace.onEvent((event) => {
      if (event.kind !== kind || ++seen !== nth) return;
      sim.scheduler.schedule(delayMs, () => {
        if (sim.kill('runner')) sim.restart('runner', 1_000);
      });
    });
  };
}

describe('the submitted prompt and the stored one', () => {
  it('submits the enveloped prompt, stores it, and rewrites the entry to the plain prompt when the call returns', async () => {
    await withRun(sql, { bugs: [], plan: twoMessages('submit-then-rewrite') }, (result) => {
      const prompts = llmPrompts(result);
      expect(prompts).toHaveLength(2);
      for (const prompt of prompts) expect(prompt.startsWith(envelopeStart)).toBe(true);
      expect(prompts[0]).toContain('"message_id": "in:d0"');
      expect(prompts[0]?.endsWith(`what is on my calendar? ${marker(0)}`)).toBe(true);
      const entries = transcript(result);
      const users = entries.filter((entry) => entry.message.role === 'user');
      // Each message: the enveloped submission (off the branch) and its plain replacement (on it).
      expect(users.map((entry) => entry.message.content.startsWith(envelopeStart))).toEqual([true, false, true, false]);
      expect(notes(result, 'prompt-rewritten')).toHaveLength(2);
      expect(stateRows(result).filter((row) => row.role === 'user').every((row) => !row.content.includes('untrusted metadata'))).toBe(true);
      expect(visible(result)).toHaveLength(2);
      expect(total(result.coverage['envelope-rewritten'])).toBe(2);
      expect(result.violations).toEqual([]);
    });
  });

  it('with the 2026.7.1 transform, asks the enveloped prompt and stores only the plain one', async () => {
    await withRun(sql, { bugs: [], plan: twoMessages('transform') }, (result) => {
      for (const prompt of llmPrompts(result)) expect(prompt.startsWith(envelopeStart)).toBe(true);
      expect(transcript(result).every((entry) => !entry.message.content.includes('untrusted metadata'))).toBe(true);
      expect(notes(result, 'prompt-rewritten')).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });

  it('leaves the enveloped entry when the call fails, and the retry meets it, submits the same envelope and answers once', async () => {
    await withRun(sql, { bugs: [], plan: twoMessages('submit-then-rewrite'), prepare: failFirstRequestFor(1) }, (result) => {
      // The failed request never reached the API's ledger; the retry asked once, enveloped as the first attempt was.
      const prompts = llmPrompts(result).filter((prompt) => prompt.includes(marker(1)));
      expect(prompts).toHaveLength(1);
      expect(prompts[0]?.startsWith(envelopeStart)).toBe(true);
      expect(notes(result, 'envelope-met').map((note) => note.fields.own)).toEqual([true]);
      expect(total(result.coverage['envelope-met'])).toBe(1);
      expect(visible(result)).toHaveLength(2);
      expect(result.violations).toEqual([]);
    });
  });

  it('leaves the enveloped entry on disk when the runner is killed before the rewrite; the re-formed turn meets it and answers once', async () => {
    // The second message's call: the file is flushed by then, so its enveloped entry is durable when the kill lands.
    await withRun(sql, { bugs: [], plan: twoMessages('submit-then-rewrite'), prepare: killRunnerOn('model.model-call', 2, 5) }, (result) => {
      expect(total(result.coverage['envelope-kill'])).toBe(1);
      expect(notes(result, 'envelope-met').map((note) => note.fields.own)).toEqual([true]);
      expect(visible(result)).toHaveLength(2);
      expect(result.violations).toEqual([]);
    });
  });

  it('catches a rewrite that drops the entry (the sabotage rewrite-drops-entry)', async () => {
    await withRun(sql, { bugs: [], plan: twoMessages('rewrite-drops-entry') }, (result) => {
      expect(transcript(result).filter((entry) => entry.message.role === 'user').every((entry) => entry.message.content.startsWith(envelopeStart))).toBe(true);
      expect(invariants(result)).toEqual(expect.arrayContaining(['no-lost-user-message', 'transcript-consistent']));
    });
  });

  it("catches 2026.4.24's replacement text, which drops the orphan the run merged (frozen prompt-envelope seed 79)", async () => {
    // Turn in:d1 (m1, with context m3) stored its enveloped prompt and was still waiting for the LLM when the runner
    // was replaced; turn in:d0 (m0, m2) met the entry, merged in:d1 into its prompt and took the orphan off the branch.
    // The fixed rewrite stores the whole plain prompt; the release's transcriptPrompt is the run's own body.
    const file = fileURLToPath(new URL('../fixtures/plans/prompt-envelope-merged-orphan.json', import.meta.url));
    const { spec } = JSON.parse(readFileSync(file, 'utf8')) as { spec: RunSpec };
    for (const mode of ['submit-then-rewrite', 'rewrite-own-body'] as const) {
      const result = await runSpec({ ...spec, plan: { ...spec.plan, promptEnvelope: mode } }, { sql });
      try {
        expect(notes(result, 'merge').map((note) => note.fields.merged)).toEqual(['in:d1']);
        expect(notes(result, 'envelope-met').map((note) => note.fields.own)).toEqual([false]);
        if (mode === 'submit-then-rewrite') expect(result.violations).toEqual([]);
        else {
          expect(invariants(result)).toEqual(['no-double-ingestion', 'no-lost-user-message', 'transcript-consistent']);
          expect(result.violations.map((violation) => violation.message)).toContain('agent:main:chat:0: message [m1] (delivery d1) was accepted but never reached the JSONL active branch');
        }
      } finally {
        result.sim.dispose();
      }
    }
  });

  it('a rewrite a power loss cut short, a mirror appended after it, and the resumed run appending the rest: the check in between finds the old entries a superseded submission (frozen fuzz --all seed 202 run 1451)', async () => {
    // Runner 1 stored in:d2's enveloped prompt and its entries, and had written the plain prompt and the tool call again
    // when the power went; the gateway mirrored the delivered tool message after them; the run resumed a minute later
    // and appended the tool result and the closing text. A turn of the other session completed in between.
    await withFrozenPlan(sql, 'envelope-rewrite-cut-then-mirror', (result) => {
      expect(notes(result, 'prompt-enveloped').length).toBeGreaterThan(0);
      expect(notes(result, 'mirror-appended').length).toBeGreaterThan(0);
      expect(result.violations).toEqual([]);
    });
  });
});
