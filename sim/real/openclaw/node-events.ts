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
import type { Delivery, ProcessContext } from '../../../src/ports.ts';
import type { NodeEvent } from '../../../src/protocol.ts';
import type { NodeEventsPort } from '../../../src/environment.ts';
import { assert } from '../../kernel/assert.ts';
import { openclawComponents } from './components.ts';
import type { RealSystemEventQueue } from './gateway-parts.ts';
import type { OpenclawInstance } from './instance.ts';

type HandleNodeEvent = (ctx: object, nodeId: string, event: { event: string; payloadJSON: string }) => Promise<unknown>;

export class RealNodeEvents implements NodeEventsPort {
  private readonly handle: HandleNodeEvent;
  private readonly context: object;

  constructor(
    instance: OpenclawInstance,
    private readonly ctx: ProcessContext,
    private readonly queue: RealSystemEventQueue,
    private readonly sessions: readonly string[],
  ) {
    const { sourceFile, functions } = openclawComponents['node-events'].sources[instance.release];
    this.handle = instance.function<HandleNodeEvent>(sourceFile, functions[0] ?? 'handleNodeEvent');
    this.context = new Proxy(
      {},
      {
        get: (_target, key) => {
          if (typeof key === 'symbol' || key === 'then') return undefined;
          instance.binding.escaped(`handleNodeEvent's context ${key} (the adapter gives none)`);
          throw new Error(`gatesim: handleNodeEvent's context ${key} is not simulated`);
        },
      },
    );
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
    // The release enqueues synchronously inside the call (before its first await): adopt before anything else runs.
    const handled = this.handle(this.context, event.nodeId, { event: event.event, payloadJSON });
    const queued = this.queue.adoptEnqueued(sessionKey, before);
    await handled;
    this.ctx.note('system-event', { session: sessionKey, run: event.runId, event: event.event, queued: queued !== undefined, release: true });
    if (queued !== undefined && this.sessions.includes(sessionKey)) queued.onDurable.push(() => delivery.ack());
    else delivery.ack();
  }
}
