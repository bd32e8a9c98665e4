// The fake LLM API's partial streams: of the transient errors it draws outside an outage, about a quarter strike after
// the whole closing text has streamed. Such a request returns the answer it would have given, marked `streamCut`, and
// the ledger records it as answered; every other error is thrown and recorded as a failed request; an outage (the
// API down) never cuts a stream, and with the faults over nothing is cut.
import { describe, expect, it } from 'vitest';
import { LlmTransientError, type Random, type Timers } from '../../src/ports.ts';
import { Prng } from '../../sim/kernel/prng.ts';
import { FakeModelApi, streamCutPer1000 } from '../../sim/world/fake-model.ts';
import { Ledger } from '../../sim/world/ledger.ts';

/** Timers that return at once (the latency is not what this test is about). */
const instant: Timers = { sleep: () => Promise.resolve(), setTimer: () => ({ cancel: () => {} }) };

function api(): { api: FakeModelApi; ledger: Ledger; faults: string[] } {
  const ledger = new Ledger();
  const faults: string[] = [];
  const prng = new Prng('stream-cut');
  const model = new FakeModelApi((key) => prng.fork(key) as Random, ledger, () => 1_000, (fields) => faults.push(String(fields.kind)));
  model.behaviour = { ...model.behaviour, transientErrorPer1000: 1000 };
  return { api: model, ledger, faults };
}

async function ask(model: FakeModelApi, prompts: number): Promise<{ cut: number; thrown: number }> {
  let cut = 0;
  let thrown = 0;
  for (let index = 0; index < prompts; index++) {
    try {
      const answer = await model.complete({ sessionKey: 's', prompt: `question ${index}` }, instant);
      expect(answer.streamCut).toBe(true);
      expect(answer.result).toMatch(/\n\(reply [0-9a-f]{8}\)$/);
      cut++;
    } catch (error) {
      expect(error).toBeInstanceOf(LlmTransientError);
      thrown++;
    }
  }
  return { cut, thrown };
}

describe('partial streams of the fake LLM API', () => {
  it('cut about a quarter of the errors after the text: answered in the ledger, marked on the trace', async () => {
    const { api: model, ledger, faults } = api();
    const { cut, thrown } = await ask(model, 400);
    expect(cut + thrown).toBe(400);
    // 250 per 1000, drawn per request: 100 expected of 400.
    expect(streamCutPer1000).toBe(250);
    expect(cut).toBeGreaterThan(70);
    expect(cut).toBeLessThan(130);
    expect(ledger.answers).toHaveLength(cut);
    expect(ledger.requests.filter((request) => request.outcome === 'answer')).toHaveLength(cut);
    expect(ledger.requests.filter((request) => request.outcome === 'error')).toHaveLength(thrown);
    expect(faults.filter((kind) => kind === 'stream-cut')).toHaveLength(cut);
    expect(faults.filter((kind) => kind === 'model-error')).toHaveLength(thrown);
  });

  it('never cut during an outage or once the faults are over', async () => {
    const down = api();
    down.api.outageUntilMs = 2_000;
    expect(await ask(down.api, 100)).toEqual({ cut: 0, thrown: 100 });
    const over = api();
    over.api.faultsActive = false;
    for (let index = 0; index < 50; index++) {
      const answer = await over.api.complete({ sessionKey: 's', prompt: `question ${index}` }, instant);
      expect(answer.streamCut).toBeUndefined();
    }
    expect(over.faults).toEqual([]);
  });
});
