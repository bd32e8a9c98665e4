// Node-event ingestion by a pinned release's own `handleNodeEvent` (src/gateway/server-node-events.ts), in place of the
// model's (src/gateway.ts onNodeEvent), for one gateway incarnation. The release's function runs in the incarnation's
// instance, with its module state (2026.4.24's `recentExecFinishedRuns`, the 600 s in-memory window keyed
// `<sessionKey>::<runId>`), its config loader and session store on the simulated disk (home.ts), and its own
// system-event queue and heartbeat wake (the same instance's, which the `se` and `hw` adapters run): it decides
// whether the event becomes a system event and requests the wake (`exec-event`, coalesceMs 0) itself.
//
// What stays the model's, and why:
// - The transport. The node host's event arrives as the model's `node.event` delivery; the adapter hands the release
//   what OpenClaw's `node.event` method hands it (node id, event name, the payload as JSON) and acknowledges the
//   delivery as the model's gateway does: when the event it became is durable in a prompt row (so the node host
//   resends it after a reconnect until then), at once when the release took nothing (a duplicate it dropped, a silent
//   finish, or a key no session serves). OpenClaw answers the request when handleNodeEvent returns; the model's
//   acknowledgement after durability is what makes a replay reach the release at all after a restart.
// - The event object the model's heartbeat runner drains: made for what the release accepted (the queue adapter's
//   `adoptEnqueued`), with no durable exec key, because the release's ingestion keeps none. So the model's heartbeat
//   runner leaves no replay out of a prompt by key under `node-events`: what the release let through is prompted.
// The handler's context (`ctx`) is a strict object: an exec event uses none of it in 2026.4.24; any use fails loudly.
//
// 2026.7.1 takes an exec event only when the gateway itself sent the node a `system.run` invoke with that runId over
// the node's current connection (`ctx.authorizeNodeSystemRunEvent`, which its `node.event` method, dist/nodes-*.js,
// wires to the gateway's `NodeRegistry.authorizeSystemRunEvent`). So under 2026.7.1 the adapter runs the release's own
// NodeRegistry (src/gateway/node-registry.ts) in the same instance, one per gateway incarnation as the gateway's is:
// - the node is registered on the connection the model's network reports (a new connection id at each reconnect, a
//   delivery names the one it came over); when the connection changes, the old one is unregistered first, as the
//   gateway does when a socket closes (which drops that connection's authorizations and rejects its pending invokes);
// - the gateway's system.run (the agent's exec tool with host=node, node-host.ts ExecTool) is the registry's own
//   `invoke`, with the parameters 2026.7.1's exec tool builds (`buildNodeSystemRunInvoke`: argv, rawCommand,
//   timeoutMs from the default 1,800 s, agentId, sessionKey, runId; dist/bash-tools-*.js): the registry writes the
//   `node.invoke.request` frame to the node's socket (here, the model's `node.invoke` message on that connection) and
//   remembers the authorization (node id, connection id, session key, runId) itself;
// - an exec event is handed over with the connection id it came over (`opts.connId`), and the context's
//   `authorizeNodeSystemRunEvent` is the registry's, as nodes-*.js wires it. Nothing is authorized by the adapter.
// The SQLite era (2026.8.1, 2026.9.6) authorizes as 2026.7.1 and runs the same way, with two differences: its
// registry registers only a paired node (the adapter gives a pairing identity and an approved surface of system.run),
// and its handleNodeEvent awaits before it enqueues and reads its session entry from the agent DB on the simulated
// node:sqlite, so the adapter holds the kernel's settle while it handles an event and adopts what it queued when it
// answers (docs/MODEL.md, "Node events in the SQLite era, on the simulated agent DB").
// The model's node host sends no `node.invoke.result` (its invoke stays pending until its timer, 1,805 s, past any
// run's end, or until its connection is unregistered); a result with ok: true would only clear that timer.
import type { Delivery, ProcessContext } from '../../../src/ports.ts';
import type { SystemEvent } from '../../../src/index.ts';
import { nodeHostName, type NodeEvent } from '../../../src/protocol.ts';
import type { NodeEventsPort } from '../../../src/environment.ts';
import type { ExecCommand, SystemRunAuthorizing } from '../../../src/node-host.ts';
import { assert } from '../../kernel/assert.ts';
import { componentSource } from './components.ts';
import type { RealSystemEventQueue } from './gateway-parts.ts';
import type { OpenclawInstance } from './instance.ts';
import { isJulyLine, openclawSqliteEraReleases } from './releases.ts';

/** Whether a release keeps its sessions in the SQLite agent DB (its instances get the simulated node:sqlite on the disk). */
export function isSqliteEra(release: string): boolean {
  return (openclawSqliteEraReleases as readonly string[]).includes(release);
}

