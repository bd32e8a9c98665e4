// transcript-consistent, decided from the JSONL files alone (never from the runner's memory). Checked whenever the
// harness asks (after each completed turn: the model's note may trigger the check, never decide it) and at the end:
// - every message entry in a session's file, reloaded as pi reloads it (the leaf is the last entry in file order),
//   is on the active branch: a dead-end entry is a durable second copy or a lost branch;
// - an assistant entry that was once durable (synced) on the active branch never disappears from it. Entries are
//   known by what they carry (the closing text, or the API-issued tool-call ids), not by their entry ids, so a
//   rewrite that re-ids an entry does not count as a loss and one that drops it does.
// The monitor also remembers the check at which each entry was first durable and the check from which a once-durable
// assistant entry stayed gone: the only times the JSONL format gives the checkers, they place violations
// (placement.ts).
import type { Simulation } from '../kernel/simulation.ts';
import { agentDbTranscriptProblems } from './agent-db.ts';
import { compactionDroppingOpenTurn } from './compaction.ts';
import { activeBranch, familyBranch, type JsonlEntry, readFamilies, readFamilyFiles, type Transcript } from './durable.ts';
import { supersededSubmissions } from './envelope.ts';
import type { Observations } from './observations.ts';
import type { EntrySightings } from './placement.ts';
import type { SystemDescription } from './system.ts';
import { classOf, type Violation } from './violation.ts';

function identity(entry: JsonlEntry): string {
  return entry.toolCallIds.length > 0 ? `calls:${entry.toolCallIds.join(',')}` : `text:${entry.text}`;
}

/** An entry as the sightings know it: its id, role and text (a rewrite that keeps all three keeps the sighting). */
function sightingKey(entry: JsonlEntry): string {
  return `${entry.id}\u0000${entry.role}\u0000${entry.text}`;
}

export class TranscriptMonitor implements EntrySightings {
  readonly violations: Violation[] = [];
  /** The files already reported, by the state.db session id they belong to (a key's session id before any rotation). */
  private readonly reportedSessionIds = new Set<string>();
  /** Identities of assistant entries seen durable on an active branch, by session, with the step first seen. */
  private readonly durableAssistants = new Map<string, Map<string, number>>();
  /** Of those, the step of the last check that saw each on the durable active branch. */
  private readonly lastOnBranch = new Map<string, Map<string, number>>();
  /** Every entry seen durable in a session's files, with the step of the check that first saw it. */
  private readonly entriesSeen = new Map<string, Map<string, number>>();
  /**
   * Entry objects already sighted, by session: the reader hands out one frozen object per distinct line (durable.ts),
   * so a check skips the entries an earlier one saw without building their keys.
   */
  private readonly sighted = new Map<string, WeakSet<JsonlEntry>>();
  /** The steps of every check so far, in order. */
  private readonly checkSteps: number[] = [];

  constructor(
    private readonly sim: Simulation,
    private readonly sessions: readonly string[],
    /** The system under test's description: where its state.db and its JSONL files are. */
    private readonly system: SystemDescription,
  ) {}

  /** Check every session's files (each session of its family has its own) now; `step` and `timeMs` place a violation. */
  check(step: number, timeMs: number): void {
    if (this.checkSteps.at(-1) !== step) this.checkSteps.push(step);
    const families = readFamilies(this.sim, this.sessions, undefined, this.system);
    for (const [session, files] of readFamilyFiles(this.sim, families, 'current', this.system)) for (const file of files) this.checkFile(session, file, step, timeMs);
    for (const [session, files] of readFamilyFiles(this.sim, families, 'synced', this.system)) this.sight(session, files, step);
  }

  /** The step of the first check at which `entry` was durable in one of the session's files. */
  firstSeenStep(sessionKey: string, entry: JsonlEntry): number | undefined {
    return this.entriesSeen.get(sessionKey)?.get(sightingKey(entry));
  }

