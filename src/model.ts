// Wiring: the processes of the system under test (gateway, tool server, runner, node host) and the node host's
// command entry that the workload drives. The world (platform, LLM API, deployed config) is built outside src/ and
// reaches the model only through the ports it is handed: the LLM API and a reader of the deployed config generation.
import { type ModelConfig } from './config.ts';
import { gatewayMain } from './gateway.ts';
import { NodeHost } from './node-host.ts';
import type { LlmApi, ProcessMain } from './ports.ts';
import { gatewayName, nodeHostName } from './protocol.ts';
import { runnerMain, runnerName } from './runner.ts';
import type { SessionManagerFactory } from './session-manager-port.ts';
import { toolServerMain, toolServerName } from './tool-server.ts';

export { nodeHostName };

/** What the model needs from the world besides the process ports. */
export interface ModelEnvironment {
  llm: LlmApi;
  /** The deployed config generation; cached agents built for another generation are stale. */
  configGeneration(): number;
  /** Opens the runner's transcripts; default the model's own SessionManager (sim/real hands in the real pi one). */
  sessionManagerFactory?: SessionManagerFactory;
}

export interface LinkSpec {
  from: string;
  to: string;
  reconnecting: boolean;
}

export interface BuiltModel {
  config: ModelConfig;
  /** The node host's command entry (a workload event asks it to run a command). */
  nodeHost: NodeHost;
  /** Start order matters only for the trace; every process tolerates the others being down. */
  processes: { name: string; main: ProcessMain }[];
  links: LinkSpec[];
}

export function buildModel(config: ModelConfig, env: ModelEnvironment): BuiltModel {
  const nodeHost = new NodeHost('node-1', gatewayName);
  return {
    config,
    nodeHost,
    processes: [
      { name: gatewayName, main: (ctx) => gatewayMain(ctx, config) },
      { name: toolServerName, main: (ctx) => toolServerMain(ctx, config.bugs) },
      { name: runnerName, main: (ctx) => runnerMain(ctx, config, env) },
      { name: nodeHostName, main: (ctx) => nodeHost.main(ctx) },
    ],
    links: [
      { from: nodeHostName, to: gatewayName, reconnecting: true },
      { from: gatewayName, to: nodeHostName, reconnecting: true },
    ],
  };
}
