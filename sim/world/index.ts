// The world the system under test talks to and cannot crash: the chat platform, the LLM API, the external service
// the agent's tools act on (a calendar) and the deployed config, with the ground-truth ledger they write. The workload driver (sim/run/harness.ts) drives the platform and
// the node host and records the commands it asked for, each with a command line the world draws for its run.
import type { ModelTimers } from '../../src/config.ts';
import type { Random } from '../../src/ports.ts';
import { calendarServiceName } from '../../src/protocol.ts';
import { CalendarService } from './calendar.ts';
import { FakeModelApi } from './fake-model.ts';
import { Ledger } from './ledger.ts';
import { Platform } from './platform.ts';

/** The environment of a run: the platform, the LLM API, the deployed config and the ledger they write. */
export interface World {
  ledger: Ledger;
  platform: Platform;
  modelApi: FakeModelApi;
  /** The external service the agent's create_event tool acts on (a process of the world when a run offers it). */
  calendar: CalendarService;
  deployed: { configGeneration: number };
  /** The command line of a run (what `exec.started` reports), drawn from the run's own sub-stream. */
  commandLine: (runId: string) => string;
}

/** Command lines an agent asks a node host to run. */
export const commandLines = ['npm test', 'make build', 'git pull --rebase', 'ls -la /var/log', 'python3 scripts/report.py --weekly', 'cargo check'] as const;

export function buildWorld(options: {
  timers: ModelTimers;
  gatewayName: string;
  configGeneration: number;
  randomFor: (key: string) => Random;
  nowMs: () => number;
  /** The platform ignores client idempotency keys (default: it honours them). */
  keylessPlatform?: boolean;
  /** Marks a fault the world injects (the LLM's slow responses and transient errors) on the run's trace. */
  recordFault?: (fields: Record<string, string | number>) => void;
}): World {
  const ledger = new Ledger();
  return {
    ledger,
    platform: new Platform(options.timers, options.gatewayName, ledger, options.keylessPlatform !== true),
    calendar: new CalendarService(calendarServiceName, ledger),
    modelApi: new FakeModelApi((key) => options.randomFor(`model/${key}`), ledger, options.nowMs, options.recordFault),
    deployed: { configGeneration: options.configGeneration },
    commandLine: (runId) => options.randomFor(`workload/command/${runId}`).pick(commandLines),
  };
}

export { answerTag, type AnswerScript, contextToken, defaultModelBehaviour, FakeModelApi, interimPhrases, type ModelBehaviour, type ScriptedAnswer, stockAnswers } from './fake-model.ts';
export { CalendarService } from './calendar.ts';
export { type CommandFact, type DashboardTurnFact, type EffectFact, Ledger, type LlmAnswerFact, type LlmRequestFact, type ShownFact, type UserMessageFact } from './ledger.ts';
export { Platform, type UserMessage, type VisibleMessage } from './platform.ts';