type HandleNodeEvent = (ctx: object, nodeId: string, event: { event: string; payloadJSON: string }, opts?: { connId?: string; deviceId?: string }) => Promise<unknown>;

/** The release's NodeRegistry (src/gateway/node-registry.ts), as much of it as the gateway's node paths use. */
interface NodeRegistry {
  register(client: object, opts: { remoteIp?: string; pairingIdentity?: string; approvedSurface?: { caps: string[]; commands: string[] } }): unknown;
  unregister(connId: string): string | null;
  invoke(params: { nodeId: string; command: string; params: unknown; timeoutMs?: number; idempotencyKey?: string }): Promise<unknown>;
  authorizeSystemRunEvent(params: { nodeId: string; connId?: string; runId?: string; sessionKey?: string; terminal?: boolean }): boolean;
}

/** Which releases authorize exec events against the gateway's own system.run invokes (GatewayParts.systemRunInvokes). */
export function authorizesExecEvents(release: string): boolean {
  return isJulyLine(release) || isSqliteEra(release);
}

/** 2026.7.1's exec tool: the run timeout (tools.exec.timeoutSec, default 1,800 s) and the invoke's (plus 5 s). */
const execRunTimeoutMs = 1_800_000;
const execInvokeTimeoutMs = 1_805_000;

export class RealNodeEvents implements NodeEventsPort, SystemRunAuthorizing {
  private readonly handle: HandleNodeEvent;
  private readonly context: object;
  /** 2026.7.1: the gateway's NodeRegistry, and the connection the node is registered on. */
  private readonly registry: NodeRegistry | undefined;
  private registered: { nodeId: string; connection: number } | undefined;
  /** Where a frame the registry writes to the node's socket goes (the gateway's send; set only while `invoke` runs). */
  private writing: ((id: string, connection: number) => void) | undefined;

  private readonly release: string;

  constructor(
    instance: OpenclawInstance,
    private readonly ctx: ProcessContext,
    private readonly queue: RealSystemEventQueue,
    private readonly sessions: readonly string[],
    /**
     * The SQLite era: hold the kernel's settle while the release handles an event (sim/kernel/scheduler.ts holdSettle),
     * since its handler awaits before it enqueues (`await isNodeEventConnectionCurrent(opts)`) and reads its session
     * entry from the agent DB: the whole handling runs at the delivery's instant, nothing of another process between.
     */
    private readonly holdSettle?: () => () => void,
  ) {
    this.release = instance.release;
    const { sourceFile, functions } = componentSource('node-events', instance.release);
    this.handle = instance.function<HandleNodeEvent>(sourceFile, functions[0] ?? 'handleNodeEvent');
    const wired: Record<string, unknown> = {};
    if (authorizesExecEvents(instance.release)) {
      const Registry = instance.export('src/gateway/node-registry.ts', 'NodeRegistry') as new () => NodeRegistry;
      const registry = new Registry();
      this.registry = registry;
      // As dist/nodes-*.js wires it for the node.event method.
      wired.authorizeNodeSystemRunEvent = (params: { nodeId: string; connId?: string; runId?: string; sessionKey?: string; terminal?: boolean }) =>
        registry.authorizeSystemRunEvent({
          nodeId: params.nodeId,
          ...(params.connId === undefined ? {} : { connId: params.connId }),
          ...(params.runId === undefined ? {} : { runId: params.runId }),
          ...(params.sessionKey === undefined ? {} : { sessionKey: params.sessionKey }),
          ...(params.terminal === undefined ? {} : { terminal: params.terminal }),
        });
    }
    this.context = new Proxy(
      wired,
      {
        get: (target, key) => {
          if (typeof key === 'symbol' || key === 'then') return undefined;
          if (Object.hasOwn(target, key)) return target[key];
          instance.binding.escaped(`handleNodeEvent's context ${key} (the adapter gives none)`);
          throw new Error(`gatesim: handleNodeEvent's context ${key} is not simulated`);
        },
      },
    );
  }

  /** The node's connection as the gateway sees it: registered anew (the old one unregistered) when it changed. */
  private connect(nodeId: string, connection: number): void {
    const registry = this.registry;
    if (registry === undefined || (this.registered?.nodeId === nodeId && this.registered.connection === connection)) return;
    if (this.registered !== undefined) registry.unregister(connectionId(this.registered.connection));
    const socket = {
      readyState: 1,
      bufferedAmount: 0,
      send: (frame: string) => this.write(connection, frame),
      close: () => undefined,
    };
    const client = {
      connId: connectionId(connection),
      socket,
      connect: { client: { id: nodeId, mode: 'node', displayName: nodeId, platform: 'linux', version: 'gatesim' }, caps: [], commands: ['system.run'] },
    };
    // The SQLite era registers only a paired node (its gateway's connect handler passes the pairing's identity and the
    // surface it approved: dist/message-handler-*.mjs): the node host is paired, with system.run approved.
    const paired = isSqliteEra(this.release) ? { pairingIdentity: `gatesim-pairing-${nodeId}`, approvedSurface: { caps: [], commands: ['system.run'] } } : {};
    registry.register(client, { remoteIp: '127.0.0.1', ...paired });
    this.registered = { nodeId, connection };
    this.ctx.note('node-connected', { node: nodeId, connection });
  }

