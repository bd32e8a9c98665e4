// The JSONL-era releases' node-event ingestion (`handleNodeEvent`, src/gateway/server-node-events.ts: 2026.4.24
// dist/server-node-events-D_cEK_yE.js, 2026.7.1 dist/server-node-events-DtP55-k5.js with its NodeRegistry,
// dist/node-registry-CZ-JewlC.js) against the model's (src/gateway.ts onNodeEvent, the fixed model), on the same
// generated sequences (issue 43 item 7). Each side is the model's whole gateway (gatewayMain) in a simulated machine,
// with the release's queue, wakes and handleNodeEvent through the adapters a run uses (sim/real/openclaw/gateway-parts.ts,
// node-events.ts) or the model's own; node events come from a node-host process over a reconnecting link (1 ms, no
// faults), so 2026.7.1 sees the connection they came over. A sequence: each run's system.run invoke (2026.7.1's gateway
// sends it; elsewhere the world hands the node host its commands and the op does nothing), then exec.started and
// exec.finished events of three runs in two sessions, repeated at will (a replay carries the same payload), the
// heartbeat's drains of a session (the gateway's own heartbeat handler, called by the test: the prompt row is written,
// the model's durable keys with it; a runner stand-in then acknowledges the row so the lane is idle again), and clock
// advances before, on and past the release's 600 s exec.finished window, the model's exec-key prune (its sweep, every
// minute) and 2026.7.1's 2,100 s authorization. Many sequences share one gateway incarnation (each its own sessions and
// run ids), because a release's instance costs seconds to load. Wakes are recorded (the test's handler answers `ran`
// and drains nothing: the drains are the ops). Exec denials are not generated: the model's node host never sends one
// (approvals are not modelled) and its protocol has no such event.
//
// Compared after every op: what each session's queue holds (text, order), so which events were queued; and the wakes
// asked for (target, reason, time). Each release is held to its own rules, as read (releaseRule below: the queue after
// every op, exactly), and where it queues what the model does not, or the other way round, the difference must be one
// docs/MODEL.md names ("Node exec events, real", "The generated differential"), counted, and each reached:
// - start-doubling: a replayed exec.started after its prompt was written; the model drops it by its durable key, both
//   releases queue it again (2026.7.1's authorization is not terminal, its queue dedupes against what is queued only);
// - finish-past-window (2026.4.24): a replayed exec.finished more than 600 s after the release last let the run's
//   finish through, after a drain: the release's in-memory window has passed (seed 000's finish doubling without a
//   restart); the model drops it by its durable key until that key is pruned;
// - finish-in-window (2026.4.24, rare, not required to be reached): the other way round, the release's window runs from
//   the last finish it let through (even one its queue then refused), a later time than the model's prompt, so a finish
//   the model takes again once its sweep pruned the key (if it prunes by age) can still be in the release's window;
// - queue-last-text (2026.4.24): A, B, A in one queue; the release refuses only a repeat of the last text;
// - unauthorized (2026.7.1): an event of a run its gateway did not invoke, whose authorization expired (2,100 s after
//   the invoke) or was consumed by the run's exec.finished; the model takes it (and then refuses a later authorized
//   copy its queue still holds).
// The wakes agree in target and reason on every sequence (each queued event wakes its session, `exec-event`); the
// release hands the wake over 1 ms after the enqueue (coalesce 0), the model asks its wakes (coalesce 250 ms) after
// its durable-key read, within the 50 ms before the test looks. Texts differ only by the output cut (the model's 180
// characters, the release's 179, each with `…`). A by-example test pins the node default key (an event naming no
// session), where 2026.4.24 queues under `agent:main:node-<nodeId>` and wakes that session, the model under
// `node-<nodeId>` with an unscoped wake. The generated properties run 3 batches of 20 sequences per release from a
// fixed seed (so that the reach of each named difference is asserted, not hoped for); shrinking is off (endOnFailure:
// a batch costs seconds), and a failure names the one failing sequence.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BugId, modelConfig } from '../../src/config.ts';
import type { GatewayParts } from '../../src/environment.ts';
import { gatewayMain } from '../../src/gateway.ts';
import { HeartbeatWakes, type HeartbeatWakesPort, type WakeHandler, type WakeReason, type WakeTarget, wakeKey } from '../../src/heartbeat-wake.ts';
import type { ExecCommand, ExecTool } from '../../src/node-host.ts';
import type { ProcessContext } from '../../src/ports.ts';
import { gatewayName, type NodeEvent, nodeHostName, runnerName, toolServerName } from '../../src/protocol.ts';
import { SessionDbs } from '../../src/session-dbs.ts';
import { SystemEventQueue, type SystemEventQueuePort } from '../../src/system-events.ts';
import { loadSqlJs } from '../../sim/kernel/sqlite.ts';
import { Simulation } from '../../sim/kernel/simulation.ts';
import { openclawGatewayPartsFor } from '../../sim/real/openclaw/gateway-parts.ts';
import { authorizesExecEvents } from '../../sim/real/openclaw/node-events.ts';
import { type OpenclawRelease, openclawReleases } from '../../sim/real/openclaw/index.ts';
import { openclawMissing } from './openclaw-support.ts';

