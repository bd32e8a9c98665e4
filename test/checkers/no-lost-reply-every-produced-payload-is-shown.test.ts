// no-lost-reply: every distinct payload an answer of the LLM meant for the user (a send_message payload or a
// `<message to="user">` block of its closing text) is shown to the user. The sabotage swallows, on the network, every
// send of the second turn's interim tool message; the gateway keeps retrying it (its slow poller never gives up), the
// closing reply still goes out, so the message counts as answered and only the lost payload is reported.
import { describe, expect, it } from 'vitest';
import type { OutboundSend } from '../../src/protocol.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { invariants, marker, session0, withRun } from '../model/support.ts';
import { firstReply, input, interim, messagesOf, secondReply, shown, tamperNetwork } from './support.ts';

const sql = await loadSqlJs();
const invariant = 'no-lost-reply';

const swallowInterim = tamperNetwork((_from, to, payload) => {
  const send = payload as Partial<OutboundSend>;
  return to === 'platform' && send.type === 'send' && send.text === interim ? [] : [payload];
});

describe('no-lost-reply', () => {
  it('holds on the untouched run: the tool message and the closing reply are both shown', async () => {
    await withRun(sql, input(), (result) => {
      expect(shown(result)).toEqual([firstReply, interim, secondReply]);
      expect(result.violations).toEqual([]);
    });
  });

  it('fires, naming the tool message, when every send of it is lost on the way to the platform', async () => {
    await withRun(sql, input(swallowInterim), (result) => {
      expect(shown(result)).toEqual([firstReply, secondReply]);
      expect(invariants(result)).toEqual([invariant]);
      expect(messagesOf(result, invariant)).toEqual([`${session0}: the tool message "${interim}" the LLM produced for ${marker(1)} was never shown`]);
    });
  });
});
