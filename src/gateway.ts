// The gateway process: channel adapter, inbound router, node-event ingestion, the system-event queue and heartbeat
// wakes, the heartbeat runner, outbound delivery (delivery.ts) and the sweep that supervises the runner.
//
// Inbound chat messages are written to the session's `messages_in` keyed by the platform delivery id (a redelivery
// is ignored) and acknowledged only after the write commits. A message that arrives while a run is active simply
// queues behind it in its session lane. Node events (a command started, a command finished) become untrusted system
// events with contextKey `exec:<runId>` and request a heartbeat wake; the heartbeat runner drains them into a prompt
// row when the session's lane is idle.
import { assert, assertNonNegativeInteger } from './assert.ts';
import type { BugId, ModelConfig } from './config.ts';
import { DeliveryPollers } from './delivery.ts';
import { DeliveryMirror } from './delivery-mirror.ts';
import { modelSessionWriteLock } from './session-write-lock.ts';
import { modelSessionManagerFactory, type SessionManagerFactory } from './session-manager-port.ts';
import type { GatewayParts, NodeEventsPort } from './environment.ts';
import { HeartbeatWakes, type HeartbeatWakesPort, scopedWakeTarget, type Wake, type WakeOutcome } from './heartbeat-wake.ts';
import type { Delivery, LlmAnswer, LlmApi, ProcessContext } from './ports.ts';
import { heldRowDueMs, type HeartbeatRunKnobs, releaseHeldRow, runHeartbeatAgent, storeHeartbeatAnswer } from './heartbeat-run.ts';
import { type ChatResumeRequest, type ChatSendRequest, gatewayName, type InboundAck, type InboundMessage, messageType, type NodeEvent, nodeHostName, platformName, runnerName, type SendAck, type SendRefused, type SystemRunInvoke, toolServerName } from './protocol.ts';
import { ignoreBusy, isBusy, retryBusy } from './busy.ts';
import { laneAcks, pendingTriggersSql, triggerWaiting } from './claims.ts';
import { HostSweep } from './host-sweep.ts';
import { type ExecCommand, type ExecTool, isSystemRunAuthorizing } from './node-host.ts';
import { SessionDbs } from './session-dbs.ts';
import { parseMessageBlocks } from './text.ts';
import { TaskScheduler } from './task-scheduler.ts';
import { CronExecutor } from './cron-executor.ts';
import { writeLateResponses } from './late-responses.ts';
import { ChatConnections, chatDedupeCleanupMs } from './chat-send.ts';
import { formatSystemEvents, isExecCompletionEvent, type SystemEvent, SystemEventQueue, type SystemEventQueuePort, systemEventsPerSessionMax } from './system-events.ts';

export const execOutputCharsMax = 180;
/** The default agent (OpenClaw's DEFAULT_AGENT_ID). */
export const defaultAgentId = 'main';
/** The body of an exec-event heartbeat's prompt (one drained event is an exec completion). */
export const execEventPrompt = 'An async command you ran earlier has completed. The result is shown in the system messages above.';
/** The body of any other heartbeat's prompt: the agent answers HEARTBEAT_OK when nothing needs attention. */
export const heartbeatPrompt = 'Read HEARTBEAT.md if it exists and follow it. If nothing needs attention, reply HEARTBEAT_OK.';

export { gatewayName, platformName };

