// docs/MODEL.md "Around the real parts": under 2026.7.1 the gateway keeps chat.send's idempotency keys in memory, as the
// release does (sim/real/openclaw/surroundings.ts `chat-dedupe-in-memory`), so a WebChat message whose chat.send was
// unanswered when the gateway was killed, sent again by the client after the reconnect under the same key, is taken a
// second time: two user rows and entries, its answer stored and shown twice. Found by a 1,000-run determinism campaign
// with 2026.7.1's every part (seed 11, run 68, frozen here). The report calls each violation that documented finding,
// not a new one; the same plan with the fixed model around the parts (its durable keys) passes.
import { describe, expect, it } from 'vitest';
import { codeUnderTest, matchFinding } from '../../sim/cli/real-code.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { parseOpenclawChoice } from '../../sim/real/openclaw/choice.ts';
import { runSpec } from '../../sim/run/harness.ts';
import { frozenSpec } from './openclaw-runs.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('the chat.send dedupe finding of 2026.7.1', ['2026.7.1']);
const plan = 'webchat-resend-after-a-gateway-restart-2026-7-1';

describe.skipIf(missing)('a WebChat message resent after a gateway restart, with 2026.7.1 around its parts', () => {
  it('is taken twice, and every violation is the documented finding about the release', async () => {
    const sql = await loadSqlJs();
    const choice = parseOpenclawChoice('2026.7.1:se,hw,ne');
    const result = await runSpec(frozenSpec(plan), { sql, openclaw: choice });
    try {
      expect(result.realCode.openclawAround?.applied.map((setting) => setting.id)).toContain('chat-dedupe-in-memory');
      expect(result.violations.map((violation) => violation.invariant)).toContain('no-double-ingestion');
      expect(result.violations.find((violation) => violation.invariant === 'no-double-ingestion')?.message).toMatch(/\(delivery wc-/);
      const code = codeUnderTest(result.realCode);
      const matches = result.violations.map((violation) => matchFinding(violation, code, result.sim.trace.events, result.violations));
      expect(matches.map((match) => (match.status === 'documented' ? match.section : 'new'))).toEqual(result.violations.map(() => 'Around the real parts'));
      // Alone, the consequences (the answer stored and shown twice) are no sign of it: the double ingestion is.
      const alone = result.violations.filter((violation) => violation.invariant !== 'no-double-ingestion');
      expect(alone.length).toBeGreaterThan(0);
      for (const violation of alone) expect(matchFinding(violation, code, result.sim.trace.events, alone)).toEqual({ status: 'new' });
    } finally {
      result.sim.dispose();
    }
    // The fixed model's durable keys around the same parts: the resend is answered from its row.
    const defended = await runSpec(frozenSpec(plan), { sql, openclaw: { ...choice, around: 'model' } });
    try {
      expect(defended.violations).toEqual([]);
    } finally {
      defended.sim.dispose();
    }
  });
});
