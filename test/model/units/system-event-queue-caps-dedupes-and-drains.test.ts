// The per-session system-event queue (OpenClaw src/infra/system-events.ts), run inside a simulated process so its
// timestamps come from the simulated clock: cap 20 dropping the oldest, trimmed non-empty text, the fixed
// (text, contextKey) dedupe against every queued entry versus seed 000's last-text-only dedupe, drain and requeue,
// trusted by default, and the rendering (OpenClaw session-system-events.ts): a `System (untrusted): ` prefix on every
// line of an event, its `[ts]` on the first line only, heartbeat noise left out.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProcessContext } from '../../../src/ports.ts';
import { compactSystemEvent, formatSystemEvents, isExecCompletionEvent, type SystemEvent, SystemEventQueue, systemEventsPerSessionMax } from '../../../src/system-events.ts';
import { loadSqlJs } from '../../../sim/kernel/sqlite.ts';
import { inProcess } from './support.ts';

const sql = await loadSqlJs();
const session = 'node-n1';
const untrusted = { contextKey: null, trusted: false, execKey: null };

function exec(runId: string): { contextKey: string; trusted: boolean; execKey: string } {
  return { contextKey: `exec:${runId}`, trusted: false, execKey: `${session}::${runId}` };
}

function texts(events: readonly SystemEvent[]): string[] {
  return events.map((event) => event.text);
}

/** Runs `body` in a simulated process with a fresh queue; `lastTextOnly` is seed 000's buggy dedupe. */
async function withQueue(seed: string, lastTextOnly: boolean, body: (queue: SystemEventQueue, ctx: ProcessContext) => Promise<void>): Promise<void> {
  await inProcess(sql, seed, async (ctx) => body(new SystemEventQueue(ctx.clock, lastTextOnly), ctx));
}

describe('capacity', () => {
  it(`keeps at most ${systemEventsPerSessionMax} events per session, dropping the oldest`, async () => {
    await withQueue('cap', false, async (queue) => {
      for (let index = 1; index <= 25; index++) expect(queue.enqueueSystemEvent(session, `event ${index}`, untrusted).queued).toBe(true);
      expect(systemEventsPerSessionMax).toBe(20);
      expect(texts(queue.peek(session))).toEqual(Array.from({ length: 20 }, (_, index) => `event ${index + 6}`));
    });
  });

  it('caps each session separately', async () => {
    await withQueue('cap-sessions', false, async (queue) => {
      for (let index = 0; index < 22; index++) queue.enqueueSystemEvent('a', `a${index}`, untrusted);
      queue.enqueueSystemEvent('b', 'b0', untrusted);
      expect(queue.peek('a')).toHaveLength(20);
      expect(texts(queue.peek('b'))).toEqual(['b0']);
    });
  });
});

describe('enqueue', () => {
  it('trims the text, lower-cases the context key and stamps the simulated time', async () => {
    await withQueue('trim', false, async (queue, ctx) => {
      await ctx.timers.sleep(1_234);
      const result = queue.enqueueSystemEvent(session, '  Exec finished (node=n1 id=R1, code 0)\n ', {
        contextKey: 'EXEC:R1',
        trusted: false,
        execKey: 'node-n1::R1',
      });
      expect(result.queued).toBe(true);
      expect(queue.peek(session)).toEqual([
        { text: 'Exec finished (node=n1 id=R1, code 0)', ts: 1_234, contextKey: 'exec:r1', trusted: false, onDurable: [], execKey: 'node-n1::R1' },
      ]);
    });
  });

  it('refuses empty and whitespace-only text, in either dedupe mode', async () => {
    for (const lastTextOnly of [false, true]) {
      await withQueue(`empty-${String(lastTextOnly)}`, lastTextOnly, async (queue) => {
        expect(queue.enqueueSystemEvent(session, '', untrusted)).toEqual({ queued: false, duplicateOf: null });
        expect(queue.enqueueSystemEvent(session, ' \n\t ', untrusted)).toEqual({ queued: false, duplicateOf: null });
        expect(queue.peek(session)).toEqual([]);
      });
    }
  });
});

