// OpenClaw's delivery mirror (`appendAssistantMessageToSessionTranscript` in `src/config/sessions/transcript.ts`,
// called by `deliverOutboundPayloads` once a send has succeeded): the gateway appends the delivered text to the
// session's JSONL transcript as an assistant message of its own, marked `provider: "openclaw"`, `model:
// "delivery-mirror"`, with the send's idempotency key. It is the transcript's second writer, beside the runner:
// - the text is the delivered text trimmed; nothing is mirrored for an empty text;
// - under the session write lock (session-write-lock.ts; OpenClaw PR #21828: without it the mirror's append lands in
//   the middle of a run, whose next append then forks the tree), a file that does not exist gets a header line,
//   the file is scanned for a message carrying the same idempotency key (PR #44063: without it a redelivery mirrors the
//   reply again), and the gateway's own SessionManager opens the file and appends the entry;
// - the key check also reads the files of the key's earlier sessions (after a /clear): a reply mirrored before the
//   rotation and redelivered after it (the gateway killed before it marked the row) is not mirrored again into the new
//   session, where the user never saw it. OpenClaw (2026.4.24 and 2026.7.1, `transcriptHasIdempotencyKey` on the
//   resolved session file) reads the current file alone: the mode `current-file`;
// - the file is the session's current one: after a /clear the key's current session (read from state.db, the model's
//   record of rotations; OpenClaw resolves the session entry's current sessionFile from sessions.json), so the mirror
//   writes, and locks, the same file the runner's current session appends to;
// - it is best effort after the send: a failure (the lock stays busy past its timeout, state.db busy) is logged and
//   the mirror is lost, never the delivery, whose mark follows (PR #89640: "channel send already succeeded"). Only an
//   assertion of the model (a bug) escapes.
import type { DeliveryMirrorMode } from './config.ts';
import { isoAt } from './pi-format.ts';
import { readLine, readLines } from './line-memo.ts';
import type { ProcessContext } from './ports.ts';
import type { SessionManagerFactory } from './session-manager-port.ts';
import { acquireSessionWriteLock, type SessionWriteLock, SessionWriteLockError, type SessionWriteLockPort } from './session-write-lock.ts';
import { transcriptPath } from './session-dbs.ts';
import { assert, ModelAssertionError } from './assert.ts';
import { SessionDb } from './session-db.ts';

/** One mirror append as the gateway asks it: the session's key, its current session and file, the delivered text. */
export interface MirrorAppendRequest {
  sessionKey: string;
  sessionId: string;
  path: string;
  /** The delivered text as sent (the append trims it). */
  text: string;
  /** The send's idempotency key; undefined when the gateway passes none (the `unkeyed` mode, before PR #44063). */
  idempotencyKey: string | undefined;
}

/** What an append did: wrote an entry, found one already there (by key, or a release's own rule), or wrote nothing. */
export type MirrorAppendOutcome = { appended: true; entryId: string } | { appended: false; existingEntryId: string; rule: string } | { appended: false; skipped: string };

/**
 * The mirror append (ensure the header, the key scan, the append) in place of the model's, called once per gateway
 * incarnation (src/environment.ts GatewayParts.mirrorAppend; a real release's under sim/real). `locksItself`: the
 * append takes the session write lock itself, so the mirror does not take it around the append.
 */
export interface MirrorAppendPort {
  readonly locksItself: boolean;
  append(request: MirrorAppendRequest): Promise<MirrorAppendOutcome>;
}

export class DeliveryMirror {
  /** The gateway's own handle on state.db, where the key's current session is read (opened at the first mirror). */
  private sessionDb: Promise<SessionDb> | undefined;

  constructor(
    private readonly ctx: ProcessContext,
    private readonly mode: DeliveryMirrorMode,
    private readonly open: SessionManagerFactory,
    /** The session write lock of this gateway incarnation (a real release's under sim/real); default the model's. */
    private readonly writeLock?: SessionWriteLockPort,
    /** The append of this gateway incarnation (a real release's under sim/real); default the model's own. */
    private readonly appendPart?: MirrorAppendPort,
  ) {
    assert(mode !== 'off', 'a delivery mirror is built only when the mirror is on');
  }

