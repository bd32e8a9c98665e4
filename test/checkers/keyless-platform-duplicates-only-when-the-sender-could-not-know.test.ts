// A platform that ignores client idempotency keys shows every send it accepts. The fixed gateway sends a row again
// only when it cannot know the first send landed, and the checkers excuse exactly that (at-least-once.ts, from the
// ledger's showings and the kernel's network and kill facts): the platform's acknowledgement was lost, or came after
// the sender had sent again, or the sender was killed in between. A second send without such a window is reported.
// - clean: the untouched run on a key-less platform shows each reply once;
// - unavoidable: the link between platform and gateway is cut the moment the platform acknowledges the first reply
//   (its acknowledgement is lost), or the gateway is killed then: the user sees the reply twice, and nothing fires;
// - a bug: a sabotaged gateway that puts every send on the wire twice shows every reply twice, which fires
//   no-duplicate-visible-reply on a key-less platform; on a platform with keys the repeat is dropped, so the user sees
//   nothing wrong, and one-send-in-flight (in-flight.ts: the platform saw two sends of one key in flight at once)
//   fires on both.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Plan } from '../../sim/run/plan.ts';
import { invariants, withRun } from '../model/support.ts';
import { firstReply, input, interim, messagesOf, type Prepare, secondReply, shown, tamperNetwork, twoTurns } from './support.ts';

const sql = await loadSqlJs();
const keyless: Plan = { ...twoTurns, keylessPlatform: true };

/** Calls `act` once, the moment the platform acknowledges its first outbound send to the gateway. */
function atFirstAck(act: Prepare): Prepare {
  return (sim, model, world) => {
    const send = sim.network.send.bind(sim.network);
    let done = false;
    sim.network.send = (sender, to, payload) => {
      send(sender, to, payload);
      if (done || sender.name !== 'platform' || (payload as { type?: unknown }).type !== 'send.ack') return;
      done = true;
      act(sim, model, world);
    };
  };
}

const cutPlatformLink = atFirstAck((sim) => {
  sim.network.partition('platform', 'gateway');
  sim.scheduler.schedule(20_000, () => sim.network.heal('platform', 'gateway'));
});

const killGateway = atFirstAck((sim) => {
  sim.processes.kill('gateway');
  sim.processes.restart('gateway', 1_000);
});

const sendsTwice = tamperNetwork((from, _to, payload) => (from === 'gateway' && (payload as { type?: unknown }).type === 'send' ? [payload, payload] : [payload]));

describe('a platform without idempotency keys', () => {
  it('shows each reply once on the untouched run', async () => {
    await withRun(sql, input(undefined, keyless), (result) => {
      expect(result.ledger.platformHonoursKeys).toBe(false);
      expect(result.coverage['keyless-run'].idle).toBe(1);
      expect(shown(result)).toEqual([firstReply, interim, secondReply]);
      expect(result.violations).toEqual([]);
    });
  });

  it('shows a reply twice when its acknowledgement is lost, and nothing fires', async () => {
    await withRun(sql, input(cutPlatformLink, keyless), (result) => {
      expect(shown(result).filter((text) => text === firstReply)).toHaveLength(2);
      expect(shown(result)).toHaveLength(4);
      expect(result.violations).toEqual([]);
    });
  });

  it('shows a reply twice when the gateway is killed before it marks the row delivered, and nothing fires', async () => {
    await withRun(sql, input(killGateway, keyless), (result) => {
      expect(shown(result).filter((text) => text === firstReply)).toHaveLength(2);
      expect(result.violations).toEqual([]);
    });
  });

  it('fires no-duplicate-visible-reply (and one-send-in-flight) when the gateway sends every row twice', async () => {
    await withRun(sql, input(sendsTwice, keyless), (result) => {
      expect(shown(result)).toEqual([firstReply, firstReply, interim, interim, secondReply, secondReply]);
      expect(invariants(result)).toEqual(['no-duplicate-visible-reply', 'one-send-in-flight']);
      expect(messagesOf(result, 'no-duplicate-visible-reply')).toHaveLength(3);
      expect(messagesOf(result, 'one-send-in-flight')).toHaveLength(3);
    });
  });

  it('on a platform that honours keys the user sees each reply once, and one-send-in-flight still sees the race', async () => {
    await withRun(sql, input(sendsTwice), (result) => {
      expect(shown(result)).toEqual([firstReply, interim, secondReply]);
      expect(result.ledger.sendAttempts.filter((attempt) => attempt.shown === null)).toHaveLength(3);
      expect(invariants(result)).toEqual(['one-send-in-flight']);
      expect(messagesOf(result, 'one-send-in-flight')).toHaveLength(3);
    });
  });
});
