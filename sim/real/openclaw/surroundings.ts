// Around the real parts (issue 43 item 5): how the parts of the gateway and the runner that stay gatesim's model behave
// under `--openclaw <release>`. The fixed model's own defences (a locked mirror, durable exec keys, the heartbeat's held
// prompt row, ...) would otherwise stay on around the release's parts and hide the release's bugs: 2026.4.24's mirror
// append takes no write lock, but the fixed model's mirror locks, so that release's mirror race could not show.
//
// One table per pinned release, from what docs/MODEL.md states about the release ("Around the real parts" there gives
// the table and where each fact was read):
// - `settings`: where the release's behaviour is known and the model has a variant for it, the variant the run uses
//   instead of the fixed model's (a knob of src/config.ts, or a seed bug id standing for the release's code). Each
//   applies only where the fixed model's value is in force (a plan that switched a sabotage on keeps it) and, where a
//   real part stands for it, only without that part (`unlessParts`).
// - `defences`: each defence of the fixed model that stays in force around the parts, because the release's behaviour
//   is not known or the model has no variant for it. `list` and every report (sim/cli/real-code.ts) name them.
//
// A seed string keeps its meaning (choice.ts): a choice whose table sets something records the table's revision in
// its tag (`@oc-2026_4_24~se+hw~r1`); a tag without it was made before this table and replays with the fixed model's
// defences around the parts (`OpenclawChoice.around: 'model'`), as it ran then. A change of a setting is a new revision;
// a string naming a revision this build does not have is refused.
import type { BugId, ModelKnobs } from '../../../src/index.ts';
import type { OpenclawGatewayPart } from './choice.ts';
import type { OpenclawRelease } from './releases.ts';

/** The revision of the tables below: a seed string's tag names it (choice.ts). Bump it when a setting changes. */
export const openclawSurroundingsRevision = 1;

/** The knobs and bugs a run's model is configured with (src/config.ts modelConfig). */
export interface ModelSetup {
  bugs: readonly BugId[];
  knobs: Partial<ModelKnobs>;
}

/** A setting of the table: the release's behaviour around the parts, as a variant of the model. */
export interface SurroundingSetting {
  id: string;
  /** A few words, for the one line of a report. */
  name: string;
  /** What the release does, in a few words (`list` and the reports show it). */
  release: string;
  /** The model's variant that stands for it, and the fixed value it replaces. */
  variant: string;
  /** Where docs/MODEL.md states the release's behaviour (its section), and the release's file named there. */
  source: string;
  /** A real part that does this itself: with it, the setting does not apply. */
  unlessParts?: readonly OpenclawGatewayPart[];
  /** The setup with the setting, or undefined when the run's setup does not have the fixed value it replaces. */
  apply: (setup: ModelSetup) => ModelSetup | undefined;
}

/** A defence of the fixed model that stays in force around the parts. */
export interface ModelDefence {
  id: string;
  /** A few words and where it is in the model, for the one line of a report. */
  name: string;
  /** The defence and where it is in the model. */
  defence: string;
  /** Why it stays: what the release does instead, and why the model does not do it. */
  why: string;
  /** A real part that replaces it: with it, the defence is not in force. */
  unlessParts?: readonly OpenclawGatewayPart[];
}

export interface ReleaseSurroundings {
  settings: readonly SurroundingSetting[];
  defences: readonly ModelDefence[];
}

/** The setup with `bug` on (undefined when it was on already). */
function withBug(bug: BugId): SurroundingSetting['apply'] {
  return (setup) => (setup.bugs.includes(bug) ? undefined : { ...setup, bugs: [...setup.bugs, bug] });
}

const mirrorUnlocked: SurroundingSetting = {
  id: 'mirror-unlocked',
  name: 'mirror unlocked',
  release: 'the delivery mirror appends without the session write lock',
  variant: "deliveryMirror 'unlocked' for the fixed 'on'",
  source: 'docs/MODEL.md "The session write lock, real" (2026.4.24 dist/transcript-C5WPUIcy.js appendExactAssistantMessageToSessionTranscript)',
  apply: (setup) => (setup.knobs.deliveryMirror === 'on' ? { ...setup, knobs: { ...setup.knobs, deliveryMirror: 'unlocked' } } : undefined),
};

