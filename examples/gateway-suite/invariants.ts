// Your own invariant, judged like the built-in ones from the ground-truth ledger (what the user typed and was shown,
// which commands ran) and never from what the gateway says about itself: the assistant never speaks first. Every
// message the user is shown in a session comes after something that asked for it there (a message the user typed,
// or a command the agent ran).
import type { CustomInvariant } from 'gatesim';

export const noUnpromptedReply: CustomInvariant = {
  name: 'no-unprompted-reply',
  class: 'correctness',
  description: 'the assistant never speaks first: every message shown follows something that asked for it',
  check(observations) {
    const { ledger } = observations;
    return ledger.shown.flatMap((shown) => {
      const asked =
        ledger.userMessages.some((message) => message.sessionKey === shown.sessionKey && message.sentAtMs <= shown.atMs) ||
        ledger.commands.some((command) => command.sessionKey === shown.sessionKey && command.requestedAtMs <= shown.atMs);
      return asked ? [] : [{ message: `${shown.sessionKey}: "${shown.text}" was shown before anything asked for it`, timeMs: shown.atMs }];
    });
  },
};
