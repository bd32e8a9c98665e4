// The trace: the same events give the same traceHash (a 64-bit FNV-1a over the canonical serialisations), and
// firstDivergence names the first event at which two traces differ.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  describeDivergence,
  firstDivergence,
  serialiseEvent,
  Trace,
  type TraceEvent,
  type TraceFields,
  type TraceKind,
} from '../../sim/kernel/trace.ts';

type EventSpec = Pick<TraceEvent, 'timeMs' | 'kind' | 'fields'>;

const kindArb = fc.constantFrom<TraceKind>(
  'net.send',
  'net.deliver',
  'disk.write',
  'sql.write',
  'proc.kill',
  'model.ingest',
);
const fieldsArb: fc.Arbitrary<TraceFields> = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 6 }),
  fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null)),
  { maxKeys: 4 },
);
const eventArb: fc.Arbitrary<EventSpec> = fc.record({ timeMs: fc.nat(1_000_000), kind: kindArb, fields: fieldsArb });
const eventsArb = fc.array(eventArb, { maxLength: 40 });

/** Record `events` into a fresh trace whose clock reads each event's own time. */
function traceOf(events: readonly EventSpec[]): Trace {
  let nowMs = 0;
  const trace = new Trace(() => nowMs);
  for (const event of events) {
    nowMs = event.timeMs;
    trace.record(event.kind, event.fields);
  }
  return trace;
}

/** Reference 64-bit FNV-1a with BigInt, folding UTF-16 code units as the trace does. */
function fnv1a64(text: string): string {
  const mask = (1n << 64n) - 1n;
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & mask;
  }
  return hash.toString(16).padStart(16, '0');
}

describe('trace hash', () => {
  it('matches a reference FNV-1a 64 over the canonical serialisation of every event', () => {
    expect(new Trace(() => 0).hash).toBe('cbf29ce484222325');
    fc.assert(
      fc.property(eventsArb, (events) => {
        const reference = fnv1a64(events.map((event) => `${serialiseEvent(event)}\n`).join(''));
        expect(traceOf(events).hash).toBe(reference);
      }),
    );
  });

  it('gives the same hash for the same events, and a different one when any event differs', () => {
    fc.assert(
      fc.property(eventsArb, fc.nat(), fc.nat(1_000), (events, where, shift) => {
        expect(traceOf(events).hash).toBe(traceOf(events.map((event) => ({ ...event }))).hash);
        fc.pre(events.length > 0);
        const index = where % events.length;
        const changed = events.slice();
        const original = changed[index] as EventSpec;
        changed[index] = { ...original, timeMs: original.timeMs + shift + 1 };
        expect(traceOf(changed).hash).not.toBe(traceOf(events).hash);
      }),
    );
  });

  it('gives the same hash whether it is read after every event, once at the end, or folded without keeping the events', () => {
    fc.assert(
      fc.property(eventsArb, (events) => {
        let nowMs = 0;
        const everyStep = new Trace(() => nowMs);
        const eager = new Trace(() => nowMs, false);
        const seen: string[] = [];
        for (const event of events) {
          nowMs = event.timeMs;
          everyStep.record(event.kind, event.fields);
          eager.record(event.kind, event.fields);
          seen.push(everyStep.hash);
          expect(everyStep.hash).toBe(eager.hash);
        }
        expect(traceOf(events).hash).toBe(eager.hash);
        expect(new Set(seen).size).toBe(seen.length);
      }),
    );
  });

  it('is sensitive to event order', () => {
    const a: EventSpec = { timeMs: 1, kind: 'net.send', fields: { id: 1 } };
    const b: EventSpec = { timeMs: 1, kind: 'net.send', fields: { id: 2 } };
    expect(traceOf([a, b]).hash).not.toBe(traceOf([b, a]).hash);
  });

  it('stamps events with the clock and numbers them in order', () => {
    const trace = traceOf([
      { timeMs: 5, kind: 'net.send', fields: { id: 1 } },
      { timeMs: 9, kind: 'net.deliver', fields: { id: 1 } },
    ]);
    expect(trace.length).toBe(2);
    expect(trace.events.map((event) => [event.index, event.timeMs, event.kind])).toEqual([
      [0, 5, 'net.send'],
      [1, 9, 'net.deliver'],
    ]);
    expect(serialiseEvent(trace.events[1] as TraceEvent)).toBe('9 net.deliver {"id":1}');
  });

  it('keeps the hash without keeping the events', () => {
    const kept = new Trace(() => 3);
    const dropped = new Trace(() => 3, false);
    for (const trace of [kept, dropped]) trace.record('disk.sync', { path: '/a', bytes: 4 });
    expect(dropped.events).toHaveLength(0);
    expect(dropped.length).toBe(1);
    expect(dropped.hash).toBe(kept.hash);
  });
});

describe('firstDivergence', () => {
  it('finds nothing in identical traces', () => {
    fc.assert(
      fc.property(eventsArb, (events) => {
        expect(firstDivergence(traceOf(events).events, traceOf(events).events)).toBeUndefined();
      }),
    );
  });

  it('names the first event that differs, in time, kind or fields', () => {
    fc.assert(
      fc.property(eventsArb, fc.nat(), fc.constantFrom('time', 'kind', 'field'), (events, where, what) => {
        fc.pre(events.length > 0);
        const index = where % events.length;
        const original = events[index] as EventSpec;
        let replacement: EventSpec;
        if (what === 'time') replacement = { ...original, timeMs: original.timeMs + 1 };
        else if (what === 'kind') replacement = { ...original, kind: original.kind === 'fault' ? 'net.drop' : 'fault' };
        else replacement = { ...original, fields: { ...original.fields, injected: true } };
        // Everything after the first difference differs too: the finder must still report the first.
        const later = events.slice(index + 1).map((event) => ({ ...event, timeMs: event.timeMs + 1 }));
        const changed = [...events.slice(0, index), replacement, ...later];
        const divergence = firstDivergence(traceOf(events).events, traceOf(changed).events);
        expect(divergence?.index).toBe(index);
        expect(divergence?.left).toBe(serialiseEvent(original));
        expect(divergence?.right).toBe(serialiseEvent(replacement));
      }),
    );
  });

  it('reports where the shorter trace ended', () => {
    fc.assert(
      fc.property(eventsArb, eventsArb, (common, extra) => {
        fc.pre(extra.length > 0);
        const divergence = firstDivergence(traceOf(common).events, traceOf([...common, ...extra]).events);
        expect(divergence?.index).toBe(common.length);
        expect(divergence?.left).toBeUndefined();
        expect(divergence?.right).toBeDefined();
        const flipped = firstDivergence(traceOf([...common, ...extra]).events, traceOf(common).events);
        expect(flipped?.index).toBe(common.length);
        expect(flipped?.right).toBeUndefined();
      }),
    );
  });

  it('describes a divergence with its index and both events', () => {
    const left = traceOf([
      { timeMs: 1, kind: 'net.send', fields: { id: 1 } },
      { timeMs: 2, kind: 'net.deliver', fields: { id: 1 } },
    ]);
    const right = traceOf([
      { timeMs: 1, kind: 'net.send', fields: { id: 1 } },
      { timeMs: 2, kind: 'net.drop', fields: { id: 1, reason: 'fault' } },
    ]);
    const divergence = firstDivergence(left.events, right.events);
    expect(divergence).toBeDefined();
    const text = describeDivergence(divergence as NonNullable<typeof divergence>);
    expect(text).toContain('event #1');
    expect(text).toContain('2 net.deliver {"id":1}');
    expect(text).toContain('2 net.drop {"id":1,"reason":"fault"}');
  });
});
