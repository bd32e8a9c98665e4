// On a key-less platform the network's replay of a send (a `net.duplicate`, which carries the id of the send it
// replays) excuses the one showing it carried (at-least-once.ts). A second send of the same text by the gateway that
// the platform shows in the same millisecond, after the first was acknowledged, is no replay and is not excused.
import { describe, expect, it } from 'vitest';
import { atLeastOnceRepeats } from '../../sim/checkers/at-least-once.ts';
import { KeylessHistory } from './keyless-history.ts';

const text = 'you are free at 2pm';

describe('a replay on a key-less platform', () => {
  it.each([
    ['before', true],
    ['after', false],
  ])('excuses the replayed showing and not a second send shown in the same millisecond (replay %s it)', (_order, replayFirst) => {
    const history = new KeylessHistory();
    const id = history.gatewaySends(1_000);
    const first = history.platformShows(1_010, id, text);
    history.arrives(1_015, first.ackId);
    const secondId = history.gatewaySends(4_990); // a second send of the same row: the gateway knew the first landed
    type Showing = ReturnType<typeof history.platformShows>;
    const show = (replay: boolean): Showing => history.platformShows(5_000, replay ? id : secondId, text, replay);
    let replay: Showing;
    let second: Showing;
    if (replayFirst) {
      replay = show(true);
      second = show(false);
    } else {
      second = show(false);
      replay = show(true);
    }
    const repeats = atLeastOnceRepeats(history.observations());
    expect(repeats.replayed(replay.shown)).toBe(true);
    expect(repeats.replayed(second.shown)).toBe(false);
    expect(repeats.excused(second.shown)).toBe(false);
  });
});
