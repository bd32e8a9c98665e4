// Issue 48 item 1: the world's platform refuses sends with typed refusals, takes nothing of a refused send, answers
// the sender with the refusal, and records each in the ledger (sim/world/platform.ts): a text over its limit always;
// while the faults last, a chat not found in its window (permanent), the listener not ready after a gateway start,
// flood control holding the chat until its retry-after has passed (every send meanwhile refused with the time left);
// after the faults, only the limit. Each refusal is a fault on the trace. A bad configuration is refused with a
// sentence saying what is wrong.
import { describe, expect, it } from 'vitest';
import { defaultTimers, type Random } from '../../src/index.ts';
import type { OutboundSend } from '../../src/protocol.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { Ledger } from '../../sim/world/ledger.ts';
import { Platform, type PlatformRefusals } from '../../sim/world/platform.ts';

const sql = await loadSqlJs();

const knobs: PlatformRefusals = { textLimit: 100, rateLimitPer1000: 0, retryAfterMsMax: 10_000, notFound: [], notReadyMsMax: 0, ambiguousPer1000: 0 };

/** Sends `sends` (at their times) from a stand-in gateway and returns every answer it got, with the ledger. */
async function exchange(refusals: PlatformRefusals, sends: { atMs: number; session: string; key: string; text: string }[], setup: (platform: Platform, sim: Simulation) => void = () => {}) {
  const sim = new Simulation({ seed: 'platform-refusals', sql, simTimeMsMax: 120_000 });
  const ledger = new Ledger();
  const platform = new Platform(defaultTimers, 'gateway', ledger, false);
  platform.configureRefusals(refusals, sim.prng.fork('refusals') as Random, (fields) => sim.trace.record('fault', fields));
  setup(platform, sim);
  const answers: { atMs: number; type: string; key: string; reason?: string; retryAfterMs?: number }[] = [];
  sim.spawn('platform', (ctx) => platform.main(ctx));
  sim.spawn('gateway', async (ctx) => {
    for (const send of sends) sim.at(send.atMs, () => ctx.net.send('platform', { type: 'send', key: send.key, sessionKey: send.session, text: send.text, kind: 'message' } satisfies OutboundSend));
    for (;;) {
      const delivery = await ctx.net.receive();
      const payload = delivery.payload as { type: string; key: string; reason?: string; retryAfterMs?: number };
      answers.push({ atMs: ctx.clock.nowMs(), ...payload });
    }
  });
  await sim.run();
  const faults = sim.trace.events.filter((event) => event.kind === 'fault').map((event) => String(event.fields.reason ?? event.fields.kind));
  sim.dispose();
  return { answers, ledger, faults };
}

