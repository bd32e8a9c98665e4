// The gateway process: channel adapter, inbound router, node-event ingestion, the system-event queue and heartbeat
// wakes, the heartbeat runner, outbound delivery (delivery.ts) and the sweep that supervises the runner.
//
// Inbound chat messages are written to the session's `messages_in` keyed by the platform delivery id (a redelivery
// is ignored) and acknowledged only after the write commits. A message that arrives while a run is active simply
// queues behind it in its session lane. Node events become untrusted system events with contextKey `exec:<runId>`
// and request a heartbeat wake; the heartbeat runner drains them into a prompt row when the session's lane is idle.
import type { BugId, ModelConfig } from './config.ts';
import { DeliveryPollers } from './delivery.ts';
import { HeartbeatWakes, type Wake, type WakeOutcome } from './heartbeat-wake.ts';
import type { Delivery, ProcessContext } from './ports.ts';
import { gatewayName, type InboundAck, type InboundMessage, messageType, type NodeEvent, platformName, runnerName, type SendAck, toolServerName } from './protocol.ts';
import { ignoreBusy, isBusy, retryBusy } from './busy.ts';
import { laneBusy } from './claims.ts';
import { HostSweep } from './host-sweep.ts';
import { SessionDbs } from './session-dbs.ts';
import { formatSystemEvents, type SystemEvent, SystemEventQueue } from './system-events.ts';

export const execOutputCharsMax = 180;

export { gatewayName, platformName };

export async function gatewayMain(ctx: ProcessContext, config: ModelConfig): Promise<void> {
  const gateway = new Gateway(ctx, config);
  ctx.spawnTask('receive', () => gateway.receiveLoop());
  ctx.spawnTask('delivery-fast', () => gateway.delivery.pollLoop('fast'));
  ctx.spawnTask('delivery-slow', () => gateway.delivery.pollLoop('slow'));
  ctx.spawnTask('sweep', () => gateway.sweepLoop());
  ctx.note('gateway-ready', { incarnation: ctx.incarnation });
}

class Gateway {
  readonly dbs: SessionDbs;
  readonly events: SystemEventQueue;
  readonly wakes: HeartbeatWakes;
  readonly delivery: DeliveryPollers;
  private systemRows = 0;
  /** seed 000's proposed fix (exec-dedupe-memory): `<sessionKey>::<runId>` -> when first queued, in memory only. */
  private readonly execSeenInMemory = new Map<string, number>();

  constructor(
    private readonly ctx: ProcessContext,
    private readonly config: ModelConfig,
  ) {
    this.dbs = new SessionDbs(ctx.sqlite);
    this.events = new SystemEventQueue(ctx.clock, this.bug('exec-replay'));
    this.wakes = new HeartbeatWakes(
      ctx.timers,
      () => ctx.clock.nowMs(),
      config.timers.wakeCoalesceMs,
      config.timers.wakeRetryMs,
      (wake) => this.runHeartbeat(wake),
      (name, task) => ctx.spawnTask(name, task),
    );
    this.delivery = new DeliveryPollers(ctx, config, this.dbs);
  }

  private bug(id: BugId): boolean {
    return this.config.bugs.has(id);
  }

  async receiveLoop(): Promise<void> {
    for (;;) {
      const delivery = await this.ctx.net.receive();
      const type = messageType(delivery.payload);
      if (type === 'inbound') this.ctx.spawnTask('inbound', () => this.onInbound(delivery.payload as InboundMessage));
      else if (type === 'node.event') this.ctx.spawnTask('node-event', () => this.onNodeEvent(delivery as Delivery<NodeEvent>));
      else if (type === 'send.ack') this.delivery.onAck((delivery.payload as SendAck).key);
    }
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
    this.ctx.note('ingest', { session: message.sessionKey, delivery: message.deliveryId, row: `in:${message.deliveryId}`, inserted });
    this.ctx.net.send(platformName, { type: 'inbound.ack', deliveryId: message.deliveryId } satisfies InboundAck);
  }

  /** Node-event ingestion (OpenClaw server-node-events.ts). */
  private async onNodeEvent(delivery: Delivery<NodeEvent>): Promise<void> {
    const event = delivery.payload;
    const sessionKey = event.sessionKey.length > 0 ? event.sessionKey : `node-${event.nodeId}`;
    if (!this.config.sessions.includes(sessionKey)) {
      delivery.ack();
      return;
    }
    const execKey = `${sessionKey}::${event.runId}`;
    if (event.event === 'exec.finished' && this.bug('exec-dedupe-memory') && this.seenInMemory(execKey)) {
      this.ctx.note('exec-duplicate-dropped', { session: sessionKey, run: event.runId, memory: true });
      delivery.ack();
      return;
    }
    // seed 000 (exec-replay): no idempotency check keyed by (sessionKey, runId) on this path.
    if (event.event === 'exec.finished' && !this.bug('exec-replay') && !this.bug('exec-dedupe-memory') && (await this.execSeen(sessionKey, execKey))) {
      this.ctx.note('exec-duplicate-dropped', { session: sessionKey, run: event.runId });
      delivery.ack();
      return;
    }
    const text = execEventText(event);
    if (text === undefined) {
      delivery.ack();
      return;
    }
    const result = this.events.enqueueSystemEvent(sessionKey, text, {
      contextKey: `exec:${event.runId}`,
      trusted: false,
      execKey,
    });
    this.ctx.note('system-event', { session: sessionKey, run: event.runId, event: event.event, queued: result.queued });
    if (result.queued && event.event === 'exec.finished' && this.bug('exec-dedupe-memory')) this.rememberInMemory(execKey);
    if (result.queued) result.event.onDurable.push(() => delivery.ack());
    else if (result.duplicateOf !== null) result.duplicateOf.onDurable.push(() => delivery.ack());
    else delivery.ack();
    // seed 000 (exec-replay): the wake is requested even when the enqueue was refused as a duplicate.
    if (result.queued || this.bug('exec-replay')) this.wakes.requestHeartbeatNow('main', sessionKey, 'exec-event');
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
    while (this.execSeenInMemory.size > this.config.timers.execDedupeKeysMax) {
      const oldest = this.execSeenInMemory.keys().next().value as string;
      this.execSeenInMemory.delete(oldest);
    }
  }

