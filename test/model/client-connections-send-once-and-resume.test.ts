// Client connections (issue 24 item 1, plan.clients): OpenClaw's WebChat client sends chat.send over a WebSocket with
// an idempotency key, sends it again with the same key when the connection died before the answer came, and resumes
// its event stream on every new connection (the gateway replays the finals after the client's last seq). The world's
// ledger records what the client typed, every chat.send it wrote and every final it was shown, so the existing
// invariants judge client turns. The sabotages, each caught: the gateway's key dedupe off, the client's retry under a
// fresh key, OpenClaw's own in-memory dedupe map across a gateway restart, and a replay that sends the last final the
// client was shown again.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import type { Simulation } from '../../sim/kernel/simulation.ts';
import type { ClientPlan, ClientPoint, FaultStep, Plan } from '../../sim/run/plan.ts';
import type { RunResult } from '../../sim/run/harness.ts';
import { WebChatClient } from '../../sim/world/client.ts';
import { handPlan, invariants, notes, session0, stateRows, user } from './support.ts';

const sql = await loadSqlJs();

afterEach(() => vi.restoreAllMocks());

const dropAt = (point: ClientPoint, nth = 0): FaultStep => ({ kind: 'client-drop-at', point, nth, delayMs: 0 });
const clientPlan = (faults: FaultStep[], clients: Partial<ClientPlan> = {}): Plan => ({
  ...handPlan([user(5_000, 'can you check calendar?'), user(40_000, 'and the weather?')], faults),
  clients: { sessions: [0], ...clients },
});

/** How many times a message's marker is in state.db's user rows (a merged copy counts too). */
const userRowsOf = (result: RunResult, marker: string): number => stateRows(result).filter((row) => row.role === 'user').reduce((count, row) => count + row.content.split(marker).length - 1, 0);
const total = (row: Record<string, number>): number => Object.values(row).reduce((sum, count) => sum + count, 0);
const shownTexts = (result: RunResult): string[] => result.ledger.shown.filter((fact) => fact.sessionKey === session0).map((fact) => fact.text);

/** A `prepare` hook: kill the gateway (restarted after 1 s) when it first answers a chat.send. */
function killGatewayOnAnswer(sim: Simulation): void {
  let fired = false;
  sim.trace.onEvent((event) => {
    if (fired || event.kind !== 'model.chat-send') return;
    fired = true;
    sim.scheduler.schedule(0, () => {
      if (sim.kill('gateway')) sim.restart('gateway', 1_000);
    });
  });
}

async function run(plan: Plan, prepare?: (sim: Simulation) => void): Promise<RunResult> {
  const { runSpec } = await import('../../sim/run/harness.ts');
  return runSpec({ scenario: 'symptom', bugs: [], seed: 1, plan }, { sql, ...(prepare === undefined ? {} : { prepare }) });
}

async function withRun(plan: Plan, check: (result: RunResult) => void, prepare?: (sim: Simulation) => void): Promise<void> {
  const result = await run(plan, prepare);
  try {
    check(result);
  } finally {
    result.sim.dispose();
  }
}

