// What the model needs from the world besides the process ports: the LLM API, the deployed config generation, and
// how the runner opens transcripts. Its own module so that the runner and the turn can name it without importing the
// module that builds the model (which imports them).
import type { HeartbeatWakesPort, WakeHandler } from './heartbeat-wake.ts';
import type { Delivery, LlmApi, ProcessContext } from './ports.ts';
import type { NodeEvent } from './protocol.ts';
import type { SessionManagerFactory } from './session-manager-port.ts';
import type { SystemEventQueuePort } from './system-events.ts';

/**
 * Parts of the gateway that may be a real release's instead of the model's (sim/real, `--openclaw`). Each factory is
 * called once per gateway incarnation, so a real module's state is as fresh as the model's after a restart.
 */
export interface GatewayParts {
  /** The per-session system-event queue; `lastTextOnlyDedupe` is the model's seed-000 switch (a real queue has its own rule). */
  systemEvents?: (ctx: ProcessContext, lastTextOnlyDedupe: boolean) => SystemEventQueuePort;
  /** The heartbeat wakes, running `handler` (the model's heartbeat runner) for each wake. */
  heartbeatWakes?: (ctx: ProcessContext, timers: { coalesceMs: number; retryMs: number }, handler: WakeHandler) => HeartbeatWakesPort;
  /** Node-event ingestion in place of the gateway's own, given the queue and wakes this incarnation built and its sessions. */
  nodeEvents?: (ctx: ProcessContext, gateway: { events: SystemEventQueuePort; wakes: HeartbeatWakesPort; sessions: readonly string[] }) => NodeEventsPort;
}

/** Node-event ingestion: takes one `node.event` delivery (and acknowledges it when it is done with it). */
export interface NodeEventsPort {
  onNodeEvent(delivery: Delivery<NodeEvent>): Promise<void>;
}

/** What the model needs from the world besides the process ports. */
export interface ModelEnvironment {
  llm: LlmApi;
  /** The deployed config generation; cached agents built for another generation are stale. */
  configGeneration(): number;
  /** Opens the runner's transcripts; default the model's own SessionManager (sim/real hands in the real pi one). */
  sessionManagerFactory?: SessionManagerFactory;
  /** Gateway parts run as a real release's (sim/real); the model's own where absent. */
  gatewayParts?: GatewayParts;
}
