// On a key-less platform a lost acknowledgement excuses the one resend it caused (at-least-once.ts), not every later
// copy of the same text: once a retry was shown and its acknowledgement reached the gateway, a third copy is a second
// send the checkers report. A stock phrase is another matter: an older send of the same text whose acknowledgement
// was lost may still be retried after a newer answer's send of that text was acknowledged. Hand-built histories
// (keyless-history.ts) place each acknowledgement exactly.
import { describe, expect, it } from 'vitest';
import { atLeastOnceRepeats, type RepeatExcuse } from '../../sim/checkers/at-least-once.ts';
import { KeylessHistory } from './keyless-history.ts';

const text = 'you are free at 2pm';

/** A send whose acknowledgement is lost, its retry 6 s later (acknowledged), and a third copy 2 s after that. */
function retryThenThird(): { retry: ShowingAndAck; third: ShowingAndAck; repeats: RepeatExcuse } {
  const history = new KeylessHistory();
  history.platformShows(1_010, history.gatewaySends(1_000), text); // its acknowledgement is lost
  const retry = history.platformShows(7_010, history.gatewaySends(7_000), text);
  history.arrives(7_015, retry.ackId);
  const third = history.platformShows(9_010, history.gatewaySends(9_000), text);
  history.arrives(9_015, third.ackId);
  return { retry, third, repeats: atLeastOnceRepeats(history.observations()) };
}

type ShowingAndAck = ReturnType<KeylessHistory['platformShows']>;

describe('a lost acknowledgement on a key-less platform', () => {
  it('excuses the retry, and not a third copy sent after the retry was acknowledged', () => {
    const { retry, third, repeats } = retryThenThird();
    expect(repeats.excused(retry.shown)).toBe(true);
    expect(repeats.excused(third.shown)).toBe(false);
  });

  it('puts back the send an excuse claimed when a checkpoint is restored (the attribution drops a trial assignment)', () => {
    const { retry, third, repeats } = retryThenThird();
    // Unclaimed, the first send could be retried by either later copy.
    expect(repeats.mayRepeat(third.shown)).toBe(true);
    const restore = repeats.checkpoint();
    expect(repeats.excused(retry.shown)).toBe(true);
    expect(repeats.mayRepeat(third.shown)).toBe(false);
    restore();
    expect(repeats.mayRepeat(third.shown)).toBe(true);
    expect(repeats.excused(third.shown)).toBe(true);
  });

  it('excuses each copy of a chain of lost acknowledgements, each retrying the one before', () => {
    const history = new KeylessHistory();
    history.platformShows(1_010, history.gatewaySends(1_000), text);
    const retry = history.platformShows(7_010, history.gatewaySends(7_000), text); // lost too
    const again = history.platformShows(13_010, history.gatewaySends(13_000), text);
    history.arrives(13_015, again.ackId);
    const repeats = atLeastOnceRepeats(history.observations());
    expect(repeats.excused(retry.shown)).toBe(true);
    expect(repeats.excused(again.shown)).toBe(true);
  });

  it('excuses the retry of an older send of a stock phrase shown after a newer, acknowledged send of it', () => {
    const history = new KeylessHistory();
    history.platformShows(1_010, history.gatewaySends(1_000), text); // answer A: its acknowledgement is lost
    const newer = history.platformShows(3_010, history.gatewaySends(3_000), text); // answer B: acknowledged
    history.arrives(3_015, newer.ackId);
    const retryOfOlder = history.platformShows(7_010, history.gatewaySends(7_000), text);
    history.arrives(7_015, retryOfOlder.ackId);
    // Attribution asks only of the showing no answer explains: the third (A's and B's showings fill their slots).
    expect(atLeastOnceRepeats(history.observations()).excused(retryOfOlder.shown)).toBe(true);
  });
});