  /** Mirror a delivered reply into its session's transcript (best effort). */
  async mirrorDelivered(sessionKey: string, text: string, idempotencyKey: string): Promise<void> {
    const mirrorText = text.trim();
    if (mirrorText.length === 0) return;
    let lock: SessionWriteLock | undefined;
    try {
      const sessions = await this.sessionsOf(sessionKey);
      const sessionId = sessions.at(-1) ?? sessionKey;
      const path = transcriptPath(sessionId);
      // before PR #21828 (unlocked): the mirror wrote without the session write lock. An append that locks itself
      // (OpenClaw 2026.7.1's) takes it inside.
      if (this.mode !== 'unlocked' && this.appendPart?.locksItself !== true) lock = await (this.writeLock?.acquire(path) ?? acquireSessionWriteLock(this.ctx, path));
      if (this.appendPart === undefined) await this.append(sessionKey, path, mirrorText, idempotencyKey, sessions.slice(0, -1));
      else await this.appendThroughPart(this.appendPart, { sessionKey, sessionId, path, text, idempotencyKey: this.mode === 'unkeyed' ? undefined : idempotencyKey });
    } catch (error) {
      // OpenClaw logs a failed mirror and carries on: the delivery is marked all the same.
      if (error instanceof ModelAssertionError) throw error;
      this.ctx.note('mirror-skipped', { session: sessionKey, key: idempotencyKey, reason: error instanceof SessionWriteLockError ? error.reason : (error as Error).message });
    } finally {
      await lock?.release();
    }
  }

  /** The key's sessions, first to current (its first one is the key itself; each /clear chains a new one in state.db). */
  private async sessionsOf(sessionKey: string): Promise<string[]> {
    // An open that failed is tried again at the next mirror.
    this.sessionDb ??= SessionDb.open(this.ctx.sqlite).catch((error: unknown) => {
      this.sessionDb = undefined;
      throw error;
    });
    return (await this.sessionDb).sessionsOf(sessionKey);
  }

  /** The append of a part (a real release's): its outcome noted as the model's own append notes it. */
  private async appendThroughPart(part: MirrorAppendPort, request: MirrorAppendRequest): Promise<void> {
    const outcome = await part.append(request);
    const fields = { session: request.sessionKey, key: request.idempotencyKey ?? null };
    if (outcome.appended) this.ctx.note('mirror-appended', { ...fields, entry: outcome.entryId, locked: this.mode !== 'unlocked' || part.locksItself, real: true });
    else if ('existingEntryId' in outcome) this.ctx.note('mirror-deduped', { ...fields, entry: outcome.existingEntryId, rule: outcome.rule, real: true });
    else throw new Error(outcome.skipped);
  }

  private async append(sessionKey: string, path: string, text: string, idempotencyKey: string, earlierSessions: readonly string[]): Promise<void> {
    const { ctx } = this;
    const existing = await ctx.disk.read(path);
    // ensureSessionHeader: a missing file gets a header line first.
    if (existing === undefined) await ctx.disk.write(path, `${JSON.stringify({ type: 'session', version: 3, id: `mirror-${ctx.incarnation}`, timestamp: isoAt(ctx.clock.nowMs()), cwd: '/work' })}\n`);
    // before PR #44063 (unkeyed): no idempotency key check, so a redelivered reply is mirrored again.
    if (this.mode !== 'unkeyed' && hasIdempotencyKey(existing ?? '', idempotencyKey)) {
      ctx.note('mirror-deduped', { session: sessionKey, key: idempotencyKey });
      return;
    }
    // The fixed check reads the key's earlier files too (the releases' reads the current one alone: current-file).
    if (this.mode !== 'unkeyed' && this.mode !== 'current-file') {
      for (const sessionId of earlierSessions) {
        if (!hasIdempotencyKey((await ctx.disk.read(transcriptPath(sessionId))) ?? '', idempotencyKey)) continue;
        ctx.note('mirror-deduped', { session: sessionKey, key: idempotencyKey, file: sessionId });
        return;
      }
    }
    const session = await this.open(ctx, path);
    const entry = await session.appendMessage({ role: 'assistant', content: text, mirror: { idempotencyKey } }, '');
    assert(entry.message.mirror?.idempotencyKey === idempotencyKey, 'the mirror entry carries its idempotency key');
    ctx.note('mirror-appended', { session: sessionKey, key: idempotencyKey, entry: entry.id, locked: this.mode !== 'unlocked' });
  }
}

/** OpenClaw's transcriptHasIdempotencyKey: some line's message carries the key (lines that do not parse skipped). */
export function hasIdempotencyKey(text: string, idempotencyKey: string): boolean {
  // Split as OpenClaw splits (on \r?\n); a text without \r splits there as on \n, which readLines remembers.
  const read = readLines(text);
  for (const line of read.carriageReturn ? text.split(/\r?\n/).map(readLine) : read.lines) {
    // A line that does not parse, or parses to null, has no message (OpenClaw's read throws there and goes on).
    if (typeof line === 'object' && line !== null && (line as { message?: { idempotencyKey?: unknown } }).message?.idempotencyKey === idempotencyKey) return true;
  }
  return false;
}
