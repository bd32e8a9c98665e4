// Issue 48 items 1 and 2: a platform that refuses sends and limits a message's length. A long reply goes out in parts,
// each its own send; the fixed gateway shows it whole and once through flood control, a listener not ready yet and a
// part whose send was lost, and gives up visibly (Hermes' delivery ledger in state.db) when the chat is not found. Each
// sabotage is the way a real gateway got it wrong, and an invariant catches it:
// - `resend-whole`: a retry after flood control starts the reply over (Hermes' `_send_with_retry` before
//   `send_split`), so the part already taken is shown twice: no-duplicate-visible-reply (and one-send-in-flight: the
//   gateway knew the platform had it);
// - `skip-unacked`: a part with no answer counts as taken, and a part the network lost is never shown: no-lost-reply;
// - `drop-not-ready`: a send the listener refused is dropped and the row marked delivered (nanoclaw's "No delivery
//   adapter configured, dropping message"): no-lost-reply;
// - `give-up-not-ready`: the listener's refusal counts as permanent (OpenClaw before PR #126800): given up visibly, but
//   on a refusal that was not permanent: no-lost-reply;
// - `give-up-silently`: the chat not found, the row closed with no record of the give-up: no-lost-reply.
import { describe, expect, it } from 'vitest';
import { chunkText, stateDbPath } from '../../src/index.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { DeliveryMode } from '../../src/index.ts';
import type { Plan, PlatformPlan } from '../../sim/run/plan.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import { forMessage, handPlan, invariants, reply, run, session0, user, withRun } from './support.ts';

const sql = await loadSqlJs();

const limit = 2_000;
/** A reply of three parts at a 2,000-character limit. */
const longText = Array.from({ length: 12 }, (_, index) => `Paragraph ${index + 1} of the long answer: ${'the flight leaves at nine and the meeting notes say the invoice was paid '.repeat(6).trim()}.`).join('\n\n');
const parts = chunkText(longText, limit);

function platform(overrides: Partial<PlatformPlan> = {}): PlatformPlan {
  return { textLimit: limit, rateLimitPer1000: 0, retryAfterMsMax: 5_000, notFound: [], notReadyMsMax: 0, ambiguousPer1000: 0, longReplyPer1000: 0, ...overrides };
}

function plan(mode: DeliveryMode, overrides: Partial<PlatformPlan> = {}): Plan {
  return { ...handPlan([user(1_000, 'tell me everything')]), platform: platform(overrides), keylessPlatform: true, deliveryMode: mode };
}

const script = forMessage({ 0: { toolCalls: [], result: reply(longText) } });

/** How many times the user was shown each part of the long reply. */
function showingsOfParts(result: RunResult): number[] {
  return parts.map((part) => result.ledger.shown.filter((fact) => fact.text === part).length);
}

