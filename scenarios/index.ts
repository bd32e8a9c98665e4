// The scenario registry: names are stable (the command line and seed strings use them).
import { cachedAgent } from './cached-agent.ts';
import { chaos } from './chaos.ts';
import type { Scenario } from './common.ts';
import { execReplay } from './exec-replay.ts';
import { orphanLeaf } from './orphan-leaf.ts';
import { sendMidTurn } from './send-mid-turn.ts';

export type { Scenario } from './common.ts';

export const scenarios: readonly Scenario[] = [execReplay, sendMidTurn, orphanLeaf, cachedAgent, chaos];

export const scenarioNames = scenarios.map((scenario) => scenario.name);

export function findScenario(name: string): Scenario | undefined {
  return scenarios.find((scenario) => scenario.name === name);
}
