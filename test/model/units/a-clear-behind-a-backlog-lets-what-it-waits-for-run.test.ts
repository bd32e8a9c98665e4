// A /clear waits for every message before it that still wants a run (its session is theirs). nanoclaw's fetch looks at
// the newest 10 due rows only, so behind a long backlog the message the /clear waits for can lie outside that window:
// the /clear then waited for a run that no fetch ever started, and the session's lane stayed idle to the end of the
// run (chaos campaigns at seeds 8 and 11: two dozen accepted messages never reached state.db). The oldest due message
// it waits for now runs first: its claimed turn re-formed, or a batch of its own.
import { describe, expect, it } from 'vitest';
import { fetchBatch } from '../../../src/claims.ts';
import { SessionDbs } from '../../../src/session-dbs.ts';
import { loadSqlJs } from '../../../sim/kernel/sqlite.ts';
import { inProcess } from './support.ts';

const sql = await loadSqlJs();
const sessionKey = 'session-0';

/** in:0 (claimed by its own turn, or not), then a /clear, then nine chat messages: eleven pending rows. */
async function backlogFetch(claimed: boolean) {
  const { value } = await inProcess(sql, `clear-backlog-${claimed}`, async (ctx) => {
    const dbs = new SessionDbs(ctx.sqlite);
    const inbound = await dbs.inboundDb(sessionKey);
    const outbound = await dbs.outboundDb(sessionKey);
    await inbound.run("INSERT INTO messages_in(id, seq, kind, content, trigger, created_at) VALUES ('in:0', 1, 'chat', 'first [m0]', 1, 0)");
    await inbound.run("INSERT INTO messages_in(id, seq, kind, content, trigger, created_at) VALUES ('in:c', 2, 'command', '/clear [m1]', 1, 0)");
    for (let seq = 3; seq <= 11; seq++) await inbound.run('INSERT INTO messages_in(id, seq, kind, content, trigger, created_at) VALUES (?, ?, ?, ?, 1, 0)', [`in:${seq}`, seq, 'chat', `later [m${seq}]`]);
    if (claimed) await outbound.run("INSERT INTO turn_claims(message_id, turn_id, merged, claimed_at) VALUES ('in:0', 'in:0', 0, 0)");
    const batch = await fetchBatch(inbound, outbound, 1_000);
    return batch === undefined ? undefined : { turnId: batch.turnId, members: batch.members.map((member) => member.id) };
  });
  return value;
}

describe('a /clear behind a backlog of more than the fetch window', () => {
  it("runs the claimed turn it waits for (beyond the newest 10 rows), re-formed alone", async () => {
    expect(await backlogFetch(true)).toEqual({ turnId: 'in:0', members: ['in:0'] });
  });

  it('runs the unclaimed message it waits for as a batch of its own', async () => {
    expect(await backlogFetch(false)).toEqual({ turnId: 'in:0', members: ['in:0'] });
  });
});