export async function gatewayMain(ctx: ProcessContext, config: ModelConfig, sessionManagerFactory: SessionManagerFactory = modelSessionManagerFactory, parts: GatewayParts = {}, execTool?: ExecTool, llm?: LlmApi): Promise<void> {
  const gateway = new Gateway(ctx, config, sessionManagerFactory, parts, llm);
  // The agent's exec tool with host=node reaches the node host through this incarnation (GatewayParts.systemRunInvokes).
  execTool?.attach(ctx, (nodeId, command) => gateway.invokeSystemRun(nodeId, command));
  ctx.spawnTask('receive', () => gateway.receiveLoop());
  ctx.spawnTask('delivery-fast', () => gateway.delivery.pollLoop('fast'));
  ctx.spawnTask('delivery-slow', () => gateway.delivery.pollLoop('slow'));
  ctx.spawnTask('sweep', () => gateway.sweepLoop());
  // Scheduled tasks (issue 24 item 2): stored as due messages_in rows; the sweep fans out their recurrences.
  if (config.knobs.tasks.length > 0) {
    const scheduler = new TaskScheduler(ctx, config, gateway.dbs);
    gateway.scheduler = scheduler;
    ctx.spawnTask('task-scheduler', () => scheduler.seed());
    // Issue 48 item 5: the occurrences are run by the gateway's cron executor, outside the chat lane.
    const cron = config.knobs.cron;
    if (cron !== null) {
      assert(llm !== undefined, 'a gateway that runs scheduled tasks itself has the LLM API');
      const executor = new CronExecutor(ctx, config, gateway.dbs, llm, cron, () => gateway.wakeRunnerNow());
      ctx.spawnTask('cron-executor', () => executor.loop());
    }
  }
  // Tool responses written after their tool gave up (issue 48 item 6): rows every poll skips, pending for good.
  const lateResponses = config.knobs.lateResponses;
  if (lateResponses.length > 0) ctx.spawnTask('late-responses', () => writeLateResponses(ctx, gateway.dbs, lateResponses));
  // Client connections (issue 24 item 1): OpenClaw's dedupe map is pruned every minute (memory mode only).
  const chat = gateway.chat;
  if (chat !== undefined && config.knobs.clients.dedupe === 'memory') {
    ctx.spawnTask('chat-dedupe-cleanup', async () => {
      for (;;) {
        await ctx.timers.sleep(chatDedupeCleanupMs);
        await chat.pruneDedupe();
      }
    });
  }
  // The fixed gateway-side heartbeat run: a row a kill left held is run again after the restart.
  const heartbeatRun = config.knobs.heartbeatRun;
  if (heartbeatRun?.mode === 'gateway') for (const sessionKey of config.sessions) gateway.retryHeartbeatAfter(sessionKey, 0);
  ctx.note('gateway-ready', { incarnation: ctx.incarnation });
}

class Gateway {
  readonly dbs: SessionDbs;
  readonly events: SystemEventQueuePort;
  readonly wakes: HeartbeatWakesPort;
  readonly delivery: DeliveryPollers;
  /** A real release's node-event ingestion (sim/real), or undefined for the model's own (onNodeEvent). */
  private readonly nodeEvents: NodeEventsPort | undefined;
  private systemRows = 0;
  /** seed 000's proposed fix (exec-dedupe-memory): `<sessionKey>::<runId>` -> when first queued, in memory only. */
  private readonly execSeenInMemory = new Map<string, number>();
  /** OpenClaw's lastHeartbeatText and lastHeartbeatSentAt of each session, as the `openclaw` heartbeat run keeps them. */
  private readonly lastHeartbeatReply = new Map<string, { text: string; atMs: number }>();
  /** The scheduled tasks' host side (task-scheduler.ts), when the sessions have tasks. */
  scheduler: TaskScheduler | undefined;
  /** The clients' chat.send and event streams (chat-send.ts), when sessions are chatted from a client. */
  readonly chat: ChatConnections | undefined;

  constructor(
    private readonly ctx: ProcessContext,
    private readonly config: ModelConfig,
    sessionManagerFactory: SessionManagerFactory,
    parts: GatewayParts,
    /** The LLM API, for the gateway's own heartbeat runs (heartbeat-run.ts; the knob heartbeatRun). */
    private readonly llm?: LlmApi,
  ) {
    assert(config.knobs.heartbeatRun === null || llm !== undefined, 'a gateway that runs its heartbeats has the LLM API');
    this.dbs = new SessionDbs(ctx.sqlite);
    this.events = parts.systemEvents?.(ctx, this.bug('exec-replay')) ?? new SystemEventQueue(ctx.clock, this.bug('exec-replay'));
    const handler = (wake: Wake): Promise<WakeOutcome> => this.runHeartbeat(wake);
    const wakeTimers = { coalesceMs: config.timers.wakeCoalesceMs, retryMs: config.timers.wakeRetryMs };
    this.wakes =
      parts.heartbeatWakes?.(ctx, wakeTimers, handler) ??
      new HeartbeatWakes(ctx.timers, () => ctx.clock.nowMs(), wakeTimers.coalesceMs, wakeTimers.retryMs, handler, (name, task) => ctx.spawnTask(name, task));
    this.nodeEvents = parts.nodeEvents?.(ctx, { events: this.events, wakes: this.wakes, sessions: config.sessions });
    // OpenClaw's delivery mirror opens the transcript with the gateway's own SessionManager (the real pi one under pi).
    const mirror = config.knobs.deliveryMirror === 'off' ? undefined : new DeliveryMirror(ctx, config.knobs.deliveryMirror, sessionManagerFactory, parts.sessionWriteLock?.(ctx, 'delivery-mirror') ?? modelSessionWriteLock(ctx, config.knobs.lockReclaim), parts.mirrorAppend?.(ctx, config.sessions));
    this.chat = config.knobs.clients.sessions.length > 0 ? new ChatConnections(ctx, config, this.dbs, () => this.wakeRunner()) : undefined;
    this.delivery = new DeliveryPollers(ctx, config, this.dbs, mirror, this.chat);
    assert(config.timers.wakeCoalesceMs > 0 && config.timers.wakeRetryMs > 0, 'heartbeat wakes wait a positive delay');
  }

