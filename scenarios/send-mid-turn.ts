// send-mid-turn (seed 001): turns whose model calls send_message / send_file / add_reaction mid-turn and whose
// closing text often repeats a sent payload (verbatim or with other whitespace) or uses a stock phrase, with
// runner kills between a tool send and the result dispatch, and tool server kills. Users send bursts (a message and
// up to two follow-ups seconds later), so a follow-up often arrives while a killed runner is down and joins the
// batch the restarted runner fetches again.
import fc from 'fast-check';
import { byTime, faultKnobs, killAtPhase, modelKnobs, type Scenario, settleMs, userBurst } from './common.ts';

const faultPhaseMs = 150_000;

export const sendMidTurn: Scenario = {
  name: 'send-mid-turn',
  description: 'mid-turn tool sends with repeated closing text; runner and tool-server kills around the result dispatch',
  focus: ['send-dup', 'send-flag', 'send-stale'],
  plan: fc.record({
    sessions: fc.integer({ min: 1, max: 2 }),
    workload: fc
      .array(userBurst(faultPhaseMs, 2), { minLength: 1, maxLength: 5 })
      .map((bursts) => byTime(bursts.flat())),
    faults: fc.array(
      // nanoclaw starts a crashed container again only when it is woken (the next message, or the sweep within 60 s),
      // so a follow-up of the burst often arrives while the runner is down and joins the batch it fetches again.
      killAtPhase(['runner', 'tool-server'], fc.constantFrom('tool-send', 'tool-send', 'model-call', 'result-dispatch', 'flush'), fc.integer({ min: 0, max: 60_000 })),
      { maxLength: 4 },
    ),
    faultKnobs: faultKnobs({ modelErrorPer1000: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 200 })) }),
    model: modelKnobs({
      toolCallPer1000: fc.integer({ min: 300, max: 1000 }),
      repeatPer1000: fc.integer({ min: 0, max: 1000 }),
      stockAnswerPer1000: fc.integer({ min: 0, max: 1000 }),
    }),
    faultPhaseMs: fc.constant(faultPhaseMs),
    settleMs: fc.constant(settleMs),
  }),
};
