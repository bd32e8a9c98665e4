// The checkers: separate from the components they check, they read the trace, what the user saw and the final
// durable state. Checked at the end of a run (after the fault-free settle, so every write a SIGKILL interrupted has
// had its outcome settled by the durable state) except transcript-consistent, which is checked online after each
// completed turn.
import type { BuiltModel } from '../../src/index.ts';
import type { RunSpec } from '../run/plan.ts';
import type { Simulation } from '../kernel/simulation.ts';
import { checkIngestion } from './ingestion.ts';
import { checkLiveness } from './liveness.ts';
import { observe } from './observations.ts';
import { checkReplies } from './replies.ts';
import type { TranscriptMonitor } from './transcript.ts';
import { classOf, type Violation } from './violation.ts';

export { TranscriptMonitor } from './transcript.ts';
export { type FailureClass, type InvariantName, invariantNames, type Violation } from './violation.ts';

export function checkRun(input: { sim: Simulation; model: BuiltModel; spec: RunSpec; endMs: number; monitor: TranscriptMonitor }): Violation[] {
  const o = observe(input.sim, input.model, input.spec, input.endMs);
  const out: Violation[] = [];
  for (const crash of input.sim.processes.crashes) {
    out.push({
      invariant: 'no-process-crash',
      message: `${crash.name} crashed: ${crash.error instanceof Error ? crash.error.message : String(crash.error)}`,
      step: Math.max(0, o.events.findIndex((event) => event.kind === 'proc.exit' && event.fields.incarnation === crash.incarnation)),
      timeMs: crash.timeMs,
      class: classOf('no-process-crash'),
    });
  }
  checkReplies(o, out);
  checkIngestion(o, out);
  out.push(...input.monitor.finish(o));
  checkLiveness(o, out);
  return out.sort((a, b) => a.step - b.step);
}
