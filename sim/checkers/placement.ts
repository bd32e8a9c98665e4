// Where a violation sits on the timeline (its `step`, a trace-event index). A verdict is decided from the ledger and
// the durable state first; only then is the violation placed, at the event where its evidence became true, found
// from the same black-box sources and the kernel's own events, never from the model's notes
// (docs/ARCHITECTURE.md section 5):
// - a showing: the arrival at the platform of the send it showed (the platform shows each send as it arrives, so at
//   one instant the k-th `send` to arrive is the k-th showing);
// - a state.db row: the kernel's commit of it, found by the row's timestamp (Hermes' column: the writer's clock when
//   it wrote the row, so the commit is the state.db write at or just after it; rows of one instant commit in id order);
// - a JSONL entry: the transcript monitor's check at which it was first durable (the check after each completed turn);
// - an acknowledgement: its arrival at the platform; a kill or a crash: the kernel's own event.
// Each placement also says in words what happened there (`evidence`), for the report's decisive line.
import type { ShownFact, UserMessageFact } from '../world/ledger.ts';
import type { DbRow, JsonlEntry } from './durable.ts';
import { type KernelFact, type Observations, stepAt, systemOf } from './observations.ts';

/** Where the transcript monitor first saw each JSONL entry durable (transcript.ts). */
export interface EntrySightings {
  /** The step of the first check at which `entry` was in one of the session's synced files, if any was. */
  firstSeenStep(sessionKey: string, entry: JsonlEntry): number | undefined;
}

/** A violation's place: the trace step, its simulated time, and what happened there. */
export interface Place {
  step: number;
  timeMs: number;
  evidence: string;
}

interface Arrival {
  step: number;
  timeMs: number;
}

const noSightings: EntrySightings = { firstSeenStep: () => undefined };

export class Placement {
  private arrivalsByKind: Map<string, Map<number, Arrival[]>> | undefined;
  private stateDbCommits: Arrival[] | undefined;

  constructor(
    private readonly o: Observations,
    private readonly sightings: EntrySightings = noSightings,
  ) {}

  /** The last step of the run: where a violation that only the end proves sits. */
  end(evidence: string): Place {
    return { step: Math.max(0, this.o.events.length - 1), timeMs: this.o.endMs, evidence };
  }

  /** The first step at or after a simulated instant. */
  at(timeMs: number, evidence: string): Place {
    return { step: stepAt(this.o, timeMs), timeMs, evidence };
  }

  /** A step already known (a kernel fact, a check), with the time of its event. */
  step(step: number, evidence: string, timeMs?: number): Place {
    const event = this.o.events[step];
    return { step, timeMs: timeMs ?? event?.timeMs ?? this.o.endMs, evidence };
  }

  /** The arrival at the platform of the send the platform showed as `fact`. */
  showing(fact: ShownFact, evidence: string): Place {
    const sameInstant = this.o.ledger.shown.filter((other) => other.atMs === fact.atMs);
    const k = sameInstant.indexOf(fact);
    const arrivals = this.arrivals('send').get(fact.atMs) ?? [];
    const arrival = arrivals[Math.max(0, Math.min(k, arrivals.length - 1))];
    return arrival === undefined ? this.at(fact.atMs, evidence) : { step: arrival.step, timeMs: arrival.timeMs, evidence };
  }

  /** The arrival at the platform of the gateway's first acknowledgement of a user message. */
  acknowledgement(message: UserMessageFact, evidence: string): Place {
    const ackMs = message.acknowledgedAtMs;
    if (ackMs === null) return this.at(message.sentAtMs, evidence);
    const arrival = this.arrivals('inbound.ack').get(ackMs)?.[0];
    return arrival === undefined ? this.at(ackMs, evidence) : { step: arrival.step, timeMs: arrival.timeMs, evidence };
  }

  /**
   * The kernel's commit of a state.db row (`what` it holds, `then` what follows): the k-th state.db write at or after
   * its timestamp, k its rank among the rows of that instant.
   */
  rowCommit(row: DbRow, what: string, then = ''): Place {
    const evidence = `${what} is committed to state.db${then}`;
    const sameInstant = this.o.durable.rows.filter((other) => other.timestamp === row.timestamp).sort((a, b) => a.id - b.id);
    const rank = Math.max(0, sameInstant.indexOf(row));
    const commits = this.commits().filter((commit) => commit.timeMs >= row.timestamp);
    const commit = commits[rank] ?? commits[0];
    return commit === undefined ? this.at(row.timestamp, evidence) : { step: commit.step, timeMs: commit.timeMs, evidence };
  }

  /** The check at which the transcript monitor first saw a JSONL entry (holding `what`) durable; the end when it never did. */
  entrySeen(sessionKey: string, entry: JsonlEntry, what: string, then = ''): Place {
    const evidence = `the JSONL file, read here, holds ${what}${then}`;
    const step = this.sightings.firstSeenStep(sessionKey, entry);
    return step === undefined ? this.end(evidence) : this.step(step, evidence);
  }

  /** The first kill or crash of any process after a simulated instant, if there is one. */
  firstKillAfter(timeMs: number): KernelFact | undefined {
    return this.o.kernel.find((fact) => fact.kind !== 'start' && fact.timeMs > timeMs);
  }

  /** Arrivals (deliveries and replays) of network messages of one kind, by instant. */
  private arrivals(kind: string): Map<number, Arrival[]> {
    this.arrivalsByKind ??= indexArrivals(this.o);
    return this.arrivalsByKind.get(kind) ?? new Map<number, Arrival[]>();
  }

  private commits(): Arrival[] {
    const stateDbPath = systemOf(this.o).stateDbPath;
    this.stateDbCommits ??= this.o.events.flatMap((event, step) => (event.kind === 'sql.write' && event.fields.path === stateDbPath ? [{ step, timeMs: event.timeMs }] : []));
    return this.stateDbCommits;
  }
}

/** Every arrival of a network message (a `net.deliver`, or a `net.duplicate` replaying it), by message kind and instant. */
function indexArrivals(o: Observations): Map<string, Map<number, Arrival[]>> {
  const kindOf = new Map<number, string>();
  const out = new Map<string, Map<number, Arrival[]>>();
  o.events.forEach((event, step) => {
    const id = Number(event.fields.id);
    if (event.kind === 'net.send') kindOf.set(id, String(event.fields.kind));
    if (event.kind !== 'net.deliver' && event.kind !== 'net.duplicate') return;
    const kind = kindOf.get(id);
    if (kind === undefined) return;
    const byInstant = out.get(kind) ?? new Map<number, Arrival[]>();
    const list = byInstant.get(event.timeMs) ?? [];
    list.push({ step, timeMs: event.timeMs });
    byInstant.set(event.timeMs, list);
    out.set(kind, byInstant);
  });
  return out;
}

/** Steps of two places: the later one, where evidence that needs both became true. */
export function later(a: Place, b: Place): Place {
  return b.step > a.step ? b : a;
}
