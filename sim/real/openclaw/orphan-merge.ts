// The orphaned-user merge policy of a pinned OpenClaw release (`mergeOrphanedTrailingUserPrompt`, region
// src/agents/pi-embedded-runner/run/attempt.prompt-helpers.ts in 2026.4.24, dist/attempt.prompt-helpers-BGzsB6M9.js;
// src/agents/embedded-agent-runner/run/attempt.prompt-helpers.ts in 2026.7.1, dist/attempt.prompt-helpers-Bx-dobiv.js)
// in place of the model's (src/turn.ts modelOrphanMerge), behind src/environment.ts OrphanMergePolicy. The repair around
// it stays the model's: which unanswered messages are put to the policy, the claim of a message the run takes, the
// prompt the model builds from every message taken, and taking the orphan off the transcript's branch.
//
// The release's function takes `{ prompt, trigger, leafMessage }` and answers `{ prompt, merged, removeLeaf }`. Both
// releases (the same code, read in both chunks): an orphan whose text (extractUserMessagePromptText, trimmed) is empty
// is removed without a merge; one the prompt already carries (promptAlreadyIncludesQueuedUserMessage: the queued block
// at the start or on a line of its own, or the orphan's text as whole lines of the prompt) is removed without a merge
// (its run logs "Removed already-queued orphaned user message"); any other is merged, `[marker, text, "", prompt]`
// joined by new lines, whatever the trigger and however short the text. `removeLeaf` is always true. So the adapter
// answers `merge` when it merged and `carried` otherwise (the run answers a message it took off the branch); it never
// answers `left`, which only the model's own rules (the trigger, the 4-character minimum) give.
//
// The SQLite-era releases (region src/agents/embedded-agent-runner/run/attempt-prompt-helpers.ts: 2026.8.1
// dist/attempt-prompt-helpers-BlTUKLwp.js, 2026.9.6 dist/context-engine-maintenance-VqmqPz8h.mjs) change it: a new
// marker ("[Queued user message from a previous active turn; preserved as context only. Continue with the active
// prompt below.]"), and a leaf whose input provenance is an inter-session or progress-card one is dropped without a
// merge when the prompt is not blank (`shouldDropStaleInternalOrphanedUserPrompt`; gatesim's leaves carry no
// provenance, so never). 2026.9.6 answers `removeLeaf: false` for a merged or carried leaf ("external user leaves are
// eligible to remain canonical"); its call site (`resolveOrphanRepairPlan`, dist/builtin-openclaw-q1hiFm14.mjs) removes
// it anyway unless the run preserves the leaf (`removeLeaf: merge.removeLeaf || !params.preserveLeaf`, preserved only
// for a producer-tagged restart recovery of the main session, which gatesim's runs never are), so the leaf goes, as in
// every other release.
//
// One instance of the release's chunks per runner incarnation, loaded at the first question (a run with no orphan
// loads nothing): the function is pure, but its chunk's closure has module state (a logger, config caches) that a
// restart would start afresh. 2026.4.24's closure is 86 chunks; 2026.7.1's is 1,007 chunks and about 40 packages.
import type { OrphanMergeDecision, OrphanMergePolicy, OrphanMergeQuestion } from '../../../src/index.ts';
import { assert } from '../../kernel/assert.ts';
import { componentSource } from './components.ts';
import type { OpenclawInstance } from './instance.ts';

/** The release's answer, as its function returns it. */
export interface RealOrphanMergeAnswer {
  prompt: string;
  merged: boolean;
  removeLeaf: boolean;
}

export type RealMergeOrphanedTrailingUserPrompt = (params: { prompt: string; trigger?: string; leafMessage: { role: 'user'; content: unknown } }) => RealOrphanMergeAnswer;

/** The release's mergeOrphanedTrailingUserPrompt of an instance. */
export function realOrphanMergeFunction(instance: OpenclawInstance): RealMergeOrphanedTrailingUserPrompt {
  const { sourceFile, functions } = componentSource('orphan-merge', instance.release);
  return instance.function<RealMergeOrphanedTrailingUserPrompt>(sourceFile, functions[0] ?? 'mergeOrphanedTrailingUserPrompt');
}

/**
 * Whether the run attempt removes the orphaned leaf after the release's answer: the answer's own `removeLeaf`, or in
 * 2026.9.6 its call site's `merge.removeLeaf || !preserveLeaf`, with no leaf preserved in gatesim's runs (header).
 */
export function leafRemoved(answer: RealOrphanMergeAnswer, preserveLeaf = false): boolean {
  return answer.removeLeaf || !preserveLeaf;
}

/** The model's decision from the release's answer (the header says why `carried` and never `left`). */
export function decisionOf(answer: RealOrphanMergeAnswer): OrphanMergeDecision {
  assert(typeof answer.prompt === 'string' && typeof answer.merged === 'boolean', 'the release answers a prompt and whether it merged');
  assert(leafRemoved(answer), 'every pinned release removes the orphaned leaf of a run that does not preserve it');
  return answer.merged ? { take: 'merge', prompt: answer.prompt } : { take: 'carried', prompt: answer.prompt };
}

/** The real policy of one runner incarnation; `instance` is made at the first question. */
export class RealOrphanMerge implements OrphanMergePolicy {
  private merge: RealMergeOrphanedTrailingUserPrompt | undefined;

  constructor(private readonly instance: () => OpenclawInstance) {}

  decide(question: OrphanMergeQuestion): OrphanMergeDecision {
    this.merge ??= realOrphanMergeFunction(this.instance());
    return decisionOf(this.merge({ prompt: question.prompt, trigger: question.trigger, leafMessage: { role: 'user', content: question.orphanText } }));
  }
}
