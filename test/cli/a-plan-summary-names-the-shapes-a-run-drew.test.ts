// A failure report prints the shrunk plan in a few lines (sim/cli/plan-text.ts). Chaos switches shapes on per run
// (scenarios/chaos.ts shapeWeights), and a reader needs to see which a counterexample kept: a WebChat client,
// compaction, the prompt envelope, gateway heartbeat runs, answers that name their context.
import { describe, expect, it } from 'vitest';
import { planText } from '../../sim/cli/plan-text.ts';
import { handPlan, user } from '../model/support.ts';

describe('a plan summary', () => {
  it('has no shapes line for a plan with none', () => {
    expect(planText(handPlan([user(1_000, 'hello')])).some((line) => line.startsWith('  shapes:'))).toBe(false);
  });

  it('names every shape the plan switched on', () => {
    const plan = {
      ...handPlan([user(1_000, 'hello')]),
      clients: { sessions: [0], retryKey: 'fresh' as const },
      compaction: { contextTokensMax: 254, keepRecentTokens: 79 },
      promptEnvelope: 'transform' as const,
      heartbeatRun: { mode: 'gateway' as const, timeoutMs: 5_003, fallbacks: 1, retryMs: 19_367 },
      contextAnswers: true,
    };
    const shapes = planText(plan).find((line) => line.startsWith('  shapes:'));
    expect(shapes).toBe(
      '  shapes:   WebChat client on s0 (retry key fresh); compaction past 254 tokens, keeping 79; prompt envelope transform; heartbeat runs gateway (timeout 5.0s, 1 fallback(s), retry after 19.4s); answers name their context',
    );
  });
});