describe('a platform that refuses', () => {
  it('refuses a text over its limit, takes one within it, and records both', async () => {
    const { answers, ledger, faults } = await exchange(knobs, [
      { atMs: 1_000, session: 's', key: 'a', text: 'x'.repeat(101) },
      { atMs: 2_000, session: 's', key: 'b', text: 'x'.repeat(100) },
    ]);
    expect(answers.map((answer) => [answer.type, answer.key, answer.reason])).toEqual([['send.refused', 'a', 'too-long'], ['send.ack', 'b', undefined]]);
    expect(ledger.sendRefusals.map((refusal) => [refusal.key, refusal.reason, refusal.permanent])).toEqual([['a', 'too-long', false]]);
    expect(ledger.shown.map((fact) => fact.text.length)).toEqual([100]);
    expect(faults).toEqual(['too-long']);
  });

  it('refuses for good in a not-found window of the chat, and only that chat', async () => {
    const { ledger } = await exchange({ ...knobs, notFound: [{ sessionKey: 's', fromMs: 1_500, toMs: 3_000 }] }, [
      { atMs: 1_000, session: 's', key: 'a', text: 'before' },
      { atMs: 2_000, session: 's', key: 'b', text: 'inside' },
      { atMs: 2_000, session: 't', key: 'c', text: 'other chat' },
      { atMs: 3_500, session: 's', key: 'd', text: 'after' },
    ]);
    expect(ledger.sendRefusals.map((refusal) => [refusal.key, refusal.reason, refusal.permanent])).toEqual([['b', 'not-found', true]]);
    expect(ledger.shown.map((fact) => fact.text)).toEqual(['before', 'other chat', 'after']);
  });

  it('holds a flooded chat until the retry-after has passed, telling each send the time left', async () => {
    let first = true;
    const { answers, ledger } = await exchange(knobs, [
      { atMs: 1_000, session: 's', key: 'a', text: 'one' },
      { atMs: 3_200, session: 's', key: 'b', text: 'two' },
      { atMs: 6_000, session: 's', key: 'c', text: 'three' },
    ], (platform) => {
      platform.script.refuse = () => {
        if (!first) return undefined;
        first = false;
        return { reason: 'rate-limit', retryAfterMs: 5_000 };
      };
    });
    expect(answers.map((answer) => [answer.key, answer.reason ?? 'ack', answer.retryAfterMs])).toEqual([['a', 'rate-limit', 5_000], ['b', 'ack', undefined], ['c', 'ack', undefined]]);
    // The script's flood does not hold the chat (only a drawn one does): drawn floods are checked below.
    expect(ledger.sendRefusals).toHaveLength(1);
  });

  it('draws floods that hold the chat: a send before the retry-after passes is refused with the time left', async () => {
    const { answers } = await exchange({ ...knobs, rateLimitPer1000: 1000, retryAfterMsMax: 4_000 }, [
      { atMs: 1_000, session: 's', key: 'a', text: 'one' },
      { atMs: 1_500, session: 's', key: 'b', text: 'two' },
    ]);
    const [first, second] = answers;
    expect(first?.reason).toBe('rate-limit');
    expect(second?.reason).toBe('rate-limit');
    expect(second?.retryAfterMs).toBe(1_000 * Math.ceil(((first?.retryAfterMs ?? 0) - 500) / 1_000));
  });

  it('refuses while the listener is not ready after a gateway start, and takes sends after it', async () => {
    const { ledger } = await exchange({ ...knobs, notReadyMsMax: 3_000 }, [
      { atMs: 1_000, session: 's', key: 'a', text: 'early' },
      { atMs: 5_000, session: 's', key: 'b', text: 'late' },
    ], (platform) => platform.gatewayStarted(0));
    expect(ledger.shown.map((fact) => fact.text)).toContain('late');
    expect(ledger.sendRefusals.every((refusal) => refusal.reason === 'not-ready' && !refusal.permanent)).toBe(true);
  });

  it('refuses nothing but a text over its limit once the faults stop', async () => {
    const { ledger } = await exchange({ ...knobs, rateLimitPer1000: 1000, notFound: [{ sessionKey: 's', fromMs: 0, toMs: 100_000 }] }, [{ atMs: 1_000, session: 's', key: 'a', text: 'fine' }], (platform) => {
      platform.faultsActive = false;
    });
    expect(ledger.sendRefusals).toEqual([]);
    expect(ledger.shown.map((fact) => fact.text)).toEqual(['fine']);
  });

  it('refuses a bad configuration with a sentence saying what is wrong', () => {
    const platform = new Platform(defaultTimers, 'gateway', new Ledger(), false);
    const random = new Simulation({ seed: 'x', sql }).prng.fork('r') as Random;
    expect(() => platform.configureRefusals({ ...knobs, textLimit: 0 }, random, () => {})).toThrow('text limit must be a positive integer');
    expect(() => platform.configureRefusals({ ...knobs, retryAfterMsMax: 500 }, random, () => {})).toThrow('retry-after is at least 1 s');
    expect(() => platform.configureRefusals({ ...knobs, ambiguousPer1000: 1001 }, random, () => {})).toThrow('integer from 0 to 1000');
  });
});
