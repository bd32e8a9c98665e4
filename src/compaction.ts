// Compaction of a session's context (issue 24 item 3), as OpenClaw's embedded runner does it over pi's SessionManager
// (docs/MODEL.md, "Compaction"). The context the agent would send is estimated from the transcript as pi's
// buildSessionContext builds it (the latest compaction's summary, the entries it kept from firstKeptEntryId, then every
// entry after it) at chars/4 per message (pi's estimateTokens). When a run is about to ask the LLM and that estimate is
// past the session's limit (OpenClaw's pre-prompt check, "Context overflow: prompt too large for the model
// (precheck)", then the run loop's compaction), the runner:
// 1. picks the cut: walking back from the newest entry it keeps about keepRecentTokens, and the kept part starts at a
//    user entry, so no turn is split and the open turn (the prompt this run persisted) is always kept;
// 2. asks the LLM for a summary of the entries between the previous compaction's kept part and the cut (with the
//    previous summary), a request of its own that the world records apart from the turn requests;
// 3. appends a `compaction` entry {summary, firstKeptEntryId, tokensBefore} as a child of the leaf (pi's
//    appendCompaction), and the run goes on.
// A summary call that fails fails the run's attempt like a transient model error (OpenClaw: "Context overflow recovery
// failed"); a SIGKILL between the summary and the append leaves no entry, and the retried attempt compacts again.
// Entries are never removed: the messages before firstKeptEntryId stay in the file and on its active branch.
import { assert, assertNonNegativeInteger } from './assert.ts';
import type { LlmApi, ProcessContext } from './ports.ts';
import { compactionInstruction } from './protocol.ts';
import type { SessionEntry, TranscriptMessage } from './session-manager.ts';
import type { SessionManagerPort } from './session-manager-port.ts';

/**
 * How the runner picks the kept part: `turn-start` (fixed: the cut is a user entry at or before the open turn's);
 * `turn-id` (tests only): firstKeptEntryId names the first kept turn by the runner's own turn id instead of its JSONL
 * entry id, an id pi's buildSessionContext never finds, so it keeps nothing before the compaction entry and the open
 * turn's prompt, left out of the summary as well, drops out of the context.
 */
export const compactionCuts = ['turn-start', 'turn-id'] as const;
export type CompactionCut = (typeof compactionCuts)[number];

export interface CompactionKnobs {
  /** The context estimate (tokens) past which a run compacts first (pi: the context window less reserveTokens). */
  contextTokensMax: number;
  /** About how much of the newest context the compaction keeps verbatim (pi's keepRecentTokens, default 20,000). */
  keepRecentTokens: number;
  cut: CompactionCut;
}

/** pi's estimateTokens: ceil(chars / 4) of the text, a tool call counting its name and its JSON arguments. */
export function estimateTokens(message: TranscriptMessage): number {
  const calls = (message.toolCalls ?? []).reduce((sum, call) => sum + call.name.length + JSON.stringify({ text: call.text }).length, 0);
  const tokens = Math.ceil((message.content.length + calls) / 4);
  assertNonNegativeInteger(tokens, 'a message token estimate');
  return tokens;
}

function isMessage(entry: SessionEntry): boolean {
  return entry.message.role !== 'other';
}

/** The index on `branch` of its latest compaction entry, or -1. */
function latestCompaction(branch: readonly SessionEntry[]): number {
  for (let index = branch.length - 1; index >= 0; index--) if (branch[index]?.compaction !== undefined) return index;
  return -1;
}

/** Where the latest compaction's kept part starts on `branch` (0 without one; pi: after it when its id is not found). */
function keptStart(branch: readonly SessionEntry[], compactionIndex: number): number {
  if (compactionIndex < 0) return 0;
  const firstKept = branch[compactionIndex]?.compaction?.firstKeptEntryId;
  const index = branch.findIndex((entry, at) => at < compactionIndex && entry.id === firstKept);
  return index >= 0 ? index : compactionIndex + 1;
}

/** pi's buildSessionContext, estimated: the latest summary, the kept entries, the entries after the compaction. */
export function contextTokens(branch: readonly SessionEntry[]): number {
  const compactionIndex = latestCompaction(branch);
  const summary = branch[compactionIndex]?.compaction?.summary ?? '';
  const kept = branch.filter((entry, index) => isMessage(entry) && (compactionIndex < 0 || (index >= keptStart(branch, compactionIndex) && index !== compactionIndex)));
  return Math.ceil(summary.length / 4) + kept.reduce((sum, entry) => sum + estimateTokens(entry.message), 0);
}

/**
 * Where the open turn starts on `branch`: its first user entry that no assistant entry with text follows (a re-formed
 * turn appends a second user entry after its first attempt's tool entries; both are the open turn's).
 */