  private bug(id: BugId): boolean {
    return this.config.bugs.has(id);
  }

  async receiveLoop(): Promise<void> {
    for (;;) {
      const delivery = await this.ctx.net.receive();
      const type = messageType(delivery.payload);
      if (type === 'inbound') this.ctx.spawnTask('inbound', () => this.onInbound(delivery.payload as InboundMessage));
      else if (type === 'node.event') this.ctx.spawnTask('node-event', () => this.nodeEvents?.onNodeEvent(delivery as Delivery<NodeEvent>) ?? this.onNodeEvent(delivery as Delivery<NodeEvent>));
      else if (type === 'send.ack') this.delivery.onAck((delivery.payload as SendAck).key);
      else if (type === 'send.refused') this.delivery.onRefused(delivery.payload as SendRefused);
      else if (type === 'chat.send' || type === 'chat.resume') this.onClientFrame(delivery);
    }
  }

  /** A client's frame over its WebSocket (chat-send.ts), acknowledged on arrival as the node host's are. */
  private onClientFrame(delivery: Delivery): void {
    delivery.ack();
    const chat = this.chat;
    if (chat === undefined) return;
    if (messageType(delivery.payload) === 'chat.send') this.ctx.spawnTask('chat-send', () => chat.onChatSend(delivery as Delivery<ChatSendRequest>));
    else this.ctx.spawnTask('chat-resume', () => chat.onResume(delivery as Delivery<ChatResumeRequest>));
  }

  /** Channel adapter + router: durable, idempotent by delivery id, acknowledged after commit. */
  private async onInbound(message: InboundMessage): Promise<void> {
    if (!this.config.sessions.includes(message.sessionKey)) {
      this.ctx.note('inbound-unknown-session', { session: message.sessionKey, delivery: message.deliveryId });
      return;
    }
    const inbound = await this.dbs.inboundDb(message.sessionKey);
    const nowMs = this.ctx.clock.nowMs();
    // nanoclaw's /clear detection: the text, trimmed and lower-cased, starts with /clear.
    assert(message.deliveryId.length > 0, `an inbound message for ${message.sessionKey} carries its delivery id`);
    const kind = message.text.trim().toLowerCase().startsWith('/clear') ? 'command' : 'chat';
    const inserted = await retryBusy(this.ctx, () =>
      inbound.transaction((tx) => {
        const seq = Number(tx.query('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages_in')[0]?.next ?? 1);
        return tx.run(
          'INSERT OR IGNORE INTO messages_in(id, seq, kind, content, trigger, created_at) VALUES (?, ?, ?, ?, ?, ?)',
          // nanoclaw's router: a message that does not engage the agent (in a group, no mention) is stored as
          // context (trigger=0) under ignored_message_policy 'accumulate'; a command always engages.
          [`in:${message.deliveryId}`, seq, kind, message.text, message.mention || kind === 'command' ? 1 : 0, nowMs],
        ).changes;
      }),
    );
    assert(inserted === 0 || inserted === 1, `delivery ${message.deliveryId} is one messages_in row, not ${inserted}`);
    this.ctx.note('ingest', { session: message.sessionKey, delivery: message.deliveryId, row: `in:${message.deliveryId}`, inserted });
    this.ctx.net.send(platformName, { type: 'inbound.ack', deliveryId: message.deliveryId } satisfies InboundAck);
    if (inserted === 1) this.wakeRunner();
  }

  /**
   * nanoclaw's router wakes the session's container after writing a message (router.ts, then wakeContainer); the
   * sweep wakes it only once a minute. A runner (and its tool server) that is down is started after the restart delay.
   */
  /** wakeRunner, for the gateway's other parts (the cron executor). */
  wakeRunnerNow(): void {
    this.wakeRunner();
  }

  private wakeRunner(): void {
    for (const name of [runnerName, toolServerName]) {
      if (!this.ctx.supervisor.isRunning(name)) this.ctx.supervisor.start(name, this.config.timers.runnerRestartDelayMs);
    }
  }