describe('a long reply on a platform that limits and refuses', () => {
  it('is split into parts within the limit that spell the reply', () => {
    expect(parts.length).toBe(3);
    expect(parts.every((part) => part.length <= limit)).toBe(true);
    expect(parts.join('').replace(/\s+/g, '')).toBe(longText.replace(/\s+/g, ''));
  });

  const floodOnPartTwo = (result: { world: RunResult['world'] }): void => {
    let refused = false;
    result.world.platform.script.refuse = (send) => {
      if (refused || !send.key.endsWith('#2')) return undefined;
      refused = true;
      return { reason: 'rate-limit', retryAfterMs: 3_000 };
    };
  };

  it('is shown whole once through flood control on its second part, the wait the platform asked for first', async () => {
    await withRun(sql, { bugs: [], plan: plan('fixed'), script, prepare: (_sim, _model, world) => floodOnPartTwo({ world }) }, (result) => {
      expect(result.ledger.sendRefusals.map((refusal) => [refusal.reason, refusal.retryAfterMs, refusal.permanent])).toEqual([['rate-limit', 3_000, false]]);
      expect(showingsOfParts(result)).toEqual([1, 1, 1]);
      const refusedAt = result.ledger.sendRefusals[0]?.atMs ?? 0;
      const resent = result.ledger.sendAttempts.find((attempt) => attempt.text === parts[1]);
      expect((resent?.atMs ?? 0) - refusedAt).toBeGreaterThanOrEqual(3_000);
      expect(result.violations).toEqual([]);
    });
  });

  it('shows a taken part twice when a retry after flood control starts the reply over (resend-whole)', async () => {
    await withRun(sql, { bugs: [], plan: plan('resend-whole'), script, prepare: (_sim, _model, world) => floodOnPartTwo({ world }) }, (result) => {
      expect(showingsOfParts(result)).toEqual([2, 1, 1]);
      // The user sees the first part twice; the gateway also sent its key again after the platform's answer reached it.
      expect(invariants(result)).toEqual(['no-duplicate-visible-reply', 'one-send-in-flight']);
    });
  });

  // The second part's first send is lost on its way to the platform (the link is cut while it travels).
  const losePartTwo: NonNullable<Parameters<typeof withRun>[1]['prepare']> = (sim) => {
    let cut = false;
    sim.trace.onEvent((event) => {
      if (cut || event.kind !== 'model.deliver-attempt' || event.fields.part !== 2) return;
      cut = true;
      sim.network.partition('gateway', 'platform');
      sim.scheduler.schedule(1_000, () => sim.network.heal('gateway', 'platform'));
    });
  };

  it('sends a part whose answer never came again, and shows the reply whole', async () => {
    await withRun(sql, { bugs: [], plan: plan('fixed'), script, prepare: losePartTwo }, (result) => {
      expect(showingsOfParts(result)).toEqual([1, 1, 1]);
      expect(result.violations).toEqual([]);
    });
  });

  it('loses the reply when a part with no answer counts as taken (skip-unacked)', async () => {
    await withRun(sql, { bugs: [], plan: plan('skip-unacked'), script, prepare: losePartTwo }, (result) => {
      expect(showingsOfParts(result)).toEqual([1, 0, 1]);
      expect(invariants(result)).toEqual(expect.arrayContaining(['no-lost-reply']));
      expect(invariants(result)).not.toContain('no-duplicate-visible-reply');
    });
  });

  it('shows a part again whose answer was lost, and that repeat is excused (the sender could not know)', async () => {
    await withRun(
      sql,
      {
        bugs: [],
        plan: plan('fixed'),
        script,
        prepare: (_sim, _model, world) => {
          let lost = false;
          world.platform.script.answer = (send) => {
            if (lost || !send.key.endsWith('#2')) return undefined;
            lost = true;
            return 'lost';
          };
        },
      },
      (result) => {
        expect(showingsOfParts(result)).toEqual([1, 2, 1]);
        expect(result.violations).toEqual([]);
      },
    );
  });

  const notReadyOnce = (_sim: unknown, _model: unknown, world: RunResult['world']): void => {
    let refused = false;
    world.platform.script.refuse = (send) => {
      if (refused || !send.key.endsWith('#1')) return undefined;
      refused = true;
      return { reason: 'not-ready', retryAfterMs: 0 };
    };
  };

  it('tries again after the listener was not ready, and shows the reply whole', async () => {
    await withRun(sql, { bugs: [], plan: plan('fixed'), script, prepare: notReadyOnce }, (result) => {
      expect(result.ledger.sendRefusals.map((refusal) => refusal.reason)).toEqual(['not-ready']);
      expect(showingsOfParts(result)).toEqual([1, 1, 1]);
      expect(result.violations).toEqual([]);
    });
  });

  it.each([
    ['drop-not-ready', 'drops the reply when the listener was not ready'],
    ['give-up-not-ready', 'gives the reply up, visibly, on a refusal that was not permanent'],
  ] as const)('loses the reply in mode %s: it %s', async (mode, _what) => {
    await withRun(sql, { bugs: [], plan: plan(mode), script, prepare: notReadyOnce }, (result) => {
      expect(showingsOfParts(result)).toEqual([0, 0, 0]);
      expect(invariants(result)).toEqual(expect.arrayContaining(['no-lost-reply', 'every-inbound-answered']));
      if (mode === 'give-up-not-ready') expect(result.violations.find((violation) => violation.invariant === 'no-lost-reply')?.message).toContain('not permanent: not-ready');
    });
  });

  // The chat is not found from just before the reply to the end of the faults.
  const notFound = { notFound: [{ session: 0, atMs: 2_000, durationMs: 200_000 }] };

  it('gives the reply up when the chat is not found, recorded in state.db as Hermes records a failed delivery', async () => {
    await withRun(sql, { bugs: [], plan: plan('fixed', notFound), script }, (result) => {
      expect(result.ledger.sendRefusals.map((refusal) => [refusal.reason, refusal.permanent])).toEqual([['not-found', true]]);
      expect(showingsOfParts(result)).toEqual([0, 0, 0]);
      const rows = result.sim.sqlite.inspect(stateDbPath, 'SELECT session_key, content, state, last_error FROM delivery_obligations');
      expect(rows).toEqual([{ session_key: session0, content: longText, state: 'failed', last_error: 'Bad Request: chat not found' }]);
      expect(result.violations).toEqual([]);
    });
  });

  it('loses the reply silently when the give-up is recorded nowhere (give-up-silently)', async () => {
    await withRun(sql, { bugs: [], plan: plan('give-up-silently', notFound), script }, (result) => {
      expect(invariants(result)).toEqual(['every-inbound-answered', 'no-lost-reply']);
      expect(result.violations.find((violation) => violation.invariant === 'no-lost-reply')?.message).toContain('given up silently');
    });
  });

  it('is refused as a plan with a clear sentence when its platform is missing or bad', async () => {
    await expect(run(sql, { bugs: [], plan: { ...handPlan([]), deliveryMode: 'fixed' } })).rejects.toThrow('needs its platform');
    await expect(run(sql, { bugs: [], plan: { ...handPlan([]), platform: platform({ textLimit: 50 }) } })).rejects.toThrow('at least 100');
    await expect(run(sql, { bugs: [], plan: { ...handPlan([]), platform: platform({ rateLimitPer1000: 2_000 }) } })).rejects.toThrow('rateLimitPer1000 is a whole number from 0 to 1000');
  });
});
