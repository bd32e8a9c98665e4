// prompt-envelope (issue 24 item 4): OpenClaw 2026.4.24's submitted prompt and stored one (src/envelope.ts). Every chat
// run submits its prompt with the message's metadata envelope in front; the JSONL user entry is written as submitted
// and rewritten to the plain prompt only when the model call returns (a branch from its parent and a new plain entry;
// the enveloped one stays in the file off the branch). Faults that reach it: runner kills a few ms after the model call
// starts (the entry waits for its rewrite; on a flushed file it is durable) and at the other phases, timed kills and
// power losses, LLM errors and outages (a failed call leaves the enveloped entry for the retry to meet), stalls, busy
// databases, link faults, second writers (the delivery mirror appends under the write lock) and key-less platforms;
// group chat, bursts that grow a batch (collect, followup and interrupt lanes) and a /clear.
import fc from 'fast-check';
import type { Scenario } from './common.ts';
import { transcriptTurnsPlan } from './transcript-turns.ts';

export const promptEnvelope: Scenario = {
  name: 'prompt-envelope',
  description: "prompts submitted with OpenClaw's metadata envelope and stored plain only once the call returns, under kills, power losses, failed calls and growing batches",
  focus: [],
  plan: transcriptTurnsPlan({ minLength: 3, maxLength: 12 }, { promptEnvelope: fc.constant('submit-then-rewrite' as const) }),
};
