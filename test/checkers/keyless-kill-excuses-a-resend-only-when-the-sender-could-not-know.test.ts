// On a key-less platform a kill of the gateway excuses a resend only when the gateway could not know the first send
// landed (at-least-once.ts): killed after the acknowledgement arrived (its delivered mark may not have committed, and
// no black-box fact says whether it did), or the acknowledgement never reached a live gateway. Killed before the
// acknowledgement arrived, with the acknowledgement then reaching the restarted gateway (which marks the row as a late
// acknowledgement), the gateway knew: a resend after that is a second send. A gateway killed while its send was in
// flight may resend before the platform shows the first (the new incarnation cannot know of it), whichever copy the
// platform shows first; so may a gateway whose first send the network parked on a held link (its wait for the
// acknowledgement ran out); one incarnation sending twice before the platform answered, with nothing holding the
// first, is a second send.
import { describe, expect, it } from 'vitest';
import { atLeastOnceRepeats } from '../../sim/checkers/at-least-once.ts';
import { KeylessHistory } from './keyless-history.ts';

const text = 'you are free at 2pm';

describe('a kill of the gateway on a key-less platform', () => {
  it('excuses the resend when the gateway was killed after the acknowledgement arrived', () => {
    const history = new KeylessHistory();
    const first = history.platformShows(1_010, history.gatewaySends(1_000), text);
    history.arrives(1_015, first.ackId);
    history.killGateway(1_016, 1_000);
    const resend = history.platformShows(3_010, history.gatewaySends(3_000), text);
    expect(atLeastOnceRepeats(history.observations()).excused(resend.shown)).toBe(true);
  });

  it('excuses the resend when the gateway was killed before the acknowledgement arrived and it never reached the gateway', () => {
    const history = new KeylessHistory();
    history.platformShows(1_010, history.gatewaySends(1_000), text); // the acknowledgement arrives while the gateway is down
    history.killGateway(1_011, 1_000);
    const resend = history.platformShows(3_010, history.gatewaySends(3_000), text);
    expect(atLeastOnceRepeats(history.observations()).excused(resend.shown)).toBe(true);
  });

  it('reports the resend when the acknowledgement reached the restarted gateway before it sent again', () => {
    const history = new KeylessHistory();
    const first = history.platformShows(1_010, history.gatewaySends(1_000), text);
    history.killGateway(1_011, 1_000);
    history.arrives(2_500, first.ackId); // held on the link, it reaches the new incarnation
    const resend = history.platformShows(4_010, history.gatewaySends(4_000), text);
    expect(atLeastOnceRepeats(history.observations()).excused(resend.shown)).toBe(false);
  });

  it.each([
    ['the first', false],
    ['the resend', true],
  ])('excuses a resend made after a kill while the first send was still in flight (%s shown first)', (_first, resendFirst) => {
    const history = new KeylessHistory();
    const firstId = history.gatewaySends(8_010);
    history.killGateway(8_012, 1_000);
    const resendId = history.gatewaySends(10_012);
    const [earlier, later] = resendFirst ? [resendId, firstId] : [firstId, resendId];
    history.platformShows(10_454, earlier, text);
    const repeat = history.platformShows(10_454, later, text);
    history.arrives(10_943, repeat.ackId);
    expect(atLeastOnceRepeats(history.observations()).excused(repeat.shown)).toBe(true);
  });

  it('reports a second send made by the same incarnation before the platform showed the first', () => {
    const history = new KeylessHistory();
    const firstId = history.gatewaySends(8_010);
    const secondId = history.gatewaySends(10_012);
    history.platformShows(10_454, firstId, text);
    const repeat = history.platformShows(10_454, secondId, text);
    expect(atLeastOnceRepeats(history.observations()).excused(repeat.shown)).toBe(false);
  });

  it('excuses a resend made while the network held the first send on the link, whichever copy is shown first', () => {
    const history = new KeylessHistory();
    history.holdGatewayLink(23_561, 37_305);
    const firstId = history.gatewaySends(29_054);
    const resendId = history.gatewaySends(35_055); // the gateway's wait for an acknowledgement ran out
    history.platformShows(37_307, resendId, text);
    const repeat = history.platformShows(37_316, firstId, text);
    expect(atLeastOnceRepeats(history.observations()).excused(repeat.shown)).toBe(true);
  });
});
