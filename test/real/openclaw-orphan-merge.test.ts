// The orphaned-user merge policy of each pinned OpenClaw release (`mergeOrphanedTrailingUserPrompt`, read in
// 2026.4.24 dist/attempt.prompt-helpers-BGzsB6M9.js and 2026.7.1 dist/attempt.prompt-helpers-Bx-dobiv.js, region
// src/agents/{pi-embedded-runner,embedded-agent-runner}/run/attempt.prompt-helpers.ts) against the model's
// (src/turn.ts modelOrphanMerge), on the same generated questions (a run's prompt, its trigger, an unanswered user
// message's text), through the adapter a run uses (sim/real/openclaw/orphan-merge.ts, bound to a simulated runner
// incarnation). The two agree on the model's domain (a user- or manually-triggered run, a text of at least 4
// characters with no surrounding whitespace and no carriage return, a prompt that carries it as whole lines or not at
// all); every disagreement outside it is one of the release's differences docs/MODEL.md names ("The orphan merge
// policy, real"), which the test states as its own reading of the release and checks on every question:
// - no trigger check: a heartbeat or cron run merges too (the reference notes' "only for user or manual triggers" is not in
//   either release, at the function or its call site in the run attempt, dist/selection-*.js: the trigger only picks
//   the log level);
// - no 4-character minimum: any non-empty trimmed text merges; an empty one is removed without a merge (`carried`);
// - the text is trimmed before it is merged (extractUserMessagePromptText), where the model merges it as it is;
// - "already carried" is the queued block at the start or on a line of its own, or the text as whole lines of the
//   prompt (promptAlreadyIncludesQueuedUserMessage, CRLF read as LF), where the model takes any substring.
// The SQLite-era releases (2026.8.1 dist/attempt-prompt-helpers-BlTUKLwp.js, 2026.9.6
// dist/context-engine-maintenance-VqmqPz8h.mjs, region .../run/attempt-prompt-helpers.ts) follow the same rule with a new
// marker (sqliteEraMarker below), so they agree with the model on its domain up to the marker of a merged prompt (the
// model merges through its own, withFolded); they also drop a leaf of inter-session provenance (none in gatesim's
// questions), and 2026.9.6 answers `removeLeaf: false` for a merged or carried leaf, which its call site removes all the
// same in a run that does not preserve it (sim/real/openclaw/orphan-merge.ts leafRemoved). Their blocks run under Node 24
// (test/real/openclaw-node24.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OrphanMergeDecision, OrphanMergePolicy, OrphanMergeQuestion, RunTrigger } from '../../src/index.ts';
import { modelOrphanMerge, queuedPrefix } from '../../src/turn.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { openclawGatewayPartsFor } from '../../sim/real/openclaw/gateway-parts.ts';
import { OpenclawInstance, type OpenclawRelease, openclawReleases, openclawSqliteEraReleases } from '../../sim/real/openclaw/index.ts';
import { leafRemoved, realOrphanMergeFunction } from '../../sim/real/openclaw/orphan-merge.ts';
import { openclawIncarnationBinding, simulatedDiskFs } from '../../sim/real/openclaw/binding.ts';
import { openclawHome } from '../../sim/real/openclaw/home.ts';
import type { Random } from '../../src/ports.ts';
import { node24Here, rerunUnderNode24, sqliteEraMissing, underNode24 } from './openclaw-node24.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('real OpenClaw orphan-merge tests');
const sqliteMissing = sqliteEraMissing();

/** The marker the SQLite-era releases put before a merged orphan (QUEUED_USER_MESSAGE_MARKER from 2026.8.1 on). */
const sqliteEraMarker = '[Queued user message from a previous active turn; preserved as context only. Continue with the active prompt below.]';

