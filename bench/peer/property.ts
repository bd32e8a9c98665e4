// The peer hunt: the property an engineer would write with fast-check alone to find the same bugs in the same model.
// It generates a workload (chat messages, exec completions, /clear, config changes over a minute, one or two
// sessions), starts every process of the model in the fc.scheduler world (bench/peer/world.ts), lets fast-check
// interleave every asynchronous step, and checks what a careful engineer would assert about their own system:
// - no duplicate reply: a turn never shows the user the same text twice;
// - no double ingestion: a chat message (by its marker) or an exec run's start or finish becomes at most one user row
//   in state.db;
// - no lost reply: every tool payload and every `to="user"` block the LLM produced reaches the user;
// - replies persisted: a reply the user saw has an assistant row in state.db and an assistant entry on the JSONL's
//   active branch.
// The model's knobs are its defaults (tool calls, repeats and stock answers on). What it cannot do without a
// simulated world: kill a process, replay or drop a message, lose an unsynced write.
import fc from 'fast-check';
import type { SqlJsStatic } from 'sql.js';
import {
  activeBranchOf,
  type BugId,
  buildModel,
  clearedReply,
  gatewayName,
  type LlmAnswer,
  modelConfig,
  platformName,
  normalizeWhitespace,
  parseMessageBlocks,
  parseTranscript,
  type Random,
  stateDbPath,
  transcriptPath,
} from '../../src/index.ts';
import { wallNowMs } from '../../sim/cli/real.ts';
import { buildWorld } from '../../sim/world/index.ts';
import { PeerWorld } from './world.ts';

type PeerStep =
  | { kind: 'user'; atMs: number; session: number; text: string }
  | { kind: 'exec'; atMs: number; session: number; durationMs: number; exitCode: number; output: string }
  | { kind: 'clear'; atMs: number; session: number }
  | { kind: 'config-bump'; atMs: number };

interface PeerPlan {
  sessions: number;
  seed: number;
  steps: PeerStep[];
}

const workloadMs = 60_000;
const settleMs = 240_000;
const stepsMax = 200_000;

const stepArb: fc.Arbitrary<PeerStep> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('user' as const), atMs: fc.nat(workloadMs), session: fc.nat(1), text: fc.constantFrom('check the weather', 'book a flight', 'summarise the build') }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('exec' as const),
      atMs: fc.nat(workloadMs),
      session: fc.nat(1),
      durationMs: fc.integer({ min: 100, max: 30_000 }),
      exitCode: fc.constantFrom(0, 1),
      output: fc.constantFrom('ok', 'error: file not found'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const), atMs: fc.nat(workloadMs), session: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('config-bump' as const), atMs: fc.nat(workloadMs) }) },
);

export const peerPlanArb: fc.Arbitrary<PeerPlan> = fc.record({
  sessions: fc.integer({ min: 1, max: 2 }),
  seed: fc.nat(),
  steps: fc.array(stepArb, { minLength: 1, maxLength: 8 }),
});

/** One run of the property; returns the broken assertion, or undefined if every one held. */
export async function peerRun(s: fc.Scheduler, plan: PeerPlan, bugs: readonly BugId[], sql: SqlJsStatic): Promise<string | undefined> {
  const world = new PeerWorld(s, sql, plan.seed);
  // Agent session keys, as OpenClaw's are: a node event for any other key gets an unscoped wake (the main session's).
  const sessions = Array.from({ length: plan.sessions }, (_, index) => `agent:main:chat:${index}`);
  const config = modelConfig({ bugs, sessions });
  const env = buildWorld({ timers: config.timers, gatewayName, configGeneration: config.knobs.configGeneration, randomFor: (key) => world.randomFor(key) as Random, nowMs: () => world.nowMs });
  const model = buildModel(config, { llm: env.modelApi, configGeneration: () => env.deployed.configGeneration });
  // The answers the LLM returned, by the turn an engineer would name them by (the first message in the prompt).
  const answers = new Map<string, { sessionKey: string; answer: LlmAnswer }>();
  const processes = [{ name: platformName, main: env.platform.main.bind(env.platform) }, ...model.processes];
  for (const process of processes) {
    const ctx = world.context(process.name);
    void process.main(ctx).catch((error: unknown) => world.crashes.push({ process: process.name, error }));
  }
  plan.steps.forEach((step, index) => {
    const session = sessions[step.kind === 'config-bump' ? 0 : step.session % sessions.length] as string;
    world.at(step.atMs, () => {
      if (step.kind === 'user') env.platform.userSays(session, `d${index}`, `${step.text} [m${index}]`, `[m${index}]`);
      else if (step.kind === 'clear') env.platform.userSays(session, `d${index}`, `/clear [m${index}]`, `[m${index}]`);
      else if (step.kind === 'config-bump') env.deployed.configGeneration++;
      else model.nodeHost.run({ runId: `run-${index}`, sessionKey: session, command: env.commandLine(`run-${index}`), durationMs: step.durationMs, exitCode: step.exitCode, timedOut: false, output: step.output });
    });
  });
  try {
    await world.drive(workloadMs + settleMs, stepsMax);
    env.ledger.answers.forEach((fact) => answers.set(`${fact.sessionKey} ${fact.prompt.match(/\[m\d+\]|id=run-\d+[,)]/)?.[0] ?? fact.index}`, { sessionKey: fact.sessionKey, answer: fact }));
    // The runner answers each /clear itself with its canned reply; so many of those are produced, not by the LLM.
    const clears = new Map<string, number>();
    for (const step of plan.steps) {
      if (step.kind !== 'clear') continue;
      const session = sessions[step.session % sessions.length] as string;
      clears.set(session, (clears.get(session) ?? 0) + 1);
    }
    return check(world, env.platform.visible, answers, clears, sessions, plan.steps.length);
  } finally {
    world.close();
  }
}

