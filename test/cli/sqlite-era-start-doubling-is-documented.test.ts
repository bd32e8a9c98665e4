// The SQLite era's handleNodeEvent doubles a replayed exec.started as 2026.7.1 does (its authorization of a start is
// not terminal, and only exec.finished has a dedupe window): a no-double-ingestion of a command's start in a run with
// 2026.8.1's or 2026.9.6's node events is the documented finding of docs/MODEL.md "Node exec events, real" (its
// SQLite-era subsection gives the seed strings), and the same doubling without their node events stays new.
import { describe, expect, it } from 'vitest';
import type { Violation } from '../../sim/checkers/index.ts';
import { codeUnderTest, matchFinding } from '../../sim/cli/real-code.ts';

const doubled: Violation = { invariant: 'no-double-ingestion', message: 'agent:main:chat:0: the start of command run-1 is in 2 user rows of state.db', step: 3, timeMs: 10, class: 'correctness' };

describe('the start doubling in the SQLite era', () => {
  it('is the node-events finding with their node events, and new without them', () => {
    for (const release of ['2026.8.1', '2026.9.6'] as const) {
      const withNodeEvents = codeUnderTest({ openclaw: { release, parts: ['system-events', 'heartbeat-wake', 'node-events', 'orphan-merge'] }, sessionManager: 'model', custom: [] }, []);
      expect(matchFinding(doubled, withNodeEvents, []), release).toMatchObject({ status: 'documented', section: 'Node exec events, real' });
      const without = codeUnderTest({ openclaw: { release, parts: ['system-events', 'heartbeat-wake', 'orphan-merge'] }, sessionManager: 'model', custom: [] }, []);
      expect(matchFinding(doubled, without, []), release).toEqual({ status: 'new' });
    }
  });
});