const missing = openclawMissing('real OpenClaw node-event differential tests');

const nodeId = 'node-1';
const runs = 3;
const sessionsPerPlan = 2;
/** A plan's names: its own sessions and run ids, so plans sharing one gateway incarnation never meet. */
const sessionKey = (plan: number, session: number) => `agent:main:p${plan}-chat:${session}`;
const runId = (plan: number, run: number) => `p${plan}-run-${run}`;
/** Each run's session (a command's events name the session its exec tool ran in). */
const sessionOfRun = (run: number) => run % sessionsPerPlan;
const longOutput = `${'x'.repeat(150)}   ${'y'.repeat(60)}`;

/** How a run finishes (every exec.finished of a run, a replay included, carries the same payload). */
interface Finish {
  exitCode: number;
  output: string;
}

/** An event names its run's session, or (`nodeDefault`, examples only) none: the node default `node-<nodeId>`. */
type Op = { kind: 'event'; event: NodeEvent['event']; run: number; nodeDefault?: boolean } | { kind: 'invoke'; run: number } | { kind: 'drain'; session: number };

interface Plan {
  /** Each op with the milliseconds since the previous one. */
  steps: { gapMs: number; op: Op }[];
  finishes: Finish[];
}

interface Observed {
  /** When each op was done (an event: sent; it arrives 1 ms later), from the plan's start. */
  times: number[];
  /** After each op: the queued texts of each of the plan's sessions. */
  queues: string[][][];
  /** The wakes: requested (the model's, at its port) or handed to the handler (the release's: coalesce 0), from the plan's start. */
  wakes: [string, WakeReason, number][];
  /** Heartbeat prompt rows, timestamps taken out. */
  prompts: string[];
  /** When the model's node-event ingestion dropped an event by its durable key, from the plan's start. */
  keyDrops: number[];
}

const gapBetweenPlansMs = 10_000;
const snapshotAfterMs = 50;

function eventOf(planIndex: number, op: Extract<Op, { kind: 'event' }>, finishes: readonly Finish[]): NodeEvent {
  const finish = finishes[op.run] ?? { exitCode: 2, output: '' };
  return { type: 'node.event', event: op.event, nodeId, runId: runId(planIndex, op.run), sessionKey: op.nodeDefault === true ? '' : sessionKey(planIndex, sessionOfRun(op.run)), command: `cmd ${op.run}`, ...finish, timedOut: false };
}

