// What the checkers know of the system under test, handed to them by the run (docs/ARCHITECTURE.md section 5: the
// checkers import nothing from src/; the system's canned texts, file locations and limits reach them as a description
// of the system under test, which the model or a real component supplies). sim/run/harness.ts builds the model's
// description from the model's public exports and hands it to checkRun and the TranscriptMonitor; a real component
// hands its own. Plain data and one function of a session id, nothing the checkers could call into the system with.

/** The system under test as the checkers see it: its canned replies, where it keeps its durable state, its limits. */
export interface SystemDescription {
  /** A name for reports and tests (the model, or the real component). */
  name: string;
  /** The reply the system shows, without the LLM, when it gives up on a message or command after repeated errors. */
  errorReply: string;
  /** The reply the system shows, without the LLM, once a `/clear` has rotated the session. */
  clearedReply: string;
  /** Where Hermes' state.db (`messages`, `sessions`) lives on the simulated disk. */
  stateDbPath: string;
  /**
   * Where a SQLite-era OpenClaw release keeps its agent DB (sessions and transcript events, read by agent-db.ts), when
   * the run has one; absent for the model and every other system.
   */
  agentDbPath?: string;
  /** Where the pi JSONL transcript of a session lives on the simulated disk, by session id (`<sessionId>.jsonl`). */
  transcriptPath(sessionId: string): string;
  /** The most messages one LLM prompt takes (nanoclaw's batch): an older context message may be left out of it. */
  maxMessagesPerPrompt: number;
  /**
   * How long the sender of an outbound message waits for the platform's acknowledgement before it counts the send
   * failed and may send the message again (the sender's own timeout: a resend sooner, with the acknowledgement neither
   * arrived nor lost and no restart in between, is a second send in flight, not a retry).
   */
  sendAckTimeoutMs: number;
  /**
   * The longest the system waits before it tries a failed turn (or a message whose claim it reset) again: a message
   * that failed just before the faults stopped may wait this long before its next try (answered-in-time).
   */
  retryWaitMaxMs: number;
}

/** The canned replies of a system, the error reply first (the order `cannedReplies` always had). */
export function cannedRepliesOf(system: SystemDescription): readonly [string, string] {
  return [system.errorReply, system.clearedReply];
}

/**
 * The modelled gateway as docs/MODEL.md and docs/API.md document it, written here as data (nothing is imported from
 * src/). A run never judges by it: the harness always hands the checkers the description the system under test
 * supplies. It serves only callers that build observations or read a disk without handing a description (hand-built
 * histories in tests, library callers of readDurableState), and a test (test/checkers/the-judge-shares-no-code-with-
 * the-accused.test.ts) keeps it equal to the model's own, so such a caller judges the model it thinks it does.
 */
export const referenceSystem: SystemDescription = Object.freeze({
  name: 'gatesim model (documented)',
  errorReply: 'Sorry, something went wrong. Please try again.',
  clearedReply: 'Session cleared.',
  stateDbPath: '/data/state.db',
  transcriptPath: (sessionId: string): string => `/data/sessions/${encodeURIComponent(sessionId)}.jsonl`,
  maxMessagesPerPrompt: 10,
  sendAckTimeoutMs: 5_000,
  retryWaitMaxMs: 80_000,
});
