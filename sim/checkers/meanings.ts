// What each built-in invariant means, in one line: `gatesim list` prints it beside the name. The README's "What is
// checked" section says the same at more length; docs/MODEL.md says how replies are attributed.
import type { BuiltinInvariantName } from './violation.ts';

export const invariantMeanings: Readonly<Record<BuiltinInvariantName, string>> = {
  'one-assistant-row-per-visible-reply': 'each reply the user saw has exactly one assistant row in state.db and on the JSONL active branch, and every row is something the LLM produced',
  'no-double-ingestion': 'each message the user typed, and each command, is at most one user turn in each transcript',
  'no-duplicate-visible-reply': 'the user never sees one answer twice, nor an old reply again for a new message',
  'no-lost-reply': 'everything the LLM produced for the user is shown (a verbatim repeat of a sent payload may be dropped)',
  'transcript-consistent': 'the JSONL, reloaded as pi reloads it, keeps every message on its active branch and loses no assistant entry once durable',
  'no-lost-user-message': 'every message the gateway acknowledged reaches both transcripts',
  'every-inbound-answered': 'liveness: once the faults stop, every accepted message gets a reply',
  'quiescent-after-heal': 'liveness: once the faults stop, no process is killed or crashes again',
  'answered-in-time': 'liveness: each message is answered within 30 minutes of the first LLM request about it, and within the longest retry wait of the system and 2 minutes more of the faults stopping',
  supervision: 'liveness: no supervisor kills a restarted process before its records can be stale, nor one process more than 6 times in a row with no progress',
  'failure-notice-final': 'once the user was shown the error reply for a message or command, the LLM is never asked about it again, and a /clear told it failed starts no new session',
  'one-send-in-flight': 'one outbound message is never sent while an earlier send of it is in flight, and again only after a restart, a timed-out wait or a lost acknowledgement',
  'effect-at-most-once': 'each action a tool asked an external service for takes effect at most once, and never after the user was shown the error reply for its request',
  'context-holds-durable-turns': "every LLM request's context holds every durable turn of its session committed before it was built (a dashboard's turn, an answer already shown)",
  'no-process-crash': 'no process of the system dies of an error it does not handle',
};