const lockReclaimUnguarded: SurroundingSetting = {
  id: 'lock-reclaim-unguarded',
  name: 'unguarded lock reclaim',
  release: 'a stale session write lock is read, judged and removed with nothing guarding the window',
  variant: "lockReclaim 'unguarded' for the fixed 'claimed', where the mirror is on",
  source: 'docs/MODEL.md "The session write lock" (2026.4.24 dist/session-write-lock-CAy2l2rJ.js acquireSessionWriteLock)',
  unlessParts: ['session-write-lock'],
  apply: (setup) => ((setup.knobs.deliveryMirror ?? 'off') !== 'off' && (setup.knobs.lockReclaim ?? 'claimed') === 'claimed' ? { ...setup, knobs: { ...setup.knobs, lockReclaim: 'unguarded' } } : undefined),
};

const execDedupeInMemory: SurroundingSetting = {
  id: 'exec-dedupe-in-memory',
  name: 'exec dedupe in memory',
  release: 'node-event ingestion drops a repeated exec.finished within 600 s from a map in memory (lost at a restart), takes a repeated exec.started, and wakes only for an accepted event',
  variant: 'bug exec-dedupe-memory for the fixed durable exec keys',
  source: 'docs/MODEL.md "The heartbeat wakes, real" (2026.4.24 dist/server-node-events-D_cEK_yE.js shouldDropDuplicateExecFinished)',
  unlessParts: ['node-events'],
  apply: withBug('exec-dedupe-memory'),
};

const queueLastText: SurroundingSetting = {
  id: 'queue-last-text',
  name: 'last-text queue dedupe',
  release: 'the system-event queue refuses only a repeat of the last text, and a drain forgets it (seed 000)',
  variant: 'bug exec-replay for the fixed whole-queue dedupe; it also wakes for a refused duplicate, which the release does not',
  source: 'docs/MODEL.md "The system-event queue, real against the model" (2026.4.24 dist/system-events-B6vO-QxY.js)',
  unlessParts: ['system-events'],
  apply: withBug('exec-replay'),
};

const heartbeatRunAsReleased: SurroundingSetting = {
  id: 'heartbeat-run-as-released',
  name: 'heartbeat run as released',
  release: "the heartbeat's own run works from the events in memory, consumes them after the run, never retries a failed run, and skips a reply equal to the last one within 24 h",
  variant: "heartbeatRun mode 'openclaw' for the fixed 'gateway', where the gateway runs the heartbeat",
  source: 'docs/MODEL.md "The heartbeat as the gateway\'s own run" (2026.4.24 dist/heartbeat-runner-CjYcq5k0.js runHeartbeatOnce)',
  apply: (setup) => (setup.knobs.heartbeatRun?.mode === 'gateway' ? { ...setup, knobs: { ...setup.knobs, heartbeatRun: { ...setup.knobs.heartbeatRun, mode: 'openclaw' } } } : undefined),
};

const mirrorKeyCurrentFile: SurroundingSetting = {
  id: 'mirror-key-current-file',
  name: 'mirror key check of the current file',
  release: "the delivery mirror's idempotency-key check reads the session's current file alone (the mirror appends under the lock)",
  variant: "deliveryMirror 'current-file' for the fixed 'on'",
  source: 'docs/MODEL.md "Second writers" (stop 37: 2026.7.1 dist/deliver-*.js, dist/transcript-*.js) and "The session write lock, real" (withSessionTranscriptWriteLock)',
  unlessParts: ['mirror-append'],
  apply: (setup) => (setup.knobs.deliveryMirror === 'on' ? { ...setup, knobs: { ...setup.knobs, deliveryMirror: 'current-file' } } : undefined),
};

const chatDedupeInMemory: SurroundingSetting = {
  id: 'chat-dedupe-in-memory',
  name: 'chat.send dedupe in memory',
  release: "chat.send's idempotency keys live in the gateway's dedupe map, in memory, pruned 5 min after use and lost at a restart",
  variant: "clients.dedupe 'memory' for the fixed 'durable', where clients chat",
  source: 'docs/MODEL.md "Client connections" (2026.7.1 dist/chat-DPrylHin.js, dist/server-maintenance-uqT9lqye.js)',
  apply: (setup) => (setup.knobs.clients?.dedupe === 'durable' ? { ...setup, knobs: { ...setup.knobs, clients: { ...setup.knobs.clients, dedupe: 'memory' } } } : undefined),
};