  /**
   * The exec tool's `node.invoke` of `system.run` (OpenClaw NodeRegistry.invoke): the invoke goes to the node host over
   * the node's current connection, written by the node-event ingestion when it authorizes exec events against it (it
   * remembers the runId, session and connection), else directly.
   */
  invokeSystemRun(nodeId: string, command: ExecCommand): void {
    const send = (id: string, connection: number): void => {
      const { runId, sessionKey, ...script } = command;
      this.ctx.net.send(nodeHostName, { type: 'node.invoke', command: 'system.run', id, nodeId, runId, sessionKey, connection, script } satisfies SystemRunInvoke);
    };
    if (isSystemRunAuthorizing(this.nodeEvents)) this.nodeEvents.invokeSystemRun(nodeId, command, send);
    else send(`invoke:${command.runId}`, this.ctx.net.connection?.(nodeHostName) ?? 0);
  }

  /**
   * Node-event ingestion (OpenClaw server-node-events.ts): `exec.started` and `exec.finished` become untrusted system
   * events with contextKey `exec:<runId>` and request an `exec-event` wake, scoped to the session when its key is an
   * agent session key and unscoped otherwise (the node default `node-<nodeId>`).
   */
  private async onNodeEvent(delivery: Delivery<NodeEvent>): Promise<void> {
    const event = delivery.payload;
    assert(event.event === 'exec.started' || event.event === 'exec.finished', `a node event is exec.started or exec.finished, not ${String(event.event)}`);
    const sessionKey = event.sessionKey.length > 0 ? event.sessionKey : `node-${event.nodeId}`;
    const text = execEventText(event);
    if (text === undefined) {
      delivery.ack();
      return;
    }
    // A key no session of this gateway serves (the node default) still gets its in-memory event and its wake, but no
    // prompt will ever carry it durably, so it is acknowledged at once.
    const served = this.config.sessions.includes(sessionKey);
    const execKey = execDedupeKey(sessionKey, event);
    assert(execKey.startsWith(`${sessionKey}::`), `the exec key ${execKey} is scoped to ${sessionKey}`);
    if (served && (await this.isDuplicate(sessionKey, event, execKey))) {
      this.ctx.note('exec-duplicate-dropped', { session: sessionKey, run: event.runId, event: event.event, memory: this.bug('exec-dedupe-memory') });
      delivery.ack();
      return;
    }
    const result = this.events.enqueueSystemEvent(sessionKey, text, {
      contextKey: event.runId.length > 0 ? `exec:${event.runId}` : 'exec',
      trusted: false,
      execKey,
    });
    assert(!result.queued || result.event.execKey === execKey, `the event queued for ${execKey} keeps its key`);
    this.ctx.note('system-event', { session: sessionKey, run: event.runId, event: event.event, queued: result.queued });
    if (result.queued && event.event === 'exec.finished' && this.bug('exec-dedupe-memory')) this.rememberInMemory(execKey);
    if (!served) delivery.ack();
    else if (result.queued) result.event.onDurable.push(() => delivery.ack());
    else if (result.duplicateOf !== null) result.duplicateOf.onDurable.push(() => delivery.ack());
    else delivery.ack();
    // seed 000 (exec-replay): the wake is requested even when the enqueue was refused as a duplicate.
    if (result.queued || this.bug('exec-replay')) this.wakes.requestHeartbeatNow('exec-event', scopedWakeTarget(sessionKey));
  }

  /**
   * Whether the event was already taken up. Seed 000's bug keeps no key; its proposed fix (exec-dedupe-memory) keeps
   * `exec.finished` keys in memory only; the fixed gateway keeps a durable key per event, written with the prompt row.
   */
  private async isDuplicate(sessionKey: string, event: NodeEvent, execKey: string): Promise<boolean> {
    assert(execKey.length > 0, `an exec event of ${sessionKey} has a dedupe key`);
    if (this.bug('exec-dedupe-memory')) return event.event === 'exec.finished' && this.seenInMemory(execKey);
    // seed 000 (exec-replay): no idempotency check keyed by (sessionKey, runId) on this path.
    if (this.bug('exec-replay')) return false;
    return this.execSeen(sessionKey, execKey);
  }

  /** seed 000's proposed fix: a key seen within the window (10 min) is a duplicate. */
  private seenInMemory(execKey: string): boolean {
    const seenAtMs = this.execSeenInMemory.get(execKey);
    return seenAtMs !== undefined && this.ctx.clock.nowMs() - seenAtMs < this.config.timers.execDedupeWindowMs;
  }

  /** Remember a queued run, forgetting the oldest keys past execDedupeKeysMax (insertion order is age order). */
  private rememberInMemory(execKey: string): void {
    this.execSeenInMemory.delete(execKey);
    this.execSeenInMemory.set(execKey, this.ctx.clock.nowMs());
    assert(this.execSeenInMemory.get(execKey) === this.ctx.clock.nowMs(), `${execKey} is remembered as seen now`);
    while (this.execSeenInMemory.size > this.config.timers.execDedupeKeysMax) {
      const oldest = this.execSeenInMemory.keys().next().value as string;
      this.execSeenInMemory.delete(oldest);
    }
  }

