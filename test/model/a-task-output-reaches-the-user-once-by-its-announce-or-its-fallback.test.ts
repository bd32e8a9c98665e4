// Fallback delivery paths (issue 48 item 3, src/delivery.ts deliverWithFallback, Plan.fallbackDelivery). A scheduled
// task's output goes out on two paths, as OpenClaw's cron delivers an isolated job's output: the announce first,
// waited for 15 s (the gateway call's client timeout), then the direct send as its fallback when the announce did not
// report delivery. The fixed paths send under the row's key, so a fallback after an announce that landed (its
// acknowledgement late) is the platform's repeat of a key and shows nothing; `fresh-key` (openclaw/openclaw#24041:
// the announce timed out on the client, the fallback fired, two Telegram messages) shows the output twice, caught by
// no-duplicate-visible-reply; `no-fallback` (the fix proposed in openclaw/openclaw#24198: a timed-out announce counts
// as delivered) loses an announce that never reached the platform, caught by no-lost-reply.
import { describe, expect, it } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { World } from '../../sim/world/index.ts';
import type { FallbackDeliveryMode } from '../../src/index.ts';
import type { OutboundSend } from '../../src/protocol.ts';
import { announceTimeoutMs, defaultKnobs } from '../../src/index.ts';
import type { Plan } from '../../sim/run/plan.ts';
import { handPlan, invariants, notes, visible, withRun } from './support.ts';
import type { BuiltModel } from '../../src/index.ts';

const sql = await loadSqlJs();

/** One digest, once, due at 10 s, run by the chat lane; its output announced, with the direct send as fallback. */
const withFallback = (mode: FallbackDeliveryMode): Plan => ({ ...handPlan([]), tasks: [{ session: 0, prompt: 'Post the digest', firstDueMs: 10_000, everyMs: null, count: 1 }], fallbackDelivery: mode });

/** A `prepare` hook: at the first announce, the platform's answers to the gateway are held for 18 s (the announce lands; its acknowledgement comes after the announce's 15 s, while the fallback waits). */
function lateAnnounceAck(sim: Simulation): void {
  let done = false;
  sim.trace.onEvent((event) => {
    if (done || event.kind !== 'model.deliver-attempt' || event.fields.path !== 'announce') return;
    done = true;
    sim.network.hold('platform', 'gateway');
    sim.scheduler.schedule(18_000, () => sim.network.release('platform', 'gateway'));
  });
}

/** A `prepare` hook: the platform never takes the first send of a task's output (lost on its way: nothing shown, no answer). */
function firstTaskSendLost(_sim: Simulation, _model: BuiltModel, world: World): void {
  const platform = world.platform as unknown as { accept(ctx: unknown, send: OutboundSend): void };
  const accept = platform.accept.bind(platform);
  let lost = false;
  platform.accept = (ctx, send) => {
    if (!lost && (send.key.startsWith('task:') || send.key.startsWith('announce:'))) {
      lost = true;
      return;
    }
    accept(ctx, send);
  };
}

const shownTexts = (result: Parameters<typeof invariants>[0]): string[] => visible(result).map((message) => message.text);
const total = (result: Parameters<typeof invariants>[0], row: 'announce-failed' | 'delivered-by-fallback'): number => Object.values(result.coverage[row]).reduce((sum, count) => sum + count, 0);

describe("a task's output reaches the user once, by its announce or by its fallback", () => {
  it('is off by default, and the announce waits 15 s', () => {
    expect(defaultKnobs.fallbackDelivery).toBeNull();
    expect(announceTimeoutMs).toBe(15_000);
  });

  it('fixed, nothing in the way: the announce delivers, no fallback is sent', async () => {
    await withRun(sql, { bugs: [], plan: withFallback('fixed') }, (result) => {
      const delivered = notes(result, 'delivered');
      expect(delivered.length).toBeGreaterThan(0);
      expect(delivered.every((note) => note.fields.path === 'announce')).toBe(true);
      expect(notes(result, 'announce-failed')).toEqual([]);
      expect(new Set(shownTexts(result)).size).toBe(shownTexts(result).length);
      expect(result.violations).toEqual([]);
    });
  });

  it("fixed: the announce landed and its answer was late; the fallback under the row's key shows nothing more", async () => {
    await withRun(sql, { bugs: [], plan: withFallback('fixed'), prepare: (sim) => lateAnnounceAck(sim) }, (result) => {
      expect(notes(result, 'announce-failed')).toHaveLength(1);
      expect(notes(result, 'platform-duplicate-key')).toHaveLength(1);
      expect(notes(result, 'delivered').map((note) => note.fields.path)).toContain('fallback');
      expect(total(result, 'delivered-by-fallback')).toBe(1);
      expect(new Set(shownTexts(result)).size).toBe(shownTexts(result).length);
      expect(result.violations).toEqual([]);
    });
  });

  it('fresh-key: the same late answer, and the fallback is a second message the user sees', async () => {
    await withRun(sql, { bugs: [], plan: withFallback('fresh-key'), prepare: (sim) => lateAnnounceAck(sim) }, (result) => {
      expect(notes(result, 'announce-failed')).toHaveLength(1);
      expect(new Set(shownTexts(result)).size).toBeLessThan(shownTexts(result).length);
      expect(invariants(result)).toContain('no-duplicate-visible-reply');
    });
  });

  it('fixed: the announce was lost; the fallback delivers the output', async () => {
    await withRun(sql, { bugs: [], plan: withFallback('fixed'), prepare: firstTaskSendLost }, (result) => {
      expect(notes(result, 'announce-failed')).toHaveLength(1);
      expect(notes(result, 'delivered').map((note) => note.fields.path)).toContain('fallback');
      expect(new Set(shownTexts(result)).size).toBe(shownTexts(result).length);
      expect(result.violations).toEqual([]);
    });
  });

  it('no-fallback: the lost announce counts as delivered, and the output never reaches the user', async () => {
    await withRun(sql, { bugs: [], plan: withFallback('no-fallback'), prepare: firstTaskSendLost }, (result) => {
      expect(notes(result, 'delivered').map((note) => note.fields.path)).toContain('announce-assumed');
      expect(invariants(result)).toContain('no-lost-reply');
    });
  });
});
