// Ports for a test that calls a release's function outside a simulated world: any use of timers or randomness is a
// mistake of the test, so each throws (or rejects) at once.
import type { Random, Timers } from '../../src/ports.ts';

export const noTimers: Timers = {
  sleep: () => Promise.reject(new Error('no timers in this test')),
  setTimer: () => {
    throw new Error('no timers in this test');
  },
};

export const noRandom: Random = {
  int: () => {
    throw new Error('no randomness in this test');
  },
  chance: () => {
    throw new Error('no randomness in this test');
  },
  pick: () => {
    throw new Error('no randomness in this test');
  },
};
