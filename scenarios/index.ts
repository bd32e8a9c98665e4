// The scenario registry: names are stable (the command line and seed strings use them). The built-in scenarios come
// first; a user's own (registerScenario) join the same list, so the harness, the command line and seed strings
// treat them alike.
import { blockStreaming } from './block-streaming.ts';
import { cachedAgent } from './cached-agent.ts';
import { chaos } from './chaos.ts';
import { compaction } from './compaction.ts';
import { clientConnections } from './client-connections.ts';
import type { Scenario } from './common.ts';
import { execReplay } from './exec-replay.ts';
import { fallbackDelivery } from './fallback-delivery.ts';
import { heartbeatRuns } from './heartbeat-runs.ts';
import { orphanLeaf } from './orphan-leaf.ts';
import { overlappingWork } from './overlapping-work.ts';
import { platformRefusals } from './platform-refusals.ts';
import { promptEnvelope } from './prompt-envelope.ts';
import { rowsLeftPending } from './rows-left-pending.ts';
import { scheduledTasks } from './scheduled-tasks.ts';
import { secondWriter } from './second-writer.ts';
import { sendMidTurn } from './send-mid-turn.ts';
import { stalledWrites } from './stalled-writes.ts';

export type { Scenario } from './common.ts';

/** Every scenario, built-in first, then registered ones in registration order (a live list). */
export const scenarios: readonly Scenario[] = [execReplay, sendMidTurn, orphanLeaf, cachedAgent, chaos, scheduledTasks, clientConnections, compaction, promptEnvelope, heartbeatRuns, secondWriter, platformRefusals, rowsLeftPending, stalledWrites, overlappingWork, fallbackDelivery, blockStreaming];

/** How many of `scenarios` are built in (they come first). */
export const builtinScenarioCount = scenarios.length;

/** The names of `scenarios`, in the same order (a live list). */
export const scenarioNames: readonly string[] = scenarios.map((scenario) => scenario.name);

/** The scenario of that name, built-in or registered, or undefined. */
export function findScenario(name: string): Scenario | undefined {
  return scenarios.find((scenario) => scenario.name === name);
}

/**
 * Add a scenario of one's own. Its name must be new and fit in a seed string (lower-case letters, digits, dashes).
 * Registering the same object again is a no-op.
 */
export function registerScenario(scenario: Scenario): void {
  if (scenarios.includes(scenario)) return;
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(scenario.name)) throw new Error(`scenario name "${scenario.name}" must be lower-case letters, digits and dashes`);
  if (findScenario(scenario.name) !== undefined) throw new Error(`a scenario named "${scenario.name}" is already registered`);
  (scenarios as Scenario[]).push(scenario);
  (scenarioNames as string[]).push(scenario.name);
}
