// no-lost-reply and a turn re-formed with a new prompt: m0's run sends its tool message, then the runner is killed
// before the run ends; m1 arrives meanwhile and joins the re-formed turn, whose new prompt gets a new answer with the
// same message. The user saw it once, for these messages: the new answer's copy is not lost when it is not shown
// again, since the answer it superseded showed it for the same messages. In chaos (campaign seed 99) the fixed runner
// did not send it again (a replayed tool call recorded the payload in the re-formed turn, and seed 001's fix then
// suppressed the closing block); here the platform never takes the second copy. Under the old rule the new answer's
// message was reported never shown.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { forMessage, handPlan, reply, user, withRun } from '../model/support.ts';
import type { OutboundSend } from '../../src/protocol.ts';
import { type Prepare, shown, tamperNetwork } from './support.ts';

const sql = await loadSqlJs();

const plan = handPlan(
  [user(1_000, 'can you check flights?'), user(3_500, 'and calendar?')],
  [{ kind: 'kill-at-phase', phase: 'tool-send', nth: 0, delayMs: 0, process: 'runner', restartAfterMs: 5_000 }],
);

/** Both answers send the same tool message; the answer to both messages closes with its own reply. */
const script = forMessage({
  0: { toolCalls: [{ name: 'send_message', text: 'looking now' }], result: reply('flights found') },
  1: { toolCalls: [{ name: 'send_message', text: 'looking now' }], result: reply('flights and calendar found') },
});

/** Every send of `text` to the platform after the first is lost on the way. */
const onlyFirstSendOf =
  (text: string): Prepare =>
  (sim, model, world) => {
    let sent = false;
    tamperNetwork((_from, to, payload) => {
      if (to !== 'platform' || (payload as Partial<OutboundSend>).type !== 'send' || (payload as OutboundSend).text !== text) return [payload];
      if (sent) return [];
      sent = true;
      return [payload];
    })(sim, model, world);
  };

describe('a re-formed turn', () => {
  it('owes no tool message that the answer it superseded already showed for the same messages', async () => {
    await withRun(sql, { bugs: [], plan, script, prepare: onlyFirstSendOf('looking now') }, (result) => {
      expect(result.ledger.answers.filter((answer) => answer.toolCalls.some((call) => call.text === 'looking now'))).toHaveLength(2);
      expect(shown(result)).toEqual(['looking now', 'flights and calendar found']);
      expect(result.violations).toEqual([]);
    });
  });
});