/** The plans one after another in one simulated gateway incarnation: the model's (`release` undefined) or the release's parts. */
async function runPlans(plans: readonly Plan[], release: OpenclawRelease | undefined, bugs: readonly BugId[] = []): Promise<{ observed: Observed[]; escapes: string[] }> {
  const sim = new Simulation({ seed: `node-events-differential-${release ?? 'model'}`, sql: await loadSqlJs() });
  for (const [from, to] of [[nodeHostName, gatewayName], [gatewayName, nodeHostName]] as const) sim.network.configure(from, to, { reconnecting: true, delayMsMin: 1, delayMsMax: 1 });
  const real = release === undefined ? undefined : openclawGatewayPartsFor(sim, { release, parts: ['system-events', 'heartbeat-wake', 'node-events'] });
  const wakes: [string, WakeReason, number][] = [];
  const gateway: { ctx?: ProcessContext; queue?: SystemEventQueuePort; heartbeat?: WakeHandler; invoke?: (nodeId: string, command: ExecCommand) => void } = {};
  let nodeCtx: ProcessContext | undefined;
  const parts: GatewayParts = {
    systemEvents: (ctx, lastTextOnly) => {
      const queue = real?.systemEvents?.(ctx, lastTextOnly) ?? new SystemEventQueue(ctx.clock, lastTextOnly);
      gateway.ctx = ctx;
      gateway.queue = queue;
      return queue;
    },
    heartbeatWakes: (ctx, timers, handler) => {
      gateway.heartbeat = handler;
      const recorder: WakeHandler = (wake) => {
        if (real !== undefined) wakes.push([wakeKey(wake), wake.reason, ctx.clock.nowMs()]);
        return Promise.resolve('ran');
      };
      if (real?.heartbeatWakes !== undefined) return real.heartbeatWakes(ctx, timers, recorder);
      const model = new HeartbeatWakes(ctx.timers, () => ctx.clock.nowMs(), timers.coalesceMs, timers.retryMs, recorder, (name, task) => ctx.spawnTask(name, task));
      const port: HeartbeatWakesPort = {
        requestHeartbeatNow: (reason: WakeReason, target: WakeTarget = {}) => {
          wakes.push([wakeKey(target), reason, ctx.clock.nowMs()]);
          model.requestHeartbeatNow(reason, target);
        },
      };
      return port;
    },
    ...(real?.nodeEvents === undefined ? {} : { nodeEvents: real.nodeEvents }),
    ...(real?.systemRunInvokes === undefined ? {} : { systemRunInvokes: real.systemRunInvokes }),
  };
  const allSessions = plans.flatMap((_plan, index) => Array.from({ length: sessionsPerPlan }, (_, session) => sessionKey(index, session)));
  const config = modelConfig({ sessions: allSessions, bugs });
  const execTool = {
    attach: (_ctx: ProcessContext, invoke: (nodeId: string, command: ExecCommand) => void) => {
      gateway.invoke = invoke;
    },
  } as unknown as ExecTool;
  const idle = async (ctx: ProcessContext) => {
    for (;;) (await ctx.net.receive()).ack?.();
  };
  sim.spawn(gatewayName, (ctx) => gatewayMain(ctx, config, undefined, parts, execTool));
  sim.spawn(nodeHostName, (ctx) => {
    nodeCtx = ctx;
    return idle(ctx);
  });
  sim.spawn(runnerName, idle);
  sim.spawn(toolServerName, idle);
  const starts: number[] = [];
  const observed: Observed[] = [];
  let atMs = 1_000;
  for (const [planIndex, plan] of plans.entries()) {
    const start = atMs;
    starts.push(start);
    const own: Observed = { times: [], queues: [], wakes: [], prompts: [], keyDrops: [] };
    observed.push(own);
    const keys = Array.from({ length: sessionsPerPlan }, (_, session) => sessionKey(planIndex, session));
    for (const { gapMs, op } of plan.steps) {
      atMs += gapMs;
      own.times.push(atMs - start);
      sim.at(atMs, () => {
        if (op.kind === 'event') nodeCtx?.net.send(gatewayName, eventOf(planIndex, op, plan.finishes));
        else if (op.kind === 'invoke') {
          // The gateway's system.run: only 2026.7.1's ingestion authorizes against it (elsewhere the world hands the node host its commands).
          if (real?.systemRunInvokes !== true) return;
          const finish = plan.finishes[op.run] ?? { exitCode: 2, output: '' };
          gateway.invoke?.(nodeId, { runId: runId(planIndex, op.run), sessionKey: sessionKey(planIndex, sessionOfRun(op.run)), command: `cmd ${op.run}`, durationMs: 1_000, ...finish, timedOut: false });
        } else {
          const ctx = gateway.ctx as ProcessContext;
          const key = keys[op.session] as string;
          const dbs = new SessionDbs(ctx.sqlite);
          ctx.spawnTask('test-drain', async () => {
            await gateway.heartbeat?.({ agentId: undefined, sessionKey: key, reason: 'default', requestedAtMs: ctx.clock.nowMs() });
            // The runner stand-in: the prompt row was taken up (its turn acknowledged it), so the lane is idle again.
            const inbound = await dbs.inboundDb(key);
            const outbound = await dbs.outboundDb(key);
            for (const row of await inbound.query("SELECT id FROM messages_in WHERE kind = 'system'")) {
              await outbound.run("INSERT OR IGNORE INTO processing_ack(message_id, status, status_changed) VALUES (?, 'completed', ?)", [String(row.id), ctx.clock.nowMs()]);
            }
          });
        }
      });
      sim.at(atMs + snapshotAfterMs, () => {
        own.queues.push(keys.map((key) => (gateway.queue?.peek(key) ?? []).map((event) => event.text)));
      });
    }
    atMs += gapBetweenPlansMs;
  }
  sim.at(atMs, () => {
    const ctx = gateway.ctx as ProcessContext;
    const dbs = new SessionDbs(ctx.sqlite);
    ctx.spawnTask('test-read', async () => {
      for (const [planIndex, own] of observed.entries()) {
        for (let session = 0; session < sessionsPerPlan; session++) {
          const inbound = await dbs.inboundDb(sessionKey(planIndex, session));
          for (const row of await inbound.query("SELECT content FROM messages_in WHERE kind = 'system' ORDER BY seq")) own.prompts.push(`${session}: ${String(row.content).replace(/\[\d+\] /g, '')}`);
        }
      }
    });
  });
  sim.at(atMs + 1_000, () => {
    for (const name of [gatewayName, nodeHostName, runnerName, toolServerName]) sim.kill(name);
  });
  await sim.run();
  const planOf = (timeMs: number) => starts.filter((start) => start <= timeMs).length - 1;
  for (const [key, reason, timeMs] of wakes) {
    const index = planOf(timeMs);
    observed[index]?.wakes.push([key, reason, timeMs - (starts[index] ?? 0)]);
  }
  for (const event of sim.trace.events) {
    if (event.kind !== 'model.exec-duplicate-dropped') continue;
    const index = planOf(event.timeMs);
    observed[index]?.keyDrops.push(event.timeMs - (starts[index] ?? 0));
  }
  const escapes = real?.escapes ?? [];
  sim.dispose();
  return { observed, escapes };
}