function check(
  world: PeerWorld,
  visible: readonly { sessionKey: string; text: string }[],
  answers: Map<string, { sessionKey: string; answer: LlmAnswer }>,
  clears: ReadonlyMap<string, number>,
  sessions: readonly string[],
  stepCount: number,
): string | undefined {
  const crash = world.crashes[0];
  if (crash !== undefined) return `crash of ${crash.process}: ${crash.error instanceof Error ? crash.error.message : String(crash.error)}`;
  // A text shown more often in a session than the LLM answers there that produced it (or, for the canned reply to a
  // /clear, than the /clear commands sent there) is a duplicate.
  const shownCount = new Map<string, number>();
  for (const message of visible) {
    const key = `${message.sessionKey}|${normalizeWhitespace(message.text)}`;
    shownCount.set(key, (shownCount.get(key) ?? 0) + 1);
    const produced = [...answers.values()].filter(
      ({ sessionKey, answer }) =>
        sessionKey === message.sessionKey &&
        [...answer.toolCalls.map((call) => call.text), ...parseMessageBlocks(answer.result).map((block) => block.body)].some((text) => normalizeWhitespace(text) === normalizeWhitespace(message.text)),
    ).length + (normalizeWhitespace(message.text) === normalizeWhitespace(clearedReply) ? (clears.get(message.sessionKey) ?? 0) : 0);
    if ((shownCount.get(key) ?? 0) > Math.max(1, produced)) return `duplicate reply: "${message.text}" shown more often than produced`;
  }
  const state = world.databases.get(stateDbPath)?.query('SELECT session_id, role, content FROM messages') ?? [];
  const userRows = state.filter((row) => row.role === 'user').map((row) => String(row.content));
  for (let index = 0; index < stepCount; index++) {
    // A run is reported twice, as `Exec started (… id=run-N)` and `Exec finished (… id=run-N, …)`: each at most once.
    for (const marker of [`[m${index}]`, `id=run-${index})`, `id=run-${index},`]) {
      if (userRows.filter((content) => content.includes(marker)).length > 1) return `double ingestion: ${marker} is in two user rows`;
    }
  }
  const shown = (sessionKey: string, text: string): boolean =>
    visible.some((message) => message.sessionKey === sessionKey && normalizeWhitespace(message.text) === normalizeWhitespace(text));
  for (const [turnId, { sessionKey, answer }] of answers) {
    const payloads = answer.toolCalls.filter((call) => call.name !== 'add_reaction').map((call) => call.text);
    const blocks = parseMessageBlocks(answer.result).filter((block) => block.to === 'user').map((block) => block.body);
    for (const text of [...payloads, ...blocks]) if (!shown(sessionKey, text)) return `lost reply: "${text}" of turn ${turnId} never reached the user`;
  }
  for (const sessionKey of sessions) {
    // A /clear starts a new state.db session (its id `<key>~<hex>`) and a JSONL file of its own: the key's
    // conversation is every session of its family.
    const family = new Set((world.databases.get(stateDbPath)?.query('SELECT id FROM sessions') ?? []).map((row) => String(row.id)).filter((id) => id === sessionKey || id.startsWith(`${sessionKey}~`)));
    family.add(sessionKey);
    const assistantRows = state.filter((row) => family.has(String(row.session_id)) && row.role === 'assistant').map((row) => String(row.content));
    const entries = [...family].flatMap((sessionId) => {
      const file = world.files.get(transcriptPath(sessionId));
      const branch = file === undefined ? [] : activeBranchOf(parseTranscript(file).entries);
      return branch.filter((entry) => entry.message.role === 'assistant').map((entry) => entry.message.content);
    });
    for (const [turnId, { sessionKey: answered, answer }] of answers) {
      if (answered !== sessionKey) continue;
      const body = parseMessageBlocks(answer.result).find((block) => block.to === 'user')?.body;
      if (body === undefined || !shown(sessionKey, body)) continue;
      if (!assistantRows.some((content) => content.includes(body))) return `reply not persisted: turn ${turnId}'s reply has no assistant row in state.db`;
      if (!entries.some((content) => content.includes(body))) return `reply not in transcript: turn ${turnId}'s reply is not on the JSONL's active branch`;
    }
  }
  return undefined;
}

export interface PeerCampaign {
  seed: number;
  found: boolean;
  runs: number;
  wallMs: number;
  failure: string | undefined;
}

/** One fast-check campaign of the peer property: runs up to the first failure (no shrinking: detection only). */
export async function peerCampaign(bugs: readonly BugId[], seed: number, runsBudget: number, sql: SqlJsStatic): Promise<PeerCampaign> {
  let runs = 0;
  let failure: string | undefined;
  const startMs = wallNowMs();
  const property = fc.asyncProperty(fc.scheduler(), peerPlanArb, async (s, plan) => {
    if (failure !== undefined) return true;
    runs++;
    failure = await peerRun(s, plan, bugs, sql);
    return failure === undefined;
  });
  await fc.check(property, { seed, numRuns: runsBudget, endOnFailure: true });
  return { seed, found: failure !== undefined, runs, wallMs: Math.round(wallNowMs() - startMs), failure };
}