function openTurnStart(branch: readonly SessionEntry[]): number {
  let open = -1;
  branch.forEach((entry, index) => {
    if (entry.message.role === 'user' && open < 0) open = index;
    else if (entry.message.role === 'assistant' && entry.message.content.length > 0) open = -1;
  });
  return open;
}

/** The fixed cut: the user entry that starts the kept part, at or before the open turn's; undefined: nothing to compact. */
function cutIndex(branch: readonly SessionEntry[], start: number, keepRecentTokens: number): number | undefined {
  const open = openTurnStart(branch);
  const starts = branch.map((entry, index) => (index >= start && entry.message.role === 'user' && (open < 0 || index <= open) ? index : -1)).filter((index) => index >= 0);
  if (starts.length === 0) return undefined;
  let kept = 0;
  let crossing = start;
  for (let index = branch.length - 1; index >= start; index--) {
    const entry = branch[index];
    if (entry === undefined || !isMessage(entry)) continue;
    kept += estimateTokens(entry.message);
    if (kept >= keepRecentTokens) {
      crossing = index;
      break;
    }
  }
  const cut = starts.find((index) => index >= crossing) ?? starts.at(-1);
  return cut === undefined || cut <= start ? undefined : cut;
}

function summaryPrompt(previousSummary: string | undefined, entries: readonly SessionEntry[]): string {
  const lines = entries.filter(isMessage).map((entry) => `${entry.message.role}: ${entry.message.content}${(entry.message.toolCalls ?? []).map((call) => ` [${call.name} ${call.text}]`).join('')}`);
  return [compactionInstruction, ...(previousSummary === undefined ? [] : [`Previous summary: ${previousSummary}`]), '', ...lines].join('\n');
}

/**
 * Compact the transcript before the run's LLM call when its context is past the limit. Returns whether an entry was
 * appended. An LLM error escapes (the attempt fails); nothing is written before the summary came back.
 */
export async function compactIfNeeded(
  ctx: ProcessContext,
  llm: LlmApi,
  knobs: CompactionKnobs,
  session: SessionManagerPort,
  sessionKey: string,
  turnId: string,
): Promise<boolean> {
  assert(knobs.keepRecentTokens > 0 && knobs.keepRecentTokens < knobs.contextTokensMax, `keepRecentTokens ${knobs.keepRecentTokens} is below the limit ${knobs.contextTokensMax}`);
  const branch = session.activeBranch();
  // pi's prepareCompaction: nothing to do right after a compaction.
  if (branch.length === 0 || branch.at(-1)?.compaction !== undefined) return false;
  const tokensBefore = contextTokens(branch);
  if (tokensBefore <= knobs.contextTokensMax) return false;
  const previous = latestCompaction(branch);
  const start = keptStart(branch, previous);
  const cut = cutIndex(branch, start, knobs.keepRecentTokens);
  const open = openTurnStart(branch);
  if (cut === undefined) {
    ctx.note('compaction-skipped', { session: sessionKey, turn: turnId, tokens: tokensBefore });
    return false;
  }
  assert(open < 0 || cut <= open, `the cut ${cut} of ${session.path} keeps the open turn from ${open}`);
  const firstKept = branch[cut];
  assert(firstKept?.message.role === 'user', `the kept part of ${session.path} starts at a user entry`);
  ctx.note('compaction-start', { session: sessionKey, turn: turnId, tokens: tokensBefore, limit: knobs.contextTokensMax, summarised: cut - start });
  const prompt = summaryPrompt(branch[previous]?.compaction?.summary, branch.slice(start, cut));
  const answer = await llm.complete({ sessionKey, prompt }, ctx.timers).catch((error: unknown) => {
    ctx.note('compaction-failed', { session: sessionKey, turn: turnId, error: error instanceof Error ? error.message : String(error) });
    throw error;
  });
  assert(answer.toolCalls.length === 0, `a summary of ${sessionKey} calls no tools`);
  ctx.note('compaction-summarised', { session: sessionKey, turn: turnId });
  // turn-id (tests only): the kept turn named by the runner's own id, which no JSONL entry has.
  const firstKeptEntryId = knobs.cut === 'turn-id' ? firstKept.turnId || turnId : firstKept.id;
  const entry = await session.appendCompaction({ summary: answer.result, firstKeptEntryId, tokensBefore });
  assert(entry.compaction?.firstKeptEntryId === firstKeptEntryId, `the compaction entry of ${session.path} names its first kept entry`);
  assert(session.leaf?.id === entry.id, `the compaction entry of ${session.path} is its leaf`);
  ctx.note('compaction', { session: sessionKey, turn: turnId, firstKept: firstKeptEntryId, tokensBefore, tokensAfter: contextTokens(session.activeBranch()) });
  return true;
}