  private async execSeen(sessionKey: string, execKey: string): Promise<boolean> {
    const inbound = await this.dbs.inboundDb(sessionKey);
    const rows = await inbound.query('SELECT 1 AS seen FROM exec_seen WHERE key = ?', [execKey]);
    return rows.length > 0;
  }

  /** The heartbeat runner: skip while the lane is busy, else drain system events into a prompt row. */
  private async runHeartbeat(wake: Wake): Promise<WakeOutcome> {
    const busy = await laneBusy(await this.dbs.inboundDb(wake.sessionKey), await this.dbs.outboundDb(wake.sessionKey));
    if (busy) {
      this.ctx.note('heartbeat-skip', { session: wake.sessionKey, reason: 'requests-in-flight' });
      return 'skipped-busy';
    }
    const drained = this.events.drainSystemEvents(wake.sessionKey);
    if (drained.length === 0) return 'ran';
    try {
      await this.persistHeartbeatPrompt(wake.sessionKey, drained);
    } catch (error) {
      if (!isBusy(error)) throw error;
      this.events.requeue(wake.sessionKey, drained);
      return 'skipped-busy';
    }
    for (const event of drained) for (const ack of event.onDurable) ack();
    return 'ran';
  }

  private async persistHeartbeatPrompt(sessionKey: string, drained: SystemEvent[]): Promise<void> {
    const inbound = await this.dbs.inboundDb(sessionKey);
    const nowMs = this.ctx.clock.nowMs();
    const rowId = `sys:${this.ctx.incarnation}:${++this.systemRows}`;
    const prompt = `${formatSystemEvents(drained)}\n\nAn async command you ran earlier has completed. The result is shown in the system messages above.`;
    // seed 000 (exec-replay, and its proposed in-memory fix exec-dedupe-memory): no durable key is recorded.
    const fixed = !this.bug('exec-replay') && !this.bug('exec-dedupe-memory');
    const runIds = await inbound.transaction((tx) => {
      const fresh: string[] = [];
      for (const event of drained) {
        if (event.execKey === null) continue;
        // Fixed: a durable idempotency key per (sessionKey, runId), written with the prompt row.
        if (fixed && tx.run('INSERT OR IGNORE INTO exec_seen(key, seen_at) VALUES (?, ?)', [event.execKey, nowMs]).changes === 0) continue;
        fresh.push(event.execKey.split('::')[1] ?? '');
      }
      if (fresh.length === 0) return fresh;
      const seq = Number(tx.query('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages_in')[0]?.next ?? 1);
      tx.run("INSERT INTO messages_in(id, seq, kind, content, created_at) VALUES (?, ?, 'system', ?, ?)", [rowId, seq, prompt, nowMs]);
      return fresh;
    });
    this.ctx.note('exec-ingest', { session: sessionKey, row: runIds.length > 0 ? rowId : null, runs: runIds.join(',') });
  }

  /** Every sweepEveryMs: nanoclaw's host sweep (host-sweep.ts), restart what is down, forget old exec keys. */
  async sweepLoop(): Promise<void> {
    const timers = this.config.timers;
    const sweep = new HostSweep(this.ctx, this.config, this.dbs, runnerName);
    for (;;) {
      await this.ctx.timers.sleep(timers.sweepEveryMs);
      await sweep.sweep();
      for (const name of [runnerName, toolServerName]) {
        if (!this.ctx.supervisor.isRunning(name)) this.ctx.supervisor.start(name, timers.runnerRestartDelayMs);
      }
      await this.pruneExecKeys(this.ctx.clock.nowMs());
    }
  }

  private async pruneExecKeys(nowMs: number): Promise<void> {
    for (const sessionKey of this.config.sessions) {
      const inbound = await this.dbs.inboundDb(sessionKey);
      await ignoreBusy(
        inbound.run('DELETE FROM exec_seen WHERE seen_at < ? OR key NOT IN (SELECT key FROM exec_seen ORDER BY seen_at DESC LIMIT ?)', [
          nowMs - this.config.timers.execDedupeWindowMs,
          this.config.timers.execDedupeKeysMax,
        ]),
      );
    }
  }
}

/** `Exec finished (node=<nodeId> id=<runId>, code <n>)` plus the collapsed, cut output; undefined if silent. */
export function execEventText(event: NodeEvent): string | undefined {
  // exec.started only updates the node's run table in OpenClaw; it never becomes a prompt line here.
  if (event.event === 'exec.started') return undefined;
  const output = event.output.replace(/\s+/g, ' ').trim();
  if (!event.timedOut && event.exitCode === 0 && output.length === 0) return undefined;
  const cut = output.length > execOutputCharsMax ? `${output.slice(0, execOutputCharsMax)}…` : output;
  const status = event.timedOut ? 'timeout' : `code ${event.exitCode}`;
  return `Exec finished (node=${event.nodeId} id=${event.runId}, ${status})${cut.length > 0 ? `\n${cut}` : ''}`;
}