// The defences of the fixed model that stay, each named once and used by the releases it stays in.
const runnerExactlyOnce: ModelDefence = {
  id: 'runner-exactly-once',
  name: "the runner's exactly-once turns (src/turn.ts, src/runner.ts)",
  defence: 'the runner\'s exactly-once machinery: write-ahead assistant rows, turns keyed by turn id, tool calls retried and fenced, platform idempotency keys (src/turn.ts, src/runner.ts, src/tool-fence.ts, src/delivery.ts; docs/MODEL.md "Where the fixed model goes further")',
  why: "it stands where the release's run attempt and outbound delivery would be (nanoclaw's and Hermes' architecture); the release's own are not run",
};
const heartbeatReplyUnguarded: ModelDefence = {
  id: 'heartbeat-reply-shown',
  name: 'every heartbeat reply shown (src/gateway.ts)',
  defence: 'every heartbeat reply is shown in the prompt-row heartbeat (src/gateway.ts runHeartbeat)',
  why: 'the release skips a heartbeat reply equal to the last one within 24 h (lastHeartbeatText); the model has that guard only in its heartbeatRun mode openclaw, and the row mode has no variant',
};
const runAttemptLockWithMirror: ModelDefence = {
  id: 'run-attempt-lock-with-mirror-only',
  name: 'run-attempt lock only with the mirror (src/turn.ts)',
  defence: 'the run attempt takes the session write lock only in plans with the delivery mirror on (src/turn.ts runTurn)',
  why: 'the release takes it on every run attempt; the model has no knob for it',
};
const runnerTranscriptSynced: ModelDefence = {
  id: 'runner-transcript-fsync',
  name: 'fsynced transcript appends (src/session-manager.ts)',
  defence: "the runner's transcript appends are fsynced (the model's SessionManager, src/session-manager.ts)",
  why: "2026.4.24's pi SessionManager never fsyncs (run --session-manager pi for it); 2026.7.1's own SessionManager is not read",
};
const mirrorKeyAllFiles: ModelDefence = {
  id: 'mirror-key-all-files',
  name: 'mirror key check of earlier files (src/delivery-mirror.ts)',
  defence: "the delivery mirror's key check also reads the key's earlier sessions' files (src/delivery-mirror.ts DeliveryMirror.append)",
  why: "the release reads the current file alone; the model's mode for that (current-file) also locks, and none is both unlocked and current-file: the release's own append (ma) does it",
  unlessParts: ['mirror-append'],
};
const mirrorSynced: ModelDefence = {
  id: 'mirror-fsync',
  name: 'fsynced mirror append (src/delivery-mirror.ts)',
  defence: "the delivery mirror's append is fsynced (through the model's SessionManager, src/delivery-mirror.ts)",
  why: "neither JSONL release fsyncs its mirror append; the model has no variant: the release's own append (ma) does it",
  unlessParts: ['mirror-append'],
};
const repairSynced: ModelDefence = {
  id: 'repair-fsync',
  name: 'fsynced session-file repair (src/session-file-repair.ts)',
  defence: 'the session-file repair fsyncs its backup and temporary before the rename (src/session-file-repair.ts)',
  why: "neither JSONL release syncs them (a power loss just after the repair empties the transcript); the model has no variant: the release's own repair (fr) does it",
  unlessParts: ['session-file-repair'],
};
const orphanRemovalPersisted: ModelDefence = {
  id: 'orphan-removal-persisted',
  name: 'persisted orphan removal (src/turn.ts)',
  defence: "an orphaned user entry leaves the transcript through the model's rewrite (backup, temporary, rename: src/turn.ts repairOrphanedTrailingUser)",
  why: "the release's handling around its merge decision (om) is not read; seed 003's in-memory repair is the bug orphan-leaf, not tied to a release",
};
const durableExecKeys: ModelDefence = {
  id: 'durable-exec-keys',
  name: 'durable exec keys (src/gateway.ts)',
  defence: 'durable exec keys: a key per exec event (start and finish) written with the prompt row, a replay left out (src/gateway.ts onNodeEvent, persistHeartbeatPrompt)',
  why: "the release authorizes each exec event per run and connection (NodeRegistry.authorizeSystemRunEvent), which the model runs only with the release's node events (ne); the in-memory variant alone would double a finish the release refuses",
  unlessParts: ['node-events'],
};
const heldHeartbeatRow: ModelDefence = {
  id: 'held-heartbeat-row',
  name: 'held heartbeat prompt row (src/heartbeat-run.ts)',
  defence: "the heartbeat's own run writes its prompt row first and holds it, and retries a failed run (heartbeatRun mode gateway, src/heartbeat-run.ts)",
  why: "the release's duplicate guard is read to be 2026.4.24's, but how its run consumes events and retries is not read",
};
const modelLockReclaim: ModelDefence = {
  id: 'lock-claimed-reclaim',
  name: 'claimed lock reclaim (src/session-write-lock.ts)',
  defence: "the model's session write lock, reclaiming a stale lock under a claim (lockReclaim claimed, src/session-write-lock.ts)",
  why: 'the release reads the lock again just before removing it (remove-if-unchanged), a one-call window the model has no variant for; its 60 s timeout and watchdog differ too: the release\'s own lock (wl) does it',
  unlessParts: ['session-write-lock'],
};
const tornLockAtOnce: ModelDefence = {
  id: 'torn-lock-stale-at-once',
  name: 'torn lock stale at once (src/session-write-lock.ts)',
  defence: "a lock file whose payload does not parse (torn by a power loss) is stale at once (the model's lock, src/session-write-lock.ts)",
  why: "the release removes it only once its mtime is older than the stale time (2026.4.24: 30 min; 2026.7.1: a 30 s grace) or at the gateway's start sweep: the release's own lock (wl) does it",
  unlessParts: ['session-write-lock'],
};
const lockHeldWholeAttempt: ModelDefence = {
  id: 'lock-held-whole-attempt',
  name: 'lock held for the whole attempt (src/turn.ts)',
  defence: 'the run attempt holds the session write lock for the whole attempt (src/turn.ts runTurn)',
  why: 'the release lets it go while the model call is in flight and checks the file did not change (EmbeddedAttemptSessionTakeoverError): not modelled, with or without wl',
};
const chatDedupeDurable: ModelDefence = {
  id: 'chat-dedupe-durable',
  name: 'durable chat.send keys (src/chat-send.ts)',
  defence: "chat.send's key is the messages_in row id, durable across a gateway restart (clients.dedupe durable, src/chat-send.ts)",
  why: "the dedupe map was read in 2026.7.1 only (memory, lost at a restart); this release's is not read",
};
const chatResumeReplays: ModelDefence = {
  id: 'chat-resume-replays',
  name: 'resume replays finals (src/chat-send.ts)',
  defence: 'a resumed client connection is sent the finals after its last seq (src/chat-send.ts onResume)',
  why: "the release replays nothing and its client reloads chat.history; no variant (docs/MODEL.md \"Client connections\", departs on purpose)",
};
const sqliteEraStores: ModelDefence = {
  id: 'jsonl-stores-for-sqlite',
  name: 'JSONL transcripts, repair and lock for the SQLite agent DB (src/session-manager.ts)',
  defence: "the model's JSONL transcripts, its session-file repair and its session write lock (src/session-manager.ts, src/session-file-repair.ts, src/session-write-lock.ts)",
  why: "the release keeps transcripts in its SQLite agent DB behind the session lane and a durable writer claim (its write lock is a no-op stub, its repair gone): not simulated yet (part 2)",
};
const sqliteEraExecKeys: ModelDefence = {
  ...durableExecKeys,
  why: "the release authorizes each exec event per run and connection (NodeRegistry.authorizeSystemRunEvent, as 2026.7.1), which the model runs only with the release's node events (ne, its session entry read from the simulated agent DB)",
  unlessParts: ['node-events'],
};
const sqliteEraHeartbeat: ModelDefence = {
  ...heldHeartbeatRow,
  why: "the release's heartbeat runner is not read",
};

