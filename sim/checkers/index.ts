// The checkers: separate from the components they check, they judge a run by the world's ground-truth ledger, the
// durable state read in the real systems' formats, and the kernel's own facts (docs/ARCHITECTURE.md section 5). Checked
// at the end of a run (after the fault-free settle, so every write a SIGKILL interrupted has had its outcome settled
// by the durable state), except transcript-consistent, which the harness also triggers after each completed turn.
import type { Simulation } from '../kernel/simulation.ts';
import type { Ledger } from '../world/ledger.ts';
import { attributeAll } from './attribution.ts';
import { checkContexts } from './context.ts';
import { readDurableState } from './durable.ts';
import { checkIngestion } from './ingestion.ts';
import { checkEffects } from './effects.ts';
import { checkFailureNotices } from './finality.ts';
import { checkSendsInFlight } from './in-flight.ts';
import { checkLiveness } from './liveness.ts';
import { checkCustom } from './custom.ts';
import { kernelFacts, type Observations, stepAt } from './observations.ts';
import { Placement } from './placement.ts';
import type { SystemDescription } from './system.ts';
import { checkReplies } from './replies.ts';
import { checkPartRepeats } from './refusals.ts';
import { checkRotations } from './rotation.ts';
import { checkAgentDbTranscripts, type TranscriptMonitor } from './transcript.ts';
import { classOf, type Violation } from './violation.ts';

export { TranscriptMonitor } from './transcript.ts';
export { type BuiltinInvariantName, builtinInvariantNames, type FailureClass, type InvariantName, invariantNames, type Violation } from './violation.ts';
export { checkCustom, type CustomInvariant, customInvariants, type CustomViolation, registerInvariant } from './custom.ts';
export type { KernelFact, Observations } from './observations.ts';
export { type SystemDescription, referenceSystem } from './system.ts';
export { activeBranch, type DbRow, type DurableState, type JsonlEntry, parsePiTranscript, readDurableState, type Transcript } from './durable.ts';

/**
 * What a run hands the checkers: the simulation's durable state, the world's ledger, the run's timing, and the
 * description of the system under test (its canned replies, file locations and limits: the model's, or a real
 * component's; the checkers import nothing from src/).
 */
export interface CheckInput {
  sim: Simulation;
  ledger: Ledger;
  sessions: readonly string[];
  faultPhaseMs: number;
  /** quiescent-after-heal: the system's time to react to what happened during the faults (see liveness.ts). */
  quiescenceGraceMs: number;
  endMs: number;
  monitor: TranscriptMonitor;
  system: SystemDescription;
}

export function checkRun(input: CheckInput): Violation[] {
  const sessions = [...input.sessions];
  const events = input.sim.trace.events;
  const o: Observations = {
    sessions,
    ledger: input.ledger,
    durable: readDurableState(input.sim, sessions, 'synced', input.system),
    kernel: kernelFacts(events),
    events,
    faultPhaseMs: input.faultPhaseMs,
    quiescenceGraceMs: input.quiescenceGraceMs,
    endMs: input.endMs,
    system: input.system,
  };
  const out: Violation[] = [];
  for (const crash of input.sim.processes.crashes) {
    out.push({
      invariant: 'no-process-crash',
      message: `${crash.name} crashed: ${crash.error instanceof Error ? crash.error.message : String(crash.error)}`,
      step: o.kernel.find((fact) => fact.kind === 'crash' && fact.incarnation === crash.incarnation)?.step ?? 0,
      timeMs: crash.timeMs,
      class: classOf('no-process-crash'),
    });
  }
  // The monitor's last check comes first: the placement of a violation in a JSONL file reads what its checks saw.
  const transcriptViolations = input.monitor.finish(o);
  const place = new Placement(o, input.monitor);
  const attributions = attributeAll(o);
  checkReplies(o, attributions, out, place);
  checkPartRepeats(o, out, place);
  checkFailureNotices(o, attributions, out, place);
  checkEffects(o, attributions, out, place);
  checkIngestion(o, out, place);
  checkRotations(o, out, place);
  checkContexts(o, out, place);
  checkSendsInFlight(o, out);
  out.push(...transcriptViolations);
  checkAgentDbTranscripts(o, out);
  checkLiveness(o, attributions, out);
  // A user's own invariants run last, over the same observations.
  out.push(...checkCustom(o, (timeMs) => stepAt(o, timeMs)));
  return out.sort((a, b) => a.step - b.step);
}