describe('client connections', () => {
  it('a chat.send is answered, run once, and its reply streamed to the client; the platform shows nothing', async () => {
    await withRun(clientPlan([]), (result) => {
      expect(notes(result, 'chat-send').map((note) => note.fields.status)).toEqual(['started', 'started']);
      expect(result.ledger.userMessages.map((message) => message.acknowledgedAtMs !== null)).toEqual([true, true]);
      expect(result.ledger.clientEvents).toHaveLength(2);
      expect(shownTexts(result)).toHaveLength(2);
      expect(result.world.platform.visible).toEqual([]);
      expect(result.violations).toEqual([]);
    });
  });

  it('a send whose answer was lost goes again with its key, and the gateway dedupes it (one row, one turn)', async () => {
    await withRun(clientPlan([dropAt('answer')]), (result) => {
      const sends = result.ledger.clientSends.filter((send) => send.typedKey === result.ledger.userMessages[0]?.deliveryId);
      expect(sends.map((send) => send.connection)).toEqual([0, 1]);
      expect(new Set(sends.map((send) => send.key)).size).toBe(1);
      expect(notes(result, 'chat-send').map((note) => note.fields.inserted)).toEqual([1, 0, 1]);
      expect(userRowsOf(result, '[m0]')).toBe(1);
      expect(total(result.coverage['client-drop-before-ack'])).toBeGreaterThan(0);
      expect(total(result.coverage['client-retry'])).toBeGreaterThan(0);
      expect(total(result.coverage['client-dedupe'])).toBeGreaterThan(0);
      expect(result.violations).toEqual([]);
    });
  });

  it('sabotage: with the dedupe off, the retry is a second user turn (no-double-ingestion)', async () => {
    await withRun(clientPlan([dropAt('answer')], { dedupe: 'off' }), (result) => {
      expect(userRowsOf(result, '[m0]')).toBe(2);
      expect(invariants(result)).toContain('no-double-ingestion');
    });
  });

  it('sabotage: a retry under a fresh key is a second user turn (no-double-ingestion)', async () => {
    await withRun(clientPlan([dropAt('answer')], { retryKey: 'fresh' }), (result) => {
      expect(new Set(result.ledger.clientSends.filter((send) => send.typedKey === result.ledger.userMessages[0]?.deliveryId).map((send) => send.key)).size).toBe(2);
      expect(invariants(result)).toContain('no-double-ingestion');
    });
  });

  it("OpenClaw's in-memory dedupe holds while the gateway lives, and forgets the key when it restarts", async () => {
    await withRun(clientPlan([dropAt('answer')], { dedupe: 'memory' }), (result) => {
      expect(userRowsOf(result, '[m0]')).toBe(1);
      expect(result.violations).toEqual([]);
    });
    await withRun(clientPlan([], { dedupe: 'memory' }), (result) => {
      expect(userRowsOf(result, '[m0]')).toBe(2);
      expect(invariants(result)).toContain('no-double-ingestion');
    }, killGatewayOnAnswer);
    // The fixed gateway's key is the row: the same restart leaves one.
    await withRun(clientPlan([]), (result) => {
      expect(userRowsOf(result, '[m0]')).toBe(1);
      expect(result.violations).toEqual([]);
    }, killGatewayOnAnswer);
  });

  it('a final lost with its connection is replayed on the resume and shown once', async () => {
    await withRun(clientPlan([dropAt('final')]), (result) => {
      const first = result.ledger.clientEvents.filter((event) => event.seq === 1);
      expect(first.map((event) => event.connection)).toEqual([1]);
      expect(notes(result, 'chat-replay').some((note) => note.fields.count === 1)).toBe(true);
      expect(total(result.coverage['client-drop-mid-stream'])).toBeGreaterThan(0);
      expect(total(result.coverage['client-replay'])).toBeGreaterThan(0);
      expect(new Set(shownTexts(result)).size).toBe(shownTexts(result).length);
      expect(result.violations).toEqual([]);
    });
  });

  it("the reply invariants read the client's showings: replies that never reach the client are lost (no-lost-reply)", async () => {
    // From the first chat.send on, every frame from the gateway to the client is parked for good: the runs answer, the
    // client is shown nothing (and, never answered, owes nobody a reply: every-inbound-answered does not apply).
    await withRun(clientPlan([]), (result) => {
      expect(result.ledger.answers.length).toBeGreaterThan(0);
      expect(shownTexts(result)).toEqual([]);
      expect(invariants(result)).toContain('no-lost-reply');
    }, (sim) => sim.trace.onEvent((event) => {
      if (event.kind === 'model.client-send') sim.network.hold('gateway', 'webchat');
    }));
  });

  it('a client message that was answered is owed a reply the client shows (every-inbound-answered)', async () => {
    // The client gets every final and shows none of them (a client that drops the stream's events).
    vi.spyOn(WebChatClient.prototype as unknown as { show: () => void }, 'show').mockImplementation(() => undefined);
    await withRun(clientPlan([]), (result) => {
      expect(result.ledger.userMessages.every((message) => message.acknowledgedAtMs !== null)).toBe(true);
      expect(shownTexts(result)).toEqual([]);
      expect(invariants(result)).toContain('every-inbound-answered');
    });
  });

  it('sabotage: a replay from the last seq shown shows that final again (no-duplicate-visible-reply)', async () => {
    await withRun(clientPlan([dropAt('shown')]), (result) => {
      expect(result.violations).toEqual([]);
      expect(total(result.coverage['client-drop-after-final'])).toBeGreaterThan(0);
    });
    await withRun(clientPlan([dropAt('shown')], { replay: 'inclusive' }), (result) => {
      expect(result.ledger.clientEvents.filter((event) => event.seq === 1)).toHaveLength(2);
      expect(invariants(result)).toContain('no-duplicate-visible-reply');
    });
  });
});