/** The JSONL-era defences every such release keeps. */
const jsonlEraCommon: readonly ModelDefence[] = [runnerExactlyOnce, heartbeatReplyUnguarded, runAttemptLockWithMirror, tornLockAtOnce, runnerTranscriptSynced, mirrorSynced, repairSynced, orphanRemovalPersisted];

/** 2026.7.1 and 2026.7.35 (releases.ts isJulyLine). */
const julyLine: ReleaseSurroundings = {
  settings: [mirrorKeyCurrentFile, chatDedupeInMemory],
  defences: [...jsonlEraCommon, durableExecKeys, heldHeartbeatRow, modelLockReclaim, lockHeldWholeAttempt, chatResumeReplays],
};

/** The table: per release, the settings around the parts and the defences of the fixed model that stay. */
const surroundingsOf: Readonly<Record<OpenclawRelease, ReleaseSurroundings>> = {
  '2026.4.24': {
    settings: [mirrorUnlocked, lockReclaimUnguarded, execDedupeInMemory, queueLastText, heartbeatRunAsReleased],
    defences: [...jsonlEraCommon, mirrorKeyAllFiles, chatDedupeDurable, chatResumeReplays],
  },
  '2026.7.1': julyLine,
  // The same code as 2026.7.1 in every part and in what these settings stand for (the chat.send dedupe map's 5 min TTL
  // read again there); docs/MODEL.md, "2026.7.35, the last JSONL-era release".
  '2026.7.35': julyLine,
  '2026.8.1': { settings: [], defences: [runnerExactlyOnce, heartbeatReplyUnguarded, sqliteEraStores, sqliteEraExecKeys, sqliteEraHeartbeat, chatDedupeDurable, chatResumeReplays] },
  '2026.9.6': { settings: [], defences: [runnerExactlyOnce, heartbeatReplyUnguarded, sqliteEraStores, sqliteEraExecKeys, sqliteEraHeartbeat, chatDedupeDurable, chatResumeReplays] },
};