/** An exec event's text as the release writes it (its output cut: 179 characters and `…`), undefined for a silent finish. */
function releaseText(planIndex: number, op: Extract<Op, { kind: 'event' }>, finish: Finish): string | undefined {
  const node = `node=${nodeId} id=${runId(planIndex, op.run)}`;
  if (op.event === 'exec.started') return `Exec started (${node}): cmd ${op.run}`;
  const output = finish.output.replace(/\s+/g, ' ').trim();
  if (finish.exitCode === 0 && output.length === 0) return undefined;
  const cut = output.length <= 180 ? output : `${output.slice(0, 179)}…`;
  return `Exec finished (${node}, code ${finish.exitCode})${cut.length > 0 ? `\n${cut}` : ''}`;
}

/** The model's cut (180 characters and `…`) written as the release's. */
const asReleaseCut = (text: string) => text.replace(/^(.*\n)(.{180})…$/s, (_all, head: string, kept: string) => `${head}${kept.slice(0, 179)}…`);

type Why = 'unauthorized' | 'silent' | 'window' | 'queue';

/** The release's own rules, as read in its handleNodeEvent, NodeRegistry and queue: what each op does to the plan's queues. */
function releaseRule(release: OpenclawRelease, planIndex: number, plan: Plan): { accepted: (Why | 'accepted' | undefined)[]; queues: string[][][] } {
  const queues: string[][] = Array.from({ length: sessionsPerPlan }, () => []);
  const lastText: (string | null)[] = Array.from({ length: sessionsPerPlan }, () => null);
  const finishedAt = new Map<number, number>();
  const invokedAt = new Map<number, number>();
  const accepted: (Why | 'accepted' | undefined)[] = [];
  const snapshots: string[][][] = [];
  let atMs = 0;
  const decide = (op: Extract<Op, { kind: 'event' }>, arrivalMs: number): Why | 'accepted' => {
    if (authorizesExecEvents(release)) {
      // NodeRegistry.authorizeSystemRunEvent: a system.run invoke of the run on this connection, not expired (2,100 s:
      // the run's 1,800 s timeout and 300 s of grace), not consumed by a terminal event (the finish consumes it).
      const invoked = invokedAt.get(op.run);
      if (invoked === undefined || arrivalMs >= invoked + 2_100_000) return 'unauthorized';
      if (op.event === 'exec.finished') invokedAt.delete(op.run);
    }
    const finish = plan.finishes[op.run] ?? { exitCode: 2, output: '' };
    const text = releaseText(planIndex, op, finish);
    if (text === undefined) return 'silent';
    if (op.event === 'exec.finished') {
      // shouldDropDuplicateExecFinished: <sessionKey>::<runId> within 600 s (inclusive) of the last one let through.
      const previous = finishedAt.get(op.run);
      if (previous !== undefined && arrivalMs - previous <= 600_000) return 'window';
      finishedAt.set(op.run, arrivalMs);
    }
    const session = sessionOfRun(op.run);
    const queue = queues[session] as string[];
    // 2026.4.24: only a repeat of the last text enqueued (a drain forgets it); the July line, keyed: any queued event.
    if (release === '2026.4.24' ? lastText[session] === text : queue.includes(text)) return 'queue';
    queue.push(text);
    lastText[session] = text;
    return 'accepted';
  };
  for (const { gapMs, op } of plan.steps) {
    atMs += gapMs;
    if (op.kind === 'event') accepted.push(decide(op, atMs + 1));
    else {
      accepted.push(undefined);
      if (op.kind === 'invoke') invokedAt.set(op.run, atMs);
      else {
        queues[op.session] = [];
        lastText[op.session] = null;
      }
    }
    snapshots.push(queues.map((queue) => [...queue]));
  }
  return { accepted, queues: snapshots };
}