  /** A frame the registry writes to the node's socket: an invoke goes out as the model's `node.invoke` on that connection. */
  private write(connection: number, frame: string): void {
    const parsed = JSON.parse(frame) as { event?: string; payload?: { id?: unknown } };
    assert(parsed.event === 'node.invoke.request' && typeof parsed.payload?.id === 'string', `the registry writes a node.invoke.request, not ${frame.slice(0, 80)}`);
    assert(this.writing !== undefined, 'the registry writes to the node only inside an invoke');
    this.writing(parsed.payload.id, connection);
  }

  /** The gateway's system.run invoke, by the release's own NodeRegistry (2026.7.1), with what its exec tool sends. */
  invokeSystemRun(nodeId: string, command: ExecCommand, send: (id: string, connection: number) => void): void {
    const registry = this.registry;
    assert(registry !== undefined, `openclaw ${this.release} keeps no system.run authorizations`);
    this.connect(nodeId, this.ctx.net.connection?.(nodeHostName) ?? 0);
    this.writing = send;
    try {
      const pending = registry.invoke({
        nodeId,
        command: 'system.run',
        params: { command: ['/bin/sh', '-lc', command.command], rawCommand: command.command, timeoutMs: execRunTimeoutMs, agentId: 'main', sessionKey: command.sessionKey, approved: true, runId: command.runId },
        timeoutMs: execInvokeTimeoutMs,
        idempotencyKey: `exec:${command.runId}`,
      });
      // A pending invoke is rejected when its connection is unregistered ("node disconnected"): the exec tool's error.
      pending.catch(() => undefined);
    } finally {
      this.writing = undefined;
    }
    this.ctx.note('system-run-invoke', { run: command.runId, session: command.sessionKey, connection: this.registered?.connection ?? -1 });
  }

  async onNodeEvent(delivery: Delivery<NodeEvent>): Promise<void> {
    const event = delivery.payload;
    assert(event.event === 'exec.started' || event.event === 'exec.finished', `a node event is exec.started or exec.finished, not ${String(event.event)}`);
    const sessionKey = event.sessionKey.length > 0 ? event.sessionKey : `node-${event.nodeId}`;
    // The payload with the fields the release's handleNodeEvent reads (sessionKey, runId, command, exitCode, timedOut, output).
    const payloadJSON = JSON.stringify({
      ...(event.sessionKey.length > 0 ? { sessionKey: event.sessionKey } : {}),
      ...(event.runId.length > 0 ? { runId: event.runId } : {}),
      command: event.command,
      ...(event.event === 'exec.finished' ? { exitCode: event.exitCode, timedOut: event.timedOut, output: event.output } : {}),
    });
    const before = this.queue.snapshot(sessionKey);
    let opts: { connId: string } | undefined;
    if (this.registry !== undefined) {
      assert(delivery.connection !== undefined, 'a node event comes over a connection');
      this.connect(event.nodeId, delivery.connection);
      opts = { connId: connectionId(delivery.connection) };
    }
    let queued: SystemEvent | undefined;
    let answer: unknown;
    if (this.holdSettle === undefined) {
      // The JSONL era enqueues synchronously inside the call (before its first await): adopt before anything else runs.
      const handled = this.handle(this.context, event.nodeId, { event: event.event, payloadJSON }, opts);
      queued = this.queue.adoptEnqueued(sessionKey, before);
      answer = await handled;
    } else {
      // The SQLite era enqueues after an await: with the settle held nothing else touches the queue until it answers
      // (its wake request is a timer, which fires only after), so what changed since `before` is the release's.
      const letGo = this.holdSettle();
      try {
        answer = await this.handle(this.context, event.nodeId, { event: event.event, payloadJSON }, opts);
      } finally {
        letGo();
      }
      queued = this.queue.adoptEnqueued(sessionKey, before);
    }
    const unmatched = typeof answer === 'object' && answer !== null && (answer as { reason?: unknown }).reason === 'unmatched_exec_event';
    this.ctx.note('system-event', { session: sessionKey, run: event.runId, event: event.event, queued: queued !== undefined, release: true, ...(unmatched ? { unmatched } : {}) });
    if (queued !== undefined && this.sessions.includes(sessionKey)) queued.onDurable.push(() => delivery.ack());
    else delivery.ack();
  }
}

/** The gateway's connection id of a connection of the node (OpenClaw's is a UUID per socket). */
function connectionId(connection: number): string {
  return `conn-${connection}`;
}