describe('fixed dedupe (by text and context key, against every queued entry)', () => {
  it('refuses a repeat of any queued entry and names it', async () => {
    await withQueue('fixed-aba', false, async (queue) => {
      const first = queue.enqueueSystemEvent(session, 'A', exec('r1'));
      expect(queue.enqueueSystemEvent(session, 'B', exec('r2')).queued).toBe(true);
      const repeat = queue.enqueueSystemEvent(session, '  A ', exec('r1'));
      if (!first.queued || repeat.queued) throw new Error(`expected A queued (${String(first.queued)}) and its repeat refused (${String(repeat.queued)})`);
      expect(repeat.duplicateOf).toBe(first.event);
      expect(texts(queue.peek(session))).toEqual(['A', 'B']);
    });
  });

  it('accepts the same text under another context key, and compares context keys case-insensitively', async () => {
    await withQueue('fixed-context', false, async (queue) => {
      expect(queue.enqueueSystemEvent(session, 'A', exec('r1')).queued).toBe(true);
      expect(queue.enqueueSystemEvent(session, 'A', exec('r2')).queued).toBe(true);
      expect(queue.enqueueSystemEvent(session, 'A', untrusted).queued).toBe(true);
      expect(queue.enqueueSystemEvent(session, 'A', { ...exec('r1'), contextKey: 'EXEC:R1' }).queued).toBe(false);
      expect(queue.peek(session)).toHaveLength(3);
    });
  });

  it('accepts the same text again after a drain (the queue it compares against is empty)', async () => {
    await withQueue('fixed-drain', false, async (queue) => {
      queue.enqueueSystemEvent(session, 'A', exec('r1'));
      queue.drainSystemEvents(session);
      expect(queue.enqueueSystemEvent(session, 'A', exec('r1')).queued).toBe(true);
    });
  });
});

describe('seed 000 buggy dedupe (last text only)', () => {
  it('accepts A, B, A: only the previous text is compared', async () => {
    await withQueue('buggy-aba', true, async (queue) => {
      expect(queue.enqueueSystemEvent(session, 'A', exec('r1')).queued).toBe(true);
      expect(queue.enqueueSystemEvent(session, 'B', exec('r2')).queued).toBe(true);
      expect(queue.enqueueSystemEvent(session, 'A', exec('r1')).queued).toBe(true);
      expect(texts(queue.peek(session))).toEqual(['A', 'B', 'A']);
    });
  });

  it('refuses an immediate repeat of the last text, whatever its context key', async () => {
    await withQueue('buggy-aa', true, async (queue) => {
      queue.enqueueSystemEvent(session, 'A', exec('r1'));
      expect(queue.enqueueSystemEvent(session, ' A ', exec('r1')).queued).toBe(false);
      expect(queue.enqueueSystemEvent(session, 'A', exec('r9')).queued).toBe(false);
      expect(texts(queue.peek(session))).toEqual(['A']);
    });
  });

  it('accepts the same text again after a drain: the drain forgot the last text (the replayed exec.finished)', async () => {
    await withQueue('buggy-drain', true, async (queue) => {
      queue.enqueueSystemEvent(session, 'Exec finished (node=n1 id=r1, code 0)', exec('r1'));
      expect(texts(queue.drainSystemEvents(session))).toEqual(['Exec finished (node=n1 id=r1, code 0)']);
      expect(queue.enqueueSystemEvent(session, 'Exec finished (node=n1 id=r1, code 0)', exec('r1')).queued).toBe(true);
      expect(queue.peek(session)).toHaveLength(1);
    });
  });
});

