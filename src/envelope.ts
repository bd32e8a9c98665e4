// The submitted prompt and the stored one (issue 24 item 4). OpenClaw's gateway puts AI-facing metadata in front of a
// channel message before the run (2026.4.24 dist/get-reply-CSQ5BMwG.js, region get-reply-run.ts:
// buildInboundUserContextPrefix, "Conversation info (untrusted metadata):" and "Sender (untrusted metadata):" JSON
// blocks, then a blank line and the body). The metadata is the message's own: its id, its sender, its channel and
// its timestamp at minute granularity (formatEnvelopeTimestamp, UTC form `Www YYYY-MM-DDTHH:MMZ`), so a retry or a
// re-formed run of the same message submits the same envelope. No block here repeats another message's text: the
// real "Chat history since last reply" block (group history) is not modelled, since the model's context rows ride in
// the batch itself.
//
// How the two prompts are kept (the knob `promptEnvelope`):
// - `off`: the model's behaviour before this item: the LLM is asked the plain prompt.
// - `submit-then-rewrite` (2026.4.24, selection-C3otDzGD.js regions run/attempt.ts and run/transcript-prompt-rewrite.ts):
//   the enveloped prompt is submitted and pi appends it as the user entry; only when the model call returns is the
//   entry replaced by the plain prompt, by branching from its parent and appending the plain entry
//   (transcript-rewrite-DEfbMkgI.js rewriteTranscriptEntriesInSessionManager): the enveloped entry stays in the file
//   as a dead end. A failure or a kill before the return leaves the enveloped entry on the branch. A power loss or a
//   kill between the rewrite's appends leaves it cut short, and the turn's resumed attempt finishes it
//   (finishCutShortRewrite).
// - `transform` (2026.7.1, selection-8ixiqbew.js installModelPromptTransform): the session stores the plain prompt
//   and only the context sent to the model carries the envelope; nothing to rewrite.
// - `rewrite-drops-entry` (tests only, a sabotage): the rewrite branches from the parent and appends nothing.
// - `rewrite-own-body` (tests only): 2026.4.24's replacement text as the release builds it: `transcriptPrompt` is the
//   run's own message body (get-reply-CSQ5BMwG.js buildReplyPromptBodies, transcriptCommandBody), which the orphan
//   merge never touches, so a prompt that merged another message's orphan is stored without it.
import { assert } from './assert.ts';
import type { SqlDatabase } from './ports.ts';
import type { SessionManagerPort } from './session-manager-port.ts';
import type { SessionEntry } from './session-manager.ts';

export const promptEnvelopeModes = ['off', 'submit-then-rewrite', 'transform', 'rewrite-drops-entry', 'rewrite-own-body'] as const;
export type PromptEnvelopeMode = (typeof promptEnvelopeModes)[number];

/** What the envelope says about the message that woke the run. */
export interface EnvelopeFacts {
  messageId: string;
  sessionKey: string;
  /** The message's own time (its messages_in `created_at`), not the time of the run. */
  timestampMs: number;
}

const weekdays = ['Thu', 'Fri', 'Sat', 'Sun', 'Mon', 'Tue', 'Wed'] as const;
const dayMs = 86_400_000;
const conversationSentinel = 'Conversation info (untrusted metadata):';

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** The civil UTC date of a day count from 1970-01-01 (integer arithmetic; no Date in the model). */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

/** OpenClaw's envelope timestamp in its UTC form, to the minute: `Thu 1970-01-01T00:02Z`. */
export function formatEnvelopeTimestamp(ms: number): string {
  assert(Number.isSafeInteger(ms) && ms >= 0, `an envelope timestamp is a non-negative integer of ms, not ${ms}`);
  const days = Math.floor(ms / dayMs);
  const inDay = ms - days * dayMs;
  const { year, month, day } = civilFromDays(days);
  const weekday = weekdays[days % 7];
  assert(weekday !== undefined, `weekday of day ${days}`);
  return `${weekday} ${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(Math.floor(inDay / 3_600_000), 2)}:${pad(Math.floor((inDay % 3_600_000) / 60_000), 2)}Z`;
}

function untrustedJsonBlock(label: string, payload: Record<string, string>): string {
  return [label, '```json', JSON.stringify(payload, null, 2), '```'].join('\n');
}

/** The metadata blocks put in front of the body (buildInboundUserContextPrefix, for a direct chat on a channel). */
export function inboundUserContext(facts: EnvelopeFacts): string {
  assert(facts.messageId.length > 0, 'an envelope names its message');
  const sender = `user:${facts.sessionKey}`;
  const conversation = untrustedJsonBlock(conversationSentinel, {
    chat_id: facts.sessionKey,
    message_id: facts.messageId,
    sender_id: sender,
    sender,
    timestamp: formatEnvelopeTimestamp(facts.timestampMs),
  });
  return [conversation, untrustedJsonBlock('Sender (untrusted metadata):', { label: sender, id: sender })].join('\n\n');
}

