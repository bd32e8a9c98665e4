// The timeline's decisive step, labelled from the model's own notes where the checkers' black-box placement can only
// come close (docs/ARCHITECTURE.md section 5: a system's trace notes may label a timeline, never decide a verdict). The
// checkers place a reply that was never shown at its last durable record, the commit of the row holding it; the
// system's own record of what it then did with the reply (the model's `result` note: the turn's blocks, and those it
// dispatched) is where the reply was dropped, so the decisive step moves there when the note shows the reply kept back.
// The verdict, its invariant and its message are the checkers' and stay as they are; only `step`, `timeMs` and
// `evidence` change. A real component writes no such note, and its violations keep the checkers' placement.
import { normalized } from '../checkers/observations.ts';
import { lostClosingText } from '../checkers/replies.ts';
import type { Violation } from '../checkers/violation.ts';
import type { TraceEvent } from '../kernel/trace.ts';

/** Violations with their decisive steps labelled from the system's notes, sorted by step as checkRun sorts them. */
export function labelDecisiveSteps(violations: readonly Violation[], events: readonly TraceEvent[]): Violation[] {
  return violations.map((violation) => droppedAtResult(violation, events) ?? violation).sort((a, b) => a.step - b.step);
}

/** A lost closing text: the first result note at or after the checkers' step that had it among its blocks and kept it back. */
function droppedAtResult(violation: Violation, events: readonly TraceEvent[]): Violation | undefined {
  const text = lostClosingText(violation);
  if (text === undefined) return undefined;
  for (let step = violation.step; step < events.length; step++) {
    const event = events[step];
    if (event?.kind !== 'model.result') continue;
    const blocks = textsOf(event.fields.blocks);
    const kept = textsOf(event.fields.kept);
    if (!blocks.includes(text) || kept.includes(text)) continue;
    return {
      ...violation,
      step,
      timeMs: event.timeMs,
      evidence: `the reply "${text}" is left out of the result dispatched (its closing text was committed to state.db at #${violation.step}); it is never shown`,
    };
  }
  return undefined;
}

function textsOf(field: unknown): string[] {
  if (typeof field !== 'string') return [];
  try {
    const parsed = JSON.parse(field) as unknown;
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string').map(normalized) : [];
  } catch {
    return [];
  }
}