describe('drain and requeue', () => {
  it('drain returns every event in order and clears the queue; an unknown session drains empty', async () => {
    await withQueue('drain', false, async (queue) => {
      for (const text of ['one', 'two', 'three']) queue.enqueueSystemEvent(session, text, untrusted);
      queue.enqueueSystemEvent('other', 'elsewhere', untrusted);
      expect(texts(queue.drainSystemEvents(session))).toEqual(['one', 'two', 'three']);
      expect(queue.peek(session)).toEqual([]);
      expect(queue.drainSystemEvents(session)).toEqual([]);
      expect(queue.drainSystemEvents('never-seen')).toEqual([]);
      expect(texts(queue.peek('other'))).toEqual(['elsewhere']);
    });
  });

  it('requeue puts drained events back in front of events queued since', async () => {
    await withQueue('requeue', false, async (queue) => {
      queue.enqueueSystemEvent(session, 'old-1', untrusted);
      queue.enqueueSystemEvent(session, 'old-2', untrusted);
      const drained = queue.drainSystemEvents(session);
      queue.enqueueSystemEvent(session, 'new', untrusted);
      queue.requeue(session, drained);
      expect(texts(queue.peek(session))).toEqual(['old-1', 'old-2', 'new']);
      // The requeued events are the same objects: their acknowledgements survive the round trip.
      expect(queue.peek(session)[0]).toBe(drained[0]);
    });
  });

  it(`requeue keeps the cap of ${systemEventsPerSessionMax}, dropping the oldest`, async () => {
    await withQueue('requeue-cap', false, async (queue) => {
      for (let index = 0; index < 15; index++) queue.enqueueSystemEvent(session, `old-${index}`, untrusted);
      const drained = queue.drainSystemEvents(session);
      for (let index = 0; index < 10; index++) queue.enqueueSystemEvent(session, `new-${index}`, untrusted);
      queue.requeue(session, drained);
      const kept = texts(queue.peek(session));
      expect(kept).toHaveLength(20);
      expect(kept.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, index) => `old-${index + 5}`));
      expect(kept.slice(10)).toEqual(Array.from({ length: 10 }, (_, index) => `new-${index}`));
    });
  });

  it('requeue into an unknown session creates it', async () => {
    await withQueue('requeue-new', false, async (queue) => {
      queue.enqueueSystemEvent('a', 'x', untrusted);
      queue.requeue('b', queue.drainSystemEvents('a'));
      expect(texts(queue.peek('b'))).toEqual(['x']);
    });
  });
});

describe('both dedupe modes against a reference model', () => {
  type Op = { kind: 'enqueue'; text: string; contextKey: string | null; pad: string } | { kind: 'drain' };
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('enqueue' as const), text: fc.constantFrom('A', 'B', 'C', ' '), contextKey: fc.constantFrom(null, 'exec:r1', 'EXEC:R1', 'exec:r2'), pad: fc.constantFrom('', ' ', '\n') }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'drain' as const }) },
  );

  it('queues exactly what the documented rule says, and the fixed queue never holds a (text, contextKey) twice', async () => {
    await inProcess(sql, 'reference', async (ctx) => {
      fc.assert(
        fc.property(fc.boolean(), fc.array(op, { maxLength: 40 }), (lastTextOnly, ops) => {
          const queue = new SystemEventQueue(ctx.clock, lastTextOnly);
          let expected: { text: string; contextKey: string | null }[] = [];
          let lastText: string | null = null;
          for (const step of ops) {
            if (step.kind === 'drain') {
              expect(queue.drainSystemEvents(session).map(({ text, contextKey }) => ({ text, contextKey }))).toEqual(expected);
              expected = [];
              lastText = null;
              continue;
            }
            const text = step.text.trim();
            const contextKey = step.contextKey?.toLowerCase() ?? null;
            const accept =
              text.length > 0 &&
              (lastTextOnly ? text !== lastText : !expected.some((event) => event.text === text && event.contextKey === contextKey));
            expect(queue.enqueueSystemEvent(session, step.pad + step.text + step.pad, { contextKey: step.contextKey, trusted: false, execKey: null }).queued).toBe(accept);
            if (accept) {
              expected = [...expected, { text, contextKey }].slice(-systemEventsPerSessionMax);
              lastText = text;
            }
          }
          const queued = queue.peek(session).map(({ text, contextKey }) => ({ text, contextKey }));
          expect(queued).toEqual(expected);
          if (!lastTextOnly) expect(new Set(queued.map((event) => `${event.text}|${String(event.contextKey)}`)).size).toBe(queued.length);
        }),
      );
    });
  });
});