/** The submitted prompt: the metadata, a blank line, the plain prompt. */
export function envelopePrompt(facts: EnvelopeFacts, plain: string): string {
  assert(plain.length > 0, 'an enveloped prompt has a body');
  const context = inboundUserContext(facts);
  assert(!context.includes(plain), 'the envelope does not repeat the body');
  const submitted = `${context}\n\n${plain}`;
  assert(submitted.endsWith(plain), 'the submitted prompt ends with the plain one');
  return submitted;
}

/** Whether a stored text starts with this envelope (an entry submitted and not rewritten). */
export function isEnveloped(text: string): boolean {
  return text.startsWith(`${conversationSentinel}\n`);
}

/** Whether the mode submits an envelope at all. */
export function envelopes(mode: PromptEnvelopeMode): boolean {
  return mode !== 'off';
}

/** Whether the stored user entry starts enveloped and is rewritten after the model call returns. */
export function storesSubmitted(mode: PromptEnvelopeMode): boolean {
  return mode === 'submit-then-rewrite' || mode === 'rewrite-drops-entry' || mode === 'rewrite-own-body';
}

/**
 * The facts of the run's message: the newest message of the batch's own (not taken over from another turn), with its
 * stored time. Read from inbound.db, so every attempt of the turn builds the same envelope.
 */
export async function envelopeFacts(inbound: SqlDatabase, sessionKey: string, members: readonly { id: string; merged: boolean }[]): Promise<EnvelopeFacts> {
  const own = members.filter((member) => !member.merged).at(-1) ?? members.at(-1);
  assert(own !== undefined, `an envelope for ${sessionKey} needs a message`);
  const row = (await inbound.query('SELECT created_at FROM messages_in WHERE id = ?', [own.id]))[0];
  const timestampMs = Number(row?.created_at ?? 0);
  assert(Number.isSafeInteger(timestampMs) && timestampMs >= 0, `message ${own.id} was stored at ${timestampMs}`);
  return { messageId: own.id, sessionKey, timestampMs };
}

/**
 * 2026.4.24 rewriteSubmittedPromptTranscript over rewriteTranscriptEntriesInSessionManager: on the active branch after
 * the attempt's starting leaf, the user entry equal to the submitted prompt is replaced by branching from its parent and appending the plain entry,
 * then every entry after it again (the old ones stay in the file, off the branch). Returns the ids of the
 * enveloped entry and of its replacement, or undefined when no entry matched (the release then does nothing).
 */
export async function rewriteSubmittedTranscript(
  session: SessionManagerPort,
  previousLeafId: string | null,
  submitted: string,
  plain: string,
  mode: PromptEnvelopeMode,
): Promise<{ from: string; to: string | null } | undefined> {
  assert(storesSubmitted(mode), `mode ${mode} stores the plain prompt from the start`);
  const branch = session.activeBranch();
  // As the release: from just after the leaf the attempt started from (from the root when there was none, or when it
  // is no longer on the branch), the first user entry whose text is the submitted prompt.
  const start = previousLeafId === null ? 0 : Math.max(0, branch.findIndex((entry) => entry.id === previousLeafId) + 1);
  const found = branch.slice(start).findIndex((entry) => entry.message.role === 'user' && entry.message.content === submitted);
  const index = found < 0 ? -1 : start + found;
  const target = branch[index];
  if (target === undefined) return undefined;
  if (target.parentId === null) session.resetLeaf();
  else session.branch(target.parentId);
  assert(session.leaf?.id !== target.id, `the rewrite moved the leaf off ${target.id}`);
  // The sabotage: a rewrite that loses the entry (the branch moves, nothing replaces it).
  const replacement = mode === 'rewrite-drops-entry' ? null : await session.appendMessage({ role: 'user', content: plain.trim().length > 0 ? plain : '[OpenClaw runtime event]' }, target.turnId);
  // As the release (appendBranchEntry, remapEntryId): a compaction appended again keeps from the new copy of its first
  // kept entry, the plain entry included (chaos with compaction and the envelope: a compaction kept from the enveloped
  // entry, off the branch after the rewrite).
  await appendCopies(session, branch.slice(index + 1), new Map<string, string>(replacement === null ? [] : [[target.id, replacement.id]]));
  assert(!session.activeBranch().some((entry) => entry.id === target.id), `the enveloped entry ${target.id} is off the active branch`);
  return { from: target.id, to: replacement?.id ?? null };
}

/**
 * The rewrite's copies (appendBranchEntry): each entry appended again at the leaf, in order, a compaction keeping from
 * the copy of its first kept entry. `rewritten` maps an old id to its copy's, and grows with each copy.
 */