  private async execSeen(sessionKey: string, execKey: string): Promise<boolean> {
    const inbound = await this.dbs.inboundDb(sessionKey);
    const rows = await inbound.query('SELECT 1 AS seen FROM exec_seen WHERE key = ?', [execKey]);
    assert(rows.length <= 1, `exec_seen holds ${execKey} ${rows.length} times`);
    return rows.length > 0;
  }

  /**
   * The heartbeat runner: an unscoped wake serves the agent's main session; skip while the session's lane is busy,
   * else drain its system events into a prompt row.
   */
  private async runHeartbeat(wake: Wake): Promise<WakeOutcome> {
    const sessionKey = wake.sessionKey ?? mainSessionKey(wake.agentId ?? defaultAgentId);
    if (!this.config.sessions.includes(sessionKey)) {
      // The model serves only its configured chat sessions; the main session of an unscoped wake is not one of them.
      this.ctx.note('heartbeat-skip', { session: sessionKey, reason: 'no-session' });
      return 'ran';
    }
    const inbound = await this.dbs.inboundDb(sessionKey);
    const lane = await laneAcks(await this.dbs.outboundDb(sessionKey));
    if (lane.processing || triggerWaiting(await inbound.query(pendingTriggersSql), lane.acked, this.ctx.clock.nowMs())) {
      this.ctx.note('heartbeat-skip', { session: sessionKey, reason: 'requests-in-flight' });
      return 'skipped-busy';
    }
    const run = this.config.knobs.heartbeatRun;
    if (run !== null && this.llm !== undefined) return this.runHeartbeatInGateway(sessionKey, run, this.llm, lane.acked);
    const drained = this.events.drainSystemEvents(sessionKey);
    assert(drained.length <= systemEventsPerSessionMax, `${drained.length} system events drained for ${sessionKey}, above the bound`);
    assert(this.events.peek(sessionKey).length === 0, `the system-event queue of ${sessionKey} is empty after its drain`);
    if (drained.length === 0) return 'ran';
    try {
      if (!(await this.persistHeartbeatPrompt(sessionKey, drained, lane.acked))) {
        this.events.requeue(sessionKey, drained);
        this.ctx.note('heartbeat-skip', { session: sessionKey, reason: 'requests-in-flight' });
        return 'skipped-busy';
      }
    } catch (error) {
      if (!isBusy(error)) throw error;
      this.events.requeue(sessionKey, drained);
      return 'skipped-busy';
    }
    for (const event of drained) for (const ack of event.onDurable) ack();
    return 'ran';
  }

  /**
   * OpenClaw's heartbeat as a run of its own (heartbeat-run.ts). The fixed gateway (`gateway`) first finishes a held
   * heartbeat row, one whose run has not yet got an answer (a run that failed, or one a kill interrupted); else it writes
   * the inspected events' prompt as a held row with their durable keys (the runner does not take a held row), consumes
   * the events and acknowledges them to the node host, and then runs it: the answer goes with the row, which it
   * releases to the runner; a failed run asks for another wake after retryMs. OpenClaw 2026.4.24 (`openclaw`) runs
   * first from the inspected events, which stay in memory until the row with the answer is written, and leaves a failed
   * run's events queued for the session's next wake.
   */
  private async runHeartbeatInGateway(sessionKey: string, run: HeartbeatRunKnobs, llm: LlmApi, acked: ReadonlySet<string>): Promise<WakeOutcome> {
    if (run.mode === 'openclaw') return this.runHeartbeatAsReleased(sessionKey, run, llm, acked);
    const inbound = await this.dbs.inboundDb(sessionKey);
    // Its own held rows only (heartbeat prompts, kind 'system'): the cron executor holds task rows the same way
    // (cron-executor.ts), and those are not the heartbeat's to run, nor due yet.
    const held = await ignoreBusy(inbound.query("SELECT id, content FROM messages_in WHERE process_after = ? AND kind = 'system' ORDER BY seq LIMIT 1", [heldRowDueMs]));
    if (held === undefined) return 'skipped-busy';
    let row = held[0] === undefined ? undefined : { id: String(held[0].id), prompt: String(held[0].content) };
    if (row === undefined) {
      const inspected = [...this.events.peek(sessionKey)];
      if (inspected.length === 0) return 'ran';
      const written = await ignoreBusy(this.persistHeartbeatPrompt(sessionKey, inspected, acked, 'held'));
      if (written === undefined || written === false) {
        this.ctx.note('heartbeat-skip', { session: sessionKey, reason: written === false ? 'requests-in-flight' : 'busy' });
        return 'skipped-busy';
      }
      this.consumeInspected(sessionKey, inspected);
      if (written === true) return 'ran';
      row = written;
    }
    const answer = await runHeartbeatAgent(this.ctx, llm, run, sessionKey, row.prompt);
    const released = answer !== undefined && (await ignoreBusy(inbound.transaction((tx) => releaseHeldRow(tx, row.id, row.prompt, answer, this.ctx.clock.nowMs())))) === true;
    if (released) {
      this.ctx.note('heartbeat-run-released', { session: sessionKey, row: row.id });
      this.wakeRunner();
      // A row held from an earlier run went first: events queued since (their wake spent on it) run now, not at the
      // failed run's pending retry.
      if (held[0] !== undefined && this.events.peek(sessionKey).length > 0) this.retryHeartbeatAfter(sessionKey, 0);
      return 'ran';
    }
    this.ctx.note('heartbeat-run-failed', { session: sessionKey, row: row.id, retryMs: run.mode === 'gateway' ? run.retryMs : null });
    // gateway-no-retry (tests only): the held row waits for a wake that may never come.
    if (run.mode === 'gateway') this.retryHeartbeatAfter(sessionKey, run.retryMs);
    return 'ran';
  }

