// transcript-consistent, checked online: after each completed turn, the session's JSONL as a reload sees it (every
// entry in file order, and the active branch from the last entry) must be exactly the active branch the runner
// holds in memory, so no dead-end branch or orphan stays on disk. And an assistant entry that was once durable
// (synced) on the active branch must never disappear from it.
import { activeBranchOf, parseTranscript, transcriptPath } from '../../src/index.ts';
import type { Simulation } from '../kernel/simulation.ts';
import type { TraceEvent } from '../kernel/trace.ts';
import type { Observations } from './observations.ts';
import { classOf, type Violation } from './violation.ts';

export class TranscriptMonitor {
  readonly violations: Violation[] = [];
  private readonly reported = new Set<string>();
  /** Assistant entry ids seen durable on an active branch, by session. */
  private readonly durableAssistants = new Map<string, Map<string, number>>();

  constructor(private readonly sim: Simulation) {
    sim.trace.onEvent((event) => {
      if (event.kind === 'model.turn-completed') this.onTurnCompleted(event);
    });
  }

  private onTurnCompleted(event: TraceEvent): void {
    const session = String(event.fields.session);
    const memory = String(event.fields.branch);
    const text = this.sim.disk.peek(transcriptPath(session)) ?? '';
    const parsed = parseTranscript(text);
    const fileOrder = parsed.entries.map((entry) => entry.id).join(',');
    const reloaded = activeBranchOf(parsed.entries).map((entry) => entry.id).join(',');
    if ((fileOrder !== memory || reloaded !== memory) && !this.reported.has(session)) {
      this.reported.add(session);
      const extra = parsed.entries.filter((entry) => !memory.split(',').includes(entry.id));
      const detail = extra.length > 0 ? `${extra.length} entries on disk are not on the active branch (${extra.map((entry) => `${entry.message.role} ${entry.id} of ${entry.turnId}`).join(', ')})` : `disk branch ${reloaded} != memory ${memory}`;
      this.violations.push({
        invariant: 'transcript-consistent',
        message: `after turn ${String(event.fields.turn)} the JSONL of ${session} differs from the runner's active branch: ${detail}`,
        step: event.index,
        timeMs: event.timeMs,
        class: classOf('transcript-consistent'),
      });
    }
    const synced = parseTranscript(this.sim.disk.peekSynced(transcriptPath(session)) ?? '');
    const seen = this.durableAssistants.get(session) ?? new Map<string, number>();
    for (const entry of activeBranchOf(synced.entries)) if (entry.message.role === 'assistant' && !seen.has(entry.id)) seen.set(entry.id, event.index);
    this.durableAssistants.set(session, seen);
  }

  /** At the end: every once-durable assistant entry is still on its active branch. */
  finish(o: Observations): Violation[] {
    const out = [...this.violations];
    for (const [session, seen] of this.durableAssistants) {
      const branch = new Set(activeBranchOf(o.transcripts.get(session)?.entries ?? []).map((entry) => entry.id));
      const lost = [...seen.keys()].filter((id) => !branch.has(id));
      if (lost.length > 0) {
        out.push({
          invariant: 'transcript-consistent',
          message: `${session}: ${lost.length} assistant entries that were durable are gone from the active branch (${lost.join(', ')})`,
          step: Math.max(0, o.events.length - 1),
          timeMs: o.endMs,
          class: classOf('transcript-consistent'),
        });
      }
    }
    return out;
  }
}
