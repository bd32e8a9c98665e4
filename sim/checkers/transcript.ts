// transcript-consistent, decided from the JSONL files alone (never from the runner's memory). Checked whenever the
// harness asks (after each completed turn: the model's note may trigger the check, never decide it) and at the end:
// - every message entry in a session's file, reloaded as pi reloads it (the leaf is the last entry in file order),
//   is on the active branch: a dead-end entry is a durable second copy or a lost branch;
// - an assistant entry that was once durable (synced) on the active branch never disappears from it. Entries are
//   known by what they carry (the closing text, or the API-issued tool-call ids), not by their entry ids, so a
//   rewrite that re-ids an entry does not count as a loss and one that drops it does.
import type { Simulation } from '../kernel/simulation.ts';
import { activeBranch, familyBranch, type JsonlEntry, readFamilies, readFamilyFiles, type Transcript } from './durable.ts';
import type { Observations } from './observations.ts';
import { classOf, type Violation } from './violation.ts';

function identity(entry: JsonlEntry): string {
  return entry.toolCallIds.length > 0 ? `calls:${entry.toolCallIds.join(',')}` : `text:${entry.text}`;
}

export class TranscriptMonitor {
  readonly violations: Violation[] = [];
  /** The files already reported, by the state.db session id they belong to (a key's session id before any rotation). */
  private readonly reportedSessionIds = new Set<string>();
  /** Identities of assistant entries seen durable on an active branch, by session, with the step first seen. */
  private readonly durableAssistants = new Map<string, Map<string, number>>();

  constructor(
    private readonly sim: Simulation,
    private readonly sessions: readonly string[],
  ) {}

  /** Check every session's files (each session of its family has its own) now; `step` and `timeMs` place a violation. */
  check(step: number, timeMs: number): void {
    const families = readFamilies(this.sim, this.sessions);
    for (const [session, files] of readFamilyFiles(this.sim, families, 'current')) for (const file of files) this.checkFile(session, file, step, timeMs);
    for (const [session, files] of readFamilyFiles(this.sim, families, 'synced')) {
      const seen = this.durableAssistants.get(session) ?? new Map<string, number>();
      for (const file of files) for (const entry of activeBranch(file.entries)) if (entry.role === 'assistant' && !seen.has(identity(entry))) seen.set(identity(entry), step);
      this.durableAssistants.set(session, seen);
    }
  }

  private checkFile(session: string, transcript: Transcript, step: number, timeMs: number): void {
    const sessionId = transcript.sessionId ?? session;
    if (this.reportedSessionIds.has(sessionId)) return;
    const onBranch = new Set(activeBranch(transcript.entries).map((entry) => entry.id));
    const off = transcript.entries.filter((entry) => !onBranch.has(entry.id));
    if (off.length === 0) return;
    this.reportedSessionIds.add(sessionId);
    this.violations.push({
      invariant: 'transcript-consistent',
      message: `${sessionId}.jsonl: ${off.length} entries are off the active branch (${off.map((entry) => `${entry.role} ${entry.id} "${entry.text.slice(0, 40)}"`).join(', ')})`,
      step,
      timeMs,
      class: classOf('transcript-consistent'),
    });
  }

  /** At the end: the last check, then every once-durable assistant entry is still on its active branch. */
  finish(o: Observations): Violation[] {
    this.check(Math.max(0, o.events.length - 1), o.endMs);
    const out = [...this.violations];
    for (const [session, seen] of this.durableAssistants) {
      const branch = new Set(familyBranch(o.durable, session).map(identity));
      const lost = [...seen.keys()].filter((key) => !branch.has(key));
      if (lost.length === 0) continue;
      out.push({
        invariant: 'transcript-consistent',
        message: `${session}: ${lost.length} assistant entries that were durable are gone from the active branch (${lost.map((key) => key.slice(0, 50)).join('; ')})`,
        step: Math.max(0, o.events.length - 1),
        timeMs: o.endMs,
        class: classOf('transcript-consistent'),
      });
    }
    return out;
  }
}