  /** Record what a check found durable in a session's files: entries first seen, assistant entries on the branch. */
  private sight(session: string, files: readonly Transcript[], step: number): void {
    const seen = this.durableAssistants.get(session) ?? new Map<string, number>();
    const lastOnBranch = this.lastOnBranch.get(session) ?? new Map<string, number>();
    const entries = this.entriesSeen.get(session) ?? new Map<string, number>();
    const sighted = this.sighted.get(session) ?? new WeakSet<JsonlEntry>();
    for (const file of files) {
      for (const entry of file.entries) {
        if (sighted.has(entry)) continue;
        sighted.add(entry);
        if (!entries.has(sightingKey(entry))) entries.set(sightingKey(entry), step);
      }
      for (const entry of activeBranch(file.entries)) {
        if (entry.role !== 'assistant') continue;
        const key = identity(entry);
        if (!seen.has(key)) seen.set(key, step);
        lastOnBranch.set(key, step);
      }
    }
    this.durableAssistants.set(session, seen);
    this.lastOnBranch.set(session, lastOnBranch);
    this.entriesSeen.set(session, entries);
    this.sighted.set(session, sighted);
  }

  /** The first check after the last one that saw an assistant entry on the durable active branch: since then it was gone. */
  private goneSince(session: string, key: string, lastStep: number): number {
    const last = this.lastOnBranch.get(session)?.get(key);
    if (last === undefined) return lastStep;
    return this.checkSteps.find((step) => step > last) ?? lastStep;
  }

  private checkFile(session: string, transcript: Transcript, step: number, timeMs: number): void {
    const sessionId = transcript.sessionId ?? session;
    if (this.reportedSessionIds.has(sessionId)) return;
    const dropped = compactionDroppingOpenTurn(transcript);
    if (dropped !== undefined) {
      this.reportedSessionIds.add(sessionId);
      const evidence = `${sessionId}.jsonl, read here: ${dropped}`;
      this.violations.push({ invariant: 'transcript-consistent', message: evidence, step, timeMs, class: classOf('transcript-consistent'), evidence });
      return;
    }
    const branch = activeBranch(transcript.entries);
    const onBranch = new Set(branch.map((entry) => entry.id));
    // A submission the run superseded by its plain prompt stays off the branch on purpose (envelope.ts).
    const superseded = supersededSubmissions(transcript.entries, branch);
    const off = transcript.entries.filter((entry) => !onBranch.has(entry.id) && !superseded.has(entry.id));
    if (off.length === 0) return;
    this.reportedSessionIds.add(sessionId);
    this.violations.push({
      invariant: 'transcript-consistent',
      message: `${sessionId}.jsonl: ${off.length} entries are off the active branch (${off.map((entry) => `${entry.role} ${entry.id} "${entry.text.slice(0, 40)}"`).join(', ')})`,
      step,
      timeMs,
      class: classOf('transcript-consistent'),
      evidence: `${sessionId}.jsonl, read here, has ${off.length} entries off its active branch`,
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
      // Placed at the check since which the first of them has stayed gone (the end, if none was seen gone before).
      const lastStep = Math.max(0, o.events.length - 1);
      const step = Math.min(...lost.map((key) => this.goneSince(session, key, lastStep)));
      out.push({
        invariant: 'transcript-consistent',
        message: `${session}: ${lost.length} assistant entries that were durable are gone from the active branch (${lost.map((key) => key.slice(0, 50)).join('; ')})`,
        step,
        timeMs: step === lastStep ? o.endMs : (o.events[step]?.timeMs ?? o.endMs),
        class: classOf('transcript-consistent'),
        evidence: `the JSONL files of ${session}, read here, no longer hold on their active branch an assistant entry that was durable there`,
      });
    }
    return out;
  }
}

/**
 * transcript-consistent over a SQLite-era release's agent DB (durable.ts agentDb), read once at the end: each
 * session's events form one tree with every message event on the active branch, as a pi JSONL file must
 * (agent-db.ts agentDbTranscriptProblems).
 */
export function checkAgentDbTranscripts(o: Observations, out: Violation[]): void {
  for (const transcript of o.durable.agentDb ?? []) {
    const problems = agentDbTranscriptProblems(transcript);
    if (problems.length === 0) continue;
    const where = `the agent DB's transcript of ${transcript.sessionId}${transcript.sessionKey === '' ? '' : ` (${transcript.sessionKey})`}`;
    const step = Math.max(0, o.events.length - 1);
    out.push({ invariant: 'transcript-consistent', message: `${where}: ${problems.join('; ')}`, step, timeMs: o.endMs, class: classOf('transcript-consistent'), evidence: `${where}, read at the end: ${problems[0]}` });
  }
}