async function appendCopies(session: SessionManagerPort, entries: readonly SessionEntry[], rewritten: Map<string, string>): Promise<void> {
  for (const entry of entries) {
    const copy =
      entry.compaction === undefined
        ? await session.appendMessage(entry.message, entry.turnId)
        : await session.appendCompaction({ ...entry.compaction, firstKeptEntryId: rewritten.get(entry.compaction.firstKeptEntryId) ?? entry.compaction.firstKeptEntryId });
    rewritten.set(entry.id, copy.id);
  }
}

/** Whether `copy` is a copy of `old` (the same message, or the same compaction with its first kept entry remapped). */
function copyOf(old: SessionEntry, copy: SessionEntry, rewritten: ReadonlyMap<string, string>): boolean {
  if (old.compaction !== undefined || copy.compaction !== undefined) {
    if (old.compaction === undefined || copy.compaction === undefined) return false;
    const keptFrom = rewritten.get(old.compaction.firstKeptEntryId) ?? old.compaction.firstKeptEntryId;
    return old.compaction.summary === copy.compaction.summary && old.compaction.tokensBefore === copy.compaction.tokensBefore && keptFrom === copy.compaction.firstKeptEntryId;
  }
  const a = old.message;
  const b = copy.message;
  return old.turnId === copy.turnId && a.role === b.role && a.content === b.content && a.toolCallId === b.toolCallId && JSON.stringify(a.toolCalls ?? []) === JSON.stringify(b.toolCalls ?? []) && a.mirror?.idempotencyKey === b.mirror?.idempotencyKey;
}

/**
 * A rewrite of the turn's enveloped prompt entry that was cut short: the plain entry is on the active branch, but not
 * every entry after the enveloped one (off the branch now) was appended again after it. The release's rewrite is one
 * run of pi appends that a power loss can cut anywhere (pi never fsyncs; the model's appends are fsynced one by one,
 * so a power loss drops the unsynced tail and a SIGKILL can fall between two of them). The fixed runner resumes such a
 * turn from its durable final row, and its resumed attempt first finishes the rewrite, before it appends anything of
 * its own: the copies still missing, in the old order, a compaction keeping from the copy of its first kept entry.
 * Without this the resumed attempt appended only its own entries again (found by turn and role), so a compaction the
 * rewrite had still to copy was left with the enveloped entry and the old closing text in a dead end, and the resumed
 * closing text went straight under the plain entry (chaos with compaction, the envelope and two power losses).
 * Returns the ids of the enveloped entry and its replacement and how many copies were appended, or undefined when
 * the turn has no such rewrite in its transcript.
 */
export async function finishCutShortRewrite(session: SessionManagerPort, turnId: string): Promise<{ from: string; to: string; copied: number } | undefined> {
  assert(turnId.length > 0, 'a rewrite is finished for a named turn');
  const branch = session.activeBranch();
  // The replacement: the turn's first user entry on the branch, plain (an enveloped one was never rewritten).
  const replacementAt = branch.findIndex((entry) => entry.turnId === turnId && entry.message.role === 'user');
  const replacement = branch[replacementAt];
  if (replacement === undefined || isEnveloped(replacement.message.content)) return undefined;
  const onBranch = new Set(branch.map((entry) => entry.id));
  const entries = session.allEntries();
  const replacementPosition = entries.findIndex((entry) => entry.id === replacement.id);
  // The superseded submission: before the replacement in the file, off the branch, the turn's own, enveloped, with
  // the same parent (the rewrite branched from its parent).
  const target = entries
    .slice(0, Math.max(0, replacementPosition))
    .filter((entry) => entry.turnId === turnId && entry.message.role === 'user' && !onBranch.has(entry.id) && entry.parentId === replacement.parentId && isEnveloped(entry.message.content))
    .at(-1);
  if (target === undefined) return undefined;
  // The entries the rewrite was to copy: the single chain under the enveloped entry (it was the branch then).
  const old: SessionEntry[] = [];
  for (let parent = target.id; ; ) {
    const children = entries.filter((entry) => entry.parentId === parent);
    const child = children[0];
    if (children.length !== 1 || child === undefined || onBranch.has(child.id)) break;
    old.push(child);
    parent = child.id;
  }
  // The copies already appended, in order after the replacement (the gateway's mirror may have appended between them).
  const rewritten = new Map<string, string>([[target.id, replacement.id]]);
  let at = replacementAt;
  let done = 0;
  for (const entry of old) {
    const found = branch.findIndex((candidate, index) => index > at && copyOf(entry, candidate, rewritten));
    const copy = branch[found];
    if (copy === undefined) break;
    rewritten.set(entry.id, copy.id);
    at = found;
    done++;
  }
  const missing = old.slice(done);
  await appendCopies(session, missing, rewritten);
  return { from: target.id, to: replacement.id, copied: missing.length };
}
