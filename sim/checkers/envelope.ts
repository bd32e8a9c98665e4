// The checkers' own reader of OpenClaw's inbound metadata envelope (issue 24 item 4; never src/envelope.ts). OpenClaw
// 2026.4.24 submits a user prompt with AI-facing metadata blocks in front of it and pi stores the entry as submitted;
// when the model call returns, the run replaces it by branching from its parent and appending the plain prompt, then
// the entries after it again (dist/transcript-rewrite-DEfbMkgI.js rewriteTranscriptEntriesInSessionManager). The old
// entries stay in the file, off the active branch: a superseded submission, which the real system leaves there on
// purpose (docs/MODEL.md, "The submitted prompt and the stored one"). It is not a second turn of the messages it
// carries and not a lost branch, and it is recognised from the file alone:
// - an off-branch user entry whose text, with the leading metadata blocks stripped (as OpenClaw's
//   stripInboundMetadata strips them for display: a sentinel line, a ```json fence, the closing fence), is not its
//   text (it had an envelope);
// - a later user entry in file order, on the active branch, with the same parent and the stripped text as its text;
// - the superseded entry's descendants form one chain whose entries each have a copy (role, text, tool-call ids) after
//   the replacement on the active branch, in the same order (the suffix appended again; other entries may come between
//   when a power loss cut the copies short and a resumed run appended the rest); the last ones may be missing while
//   only mirror entries follow the last copy (a check that lands between two appends of the rewrite, or between a
//   cut-short rewrite and the resumed run that appends the rest after what the gateway's mirror appended).
// Anything else off the branch stays what transcript-consistent and no-double-ingestion call it.
import { activeBranch, type JsonlEntry, type Transcript } from './durable.ts';

/** The sentinel lines of OpenClaw's inbound metadata blocks (2026.4.24 dist/strip-inbound-meta-DaDVfj8b.js). */
export const inboundMetaSentinels = [
  'Conversation info (untrusted metadata):',
  'Sender (untrusted metadata):',
  'Thread starter (untrusted, for context):',
  'Replied message (untrusted, for context):',
  'Forwarded message context (untrusted metadata):',
  'Chat history since last reply (untrusted, for context):',
] as const;

/** The text with its leading metadata blocks (and the blank lines after each) removed; the text itself if it has none. */
export function stripLeadingInboundMeta(text: string): string {
  const lines = text.split('\n');
  let index = 0;
  let stripped = false;
  for (let blocks = 0; blocks < inboundMetaSentinels.length * 4; blocks++) {
    const sentinel = lines[index]?.trim();
    if (sentinel === undefined || !(inboundMetaSentinels as readonly string[]).includes(sentinel) || lines[index + 1]?.trim() !== '```json') break;
    let end = index + 2;
    while (end < lines.length && lines[end]?.trim() !== '```') end++;
    if (end >= lines.length) break;
    index = end + 1;
    while (index < lines.length && lines[index]?.trim() === '') index++;
    stripped = true;
  }
  return stripped ? lines.slice(index).join('\n') : text;
}

function sameContent(a: JsonlEntry, b: JsonlEntry): boolean {
  return a.role === b.role && a.text === b.text && a.toolCallIds.join(',') === b.toolCallIds.join(',');
}

/** The ids of a file's entries that are superseded submissions (and the suffix copies left under them). */
export function supersededSubmissions(entries: readonly JsonlEntry[], branch: readonly JsonlEntry[]): Set<string> {
  const superseded = new Set<string>();
  const onBranch = new Map(branch.map((entry, index) => [entry.id, index]));
  const children = new Map<string, JsonlEntry[]>();
  for (const entry of entries) if (entry.parentId !== null) children.set(entry.parentId, [...(children.get(entry.parentId) ?? []), entry]);
  entries.forEach((entry, position) => {
    if (entry.role !== 'user' || onBranch.has(entry.id) || superseded.has(entry.id)) return;
    const plain = stripLeadingInboundMeta(entry.text);
    if (plain === entry.text) return;
    const replacement = entries.slice(position + 1).find((later) => later.role === 'user' && later.parentId === entry.parentId && later.text === plain && onBranch.has(later.id));
    if (replacement === undefined) return;
    const chain = [entry];
    for (let next = children.get(entry.id); next !== undefined && next.length > 0; next = children.get(next[0]?.id ?? '')) {
      if (next.length !== 1 || next[0] === undefined || onBranch.has(next[0].id)) return;
      chain.push(next[0]);
    }
    // Each old entry has its copy after the replacement, in order; other entries may come between (a power loss can
    // cut the copies short, and a resumed run then appends the rest after what the gateway's mirror appended).
    let at = onBranch.get(replacement.id) ?? branch.length;
    let copied = 0;
    for (const old of chain.slice(1)) {
      const copy = branch.findIndex((candidate, index) => index > at && sameContent(old, candidate));
      if (copy < 0) break;
      at = copy;
      copied++;
    }
    // The copies still being appended (a check between two appends of one rewrite, which the release makes in one
    // synchronous go) or cut short for good: the rest is missing only while nothing but the gateway's mirror entries
    // follow the last copy (a power loss cut the rewrite, the mirror appended a delivered reply, and the resumed run
    // has not yet appended the rest: prompt-envelope, fuzz --all seed 202 run 1451).
    if (copied < chain.length - 1 && !branch.slice(at + 1).every((entry) => entry.mirror)) return;
    for (const old of chain) superseded.add(old.id);
  });
  return superseded;
}

/** Every entry of one JSONL file, on a branch or not, less the superseded submissions. */
export function transcriptEntriesKept(transcript: Transcript): JsonlEntry[] {
  const superseded = supersededSubmissions(transcript.entries, activeBranch(transcript.entries));
  return superseded.size === 0 ? transcript.entries : transcript.entries.filter((entry) => !superseded.has(entry.id));
}