/** Whether each op's event was queued (its session's queue grew), undefined for other ops. */
function queuedOf(plan: Plan, observed: Observed): (boolean | undefined)[] {
  return plan.steps.map(({ op }, index) => {
    if (op.kind !== 'event') return undefined;
    const session = sessionOfRun(op.run);
    const before = index === 0 ? [] : (observed.queues[index - 1]?.[session] ?? []);
    const after = observed.queues[index]?.[session] ?? [];
    return after.length > before.length;
  });
}

type Difference = 'start-doubling' | 'finish-past-window' | 'finish-in-window' | 'queue-last-text' | 'unauthorized';

const finishesArb = fc.array(fc.record({ exitCode: fc.constantFrom(0, 2), output: fc.constantFrom('', 'no such file', longOutput) }), { minLength: runs, maxLength: runs });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('event' as const), event: fc.constantFrom<NodeEvent['event']>('exec.started', 'exec.finished'), run: fc.integer({ min: 0, max: runs - 1 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drain' as const), session: fc.integer({ min: 0, max: sessionsPerPlan - 1 }) }) },
);
// Before, on and past the 600 s window and the 2,100 s authorization; mostly short.
const gapArb = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 100, max: 5_000 }) },
  { weight: 2, arbitrary: fc.constantFrom(599_999, 600_000, 600_001, 660_000, 2_100_000) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 700_000 }) },
);
const planArb: fc.Arbitrary<Plan> = fc.record({
  // Runs invoked first (the gateway invokes a runId once; 2026.7.1 takes no event of another), then events, replays and drains.
  invoked: fc.oneof({ weight: 3, arbitrary: fc.constant<number[]>([0, 1, 2]) }, { weight: 1, arbitrary: fc.subarray([0, 1, 2]) }),
  ops: fc.array(fc.record({ gapMs: gapArb, op: opArb }), { minLength: 1, maxLength: 12 }),
  finishes: finishesArb,
}).map(({ invoked, ops, finishes }) => ({ steps: [...invoked.map((run) => ({ gapMs: 100, op: { kind: 'invoke' as const, run } })), ...ops], finishes }));