  /** OpenClaw 2026.4.24: the run first; the row, the keys and the consumption of the events only after its answer. */
  private async runHeartbeatAsReleased(sessionKey: string, run: HeartbeatRunKnobs, llm: LlmApi, acked: ReadonlySet<string>): Promise<WakeOutcome> {
    const inspected = [...this.events.peek(sessionKey)];
    if (inspected.length === 0) return 'ran';
    const prompt = this.heartbeatPromptOf(await this.unseenEvents(sessionKey, inspected));
    let answer: LlmAnswer | undefined;
    const startedAtMs = this.ctx.clock.nowMs();
    if (prompt !== undefined) {
      answer = await runHeartbeatAgent(this.ctx, llm, run, sessionKey, prompt);
      if (answer === undefined) {
        this.ctx.note('heartbeat-run-failed', { session: sessionKey, row: null, retryMs: null });
        return 'ran';
      }
      if (this.isDuplicateHeartbeatReply(sessionKey, answer, startedAtMs)) {
        this.ctx.note('heartbeat-skip', { session: sessionKey, reason: 'duplicate' });
        this.consumeInspected(sessionKey, inspected);
        return 'ran';
      }
    }
    const written = await ignoreBusy(this.persistHeartbeatPrompt(sessionKey, inspected, acked, prompt === undefined || answer === undefined ? undefined : { prompt, answer }));
    if (written === undefined || written === false) {
      // A message arrived since the lane check (or the write met a busy database): the events stay for the next wake.
      this.ctx.note('heartbeat-skip', { session: sessionKey, reason: written === false ? 'requests-in-flight' : 'busy' });
      return 'skipped-busy';
    }
    this.consumeInspected(sessionKey, inspected);
    // The release stores the last reply only when it had text (`lastHeartbeatText` of a non-empty reply).
    const text = answer === undefined || answer.toolCalls.length > 0 ? '' : heartbeatReplyText(answer);
    if (text.length > 0) this.lastHeartbeatReply.set(sessionKey, { text, atMs: startedAtMs });
    return 'ran';
  }

  /**
   * OpenClaw's duplicate guard of the heartbeat runner (both releases, `runHeartbeatOnce`): a reply whose text equals
   * the session's last heartbeat reply, sent less than 24 h before this run started, is not delivered, and the inspected
   * events are consumed all the same, exec completions included. The model applies it to an answer without tool calls
   * (the release's tools have acted during its run; only the final text is held back), comparing what the user would
   * be shown (the closing text's message blocks).
   */
  private isDuplicateHeartbeatReply(sessionKey: string, answer: LlmAnswer, startedAtMs: number): boolean {
    const last = this.lastHeartbeatReply.get(sessionKey);
    return last !== undefined && answer.toolCalls.length === 0 && heartbeatReplyText(answer) === last.text && startedAtMs - last.atMs < 24 * 3_600_000;
  }

  /** OpenClaw's consumeSystemEventEntries: the inspected events leave the queue (what was queued since stays) and are acknowledged. */
  private consumeInspected(sessionKey: string, inspected: readonly SystemEvent[]): void {
    const now = this.events.drainSystemEvents(sessionKey);
    const since = now.filter((event) => !inspected.includes(event));
    if (since.length > 0) this.events.requeue(sessionKey, since);
    for (const event of inspected) for (const ack of event.onDurable) ack();
  }