/** The release's policy as a run gets it: the adapter of a simulated runner incarnation, and what escaped. */
async function realPolicy(release: OpenclawRelease): Promise<{ policy: OrphanMergePolicy; escapes: string[] }> {
  const sim = new Simulation({ seed: `openclaw-orphan-merge-${release}`, sql: await loadSqlJs() });
  const parts = openclawGatewayPartsFor(sim, { release, parts: ['orphan-merge'] });
  let policy: OrphanMergePolicy | undefined;
  sim.spawn('runner', (ctx) => {
    policy = parts.orphanMerge?.(ctx);
    // The first question loads the release's chunks in the incarnation's instance.
    policy?.decide({ prompt: 'warm up', trigger: 'user', orphanText: 'load' });
    return Promise.resolve();
  });
  await sim.run();
  if (policy === undefined) throw new Error(`openclaw ${release} gave no orphan-merge policy`);
  return { policy, escapes: parts.escapes };
}

/** The release's rule as docs/MODEL.md states it (read in the releases' chunks; the header lists it), with its marker. */
function releaseRule(question: OrphanMergeQuestion, marker = queuedPrefix): OrphanMergeDecision {
  const text = question.orphanText.trim();
  if (text === '') return { take: 'carried', prompt: question.prompt };
  const prompt = question.prompt.replace(/\r\n/g, '\n');
  const normalized = text.replace(/\r\n/g, '\n').trim();
  const block = `${marker}\n${normalized}`;
  const carried = prompt === block || prompt.startsWith(`${block}\n`) || prompt.includes(`\n${block}\n`) || `\n${prompt}\n`.includes(`\n${normalized}\n`);
  if (carried) return { take: 'carried', prompt: question.prompt };
  return { take: 'merge', prompt: `${marker}\n${text}\n\n${question.prompt}` };
}

/** The model's decision with its merged prompt under another marker (the SQLite-era releases'). */
function underMarker(decision: OrphanMergeDecision, marker: string): OrphanMergeDecision {
  return decision.take === 'merge' ? { ...decision, prompt: `${marker}${decision.prompt.slice(queuedPrefix.length)}` } : decision;
}

/** Whether a question lies in the model's domain, where the two must agree. */
function inModelDomain(question: OrphanMergeQuestion): boolean {
  const { prompt, trigger, orphanText } = question;
  if (trigger !== 'user' && trigger !== 'manual') return false;
  if (orphanText !== orphanText.trim() || orphanText.length < 4 || orphanText.includes('\r') || prompt.includes('\r')) return false;
  return !prompt.includes(orphanText) || `\n${prompt}\n`.includes(`\n${orphanText}\n`);
}

const pieces = ['hello [m0]', 'second message [m1]', 'ok', 'abc', 'abcd', ' hi ', '  padded text [m2]  ', 'line one\nline two', 'x\r\ny', '', '   ', queuedPrefix, '[m0]', 'hello'];
const triggers: RunTrigger[] = ['user', 'manual', 'heartbeat', 'cron'];
const textArb = fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 8 }));
const promptArb = fc.array(fc.tuple(textArb, fc.constantFrom('\n', ' ', '', '\n\n', '\r\n')), { minLength: 1, maxLength: 5 }).map((parts) => parts.map(([text, glue]) => `${text}${glue}`).join('').replace(/[\n ]+$/, ''));
const questionArb: fc.Arbitrary<OrphanMergeQuestion> = fc.oneof(
  fc.record({ prompt: promptArb, trigger: fc.constantFrom(...triggers), orphanText: textArb }),
  // The orphan's text as a line of the prompt, or inside one, or as the queued block an earlier merge made.
  fc.record({ prompt: promptArb, trigger: fc.constantFrom(...triggers), orphanText: textArb }).chain((question) =>
    fc.constantFrom(
      { ...question, prompt: `${question.prompt}\n${question.orphanText}` },
      { ...question, prompt: `${question.prompt} ${question.orphanText}!` },
      { ...question, prompt: `${queuedPrefix}\n${question.orphanText}\n\n${question.prompt}` },
    ),
  ),
);

/**
 * The generated differential of one release: 600 questions, each answered by the release's own rule (with its queued
 * marker); on the model's domain the same as the model (its merged prompt under the release's marker), and both kinds
 * of question generated.
 */
