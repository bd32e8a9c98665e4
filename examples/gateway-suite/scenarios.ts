// Your own scenario: a fast-check arbitrary of plans built from gatesim's building blocks, and the component it runs
// with. Here: chat turns whose agent calls tools mid-turn, while the tool server is killed around those calls and
// its database is sometimes locked.
import { byTime, fc, faultKnobs, killAtPhase, modelKnobs, type Scenario, settleMs, timedKill, userStep } from 'gatesim';
import { myToolServer } from './my-tool-server.ts';

const faultPhaseMs = 120_000;

export const toolServerRestarts: Scenario = {
  name: 'tool-server-restarts',
  description: 'mid-turn tool calls while my tool server is killed and its database is locked',
  focus: [],
  components: { 'tool-server': () => myToolServer },
  plan: fc.record({
    sessions: fc.integer({ min: 1, max: 2 }),
    workload: fc.array(userStep(faultPhaseMs, 2), { minLength: 1, maxLength: 6 }).map(byTime),
    faults: fc.array(fc.oneof(killAtPhase(['tool-server'], fc.constant('tool-send')), timedKill(faultPhaseMs, ['tool-server'])), { maxLength: 3 }),
    faultKnobs: faultKnobs({ sqlBusyPer1000: fc.integer({ min: 0, max: 100 }) }),
    model: modelKnobs({ toolCallPer1000: fc.integer({ min: 500, max: 1000 }) }),
    faultPhaseMs: fc.constant(faultPhaseMs),
    settleMs: fc.constant(settleMs),
  }),
};
