// A component of one's own, handed to a run as a replacement for one of the model's processes, is what the
// simulation starts (and restarts) under that process's name, and the checkers judge it like the built-in one: a
// faithful wrapper passes, a tool server that drops every call is caught.
import { describe, expect, it } from 'vitest';
import { buildModel, modelConfig, type ModelComponents, type ProcessMain, runScenario, toolServerMain, type ToolResultMessage, isToolCall } from '../../lib/index.ts';

describe('swapping a process of the model', () => {
  it('starts the given main under the process name and judges it', async () => {
    let starts = 0;
    const wrapped: ModelComponents = {
      'tool-server': (config) => async (ctx) => {
        starts++;
        await toolServerMain(ctx, config.bugs);
      },
    };
    const run = await runScenario('send-mid-turn', { seed: 7, components: wrapped });
    expect(starts).toBeGreaterThan(0);
    expect(run.result.verdict, run.report).toBe('pass');
  });

  it('catches a tool server that acknowledges calls without recording them', async () => {
    const liar: ProcessMain = async (ctx) => {
      for (;;) {
        const delivery = await ctx.net.receive();
        if (isToolCall(delivery.payload)) ctx.net.send(delivery.from, { type: 'tool.result', callId: delivery.payload.callId, ok: true } satisfies ToolResultMessage);
      }
    };
    const outcomes = await Promise.all([4, 5, 6].map((seed) => runScenario('send-mid-turn', { seed, components: { 'tool-server': () => liar } })));
    expect(outcomes.some((run) => run.result.violations.some((violation) => violation.invariant === 'no-lost-reply'))).toBe(true);
  });

  it('refuses a process that cannot be replaced', () => {
    const config = modelConfig({ sessions: ['s'] });
    const env = { llm: { complete: () => Promise.reject(new Error('unused')) }, configGeneration: () => 0 };
    expect(() => buildModel(config, env, { 'node-host': () => async () => {} } as unknown as ModelComponents)).toThrow('cannot replace process "node-host"');
  });
});
