// Rows left pending by design (issue 48 item 6): tool responses the host writes into a session's inbound.db after the
// tool that asked for them gave up waiting. nanoclaw's host answers the container's `ncl` CLI with a `cli_response`
// row (src/cli/delivery-action.ts: kind 'system', trigger 0, status pending) and a button click on an
// ask_user_question card with a `question_response` row (src/modules/interactive/index.ts); the waiting tool reads its
// row and acknowledges it (`processing_ack` completed: container/agent-runner/src/cli/ncl.ts pollResponse,
// src/mcp-tools/interactive.ts). A response that comes after the tool's deadline is read by no one: no poll takes it
// (the poll loop drops kind 'system', poll-loop.ts) and nothing acknowledges it, so it stays pending for good, above
// every message that was waiting when it was written.
//
// The model's rows are of kind `response` (its `system` kind is the heartbeat's prompt row, which runs as a turn), with
// trigger 0, so neither the host's wake (host-sweep.ts) nor the heartbeat's lane check counts them as work. The plan
// says when each burst comes (`ModelKnobs.lateResponses`); a gateway that is down at that time writes it when it starts
// again. The ids are deterministic and the insert idempotent, so a restarted gateway writes no row twice.
import { assert, assertNonNegativeInteger } from './assert.ts';
import { retryBusy } from './busy.ts';
import type { LateResponses } from './config.ts';
import type { ProcessContext } from './ports.ts';
import type { SessionDbs } from './session-dbs.ts';

/** The kind of a tool response row: no poll takes it (claims.ts fetchBatch skips it on purpose). */
export const responseKind = 'response';

/** The id of the index-th response row of a burst. */
export function lateResponseRowId(burst: LateResponses, index: number): string {
  return `response:${burst.sessionKey}:${burst.atMs}:${index}`;
}

/** Writes each burst at its time (at once for one whose time has passed), oldest first, each in one transaction. */
export async function writeLateResponses(ctx: ProcessContext, dbs: SessionDbs, bursts: readonly LateResponses[]): Promise<void> {
  const ordered = [...bursts].sort((a, b) => a.atMs - b.atMs);
  for (const burst of ordered) {
    assertNonNegativeInteger(burst.atMs, `late responses of ${burst.sessionKey} atMs`);
    assert(Number.isSafeInteger(burst.count) && burst.count >= 1, `a burst of late responses has at least one row, not ${burst.count}`);
    const waitMs = burst.atMs - ctx.clock.nowMs();
    if (waitMs > 0) await ctx.timers.sleep(waitMs);
    const inbound = await dbs.inboundDb(burst.sessionKey);
    const nowMs = ctx.clock.nowMs();
    const inserted = await retryBusy(ctx, () =>
      inbound.transaction((tx) => {
        let written = 0;
        for (let index = 0; index < burst.count; index++) {
          const seq = Number(tx.query('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages_in')[0]?.next ?? 1);
          written += tx.run('INSERT OR IGNORE INTO messages_in(id, seq, kind, content, trigger, created_at) VALUES (?, ?, ?, ?, 0, ?)', [
            lateResponseRowId(burst, index),
            seq,
            responseKind,
            JSON.stringify({ type: 'cli_response', requestId: `late-${burst.atMs}-${index}` }),
            nowMs,
          ]).changes;
        }
        return written;
      }),
    );
    assert(inserted >= 0 && inserted <= burst.count, `${inserted} of a burst of ${burst.count} late responses written`);
    ctx.note('late-responses', { session: burst.sessionKey, count: burst.count, inserted });
  }
}
