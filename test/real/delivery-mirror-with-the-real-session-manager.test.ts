// Under `--session-manager pi` the delivery mirror opens the transcript with the gateway's own instance of the real pi
// SessionManager (the same port the runner uses), so pi is the second writer too: the mirror line is pi's own (no
// top-level turnId, which only the model's SessionManager writes), carries OpenClaw's markers, and the fixed model
// passes with both writers on pi.
import { describe, expect, it } from 'vitest';
import { transcriptPath } from '../../src/index.ts';
import { runSpec } from '../../sim/run/harness.ts';
import { sessionKey } from '../../sim/run/plan.ts';
import { firstReply, interim, secondReply, twoTurns, twoTurnScript } from '../checkers/support.ts';
import { piMissing, sql } from './support.ts';

describe.skipIf(piMissing)("the delivery mirror with sessionManager 'pi'", () => {
  it("appends through pi's SessionManager in the gateway; the fixed model passes", async () => {
    const plan = { ...twoTurns, secondWriters: { deliveryMirror: 'on' as const, gatewayAppend: 'off' as const } };
    const result = await runSpec({ scenario: 'symptom', bugs: [], seed: 1, plan }, { sql, sessionManager: 'pi', prepare: (_sim, _model, world) => void (world.modelApi.script = twoTurnScript) });
    try {
      const lines = (result.sim.disk.peek(transcriptPath(sessionKey(0))) ?? '').split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line) as Record<string, unknown>);
      const mirrors = lines.filter((line) => (line.message as { model?: unknown } | undefined)?.model === 'delivery-mirror');
      expect(mirrors.map((line) => ((line.message as { content: { text: string }[] }).content[0]?.text ?? '')).sort()).toEqual([firstReply, interim, secondReply].sort());
      for (const line of mirrors) {
        expect(line).not.toHaveProperty('turnId');
        expect(line.message).toMatchObject({ role: 'assistant', provider: 'openclaw', idempotencyKey: expect.any(String) });
      }
      expect(result.violations).toEqual([]);
    } finally {
      result.sim.dispose();
    }
  });
});