describe('formatSystemEvents', () => {
  it('prefixes every line of an event, puts the timestamp on its first line only, trusted ones without the marker', async () => {
    await withQueue('format', false, async (queue, ctx) => {
      await ctx.timers.sleep(500);
      queue.enqueueSystemEvent(session, 'Exec finished (node=n1 id=r1, code 1)\nCompiled 14 files\nwarning: unused variable', exec('r1'));
      await ctx.timers.sleep(250);
      queue.enqueueSystemEvent(session, 'Exec started (node=n1 id=r2): npm test', exec('r2'));
      queue.enqueueSystemEvent(session, 'Build server restarted', { contextKey: null, execKey: null });
      expect(formatSystemEvents(queue.drainSystemEvents(session)).split('\n')).toEqual([
        'System (untrusted): [500] Exec finished (node=n1 id=r1, code 1)',
        'System (untrusted): Compiled 14 files',
        'System (untrusted): warning: unused variable',
        'System (untrusted): [750] Exec started (node=n1 id=r2): npm test',
        'System: [750] Build server restarted',
      ]);
    });
  });

  it('leaves heartbeat noise out of the block: the heartbeat prompt, heartbeat poll and wake lines, reason periodic', async () => {
    const noise = [
      'Read HEARTBEAT.md if it exists and follow it. If nothing needs attention, reply HEARTBEAT_OK.',
      'heartbeat poll: nothing queued',
      'Heartbeat wake requested',
      'reason periodic: 30m elapsed',
    ];
    for (const text of noise) expect(compactSystemEvent(text)).toBeNull();
    // A cron payload that only mentions the heartbeat is not the heartbeat prompt.
    expect(compactSystemEvent('  Remind me to read HEARTBEAT.md tomorrow ')).toBe('Remind me to read HEARTBEAT.md tomorrow');
    await withQueue('format-noise', false, async (queue) => {
      queue.enqueueSystemEvent(session, noise[0] as string, { contextKey: null, execKey: null });
      queue.enqueueSystemEvent(session, 'Exec started (node=n1 id=r1): make build', exec('r1'));
      for (const text of noise.slice(1)) queue.enqueueSystemEvent(session, text, { contextKey: null, execKey: null });
      expect(formatSystemEvents(queue.drainSystemEvents(session))).toBe('System (untrusted): [0] Exec started (node=n1 id=r1): make build');
    });
  });

  it('renders nothing for no events, or for noise alone', async () => {
    expect(formatSystemEvents([])).toBe('');
    await withQueue('format-only-noise', false, async (queue) => {
      queue.enqueueSystemEvent(session, 'heartbeat poll: idle', { contextKey: null, execKey: null });
      expect(formatSystemEvents(queue.drainSystemEvents(session))).toBe('');
    });
  });

  it('tells an exec completion from the other exec lines', () => {
    expect(isExecCompletionEvent('Exec finished (node=n1 id=r1, code 0)\nok')).toBe(true);
    expect(isExecCompletionEvent('  exec finished: r1')).toBe(true);
    expect(isExecCompletionEvent('Exec started (node=n1 id=r1): npm test')).toBe(false);
    expect(isExecCompletionEvent('The user asked: Exec finished (node=n1 id=r1, code 0)?')).toBe(false);
  });
});

describe('trust', () => {
  it('defaults to trusted, as OpenClaw does; node events pass untrusted', async () => {
    await withQueue('trust', false, async (queue) => {
      const trusted = queue.enqueueSystemEvent(session, 'Build server restarted', { contextKey: null, execKey: null });
      const node = queue.enqueueSystemEvent(session, 'Exec started (node=n1 id=r1): npm test', exec('r1'));
      expect(trusted.queued && trusted.event.trusted).toBe(true);
      expect(node.queued && node.event.trusted).toBe(false);
    });
  });
});