  /** Another wake of the session after delayMs: a held row's run is tried again (also after a gateway restart). */
  retryHeartbeatAfter(sessionKey: string, delayMs: number): void {
    this.ctx.spawnTask('heartbeat-retry', async () => {
      await this.ctx.timers.sleep(delayMs);
      this.wakes.requestHeartbeatNow('retry', scopedWakeTarget(sessionKey));
    });
  }

  /** The events whose durable exec key is not yet recorded (all of them under seed 000's bug and its in-memory fix). */
  private async unseenEvents(sessionKey: string, events: readonly SystemEvent[]): Promise<SystemEvent[]> {
    if (this.bug('exec-replay') || this.bug('exec-dedupe-memory')) return [...events];
    const unseen: SystemEvent[] = [];
    for (const event of events) if (event.execKey === null || !(await this.execSeen(sessionKey, event.execKey))) unseen.push(event);
    return unseen;
  }

  /** A heartbeat's prompt for these events: their `System (untrusted): …` block and the body; undefined for noise only. */
  private heartbeatPromptOf(events: readonly SystemEvent[]): string | undefined {
    const block = formatSystemEvents(events);
    if (block.length === 0) return undefined;
    const body = events.some((event) => isExecCompletionEvent(event.text)) ? execEventPrompt : heartbeatPrompt;
    return `${block}\n\n${body}`;
  }

  /**
   * One prompt row for the drained events: their `System (untrusted): …` block, then the exec-event prompt when one is
   * an exec completion, else the heartbeat prompt. The fixed gateway writes a durable key per event in the same
   * transaction and leaves out an event whose key is already there (a replay that slipped past the check at ingestion).
   * The lane is checked again in the transaction that writes the row: a message stored since runHeartbeat found the
   * lane idle would otherwise share a batch with the heartbeat row, whose prompt then ends by asking for HEARTBEAT_OK
   * after the user's message (campaign seed 17: the message was never answered). OpenClaw runs a heartbeat as a run of
   * its own in the session's lane, never in one prompt with a user's message. Returns false, writing nothing, then.
   */
  private async persistHeartbeatPrompt(sessionKey: string, drained: readonly SystemEvent[], acked: ReadonlySet<string>): Promise<boolean>;
  private async persistHeartbeatPrompt(sessionKey: string, drained: readonly SystemEvent[], acked: ReadonlySet<string>, ran: { prompt: string; answer: LlmAnswer } | undefined): Promise<boolean>;
  private async persistHeartbeatPrompt(sessionKey: string, drained: readonly SystemEvent[], acked: ReadonlySet<string>, ran: 'held'): Promise<boolean | { id: string; prompt: string }>;
  private async persistHeartbeatPrompt(sessionKey: string, drained: readonly SystemEvent[], acked: ReadonlySet<string>, ran?: { prompt: string; answer: LlmAnswer } | 'held'): Promise<boolean | { id: string; prompt: string }> {
    const inbound = await this.dbs.inboundDb(sessionKey);
    const nowMs = this.ctx.clock.nowMs();
    const rowId = `sys:${this.ctx.incarnation}:${++this.systemRows}`;
    // seed 000 (exec-replay, and its proposed in-memory fix exec-dedupe-memory): no durable key is recorded.
    const fixed = !this.bug('exec-replay') && !this.bug('exec-dedupe-memory');
    let heldPrompt: string | undefined;
    const fresh = await inbound.transaction((tx) => {
      if (triggerWaiting(tx.query(pendingTriggersSql), acked, nowMs)) return null;
      const kept = drained.filter((event) => !fixed || event.execKey === null || tx.run('INSERT OR IGNORE INTO exec_seen(key, seen_at) VALUES (?, ?)', [event.execKey, nowMs]).changes > 0);
      const prompt = this.heartbeatPromptOf(kept);
      // Every kept event is heartbeat noise (or a replay): nothing to tell the agent.
      if (prompt === undefined) return [];
      const seq = Number(tx.query('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages_in')[0]?.next ?? 1);
      assertNonNegativeInteger(seq, `seq of the heartbeat row ${rowId}`);
      // The fixed gateway's own run holds its row (not due for the runner) until the run's answer goes with it.
      tx.run("INSERT INTO messages_in(id, seq, kind, content, created_at, process_after) VALUES (?, ?, 'system', ?, ?, ?)", [rowId, seq, prompt, nowMs, ran === 'held' ? heldRowDueMs : 0]);
      // OpenClaw's run: its answer goes with the row when it was asked this very prompt.
      if (ran !== undefined && ran !== 'held' && ran.prompt === prompt) storeHeartbeatAnswer(tx, rowId, prompt, ran.answer);
      heldPrompt = ran === 'held' ? prompt : undefined;
      return kept;
    });
    if (fresh === null) return false;
    assert(fresh.length <= drained.length, `${fresh.length} of ${drained.length} drained events kept`);
    this.ctx.note('exec-ingest', { session: sessionKey, row: fresh.length > 0 ? rowId : null, runs: fresh.map((event) => event.contextKey ?? '').join(',') });
    if (heldPrompt !== undefined) return { id: rowId, prompt: heldPrompt };
    if (fresh.length > 0) this.wakeRunner();
    return true;
  }