async function generatedDifferential(release: OpenclawRelease, marker: string): Promise<void> {
  const { policy, escapes } = await realPolicy(release);
  let agreed = 0;
  let parted = 0;
  fc.assert(
    fc.property(questionArb, (question) => {
      const real = policy.decide(question);
      expect(real).toEqual(releaseRule(question, marker));
      const model = underMarker(modelOrphanMerge.decide(question), marker);
      if (inModelDomain(question)) {
        expect(real).toEqual(model);
        agreed++;
      } else if (JSON.stringify(real) !== JSON.stringify(model)) parted++;
    }),
    { numRuns: 600 },
  );
  expect(escapes).toEqual([]);
  expect(agreed).toBeGreaterThan(20);
  expect(parted).toBeGreaterThan(20);
}

describe.skipIf(missing)('the real orphan-merge policy against the model', () => {
  for (const release of openclawReleases) {
    // Loading 2026.7.1's closure takes most of it: 87-93 s on a loaded 2-core machine, past the 60 s default.
    it(`${release}: agrees with the model on the model's domain, and answers by the release's own rule everywhere`, () => generatedDifferential(release, queuedPrefix), 180_000);
  }

  it('each named difference, by example (both releases alike)', async () => {
    for (const release of openclawReleases) {
      const { policy } = await realPolicy(release);
      const ask = (question: OrphanMergeQuestion) => ({ real: policy.decide(question).take, model: modelOrphanMerge.decide(question).take });
      // The trigger: a heartbeat or cron run merges in the release, never in the model.
      expect(ask({ prompt: 'heartbeat poll', trigger: 'heartbeat', orphanText: 'hello [m0]' })).toEqual({ real: 'merge', model: 'left' });
      expect(ask({ prompt: 'daily digest', trigger: 'cron', orphanText: 'hello [m0]' })).toEqual({ real: 'merge', model: 'left' });
      // The 4-character minimum: 'ok' merges in the release; an empty text is removed (carried) there, left here.
      expect(ask({ prompt: 'next', trigger: 'user', orphanText: 'ok' })).toEqual({ real: 'merge', model: 'left' });
      expect(ask({ prompt: 'next', trigger: 'user', orphanText: '   ' })).toEqual({ real: 'carried', model: 'left' });
      // Trimming: the release merges the trimmed text.
      expect(policy.decide({ prompt: 'next', trigger: 'user', orphanText: '  padded text  ' }).prompt).toBe(`${queuedPrefix}\npadded text\n\nnext`);
      expect(modelOrphanMerge.decide({ prompt: 'next', trigger: 'user', orphanText: '  padded text  ' }).prompt).toBe(`${queuedPrefix}\n  padded text  \n\nnext`);
      // Carried: the release wants whole lines; a substring of a line is merged again.
      expect(ask({ prompt: 'I said hello [m0]!', trigger: 'user', orphanText: 'hello [m0]' })).toEqual({ real: 'merge', model: 'carried' });
      expect(ask({ prompt: 'first\nhello [m0]\nlast', trigger: 'user', orphanText: 'hello [m0]' })).toEqual({ real: 'carried', model: 'carried' });
      // The release's function never keeps the leaf: the adapter never answers `left`.
      expect(ask({ prompt: 'the same text', trigger: 'user', orphanText: 'the same text' })).toEqual({ real: 'carried', model: 'carried' });
    }
  });
});

