// Part of transcript-consistent (docs/MODEL.md, "Compaction"): a compaction keeps its open turn. A `compaction` entry
// (pi's format) stands for the context the agent resumes with: its summary, then the entries from firstKeptEntryId up to
// it, then what follows (pi's buildSessionContext). Entries before firstKeptEntryId stay in the file and on its active
// branch, so the durable-row invariants read them as before; what this check asks is that a compaction made while a
// user message on the branch had no reply yet (the prompt of the run that compacted) kept that message verbatim: the
// reply that follows the compaction answers it, and a context that lost it answers nothing the user asked. A user
// entry counts as answered once an assistant entry with text follows it on the branch before the compaction. (pi may
// split a turn larger than its keepRecentTokens and summarise the turn's start apart; the model's turns never are, so
// this check is stricter than pi there.) Decided from the file alone.
import { activeBranch, type Transcript } from './durable.ts';

/** The first compaction on the active branch that left out an unanswered user message, described; undefined if none. */
export function compactionDroppingOpenTurn(transcript: Transcript): string | undefined {
  if (!transcript.entries.some((entry) => entry.firstKeptEntryId !== undefined)) return undefined;
  const branch = activeBranch(transcript.entries);
  for (let at = 0; at < branch.length; at++) {
    const compaction = branch[at];
    if (compaction?.firstKeptEntryId === undefined) continue;
    const firstKept = branch.findIndex((entry, index) => index < at && entry.id === compaction.firstKeptEntryId);
    // pi keeps nothing before the compaction when its firstKeptEntryId is not an earlier entry of the branch.
    const keptFrom = firstKept >= 0 ? firstKept : at;
    let open: number | undefined;
    for (let index = 0; index < at; index++) {
      const entry = branch[index];
      if (entry?.role === 'user') open ??= index;
      else if (entry?.role === 'assistant' && entry.text.length > 0) open = undefined;
    }
    if (open !== undefined && open < keptFrom) {
      const user = branch[open];
      return `compaction ${compaction.id} keeps from ${firstKept >= 0 ? compaction.firstKeptEntryId : `"${compaction.firstKeptEntryId}" (no entry before it)`}, past the unanswered user entry ${user?.id ?? ''} "${(user?.text ?? '').slice(0, 40)}"`;
    }
  }
  return undefined;
}