  /** Every sweepEveryMs: nanoclaw's host sweep (host-sweep.ts), restart what is down, forget old exec keys. */
  async sweepLoop(): Promise<void> {
    const timers = this.config.timers;
    const sweep = new HostSweep(this.ctx, this.config, this.dbs, runnerName);
    assert(timers.sweepEveryMs > 0, `the sweep runs every ${timers.sweepEveryMs} ms, not a positive interval`);
    for (;;) {
      await this.ctx.timers.sleep(timers.sweepEveryMs);
      await sweep.sweep();
      // nanoclaw's sweep ends with the recurrence fanout, over the completions its sync just recorded.
      if (this.scheduler !== undefined) await this.scheduler.fanoutAll();
      this.wakeRunner();
      await this.pruneExecKeys();
    }
  }

  /**
   * Forget all but the newest execDedupeKeysMax keys of each session. Not by age: the node host resends an event it
   * has no acknowledgement of whenever its connection comes back, however late, so a key forgotten after a window
   * (the 10 minutes of seed 000's proposed fix, which this prune had until issue 44) let a resend after a long cut
   * become a second turn (chaos with a quiet gap: the link to the node host partitioned for 17 min after the prompt of
   * an `exec.started` was written and before its acknowledgement arrived). `seen_at < 0` holds for no key; the
   * statement keeps its keep-the-newest form (sim/kernel/sqlite.ts skips it when it would delete nothing).
   */
  private async pruneExecKeys(): Promise<void> {
    assert(this.config.timers.execDedupeKeysMax >= 1, `exec_seen keeps at least one key, not ${this.config.timers.execDedupeKeysMax}`);
    for (const sessionKey of this.config.sessions) {
      const inbound = await this.dbs.inboundDb(sessionKey);
      await ignoreBusy(inbound.run('DELETE FROM exec_seen WHERE seen_at < ? OR key NOT IN (SELECT key FROM exec_seen ORDER BY seen_at DESC LIMIT ?)', [0, this.config.timers.execDedupeKeysMax]));
    }
  }
}

/**
 * OpenClaw's exec event text: `Exec started (node=<nodeId> id=<runId>): <command>`, or `Exec finished (node=<nodeId>
 * id=<runId>, code <n>)` (`…, timeout)`) plus a line of the collapsed, cut output; undefined for a silent finish.
 */
export function execEventText(event: NodeEvent): string | undefined {
  const node = `node=${event.nodeId}${event.runId.length > 0 ? ` id=${event.runId}` : ''}`;
  if (event.event === 'exec.started') {
    const command = event.command.trim();
    return `Exec started (${node})${command.length > 0 ? `: ${command}` : ''}`;
  }
  const output = event.output.replace(/\s+/g, ' ').trim();
  if (!event.timedOut && event.exitCode === 0 && output.length === 0) return undefined;
  const cut = output.length > execOutputCharsMax ? `${output.slice(0, execOutputCharsMax)}…` : output;
  assert(cut.length <= execOutputCharsMax + 1, `exec output cut to ${cut.length} characters`);
  const status = event.timedOut ? 'timeout' : `code ${event.exitCode}`;
  return `Exec finished (${node}, ${status})${cut.length > 0 ? `\n${cut}` : ''}`;
}

/**
 * The durable dedupe key of an exec event: `<sessionKey>::<runId>` for `exec.finished` (seed 000's key), with a
 * `::started` suffix for `exec.started`, so a command's start never hides its finish.
 */
export function execDedupeKey(sessionKey: string, event: NodeEvent): string {
  return `${sessionKey}::${event.runId}${event.event === 'exec.started' ? '::started' : ''}`;
}

/** OpenClaw's main session key of an agent (`agent:<agentId>:main`): where an unscoped wake's heartbeat runs. */
export function mainSessionKey(agentId: string): string {
  return `agent:${agentId}:main`;
}

/** The text a heartbeat reply shows the user (the closing text's message blocks), as OpenClaw's duplicate guard compares it. */
function heartbeatReplyText(answer: LlmAnswer): string {
  return parseMessageBlocks(answer.result)
    .map((block) => block.body)
    .join('\n');
}