/** The whole table of a release (`list` shows it). */
export function openclawSurroundingsOf(release: OpenclawRelease): ReleaseSurroundings {
  return surroundingsOf[release];
}

/** Whether a setting or a defence holds with these parts (no part that stands for it runs). */
function holdsWith(entry: { unlessParts?: readonly OpenclawGatewayPart[] }, parts: readonly OpenclawGatewayPart[]): boolean {
  return !(entry.unlessParts ?? []).some((part) => parts.includes(part));
}

/** The settings a choice's run may apply: the release's, without those a real part of the choice does itself. */
export function openclawSettingsFor(release: OpenclawRelease, parts: readonly OpenclawGatewayPart[]): SurroundingSetting[] {
  return surroundingsOf[release].settings.filter((setting) => holdsWith(setting, parts));
}

/** What runs around a choice's parts: its settings, or none when the choice keeps the fixed model around them. */
export interface AroundTheParts {
  /** The table's revision, or null: the fixed model's defences around the parts (a seed string made before the table). */
  revision: number | null;
  /** The settings that changed this run's model (the rest did not meet the fixed value they replace). */
  applied: SurroundingSetting[];
  /** The fixed model's defences in force around the parts: the table's, and with `revision` null every setting's too. */
  defences: ModelDefence[];
}

/**
 * The model's setup for a run with a choice's parts: the release's settings applied, in the table's order, to the
 * fixed model's (`around: 'model'` applies none).
 */
export function aroundTheParts(choice: { release: OpenclawRelease; parts: readonly OpenclawGatewayPart[]; around?: 'model' }, setup: ModelSetup): AroundTheParts & { setup: ModelSetup } {
  const defences = surroundingsOf[choice.release].defences.filter((defence) => holdsWith(defence, choice.parts));
  if (choice.around === 'model') {
    const kept = openclawSettingsFor(choice.release, choice.parts).map((setting) => ({ id: setting.id, name: `fixed model for: ${setting.name}`, defence: `the fixed model where the release has: ${setting.release}`, why: 'a seed string made before the table of the parts around (around: model)' }));
    return { revision: null, applied: [], defences: [...kept, ...defences], setup };
  }
  let current = setup;
  const applied: SurroundingSetting[] = [];
  for (const setting of openclawSettingsFor(choice.release, choice.parts)) {
    const next = setting.apply(current);
    if (next === undefined) continue;
    applied.push(setting);
    current = next;
  }
  return { revision: openclawSurroundingsRevision, applied, defences, setup: current };
}