describe.skipIf(missing || sqliteMissing || !node24Here)(`${underNode24} the SQLite-era releases' orphan-merge policy against the model`, () => {
  for (const release of openclawSqliteEraReleases) {
    it(`${release}: agrees with the model on the model's domain (up to its new marker), and answers by the release's own rule everywhere`, () => generatedDifferential(release, sqliteEraMarker), 300_000);
  }

  it('the new marker, the same differences from the model, and 2026.9.6 keeps a merged or carried leaf unless its call site removes it', async () => {
    for (const release of openclawSqliteEraReleases) {
      const { policy } = await realPolicy(release);
      const ask = (question: OrphanMergeQuestion) => ({ real: policy.decide(question).take, model: modelOrphanMerge.decide(question).take });
      expect(policy.decide({ prompt: 'next', trigger: 'user', orphanText: '  padded text  ' }).prompt).toBe(`${sqliteEraMarker}\npadded text\n\nnext`);
      expect(ask({ prompt: 'heartbeat poll', trigger: 'heartbeat', orphanText: 'hello [m0]' })).toEqual({ real: 'merge', model: 'left' });
      expect(ask({ prompt: 'next', trigger: 'user', orphanText: 'ok' })).toEqual({ real: 'merge', model: 'left' });
      expect(ask({ prompt: 'next', trigger: 'user', orphanText: '   ' })).toEqual({ real: 'carried', model: 'left' });
      expect(ask({ prompt: 'I said hello [m0]!', trigger: 'user', orphanText: 'hello [m0]' })).toEqual({ real: 'merge', model: 'carried' });
      // A block under the older marker (the model's, in a prompt it merged) is still carried: its text is a whole line.
      expect(ask({ prompt: `${queuedPrefix}\nhello [m0]\n\nnext`, trigger: 'user', orphanText: 'hello [m0]' })).toEqual({ real: 'carried', model: 'carried' });
    }
    /** The release's own function in an instance of a simulated runner incarnation (no adapter around it). */
    const raw = async (release: OpenclawRelease) => {
      const sim = new Simulation({ seed: `openclaw-orphan-merge-raw-${release}`, sql: await loadSqlJs() });
      let found: { merge: ReturnType<typeof realOrphanMergeFunction>; binding: { escapes: string[] } } | undefined;
      sim.spawn('runner', (ctx) => {
        const owner = sim.processes.incarnation(ctx.incarnation);
        if (owner === undefined) throw new Error(`no incarnation ${ctx.incarnation}`);
        const binding = openclawIncarnationBinding(release, owner, { clock: ctx.clock, timers: ctx.timers, random: sim.prng.fork('raw') as Random }, { fs: simulatedDiskFs(sim.disk, owner, openclawHome()) });
        found = { merge: realOrphanMergeFunction(new OpenclawInstance(release, binding)), binding };
        return Promise.resolve();
      });
      await sim.run();
      if (found === undefined) throw new Error(`openclaw ${release}: no function`);
      return found;
    };
    const newest = await raw('2026.9.6');
    const leaf = (content: unknown) => ({ role: 'user' as const, content });
    const merged = newest.merge({ prompt: 'next', trigger: 'user', leafMessage: leaf('hello [m0]') });
    expect(merged).toEqual({ prompt: `${sqliteEraMarker}\nhello [m0]\n\nnext`, merged: true, removeLeaf: false });
    expect(newest.merge({ prompt: 'hello [m0]', trigger: 'user', leafMessage: leaf('hello [m0]') })).toEqual({ prompt: 'hello [m0]', merged: false, removeLeaf: false });
    expect(newest.merge({ prompt: 'next', trigger: 'user', leafMessage: leaf('  ') })).toEqual({ prompt: 'next', merged: false, removeLeaf: true });
    // Its call site: `merge.removeLeaf || !preserveLeaf`; gatesim's runs preserve no leaf.
    expect(leafRemoved(merged)).toBe(true);
    expect(leafRemoved(merged, true)).toBe(false);
    // A leaf of inter-session provenance (a subagent's announcement) is dropped without a merge.
    const interSession = { ...leaf('status from another session'), provenance: { kind: 'inter_session', sourceTool: 'subagent_announce' } };
    const dropped = newest.merge({ prompt: 'next', trigger: 'user', leafMessage: interSession as never });
    const older = (await raw('2026.8.1')).merge({ prompt: 'next', trigger: 'user', leafMessage: leaf('hello [m0]') });
    expect(older).toEqual({ prompt: `${sqliteEraMarker}\nhello [m0]\n\nnext`, merged: true, removeLeaf: true });
    expect(dropped.merged).toBe(false);
    expect(newest.binding.escapes).toEqual([]);
  }, 300_000);
});

describe.skipIf(missing || sqliteMissing || node24Here)('the SQLite-era releases on this Node', () => {
  it("run their orphan-merge blocks again under the workspace's Node 24", () => rerunUnderNode24(import.meta.url, 600_000), 660_000);
});