const plansPerBatch = 20;

describe.skipIf(missing)("the JSONL-era releases' handleNodeEvent against the model's node-event ingestion, on generated sequences", () => {
  for (const release of openclawReleases) {
    it(`${release}: follows its own rules; where it differs from the model, by a named difference only`, async () => {
      const reached = new Map<Difference, number>();
      await fc.assert(
        fc.asyncProperty(fc.array(planArb, { minLength: plansPerBatch, maxLength: plansPerBatch }), async (plans) => {
          const model = await runPlans(plans, undefined);
          const real = await runPlans(plans, release);
          expect(real.escapes).toEqual([]);
          for (const [planIndex, plan] of plans.entries()) {
            const rule = releaseRule(release, planIndex, plan);
            const realObserved = real.observed[planIndex] as Observed;
            const modelObserved = model.observed[planIndex] as Observed;
            const where = `${release}, plan ${JSON.stringify(plan)}`;
            // The release follows its rules, op by op.
            expect(realObserved.queues, where).toEqual(rule.queues);
            const realQueued = queuedOf(plan, realObserved);
            const modelQueued = queuedOf(plan, modelObserved);
            // Each side wakes the event's session for each event it queued: the release at once (coalesce 0, 1 ms
            // on the simulated timers), the model at its request (after its durable-key read).
            const wakesOf = (queued: (boolean | undefined)[]) =>
              plan.steps.flatMap(({ op }, index) => (queued[index] === true && op.kind === 'event' ? [[`::${sessionKey(planIndex, sessionOfRun(op.run))}`, 'exec-event', (realObserved.times[index] ?? 0) + 1]] : []));
            expect(realObserved.wakes.map(([key, reason, timeMs]) => [key, reason, timeMs - 1]), where).toEqual(wakesOf(realQueued));
            const modelWakes = wakesOf(modelQueued);
            expect(modelObserved.wakes.map(([key, reason]) => [key, reason]), where).toEqual(modelWakes.map(([key, reason]) => [key, reason]));
            for (const [index, wake] of modelObserved.wakes.entries()) expect((wake[2] - Number(modelWakes[index]?.[2])) / snapshotAfterMs, where).toBeLessThan(1);
            for (const [index, { op }] of plan.steps.entries()) {
              if (op.kind !== 'event' || realQueued[index] === modelQueued[index]) continue;
              const at = realObserved.times[index] ?? 0;
              const keyDropped = modelObserved.keyDrops.some((timeMs) => timeMs >= at && timeMs < at + snapshotAfterMs);
              let difference: Difference | undefined;
              const text = releaseText(planIndex, op, plan.finishes[op.run] as Finish) ?? '';
              const session = sessionOfRun(op.run);
              const queuedBefore = (observed: Observed) => (index === 0 ? [] : (observed.queues[index - 1]?.[session] ?? [])).map(asReleaseCut);
              if (realQueued[index] === true && keyDropped) difference = op.event === 'exec.started' ? 'start-doubling' : 'finish-past-window';
              else if (realQueued[index] === true && queuedBefore(modelObserved).includes(text)) {
                // The model's queue refused a text it holds: 2026.4.24 holds it too, not last; 2026.7.1 had refused that
                // earlier copy (its run not authorized then).
                difference = queuedBefore(realObserved).includes(text) ? 'queue-last-text' : 'unauthorized';
              } else if (realQueued[index] === false && rule.accepted[index] === 'unauthorized') difference = 'unauthorized';
              // 2026.4.24's window runs from the last finish it let through (later than the model's prompt, whose key
              // the model's sweep pruned): the release drops a finish the model takes again.
              else if (realQueued[index] === false && rule.accepted[index] === 'window') difference = 'finish-in-window';
              expect(difference, `${where}: op ${index} (${JSON.stringify(op)}) queued ${realQueued[index]} by the release, ${modelQueued[index]} by the model`).toBeDefined();
              reached.set(difference as Difference, (reached.get(difference as Difference) ?? 0) + 1);
            }
          }
        }),
        { numRuns: 3, endOnFailure: true, seed: 43 },
      );
      // The generator reaches each of the release's named differences.
      const named: Difference[] = authorizesExecEvents(release) ? ['start-doubling', 'unauthorized'] : ['start-doubling', 'finish-past-window', 'queue-last-text'];
      for (const difference of named) expect(reached.get(difference) ?? 0, `${release}: ${difference} reached`).toBeGreaterThan(0);
      const rare: Difference[] = authorizesExecEvents(release) ? [] : ['finish-in-window'];
      expect([...reached.keys()].filter((difference) => !named.includes(difference) && !rare.includes(difference))).toEqual([]);
    }, 1_200_000);
  }

  it('by example: a replayed start after its prompt is in two prompts of each release, once in the model\'s; a finish replayed 600,001 ms after is taken again by 2026.4.24 only', async () => {
    const plan: Plan = {
      finishes: [{ exitCode: 2, output: 'no such file' }, { exitCode: 2, output: '' }, { exitCode: 2, output: '' }],
      steps: [
        { gapMs: 100, op: { kind: 'invoke', run: 0 } },
        { gapMs: 100, op: { kind: 'event', event: 'exec.started', run: 0 } },
        { gapMs: 100, op: { kind: 'drain', session: 0 } },
        { gapMs: 1_000, op: { kind: 'event', event: 'exec.started', run: 0 } },
        { gapMs: 100, op: { kind: 'event', event: 'exec.finished', run: 0 } },
        { gapMs: 100, op: { kind: 'drain', session: 0 } },
        { gapMs: 600_001, op: { kind: 'event', event: 'exec.finished', run: 0 } },
        { gapMs: 100, op: { kind: 'drain', session: 0 } },
      ],
    };
    const started = 'System (untrusted): Exec started (node=node-1 id=p0-run-0): cmd 0';
    const finished = 'System (untrusted): Exec finished (node=node-1 id=p0-run-0, code 2)';
    const prompts = async (side: OpenclawRelease | undefined) => {
      const { observed, escapes } = await runPlans([plan], side);
      expect(escapes).toEqual([]);
      return (observed[0] as Observed).prompts.map((prompt) => prompt.replace(/^\d+: /, '').split('\n').filter((line) => line.startsWith('System')));
    };
    expect(await prompts(undefined)).toEqual([[started], [finished, 'System (untrusted): no such file']]);
    expect(await prompts('2026.4.24')).toEqual([[started], [started, finished, 'System (untrusted): no such file'], [finished, 'System (untrusted): no such file']]);
    // 2026.7.1: the start again (its run still authorized); the finish consumed the run's authorization.
    expect(await prompts('2026.7.1')).toEqual([[started], [started, finished, 'System (untrusted): no such file']]);
  }, 300_000);

  it("by example: an event naming no session: 2026.4.24 wakes the node default's agent session, the model wakes unscoped", async () => {
    const plan: Plan = { finishes: [{ exitCode: 2, output: '' }], steps: [{ gapMs: 100, op: { kind: 'event', event: 'exec.started', run: 0, nodeDefault: true } }] };
    const model = (await runPlans([plan], undefined)).observed[0] as Observed;
    const real = await runPlans([plan], '2026.4.24');
    expect(real.escapes).toEqual([]);
    // The model queues under node-node-1 and asks an unscoped wake (its heartbeat then serves the agent's main session).
    expect(model.wakes.map(([target, reason]) => [target, reason])).toEqual([['::', 'exec-event']]);
    // The release's loadSessionEntry makes the key canonical (agent:main:node-node-1): it queues there (not a session
    // the adapter follows: acknowledged at once, as the model does for a key it does not serve) and wakes that session.
    expect((real.observed[0] as Observed).wakes.map(([target, reason]) => [target, reason])).toEqual([['::agent:main:node-node-1', 'exec-event']]);
  }, 120_000);

  it('covers every JSONL-era release: 2026.4.24 and the July line (which authorizes exec events as 2026.7.1 does)', () => {
    expect(openclawReleases.slice(0, 2)).toEqual(['2026.4.24', '2026.7.1']);
    expect(openclawReleases.filter((release) => release !== '2026.4.24').every((release) => authorizesExecEvents(release))).toBe(true);
  });
});
